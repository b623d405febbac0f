"""A network's tuning tasks under a search policy: the anchors (`graph.extract`) and, with the
sketch and auto policies, every other kernel the network runs.

The non-anchor tasks come from the compiler's own lowering, run without generating code
(`op_tasks`): each is exactly the `Task` the compiler calls, in the physical shapes and
layouts the network holds its values in (a pool in its input's channel block, an add of two
NCHW16c tensors, the layout transform at the input), so the kernel measured while tuning is
the kernel the network runs, and the compiler applies the best record to it
(`_Lowering.call_default`). A task's weight is how often the network calls it. Any op the
compiler lowers through `call_default` becomes a candidate, so a new graph op needs nothing
here.

Which candidates become tasks: those with a visible share of the network's estimated time.
A kernel's cost is estimated as FLOPs plus `FLOPS_PER_BYTE` per byte it reads and writes
(light ops are memory-bound; a core computes about this many FLOPs in the time it moves a
byte), and a candidate is kept when its weighted cost is at least `MIN_SHARE` of the whole
network's (anchors counted by FLOPs). The threshold keeps the scheduler's warm-up (every task
gets measured at least once) from spending a small budget on kernels that cannot move the
end-to-end time: resnet-18's 2 KB global pool, a 4 KB output copy. Output copies (`copy`) are
never tasks. Under `auto`, a task searched with its template needs more than one config.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from tunefarm.backends import canonical, check_networks, registry
from tunefarm.compiler.network import _Lowering
from tunefarm.graph.extract import NetworkTask, extract_tasks, for_target
from tunefarm.graph.ir import Graph
from tunefarm.graph.passes import optimize
from tunefarm.measure.types import Config
from tunefarm.task import Task, TaskError
from tunefarm.tune.policy import check_policy, uses_sketch

FLOPS_PER_BYTE = 8.0
MIN_SHARE = 0.002  # of the network's estimated cost
SKIPPED_OPS = ("copy",)  # an output copied out of a view: nothing to schedule
SELECTING_OPS = ("gather", "slice")  # read only the input elements they write


class _Survey(_Lowering):
    """The network compiler's lowering without code: every non-anchor kernel call is
    recorded (task -> the nodes that call it), nothing is generated or packed."""

    def __init__(self, graph: Graph, target: str):
        super().__init__(graph, target, None, None, {})
        self.found: dict[Task, list[str]] = {}

    def choose_op(self, task: Task, label: str | None = None) -> Config:
        where = ":".join(([self.node.name] if self.node else []) + ([label] if label else []))
        self.found.setdefault(task, []).append(where or "graph")
        return super().choose_op(task, label)

    def call(self, task: Task, config: Config, args: list[str], label: str | None = None) -> None:
        pass  # the survey only needs which kernels run, not their code

    def param(
        self, value: str, pack: Callable[[np.ndarray], np.ndarray] | None = None, key: str = ""
    ) -> str:
        if (value, key) not in self.packed:  # a placeholder buffer: weights are not packed
            array = self.g.params[value]
            shape = array.shape
            if pack is not None:  # the packed shape (a per-channel constant read blocked is
                # [1, C/b, 1, b]), packing zeros of one element seen at the param's shape
                shape = np.shape(pack(np.broadcast_to(np.zeros(1, array.dtype), shape)))
            self.packed[(value, key)] = self.new_buffer(shape, str(array.dtype), "param")
        return self.packed[(value, key)]


def op_tasks(graph: Graph, target: str, optimized: bool = True) -> list[NetworkTask]:
    """Every distinct non-anchor kernel the compiled network runs, in order of first call,
    weighted by its calls (output copies left out). `graph` as `compile_graph` takes it."""
    check_networks(target)
    if not optimized:
        graph = optimize(graph)
    graph = for_target(graph, target)
    survey = _Survey(graph, canonical(target))
    survey.bind_inputs()
    for node in graph.nodes:
        survey.lower(node)
    survey.bind_outputs()
    return [
        NetworkTask(task, len(nodes), tuple(nodes), registry.flops(task))
        for task, nodes in survey.found.items()
        if task.op not in SKIPPED_OPS
    ]


def kernel_bytes(task: Task) -> int:
    """Bytes a kernel of `task` reads and writes once: its arguments' sizes, except that a
    selecting op (SELECTING_OPS: a gather, a slice) reads no more of an input than it writes
    (bert-tiny's embedding gather reads 64 KB of its 15.6 MB table; counting the table made
    it 44% of the network's estimated cost against 0.07% measured)."""
    kdef = registry.base_kernel(task)

    def size(t) -> int:
        return math.prod(t.shape) * np.dtype(t.dtype).itemsize

    written = sum(size(t) for t in kdef.outputs)
    read = [size(t) for t in kdef.inputs]
    if task.op in SELECTING_OPS:
        read = [min(b, written) for b in read]
    return written + sum(read)


def estimated_cost(task: NetworkTask) -> float:
    """A light op's weighted cost in FLOP units: FLOPs plus `FLOPS_PER_BYTE` per byte."""
    return task.weight * (task.flops + FLOPS_PER_BYTE * kernel_bytes(task.task))


def tunable(task: Task, policy: str) -> str | None:
    """Why `task` cannot be tuned under `policy`, or None when it can."""
    try:
        if uses_sketch(policy, task):
            sketches, _ = registry.sketches(task)
            return None if sketches else "no sketch"
        if len(registry.config_space(task)) <= 1:
            return "a single config"
    except (TaskError, ValueError) as exc:
        return str(exc)
    return None


def network_tasks(
    graph: Graph, target: str, policy: str = "template", min_share: float = MIN_SHARE
) -> list[NetworkTask]:
    """The tasks a network job tunes under `policy`: the anchor tasks (as `extract_tasks`
    gives them; all there is under the template policy) and, under sketch and auto, the
    non-anchor kernels whose share of the estimated cost is at least `min_share`. `graph`
    should be optimised."""
    check_policy(policy)
    anchors = extract_tasks(graph, target)
    if policy == "template":
        return anchors
    ops = op_tasks(graph, target)
    firsts = {t.group: t for t in reversed(anchors)}  # alternatives count once
    total = sum(t.weight * t.flops for t in firsts.values())
    costs = [estimated_cost(t) for t in ops]
    total += sum(costs)
    out = list(anchors)
    known = {t.task for t in anchors}  # attention is extracted and called by default
    for t, cost in zip(ops, costs, strict=True):
        if t.task in known:
            continue
        if cost >= min_share * total and tunable(t.task, policy) is None:
            out.append(NetworkTask(t.task, t.weight, t.nodes, t.flops, len(out)))
    return out


def is_op_task(task: NetworkTask) -> bool:
    """Whether a network task is a non-anchor kernel (anchors: conv2d, dense and their
    alternatives, which carry a weight, and the fused attention, extracted as they are)."""
    return "weight" not in task.task.args and task.task.op != "attention"


def op_share(tasks: list[NetworkTask]) -> float:
    """The non-anchor tasks' share of the estimated cost of all `tasks` (anchors by FLOPs,
    a group of alternatives once; non-anchor kernels by `estimated_cost`)."""
    anchors = {t.group: t.weight * t.flops for t in reversed(tasks) if not is_op_task(t)}
    ops = sum(estimated_cost(t) for t in tasks if is_op_task(t))
    total = sum(anchors.values()) + ops
    return ops / total if total else 0.0
