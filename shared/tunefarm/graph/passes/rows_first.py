"""A pick of a few rows (constant indices) moves up through the row-wise ops before it, so
they compute only the picked rows.

torchvision's ViT classifies from the class token alone: `x[:, 0]` after the encoder's last
layer norm. Everything of the last layer after its attention works row by row (the
out-projection, the residual adds, both layer norms, the MLP's two denses and its GELU), so
only row 0 of each is ever read: 9 of the network's 144 dense FLOP units per layer-equivalent
(the out-projection and the MLP of one layer: 6% of vit_b_16's dense work) computed for
nothing. ONNX Runtime computes them.

Rows are counted in a value's leading axes: a gather on axis `a` of a [L.., R, C..] tensor
picks, of the T = L x R rows (the product of the axes up to `a`), those whose index along
`a` is in the indices. A value's shape carries the same rows when its leading axes multiply
to T at some axis `r` and the axes before `r` multiply to a divisor of L (so [1, 197, 768],
[197, 768] and [197, 1, 768] are the same 197 rows; at batch 8 [1576, 768] and [8, 197,
768] are). A node is row-wise when each of its outputs' rows depends on the same rows of
its inputs and on nothing else of them: elementwise ops (inputs of the output's shape, or
broadcast operands constant across the rows), layer norm over the axes after the rows, a
dense (its data and residual rows), reshapes between shapes that carry the rows, and
transposes that move only axes of size 1 (the same memory). A node moves only when every
reader of its output is the pick or a node that moved; where a moved node reads a value
that is not moved (an attention's output, a value other nodes read, a graph input), the
rows are picked there by a small gather.
"""

from __future__ import annotations

import math

import numpy as np

from tunefarm.graph.ir import Graph, Node, Value

UNARY = frozenset(
    "relu sigmoid silu hard_swish leaky_relu clip hard_sigmoid erf tanh sqrt square gelu".split()
)
BINARY = frozenset(("add", "sub", "mul", "div", "where"))


class _Rows:
    """The picked rows: `lead` (L) x `rows` (R) rows, of which `index` along R are kept."""

    def __init__(self, lead: int, rows: int, index: np.ndarray) -> None:
        self.lead, self.rows, self.index = lead, rows, index

    def axis(self, shape: tuple[int, ...]) -> int | None:
        """The axis at which `shape`'s leading axes hold exactly the rows, or None."""
        total = self.lead * self.rows
        for ax in range(len(shape)):
            before = math.prod(shape[:ax])
            if before * shape[ax] == total and self.lead % before == 0:
                return ax
            if before * shape[ax] > total:
                return None
        return None

    def picked(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        ax = self.axis(shape)
        assert ax is not None
        return (*shape[:ax], shape[ax] // self.rows * len(self.index), *shape[ax + 1 :])


def _row_inputs(g: Graph, node: Node, rows: _Rows) -> list[str] | None:
    """The inputs whose rows `node` reads row by row (None: the node is not row-wise)."""
    out = g.shape(node.outputs[0])
    ax = rows.axis(out)
    if ax is None or len(node.outputs) != 1 or g.value(node.outputs[0]).dtype != "float32":
        return None
    if node.op in UNARY or node.op in BINARY:
        return _elementwise(g, node, out, ax)
    if node.op == "layer_norm":
        x = g.shape(node.inputs[0])
        return [node.inputs[0]] if x == out and int(node.attrs["axis"]) % len(x) > ax else None
    if node.op == "dense":
        return _dense(g, node, out)
    if node.op == "reshape":
        return [node.inputs[0]] if rows.axis(g.shape(node.inputs[0])) is not None else None
    if node.op == "transpose":
        return _transpose(g, node, rows)
    return None


def _elementwise(g: Graph, node: Node, out: tuple[int, ...], ax: int) -> list[str] | None:
    picked = []
    for name in node.inputs:
        shape = g.shape(name)
        if shape == out:
            picked.append(name)
            continue
        pad = len(out) - len(shape)  # a broadcast operand: constant across the rows?
        if pad < 0 or any(d != 1 for i, d in enumerate(shape) if i + pad <= ax):
            return None
    return picked


def _dense(g: Graph, node: Node, out: tuple[int, ...]) -> list[str] | None:
    picked = [node.inputs[0]]
    for name in node.inputs[2:]:  # bias (O,) stays; a residual (N, O) is picked
        shape = g.shape(name)
        if shape == out:
            picked.append(name)
        elif len(shape) != 1:
            return None
    return picked


def _transpose(g: Graph, node: Node, rows: _Rows) -> list[str] | None:
    x = g.shape(node.inputs[0])
    moved = [p for p in node.attrs["perm"] if x[p] != 1]
    if moved != sorted(moved) or rows.axis(x) is None:
        return None
    new_x = rows.picked(x)
    if tuple(new_x[p] for p in node.attrs["perm"]) != rows.picked(g.shape(node.outputs[0])):
        return None
    return [node.inputs[0]]


def _sink(g: Graph, node: Node) -> _Rows | None:
    """The rows a gather picks, if it is a pick of a few rows by constant indices."""
    if node.op != "gather" or not g.is_param(node.inputs[1]):
        return None
    data = g.shape(node.inputs[0])
    axis = int(node.attrs["axis"]) % len(data)
    index = np.asarray(g.params[node.inputs[1]]).reshape(-1).astype(np.int64)
    if (
        axis == len(data) - 1
        or index.size >= data[axis]
        or g.value(node.inputs[0]).dtype != "float32"
    ):
        return None
    index = np.clip(np.where(index < 0, index + data[axis], index), 0, data[axis] - 1)
    return _Rows(math.prod(data[:axis]), data[axis], index)


def _movable(g: Graph, sink: Node, rows: _Rows) -> dict[str, list[str]]:
    """Nodes that can compute the picked rows only -> their row inputs (walking the nodes
    backwards, so every reader of a value is decided before its producer)."""
    readers = g.consumers()
    moved: dict[str, list[str]] = {}
    for node in reversed(g.nodes[: g.nodes.index(sink)]):
        if len(node.outputs) != 1 or node.outputs[0] in g.outputs:
            continue
        out = node.outputs[0]
        users = readers.get(out, [])
        if not users or not all(
            u is sink and u.inputs[0] == out or out in moved.get(u.name, ()) for u in users
        ):
            continue
        picked = _row_inputs(g, node, rows)
        if picked is not None:
            moved[node.name] = picked
    return moved


def select_rows_first(graph: Graph) -> Graph:
    """Every pick of a few rows by constant indices (`gather`) moves above the row-wise nodes
    whose rows only it reads; those nodes then compute the picked rows only."""
    g = graph
    for sink in [n for n in graph.nodes if n.op == "gather"]:
        sink = next((n for n in g.nodes if n.name == sink.name), None)
        rows = _sink(g, sink) if sink is not None else None
        if rows is None:
            continue
        moved = _movable(g, sink, rows)
        if moved:
            g = _rewrite(g, sink, rows, moved)
    return g


def _rewrite(graph: Graph, sink: Node, rows: _Rows, moved: dict[str, list[str]]) -> Graph:
    g = graph.copy()
    index = g.add_param(f"{sink.name}/rows", rows.index)
    outputs = {n.outputs[0] for n in g.nodes if n.name in moved}
    picks: dict[str, str] = {}
    nodes: list[Node] = []
    for node in g.nodes:
        if node.name == sink.name:
            nodes.append(
                Node(
                    node.name,
                    "reshape",
                    [node.inputs[0]],
                    list(node.outputs),
                    {"shape": list(g.shape(node.outputs[0]))},
                )
            )
            continue
        if node.name not in moved:
            nodes.append(node)
            continue
        inputs = list(node.inputs)
        for i, name in enumerate(inputs):
            if name in moved[node.name] and name not in outputs:
                if name not in picks:
                    picks[name] = _pick(g, name, rows, index, nodes)
                inputs[i] = picks[name]
        out = node.outputs[0]
        new_shape = rows.picked(g.shape(out))
        g.values[out] = Value(out, new_shape, g.value(out).dtype)
        attrs = dict(node.attrs)
        if node.op == "reshape":
            attrs["shape"] = list(new_shape)
        nodes.append(Node(node.name, node.op, inputs, list(node.outputs), attrs))
    g.nodes = nodes
    return g


def _pick(g: Graph, name: str, rows: _Rows, index: str, nodes: list[Node]) -> str:
    """The picked rows of `name` (a value the moved nodes read but do not make), as new
    nodes appended to `nodes`: reshape to [L, R, C], gather on axis 1, reshape back."""
    shape = g.shape(name)
    width = math.prod(shape) // (rows.lead * rows.rows)
    if g.is_param(name):
        block = g.params[name].reshape(rows.lead, rows.rows, width)[:, rows.index]
        return g.add_param(f"{name}/rows", np.ascontiguousarray(block).reshape(rows.picked(shape)))
    dtype = g.value(name).dtype
    steps = (
        ("reshape", (rows.lead, rows.rows, width), {"shape": [rows.lead, rows.rows, width]}),
        ("gather", (rows.lead, len(rows.index), width), {"axis": 1}),
        ("reshape", rows.picked(shape), {"shape": list(rows.picked(shape))}),
    )
    x = name
    for op, out_shape, attrs in steps:
        y = g.unique_name(f"{name}/rows_{op}")
        g.values[y] = Value(y, tuple(out_shape), dtype)
        inputs = [x, index] if op == "gather" else [x]
        nodes.append(Node(g.unique_name(f"{name}/rows_{op}"), op, inputs, [y], attrs))
        x = y
    return x
