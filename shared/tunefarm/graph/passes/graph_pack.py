"""graph_pack: quantize the body of a CNN to int8 with power-of-two scales and pack it into an
accelerator's blocked layouts (VTA's NCHW1n16c data, OIHW16o16i weights), as the VTA
tutorial's `graph_pack` does; the stem and the head stay float on the CPU.

    packed = graph_pack(graph, PackOptions(blocks=(1, 16, 16)))
    tasks = packed_tasks(packed, "vta")

Where: from the start point, the stem's pooling (the first pool after the first conv), to the
stop point, the last pooling (resnet's global average pool). Between the two every node must
be a conv2d with a bias / residual / ReLU epilogue; anything else is an error naming it.

Why power-of-two scales: the accelerator requantizes in its ALU by an arithmetic shift and a
clip, so every scale must be a power of two. As the tutorial's global-scale mode, every
activation has the scale global_scale / 128 (8.0 -> 1/16); each conv's weights get the
largest power-of-two scale that keeps them within [-127, 127], so its int32 accumulator
(scale s_a * s_w) goes back to s_a by `>> k` where s_w = 2**-k, with the folded batch norm's
bias added before in int32. ReLU is the clip's lower bound 0; a residual add is an int8 add
of two values at the same scale, clipped (`int8_add`, on the CPU).

The result runs on the numpy interpreter like any graph (`graph.packed_ops` are its kernels):
that is the int8 CPU reference a run on the accelerator must equal bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tunefarm.graph.ir import Graph, GraphError, Node
from tunefarm.graph.packed_ops import data_layout, weight_layout
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes
from tunefarm.ir import layouts
from tunefarm.task import Task

# Tuning tasks carry the tutorial's requantization: cycles do not depend on the shift and
# clip values, so the convs of one shape share one task whatever their scales.
TUNING_SHIFT, TUNING_CLIP = 8, (0, 127)
POOLS = ("pool2d", "global_pool2d")


@dataclass(frozen=True)
class PackOptions:
    """blocks: (batch, block_in, block_out) of the accelerator (its hardware config);
    global_scale: the activation range [-g, g], g / 128 a power of two (the tutorial's 8.0)."""

    blocks: tuple[int, int, int] = (1, 16, 16)
    global_scale: float = 8.0

    def activation_shift(self) -> int:
        """k with activation scale 2**-k; GraphError if global_scale / 128 is no power of 2."""
        k = -math.log2(self.global_scale / 128.0)
        if not self.global_scale > 0 or k != round(k):
            raise GraphError(
                f"global_scale {self.global_scale}: the accelerator needs a power-of-two "
                "activation scale global_scale / 128 (e.g. 8.0, 16.0)"
            )
        return int(round(k))


def pack_region(graph: Graph) -> tuple[int, int]:
    """Indices (first, stop) of the nodes to pack: those after the stem's pool, up to (not
    including) the last pool. GraphError if the graph has no such region."""
    nodes = graph.nodes
    convs = [i for i, n in enumerate(nodes) if n.op == "conv2d"]
    pools = [i for i, n in enumerate(nodes) if n.op in POOLS]
    if not convs or not pools:
        raise GraphError(f"graph_pack: graph {graph.name!r} needs a conv2d and a pooling")
    after_stem = [i for i in pools[:-1] if i > convs[0]]  # a stem with no pool: none
    first = after_stem[0] + 1 if after_stem else convs[0] + 1
    stop = pools[-1]
    if stop <= first:
        raise GraphError(
            f"graph_pack: nothing between the stem's pool and the last pool of {graph.name!r}"
        )
    return first, stop


def _weights(node: Node, w: np.ndarray, act_k: int, bias: np.ndarray) -> tuple[np.ndarray, int]:
    """int8 weights at scale 2**-k with the largest k keeping them in [-127, 127] and the bias,
    at the accumulator's scale 2**-(act_k + k), within 2**30 (headroom in the int32 sum)."""
    peak = float(np.abs(w).max())
    k = 31 if peak == 0 else math.floor(math.log2(127.0 / peak))
    top = float(np.abs(bias).max()) if bias.size else 0.0
    while k > 0 and top * 2.0 ** (act_k + k) >= 2.0**30:
        k -= 1
    if not 0 <= k <= 31:
        raise GraphError(f"{node.where()}: weights up to {peak:g} need a shift {k} outside [0, 31]")
    return np.clip(np.rint(w.astype(np.float64) * 2.0**k), -127, 127).astype(np.int8), k


class _Packer:
    def __init__(self, graph: Graph, opts: PackOptions):
        self.src, self.opts = graph, opts
        self.g = graph.copy()
        self.act_k = opts.activation_shift()
        self.nodes: list[Node] = []
        self.packed: dict[str, str] = {}  # float value -> its packed int8 value
        b, bi, bo = opts.blocks
        self.data_in, self.data_out = data_layout(b, bi), data_layout(b, bo)
        self.wlayout = weight_layout(bo, bi)

    def add(self, name: str, op: str, inputs: list[str], output: str, **attrs) -> str:
        self.nodes.append(Node(self.g.unique_name(name), op, inputs, [output], attrs))
        return output

    def enter(self, value: str) -> str:
        """The packed int8 value of float `value` (quantize and pack where the region starts)."""
        if value not in self.packed:
            q = self.g.unique_name(f"{value}.i8")
            self.add(f"{value}.quantize", "quantize", [value], q,
                     scale=2.0**-self.act_k, zero_point=0, dtype="int8")  # fmt: skip
            p = self.g.unique_name(f"{value}.i8p")
            self.add(f"{value}.pack", "layout_transform", [q], p, src="NCHW", dst=self.data_in)
            self.packed[value] = p
        return self.packed[value]

    def leave(self, value: str) -> None:
        """Unpack and dequantize a packed value back to float `value` (where the region ends)."""
        q = self.g.unique_name(f"{value}.i8")
        self.add(f"{value}.unpack", "layout_transform", [self.packed[value]], q,
                 src=self.data_out, dst="NCHW")  # fmt: skip
        self.add(f"{value}.dequantize", "dequantize", [q], value, scale=2.0**-self.act_k,
                 zero_point=0)  # fmt: skip

    def conv(self, node: Node) -> None:
        a, g = node.attrs, self.g
        epi = list(a.get("epilogue", []))
        o, c = g.shape(node.inputs[1])[:2]
        _, bi, bo = self.opts.blocks
        why = None
        if a.get("groups", 1) != 1 or list(a.get("dilation", [1, 1])) != [1, 1]:
            why = "grouped or dilated"
        elif c % bi or o % bo:
            why = f"channels {c} -> {o} are not multiples of the blocks {bi}, {bo}"
        elif epi not in _EPILOGUES:
            why = f"epilogue {epi} has no packed form"
        if why:
            raise GraphError(f"graph_pack: {node.where()}: {why}")
        bias = g.params[node.inputs[2]] if "bias" in epi else np.zeros(o, np.float32)
        wq, k = _weights(node, g.params[node.inputs[1]], self.act_k, bias)
        bias_q = np.rint(bias.astype(np.float64) * 2.0 ** (self.act_k + k)).astype(np.int32)
        ins = [
            self.enter(node.inputs[0]),
            g.add_param(f"{node.name}.weight_packed", layouts.transform(wq, "OIHW", self.wlayout)),
            g.add_param(f"{node.name}.bias_q", bias_q),
        ]
        relu = (0, 127) if "relu" in epi else (-128, 127)
        out = node.outputs[0]
        conv_out = g.unique_name(f"{out}.i8p")
        attrs = dict(
            strides=list(a.get("strides", [1, 1])), padding=list(a.get("padding", [0] * 4))
        )
        if "residual" in epi:
            self.add(node.name, "conv2d_packed", ins, conv_out, **attrs, shift=k, clip=[-128, 127])
            res = self.enter(node.inputs[3 if "bias" in epi else 2])
            final = g.unique_name(f"{out}.sum.i8p")
            self.add(f"{node.name}.residual", "int8_add", [conv_out, res], final, clip=list(relu))
            self.packed[out] = final
        else:
            self.add(node.name, "conv2d_packed", ins, conv_out, **attrs, shift=k, clip=list(relu))
            self.packed[out] = conv_out

    def run(self) -> Graph:
        first, stop = pack_region(self.src)
        nodes = self.src.nodes
        # only the nodes kept reserve their names: a packed conv keeps its float conv's name
        self.g.nodes = list(nodes[:first]) + list(nodes[stop:])
        self.nodes = list(nodes[:first])
        for node in nodes[first:stop]:
            if node.op != "conv2d":
                raise GraphError(
                    f"graph_pack: {node.where()} lies between the start and stop points; only "
                    "conv2d (with bias / residual / relu) can be packed"
                )
            self.conv(node)
        inside = {o for n in nodes[first:stop] for o in n.outputs}
        needed = {v for n in nodes[stop:] for v in n.inputs} | set(self.src.outputs)
        for value in sorted(inside & needed):
            self.leave(value)
        self.nodes += nodes[stop:]
        self.g.nodes = self.nodes
        return eliminate_dead_code(infer_shapes(self.g))


_EPILOGUES = ([], ["bias"], ["relu"], ["bias", "relu"], ["bias", "residual"], ["residual"])
_EPILOGUES += (["bias", "residual", "relu"], ["residual", "relu"])


def graph_pack(graph: Graph, opts: PackOptions = PackOptions()) -> Graph:
    """The graph with its body quantized to int8 (power-of-two scales) and packed into
    `conv2d_packed` / `int8_add` nodes; the stem and head unchanged, in float."""
    return _Packer(graph, opts).run()


def node_task(graph: Graph, node: Node, target: str) -> Task:
    """The task that runs one conv2d_packed node, in logical params (its own shift and clip)."""
    nb, icb, h, w, bn, bi = graph.shape(node.inputs[0])
    ocb, _, kh, kw, bo, _ = graph.shape(node.inputs[1])
    a = node.attrs
    return Task.make(
        "conv2d_packed",
        target=target,
        data=[nb * bn, icb * bi, h, w],
        weight=[ocb * bo, icb * bi, kh, kw],
        strides=[int(v) for v in a.get("strides", [1, 1])],
        padding=[int(v) for v in a.get("padding", [0, 0, 0, 0])],
        shift=int(a["shift"]),
        clip=[int(v) for v in a["clip"]],
        bias=True,
    )


def tuning_task(task: Task) -> Task:
    """The task a node's configs are tuned on: its shapes with the tutorial's shift and clip
    (cycles do not depend on them, so equal shapes share one task)."""
    args = {**task.args, "shift": TUNING_SHIFT, "clip": list(TUNING_CLIP)}
    return Task.make(task.op, target=task.target, **args)


def packed_tasks(graph: Graph, target: str) -> list[tuple[Task, int]]:
    """The distinct tuning tasks of a packed graph's conv2d_packed nodes, with how many nodes
    each runs, in first-use order."""
    counts: dict[str, list] = {}
    for node in graph.nodes:
        if node.op == "conv2d_packed":
            task = tuning_task(node_task(graph, node, target))
            counts.setdefault(task.workload_key, [task, 0])[1] += 1
    return [(task, n) for task, n in counts.values()]
