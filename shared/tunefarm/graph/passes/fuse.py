"""Epilogue fusion: an anchor op (conv2d, dense) absorbs the elementwise ops that follow it
(per-channel bias or scale, residual add, activation) so they run as the anchor's output
tile is stored, instead of as separate passes over memory.

The anchor's `epilogue` attr lists what it absorbed in order (spec strings of
`tunefarm.ir.ops.epilogue`); its extra inputs follow `epilogue_inputs` order (bias, then
residual). A node is absorbed only if it is the anchor's single reader and the anchor's
value is not a graph output. The fused node takes the place of the last node it absorbed,
which keeps the node list topologically ordered (a residual may be computed after the
anchor).
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, Node

ANCHORS = ("conv2d", "dense")
# The longest epilogue fused into one anchor. Real networks fuse bias, residual and one
# activation; without a cap a chain of thousands of activations after one conv became one
# epilogue expression thousands deep (quadratic fusion, then a RecursionError in codegen).
MAX_EPILOGUE = 8


def _fmt(x: float) -> str:
    return repr(float(x))


ACTIVATIONS = {
    "relu": lambda a: "relu",
    "sigmoid": lambda a: "sigmoid",
    "silu": lambda a: "silu",
    "hard_swish": lambda a: "hard_swish",
    "clip": lambda a: f"clip:{_fmt(a['lo'])}:{_fmt(a['hi'])}",
    "leaky_relu": lambda a: f"leaky_relu:{_fmt(a['alpha'])}",
    "gelu": lambda a: "gelu",
}


def _per_channel(g: Graph, const: str, out_shape: tuple[int, ...]) -> np.ndarray | None:
    """The constant as one value per output channel (axis 1), if it broadcasts that way."""
    array = g.params[const]
    if array.ndim > len(out_shape):
        return None
    padded = (1,) * (len(out_shape) - array.ndim) + array.shape
    if any(d != 1 for i, d in enumerate(padded) if i != 1) or padded[1] not in (1, out_shape[1]):
        return None
    return np.broadcast_to(array.reshape(-1), (out_shape[1],)).astype(np.float64)


class _Fuser:
    def __init__(self, graph: Graph) -> None:
        self.g = graph
        self.readers = graph.consumers()
        self.absorbed: set[str] = set()

    def next_reader(self, anchor: Node) -> Node | None:
        """The anchor's single reader, unless another anchor already absorbed it (an add
        whose two operands are both anchors is absorbed by the first)."""
        out = anchor.outputs[0]
        users = self.readers.get(out, [])
        if len(users) != 1 or out in self.g.outputs or users[0].name in self.absorbed:
            return None
        return users[0]

    def absorb(self, anchor: Node, node: Node) -> bool:
        """Fold `node` into `anchor` if it is an epilogue step; True if it did."""
        out = anchor.outputs[0]
        epilogue = list(anchor.attrs.get("epilogue", []))
        if len(epilogue) >= MAX_EPILOGUE:
            return False
        if node.op in ACTIVATIONS and node.inputs[0] == out:
            epilogue.append(ACTIVATIONS[node.op](node.attrs))
        elif node.op in ("add", "mul") and len(node.inputs) == 2 and node.inputs.count(out) == 1:
            other = node.inputs[1] if node.inputs[0] == out else node.inputs[0]
            if not self._absorb_binary(anchor, node.op, other, epilogue):
                return False
            epilogue = list(anchor.attrs["epilogue"])
        else:
            return False
        anchor.attrs["epilogue"] = epilogue
        anchor.outputs = list(node.outputs)
        return True

    def _absorb_binary(self, anchor: Node, op: str, other: str, epilogue: list[str]) -> bool:
        g = self.g
        out_shape = g.shape(anchor.outputs[0])
        if g.is_param(other):
            per_channel = _per_channel(g, other, out_shape)
            if per_channel is None or epilogue not in ([], ["bias"]):
                return False
            self._fold_affine(anchor, per_channel, op)
            return True
        if op != "add" or "residual" in epilogue or g.shape(other) != out_shape:
            return False
        if g.value(other).dtype != g.value(anchor.outputs[0]).dtype:
            return False
        anchor.inputs = [*anchor.inputs, other]
        anchor.attrs["epilogue"] = [*epilogue, "residual"]
        return True

    def _fold_affine(self, anchor: Node, per_channel: np.ndarray, op: str) -> None:
        """bias += c (add) or weight, bias *= c (mul); the epilogue becomes ["bias"]."""
        g = self.g
        weight = g.params[anchor.inputs[1]]
        o = weight.shape[0]
        bias = g.params[anchor.inputs[2]].astype(np.float64) if len(anchor.inputs) > 2 else None
        if bias is None:
            bias = np.zeros(o)
        if op == "mul":
            shape = (-1,) + (1,) * (weight.ndim - 1)
            new_w = (weight.astype(np.float64) * per_channel.reshape(shape)).astype(weight.dtype)
            anchor.inputs[1] = g.add_param(f"{anchor.name}.weight_scaled", new_w)
            bias = bias * per_channel
        else:
            bias = bias + per_channel
        name = g.add_param(f"{anchor.name}.bias_fused", bias.astype(weight.dtype))
        anchor.inputs = [anchor.inputs[0], anchor.inputs[1], name]
        anchor.attrs["epilogue"] = ["bias"]


def fuse_epilogues(graph: Graph) -> Graph:
    g = graph.copy()
    fuser = _Fuser(g)
    anchor_at: dict[str, Node] = {}  # name of the last absorbed node -> fused anchor
    moved: set[str] = set()
    for node in g.nodes:
        if node.op not in ANCHORS:
            continue
        last = None
        while (reader := fuser.next_reader(node)) is not None and fuser.absorb(node, reader):
            fuser.absorbed.add(reader.name)
            last = reader
        if last is not None:
            anchor_at[last.name] = node
            moved.add(node.name)
    nodes: list[Node] = []
    for node in g.nodes:
        if node.name in anchor_at:
            nodes.append(anchor_at[node.name])
        elif node.name not in fuser.absorbed and node.name not in moved:
            nodes.append(node)
    g.nodes = nodes
    return g
