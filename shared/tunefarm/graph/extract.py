"""Task extraction: one tuning task per distinct fused anchor (conv2d, dense) and per
distinct fused attention of an optimised graph, weighted by how often it occurs.

The task carries the anchor's whole fused subgraph (shapes, attributes and epilogue), as in
the auto-scheduler, so the kernel measured while tuning is exactly the one the network runs.
Pools, transforms and other light ops are compiled with their default schedules and are not
tuned under the template policy: together they take a few percent of a CNN's time. Under the
sketch and auto policies they become tasks too (`tunefarm.compiler.tasks.network_tasks`,
from the compiler's own lowering, a layer above this one).

Which tasks run a node is the target's backend's layout policy (`Backend.anchor_variants`):
it pins the task to the layout the network keeps, and may add alternative tasks, other
algorithms for the same computation in the same layouts (on CPUs a 3x3 stride-1 conv is also
a `conv2d_winograd` task, as AutoTVM extracts one task per implementation). Each alternative
is tuned; the compiler runs a node with the alternative whose best record is fastest
(`choose_alternative`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from tunefarm.backends import check_networks, parse_target, registry
from tunefarm.graph.ir import Graph, Node
from tunefarm.graph.passes import (
    eliminate_dead_code,
    fuse_channel_affine,
    pool_before_pointwise_conv,
    split_bands,
    unfuse_attention,
)
from tunefarm.graph.quant_ops import qconv_task
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest

TUNABLE_OPS = ("conv2d", "dense")


def logical_task(graph: Graph, node: Node, target: str) -> Task:
    """The task of a conv2d or dense node in logical layouts and canonical params (so equal
    workloads get equal workload keys however the model spelled them)."""
    a = node.attrs
    data, weight = graph.shape(node.inputs[0]), graph.shape(node.inputs[1])
    epilogue = [str(e) for e in a.get("epilogue", [])]
    if node.op == "dense":
        return Task.make("dense", target=target, data=data, weight=weight, epilogue=epilogue)
    return Task.make(
        "conv2d",
        target=target,
        data=data,
        weight=weight,
        strides=[int(v) for v in a.get("strides", (1, 1))],
        padding=[int(v) for v in a.get("padding", (0, 0, 0, 0))],
        dilation=[int(v) for v in a.get("dilation", (1, 1))],
        groups=int(a.get("groups", 1)),
        epilogue=epilogue,
    )


def for_target(graph: Graph, target: str) -> Graph:
    """`graph` as `target` runs it (models are optimised before the target is known): on
    CPUs, convs that mostly read padding split into padding-free bands (not earlier: the
    quantizer, graph_pack and the QDQ exporter take whole convs), an average pool after a
    1x1 conv moved before it (`pool_before_pointwise_conv`), and per-channel
    multiply-add(-relu) chains as one `channel_affine` node (the GPU backends have no
    kernel for it); elsewhere, fused attentions written out again where the backend has
    no attention kernel."""
    kind = parse_target(target).kind
    if kind == "cpu":
        graph = fuse_channel_affine(pool_before_pointwise_conv(split_bands(graph)))
        graph = eliminate_dead_code(graph)
    if "attention" in registry.ops(kind):
        return graph
    return unfuse_attention(graph)


def attention_task(graph: Graph, node: Node, target: str) -> Task:
    """The task of an `attention` node: its operands' shapes, scale and layouts (the same
    task the network compiler calls, so a record of it is applied)."""
    shapes = [graph.shape(v) for v in node.inputs]
    mask = {"mask": shapes[3]} if len(shapes) > 3 else {}
    layouts = {k: str(v) for k, v in node.attrs.items() if k.endswith("_layout")}
    return Task.make(
        "attention",
        target=target,
        q=shapes[0],
        k=shapes[1],
        v=shapes[2],
        **mask,
        scale=float(node.attrs["scale"]),
        **layouts,
    )


def anchor_alternatives(graph: Graph, node: Node, target: str) -> list[Task]:
    """The tasks that can compute an anchor node on `target`, the default algorithm first
    (an int8 conv, `qconv2d`, has one: `conv2d_int8`)."""
    if node.op == "qconv2d":
        return registry.anchor_variants(qconv_task(graph.shape, node, target))
    if node.op == "attention":
        return [attention_task(graph, node, target)]
    return registry.anchor_variants(logical_task(graph, node, target))


def choose_alternative(
    alternatives: list[Task],
    history: ApplyHistoryBest | None,
    device_key: str | None = None,
    given: Collection[Task] = (),
) -> Task:
    """The task that runs a node: one whose config is `given` (in-network selection chose
    it), else the alternative whose best record is fastest, else the one the backend runs
    untuned (`registry.untuned_variant`: on CPU the Winograd conv where it beats the direct
    one at default configs, see `backends.cpu.layout`).

    Records are compared only with records: while the untuned alternative has none (a
    search still in its first round, which reaches a group's members one after the other),
    it stays, since its default config's time is unknown and a tuned but slower alternative
    would make the network slower than untuned. Measured (resnet-18, sketch, Zen 4): a 56x56
    direct conv tuned before its Winograd twin ran 1.7x slower in the network than the
    untuned Winograd conv it displaced."""
    for task in alternatives:
        if task in given:
            return task
    if len(alternatives) == 1:
        return alternatives[0]
    untuned = registry.untuned_variant(alternatives)
    best = {
        t: ranked[0][1]
        for t in alternatives
        if history is not None and (ranked := history.ranked(t, device_key))
    }
    return min(best, key=best.__getitem__) if untuned in best else untuned


@dataclass(frozen=True)
class NetworkTask:
    """A tuning task with its weight (occurrences) and the nodes that run it. `group` is the
    index of the node's first task: alternatives of the same nodes share it."""

    task: Task
    weight: int
    nodes: tuple[str, ...]
    flops: float
    group: int = 0

    def describe(self, graph: Graph) -> str:
        """Shapes and attributes in a line, e.g. conv2d 1x64x56x56 * 64x64x3x3 s1 p1 +bias,relu."""
        a = self.task.args
        if "weight" not in a:  # attention and the non-anchor kernels
            return describe_op(self.task)
        shapes = " * ".join("x".join(str(d) for d in a[k]) for k in ("data", "weight"))
        if self.task.op.startswith("conv2d"):
            extra = f" s{a['strides'][0]} p{a['padding'][0]}"
            if a.get("groups", 1) != 1:
                extra += f" g{a['groups']}"
        else:
            extra = ""
        epilogue = a.get("epilogue", ())
        if self.task.op == "conv2d_int8":  # its epilogue is params, and it is int8
            epilogue = ["bias", *(["residual"] if "residual" in a else [])]
            epilogue += ["relu"] if a.get("relu") else []
            epilogue += [f"requant:{a.get('out_dtype', 'int8')}"]
        epi = f" +{','.join(epilogue)}" if epilogue else ""
        if "blocks" in a:
            epi += " [{}c->{}c]".format(*a["blocks"])
        return f"{self.task.op} {shapes}{extra}{epi}"


def _is_shape(v) -> bool:
    return isinstance(v, tuple) and bool(v) and all(isinstance(d, int) for d in v)


def _show(v) -> str:
    if _is_shape(v):
        return "x".join(str(d) for d in v)
    if isinstance(v, tuple) and v and all(_is_shape(x) for x in v):
        return ",".join(_show(x) for x in v)
    return str(list(v) if isinstance(v, tuple) else v)


SHAPE_PARAMS = ("data", "shape", "shapes", "a", "b")  # the tensors of a non-anchor task


def describe_op(task: Task) -> str:
    """A non-anchor task in a line: its op, its tensors' shapes, then its other params, e.g.
    `pool2d 1x64x112x112 ceil_mode=False ... kind=max ... strides=2x2 block=16`."""
    a = task.args
    shapes = [_show(a[k]) for k in SHAPE_PARAMS if k in a]
    rest = [f"{k}={_show(v)}" for k, v in a.items() if k not in SHAPE_PARAMS]
    return " ".join([task.op, " * ".join(shapes), *rest])


def extract_tasks(graph: Graph, target: str) -> list[NetworkTask]:
    """Tasks in order of first occurrence, each node's alternatives after its first task.
    `graph` should be optimised (passes.optimize) so tasks carry their fused epilogues."""
    check_networks(target)
    graph = for_target(graph, target)
    found: dict[Task, list[str]] = {}
    first: dict[Task, Task] = {}
    for node in graph.nodes:
        if node.op in TUNABLE_OPS or node.op in ("qconv2d", "attention"):
            alternatives = anchor_alternatives(graph, node, target)
            for task in alternatives:
                found.setdefault(task, []).append(node.name)
                first[task] = alternatives[0]
    order = {task: i for i, task in enumerate(found)}
    return [
        NetworkTask(task, len(nodes), tuple(nodes), registry.flops(task), order[first[task]])
        for task, nodes in found.items()
    ]
