"""`tunefarm compile --report`: why a user's model is as fast as it is, in one screen.

For a network and a target it gives:
- the op histogram of the model as imported (ONNX op types) and of the graph the compiler
  lowers (after fusion passes), so a user sees what was folded away;
- what was fused: each anchor op with the epilogue it absorbed (conv2d+bias+relu, ...),
  counted over the graph;
- every distinct kernel the network calls, with the template that schedules it, whether
  that is the backend's generic fallback and why (no template for the op; a grouped conv
  whose channel blocks would split a group), and its estimated share of the network's time;
- in a QDQ model, the convs and dense layers left in float between Q/DQ pairs, and why.

The estimate needs no measurement: a kernel costs the FLOPs its loop nest runs (padding and
a packed grouped conv's zeros included, `executed_flops`) plus `FLOPS_PER_BYTE` per byte
it moves (as the task scheduler's op-task threshold counts it, `compiler.tasks`), and a
generic kernel's FLOPs count `GENERIC_SLOWDOWN` times, since its loop nest is parallel and
vectorised at the innermost axis only, with no register tile (a grouped 3x3 conv measured
0.3 GFLOP/s generic against 15-90 with its template; see docs/users-models.md). It ranks
kernels; it does not predict milliseconds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tunefarm.backends import registry
from tunefarm.compiler.tasks import FLOPS_PER_BYTE, kernel_bytes, op_tasks
from tunefarm.graph.extract import NetworkTask, extract_tasks
from tunefarm.graph.ir import Graph
from tunefarm.ir import tensor as te
from tunefarm.task import Task, TaskError

GENERIC_SLOWDOWN = 10.0
SHOWN_NODES = 3
# Ops whose generic loop nest is the schedule they need (data movement, elementwise): not
# fallbacks, and their FLOPs are not scaled.
MOVEMENT_OPS = frozenset(
    {"layout_transform", "elementwise", "copy", "transpose", "concat", "slice", "pad"}
    | {"channel_shuffle"}
    | {"broadcast_to", "gather", "where", "cast", "split", "reshape"}
)


@dataclass(frozen=True)
class KernelLine:
    """One distinct kernel of the network: what it computes and how it is scheduled."""

    kernel: str  # NetworkTask.describe
    template: str
    generic: bool  # a generic fallback: an op with arithmetic but no template of its own
    why: str  # why the generic fallback ("" otherwise)
    calls: int
    nodes: tuple[str, ...]
    cost: float  # estimated, in FLOP units
    share: float = 0.0


@dataclass
class CompileReport:
    model_ops: dict[str, int]
    graph_ops: dict[str, int]
    fused: dict[str, int]
    kernels: list[KernelLine] = field(default_factory=list)
    stays_float: list[tuple[str, str]] = field(default_factory=list)  # (node, why) in QDQ

    def to_json(self) -> dict[str, Any]:
        return {
            "model_ops": self.model_ops,
            "graph_ops": self.graph_ops,
            "fused": self.fused,
            "kernels": [asdict(k) for k in self.kernels],
            "stays_float": [{"node": n, "why": w} for n, w in self.stays_float],
            "estimate": f"FLOPs + {FLOPS_PER_BYTE:g}/byte, generic FLOPs x{GENERIC_SLOWDOWN:g}",
        }

    def lines(self, top: int = 15) -> list[str]:
        generic = [k for k in self.kernels if k.generic]
        moves = [k for k in self.kernels if k.template == "layout_transform"]
        out = [
            f"model: {sum(self.model_ops.values())} nodes -> graph: "
            f"{sum(self.graph_ops.values())} nodes -> {len(self.kernels)} distinct kernels "
            f"({sum(k.calls for k in self.kernels)} calls)",
            "model ops: " + _histogram(self.model_ops),
            "graph ops: " + _histogram(self.graph_ops),
            "fused: " + (_histogram(self.fused) or "nothing"),
            f"kernels by estimated share of time (FLOPs + {FLOPS_PER_BYTE:g}/byte; generic "
            f"kernels' FLOPs x{GENERIC_SLOWDOWN:g}):",
        ]
        for k in self.kernels[:top]:
            tag = "GENERIC " if k.generic else ""
            out.append(f"  {k.share:6.1%}  x{k.calls:<3} {tag}{k.template:<20} {k.kernel}")
        if len(self.kernels) > top:
            rest = sum(k.share for k in self.kernels[top:])
            out.append(f"  {rest:6.1%}  ({len(self.kernels) - top} more kernels)")
        share = sum(k.share for k in moves)
        out.append(f"layout transforms: {len(moves)} kernels, {share:.1%} of the estimate")
        share = sum(k.share for k in generic)
        out.append(f"generic fallbacks: {len(generic)} kernels, {share:.1%} of the estimate")
        for k in generic:
            where = ", ".join(k.nodes[:SHOWN_NODES]) + (", ..." if len(k.nodes) > 3 else "")
            out.append(f"  {k.kernel} ({where}): {k.why}")
        if self.stays_float:
            out.append(f"float between Q/DQ pairs: {len(self.stays_float)} anchor nodes")
            out += [f"  {node}: {why}" for node, why in self.stays_float]
        return out


def _histogram(counts: dict[str, int]) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))


def model_histogram(model: Any) -> dict[str, int]:
    """ONNX op types of a ModelProto (empty for anything else)."""
    nodes = getattr(getattr(model, "graph", None), "node", None)
    return dict(Counter(n.op_type for n in nodes)) if nodes is not None else {}


def fused_histogram(graph: Graph) -> dict[str, int]:
    """Anchor ops with the epilogue they absorbed, e.g. {"conv2d+bias+relu": 16}, and the
    fused attentions (`graph.passes.attention`: matmul, scale, mask, softmax, matmul)."""
    found: Counter[str] = Counter()
    for node in graph.nodes:
        if node.op == "attention":
            mask = "+mask" if len(node.inputs) > 3 else ""
            found[f"attention(matmul+scale{mask}+softmax+matmul)"] += 1
        epilogue = node.attrs.get("epilogue") or ()
        if epilogue:
            found["+".join([node.op, *(str(e) for e in epilogue)])] += 1
    return dict(found)


def executed_flops(task: Task) -> float:
    """2 x the multiply-adds the default kernel's reductions run, padding included: a
    grouped conv with several groups per vector multiplies zeros, a dense or batch matmul
    computes its last tile's padded rows (0 when the kernel has no reduction)."""
    kdef = registry.base_kernel(task)
    total = 0
    for t in te.ComputeDAG(kdef.outputs, kdef.inputs).compute_stages:
        if t.op.reduce_axes:
            spatial = math.prod(a.extent for a in t.op.axes)
            total += spatial * math.prod(a.extent for a in t.op.reduce_axes)
    return 2.0 * total


def _line(task: NetworkTask, graph: Graph) -> KernelLine:
    try:
        template = registry.template(task.task)
        name = template.op
        generic = bool(getattr(template, "generic", False)) and name not in MOVEMENT_OPS
        moved = kernel_bytes(task.task)
        flops = max(task.flops, executed_flops(task.task))
    except (TaskError, ValueError) as exc:
        return KernelLine(task.describe(graph), "?", True, str(exc), task.weight, task.nodes, 0.0)
    flops *= GENERIC_SLOWDOWN if generic else 1.0
    cost = task.weight * (flops + FLOPS_PER_BYTE * moved)
    why = registry.generic_reason(task.task) if generic else ""
    return KernelLine(task.describe(graph), name, generic, why, task.weight, task.nodes, cost)


FOLDING_EPILOGUE = ("bias", "relu", "clip")  # what graph.passes.qdq folds with a conv
# activations the int8 conv folds between the conv and its QuantizeLinear
FOLDING_ACTIVATIONS = ("relu", "clip", "leaky_relu", "sigmoid", "hard_swish")
FOLDING_NAMES = "Relu, Clip(0, hi), LeakyRelu, Sigmoid or HardSwish"


def stays_float(graph: Graph) -> list[tuple[str, str]]:
    """Anchors of a QDQ model left in float (their data comes from a DequantizeLinear: the
    QDQ fold did not take them), each with the first of `graph.passes.qdq`'s conditions
    its node visibly misses."""
    producers, readers = graph.producers(), graph.consumers()
    out = []
    for node in graph.nodes:
        src = producers.get(node.inputs[0]) if node.inputs else None
        if node.op not in ("conv2d", "dense") or src is None or src.op != "dequantize":
            continue
        out.append((node.name, _float_reason(graph, node, readers)))
    return out


def _float_reason(graph: Graph, node, readers: dict) -> str:
    a = node.attrs
    extra = [e for e in a.get("epilogue", []) if str(e).split(":")[0] not in FOLDING_EPILOGUE]
    if extra:
        return (
            f"epilogue {','.join(map(str, extra))}: only a bias, then one of {FOLDING_NAMES} "
            "before the QuantizeLinear, fold into int8"
        )
    w = graph.shape(node.inputs[1])
    groups = int(a.get("groups", 1))
    if node.op == "conv2d" and groups > 1 and not (w[1] == 1 and groups == w[0]):
        return f"grouped conv ({groups} groups, not depthwise): no int8 grouped kernel"
    if node.op == "dense" and (w[0] % 4 or w[1] % 4):
        return f"dense {w[1]} -> {w[0]}: the int8 matmul packs 4 channels per word"
    users = readers.get(node.outputs[0], [])
    if len(users) != 1:
        return f"its output has {len(users)} readers: the fold needs one QuantizeLinear"
    user = users[0]
    if user.op not in ("quantize", *FOLDING_ACTIVATIONS):
        return (
            f"{user.op} {user.name!r} between it and its QuantizeLinear: only {FOLDING_NAMES} "
            "fold into the int8 epilogue"
        )
    return (
        "not a uint8 per-tensor DequantizeLinear -> conv/dense with symmetric int8 constant "
        "weights (int32 bias) -> [activation] -> one uint8 QuantizeLinear (graph.passes.qdq's "
        "fold rules)"
    )


def running(tasks: Sequence[NetworkTask], runs: Collection[Task] | None) -> list[NetworkTask]:
    """Of each node's alternatives (a 3x3 conv's direct and Winograd tasks), the one its
    compiled plan runs: the one among `runs` (the plan's `CompiledNetwork.choices`), else,
    with no plan or none of them in it, the one an untuned compile runs
    (`registry.untuned_variant`: on CPU, Winograd for a 3x3 conv from 16 in-channels)."""
    groups: dict[int, list[NetworkTask]] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t)
    out = []
    for alternatives in groups.values():
        ran = [t for t in alternatives if runs is not None and t.task in runs]
        if not ran:
            untuned = registry.untuned_variant([t.task for t in alternatives])
            ran = [t for t in alternatives if t.task == untuned]
        out.append(ran[0])
    return out


def compile_report(
    graph: Graph, target: str, model: Any = None, runs: Collection[Task] | None = None
) -> CompileReport:
    """The report of `graph` (optimised, as `tunefarm compile` lowers it) on `target`;
    `model` (the ONNX ModelProto it came from) gives the imported op histogram, `runs` the
    tasks the compiled plan runs (its choices' tasks; None: as an untuned compile would)."""
    anchors = running(extract_tasks(graph, target), runs)
    known = {t.task for t in anchors}  # attention: extracted and called by default
    tasks = [*anchors, *(t for t in op_tasks(graph, target) if t.task not in known)]
    lines = [_line(t, graph) for t in tasks]
    total = sum(k.cost for k in lines) or 1.0
    kernels = sorted(
        (KernelLine(**{**asdict(k), "share": k.cost / total}) for k in lines),
        key=lambda k: -k.cost,
    )
    return CompileReport(
        model_ops=model_histogram(model),
        graph_ops=dict(Counter(n.op for n in graph.nodes)),
        fused=fused_histogram(graph),
        kernels=kernels,
        stays_float=stays_float(graph),
    )
