"""Per-channel affine recognition: `mul(x, s)` then `add(., b)` (then `relu`), with s and b
constants of one value per channel, becomes one `channel_affine` node.

A batch norm that no conv absorbs (DenseNet's, before each conv: BN, ReLU, conv) is
decomposed by `fold_batch_norm` into such a multiply and add; with its ReLU that was three
elementwise kernels, three passes over the activation (densenet121: 7 of its 46 ms). One
`channel_affine` kernel reads x once and writes the result once, in the blocked layout
its producer wrote. When x is a concat along channels that nothing else reads (every
DenseNet layer's input: the block's features so far), the node takes the concat's inputs
and one pass joins and normalises them (densenet121: the concats' 2 ms and the affines'
2 ms become ~2). CPU only (`graph.extract.for_target`): the GPU backends have no kernel
for it.
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, Node


def _per_channel(g: Graph, value: str, shape: tuple[int, ...]) -> np.ndarray | None:
    """The constant `value` as shape [1, C, 1, ...] when it is one value per channel of an
    activation of `shape` (broadcasting so); None otherwise."""
    if not g.is_param(value) or len(shape) < 2:
        return None
    array = g.params[value]
    if array.ndim > len(shape) or array.dtype != np.float32:
        return None
    padded = (1,) * (len(shape) - array.ndim) + array.shape
    if any(d != 1 for i, d in enumerate(padded) if i != 1) or padded[1] not in (1, shape[1]):
        return None
    want = (1, shape[1]) + (1,) * (len(shape) - 2)
    return np.broadcast_to(array.reshape(padded), want)


def _other(node: Node, value: str) -> str | None:
    """The operand of a binary `node` that is not `value` (None unless exactly one is)."""
    if len(node.inputs) != 2 or node.inputs.count(value) != 1:
        return None
    return node.inputs[1] if node.inputs[0] == value else node.inputs[0]


class _Finder:
    def __init__(self, g: Graph) -> None:
        self.g, self.readers, self.producers = g, g.consumers(), g.producers()

    def joined(self, x: str) -> Node | None:
        """The concat along channels that writes `x` and that nothing else reads."""
        cat = self.producers.get(x)
        if cat is None or cat.op != "concat" or len(self.readers.get(x, [])) != 1:
            return None
        rank = len(self.g.shape(x))
        if int(cat.attrs["axis"]) % rank != 1 or x in self.g.outputs:
            return None
        if any(self.g.is_param(v) or self.g.value(v).dtype != "float32" for v in cat.inputs):
            return None
        return cat

    def only_reader(self, value: str, op: str) -> Node | None:
        """The single reader of `value` if it is an `op` node and `value` no graph output."""
        users = self.readers.get(value, [])
        if len(users) != 1 or users[0].op != op or value in self.g.outputs:
            return None
        return users[0]

    def match(self, mul: Node) -> tuple[Node, list[Node]] | None:
        """(fused node, nodes it replaces) for a mul that starts the pattern."""
        g = self.g
        for x, s in (mul.inputs, mul.inputs[::-1]):
            if g.is_param(x) or g.value(x).dtype != "float32":
                continue
            shape = tuple(g.shape(x))
            if g.shape(mul.outputs[0]) != shape:
                continue
            scale = _per_channel(g, s, shape)
            add = self.only_reader(mul.outputs[0], "add")
            shift_name = _other(add, mul.outputs[0]) if add is not None else None
            shift = _per_channel(g, shift_name, shape) if shift_name else None
            if scale is None or shift is None or g.shape(add.outputs[0]) != shape:
                continue
            relu = self.only_reader(add.outputs[0], "relu")
            cat = self.joined(x)
            inputs = [
                *(cat.inputs if cat else [x]),
                g.add_param(f"{mul.name}.affine_scale", scale),
                g.add_param(f"{mul.name}.affine_shift", shift),
            ]
            attrs = {"relu": relu is not None}
            outputs = list((relu or add).outputs)
            fused = Node(mul.name, "channel_affine", inputs, outputs, attrs)
            return fused, [n for n in (cat, add, relu) if n is not None]
        return None


def fuse_channel_affine(graph: Graph) -> Graph:
    """Every `mul(x, scale)` -> `add(., shift)` [-> `relu`] chain, scale and shift constants
    per channel of x and each intermediate read only by the next step, becomes one
    `channel_affine` node (in the mul's place: its inputs are x, or the inputs of the
    channel concat that wrote x, and constants)."""
    g = graph.copy()
    finder = _Finder(g)
    replace: dict[str, Node] = {}
    drop: set[str] = set()
    for node in g.nodes:
        if node.op != "mul" or node.name in drop:
            continue
        found = finder.match(node)
        if found is not None:
            replace[node.name] = found[0]
            drop.update(n.name for n in found[1])
    if not replace:
        return graph
    g.nodes = [replace.get(n.name, n) for n in g.nodes if n.name not in drop]
    return g
