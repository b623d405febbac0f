"""Transformer passes: recognise what exporters spell in pieces, and move a dense layer's
elementwise tail next to it.

- `fuse_layer_norm`: ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div (then Mul by
  gamma and Add of beta, both optional), as PyTorch exports LayerNorm below opset 17,
  becomes one `layer_norm` node: one kernel with a compute definition the tuner can see
  instead of seven passes over memory.
- `fuse_gelu`: x * 0.5 * (1 + erf(x / sqrt 2)), in either multiplication order, becomes one
  `gelu` node (and so a dense epilogue).
- `hoist_through_reshape`: a MatMul of a 3-D activation by a weight imports as reshape to
  rows, dense, reshape back; the bias Add, GELU and residual Add that follow are applied
  before the reshape back instead, on the dense's 2-D output, so epilogue fusion absorbs
  them (a reshape is a free view, the per-row last dim is unchanged).
Each returns a new graph computing the same outputs; replaced nodes are left to dead-code
elimination.
"""

from __future__ import annotations

import math

import numpy as np

from tunefarm.graph.ir import Graph, Node
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes

__all__ = ["fuse_gelu", "fuse_layer_norm", "hoist_through_reshape"]

UNARY = ("relu", "sigmoid", "hard_swish", "leaky_relu", "clip", "gelu", "erf", "tanh")


class _View:
    """Producers, readers and constant lookup of a graph being rewritten."""

    def __init__(self, g: Graph) -> None:
        self.g = g
        self.prod = g.producers()
        self.readers = g.consumers()

    def only_reader(self, value: str, op: str) -> Node | None:
        users = self.readers.get(value, [])
        if len(users) == 1 and users[0].op == op and value not in self.g.outputs:
            return users[0]
        return None

    def made_by(self, value: str, op: str) -> Node | None:
        node = self.prod.get(value)
        return node if node is not None and node.op == op else None

    def scalar(self, value: str) -> float | None:
        if not self.g.is_param(value) or self.g.params[value].size != 1:
            return None
        return float(self.g.params[value].reshape(-1)[0])

    def other(self, node: Node, value: str) -> str | None:
        """The operand of binary `node` that is not `value`."""
        if len(node.inputs) != 2 or node.inputs.count(value) != 1:
            return None
        return node.inputs[1] if node.inputs[0] == value else node.inputs[0]


def _close(v: float | None, want: float) -> bool:
    return v is not None and abs(v - want) <= 1e-4 * abs(want)


# ---------------------------------------------------------------- layer norm
def _trailing(axes: list[int], rank: int) -> int | None:
    """The first axis if `axes` are the trailing axes axis..rank-1, else None."""
    norm = sorted(a % rank for a in axes) if axes else list(range(rank))
    return norm[0] if norm == list(range(norm[0], rank)) else None


def _match_layer_norm(v: _View, mean: Node) -> tuple[list[Node], dict] | None:
    """The chain from a reduce_mean over trailing axes to its last node, or None."""
    g, x = v.g, mean.inputs[0]
    rank = len(g.shape(x))
    axis = _trailing(list(mean.attrs["axes"]), rank)
    if axis is None or not mean.attrs.get("keepdims", True):
        return None
    subs = [
        n
        for n in v.readers.get(mean.outputs[0], [])
        if n.op == "sub" and n.inputs == [x, mean.outputs[0]]
    ]
    if len(subs) != 1 or len(v.readers[mean.outputs[0]]) != 1:
        return None
    d = subs[0].outputs[0]
    users = v.readers.get(d, [])
    sq = [n for n in users if n.op == "square"]
    div = [n for n in users if n.op == "div" and n.inputs[0] == d]
    if len(users) != 2 or len(sq) != 1 or len(div) != 1:
        return None
    var = v.only_reader(sq[0].outputs[0], "reduce_mean")
    if var is None or _trailing(list(var.attrs["axes"]), rank) != axis:
        return None
    if not var.attrs.get("keepdims", True):
        return None
    add = v.only_reader(var.outputs[0], "add")
    eps = v.scalar(v.other(add, var.outputs[0]) or "") if add else None
    sqrt = v.only_reader(add.outputs[0], "sqrt") if add else None
    if eps is None or eps < 0 or sqrt is None or div[0].inputs != [d, sqrt.outputs[0]]:
        return None
    chain = [mean, subs[0], sq[0], var, add, sqrt, div[0]]
    tail = g.shape(x)[axis:]
    gamma, beta = np.ones(tail, np.float32), np.zeros(tail, np.float32)
    for op in ("mul", "add"):
        nxt = v.only_reader(chain[-1].outputs[0], op)
        c = v.other(nxt, chain[-1].outputs[0]) if nxt else None
        if c is None or not g.is_param(c):
            break
        try:
            arr = np.broadcast_to(g.params[c], tail).astype(np.float32)
        except ValueError:
            break
        if g.params[c].ndim > len(tail):
            break
        if op == "mul":
            gamma = arr
        else:
            beta = arr
        chain.append(nxt)
    return chain, {"axis": axis, "epsilon": eps, "gamma": gamma, "beta": beta}


def fuse_layer_norm(graph: Graph) -> Graph:
    g = graph.copy()
    v = _View(g)
    replace: dict[str, Node] = {}  # name of the chain's last node -> the layer_norm node
    for node in list(g.nodes):
        if node.op != "reduce_mean" or node.name in replace:
            continue
        found = _match_layer_norm(v, node)
        if found is None:
            continue
        chain, m = found
        gamma = g.add_param(f"{node.name}/ln_gamma", m["gamma"])
        beta = g.add_param(f"{node.name}/ln_beta", m["beta"])
        attrs = {"axis": m["axis"], "epsilon": m["epsilon"]}
        ln = Node(g.unique_name(f"{node.name}/layer_norm"), "layer_norm",
                  [node.inputs[0], gamma, beta], list(chain[-1].outputs), attrs)  # fmt: skip
        replace[chain[-1].name] = ln
    if not replace:
        return graph
    g.nodes = [replace.get(n.name, n) for n in g.nodes]
    return _clean(g)


# ---------------------------------------------------------------- gelu
def _match_gelu(v: _View, erf: Node) -> tuple[str, Node] | None:
    """(x, last node) of x * 0.5 * (1 + erf(x / sqrt 2)) around this erf node."""
    scaled = erf.inputs[0]
    pre = v.prod.get(scaled)
    if pre is None or pre.op not in ("div", "mul") or len(pre.inputs) != 2:
        return None
    x, c = pre.inputs
    want = math.sqrt(2.0) if pre.op == "div" else 1.0 / math.sqrt(2.0)
    if not _close(v.scalar(c), want):
        x, c = c, x
        if pre.op == "div" or not _close(v.scalar(c), want):
            return None
    add = v.only_reader(erf.outputs[0], "add")
    if add is None or not _close(v.scalar(v.other(add, erf.outputs[0]) or ""), 1.0):
        return None
    mul = v.only_reader(add.outputs[0], "mul")
    other = v.other(mul, add.outputs[0]) if mul else None
    if other is None:
        return None
    if other == x:  # (x * (1 + erf)) * 0.5
        last = v.only_reader(mul.outputs[0], "mul")
        ok = last is not None and _close(v.scalar(v.other(last, mul.outputs[0]) or ""), 0.5)
        return (x, last) if ok else None
    half = v.made_by(other, "mul")  # (x * 0.5) * (1 + erf)
    if half is None or v.other(half, x) is None or not _close(v.scalar(v.other(half, x)), 0.5):
        return None
    return x, mul


def fuse_gelu(graph: Graph) -> Graph:
    g = graph.copy()
    v = _View(g)
    replace: dict[str, Node] = {}
    for node in g.nodes:
        if node.op == "erf" and (found := _match_gelu(v, node)) is not None:
            x, last = found
            replace[last.name] = Node(last.name, "gelu", [x], list(last.outputs), {})
    if not replace:
        return graph
    g.nodes = [replace.get(n.name, n) for n in g.nodes]
    return _clean(g)


# ---------------------------------------------------------------- hoisting through reshape
def _hoistable(v: _View, rs: Node) -> tuple[Node, str | None] | None:
    """The reader of reshape `rs` (of a 2-D [N, O] value to [..., O]) that can run on the
    2-D value instead, and its other operand (None for unary ops)."""
    g = v.g
    src, out = rs.inputs[0], rs.outputs[0]
    s2, s = g.shape(src), g.shape(out)
    if len(s2) != 2 or len(s) < 2 or s[-1] != s2[1] or g.value(src).dtype != "float32":
        return None
    users = v.readers.get(out, [])
    if len(users) != 1 or out in g.outputs:
        return None
    node = users[0]
    if node.op in UNARY and node.inputs == [out]:
        return node, None
    if node.op not in ("add", "mul"):
        return None
    other = v.other(node, out)
    if other is None:
        return None
    if g.is_param(other):
        shape = g.shape(other)
        ok = len(shape) <= len(s) and all(d == 1 for d in shape[:-1])
        return (node, other) if ok and shape and shape[-1] in (1, s[-1]) else None
    return (node, other) if g.shape(other) == s and node.op == "add" else None


def hoist_through_reshape(graph: Graph) -> Graph:
    g = graph.copy()
    changed = False
    while True:
        v = _View(g)
        for rs in g.nodes:
            if rs.op == "reshape" and (found := _hoistable(v, rs)) is not None:
                break
        else:
            break
        node, other = found
        src, s2 = rs.inputs[0], g.shape(rs.inputs[0])
        pre: list[Node] = []
        if other is not None and g.is_param(other):
            arr = g.params[other]
            other2 = g.add_param(f"{other}/row", arr.reshape(arr.shape[-1:] or (1,)))
        elif other is not None:
            other2 = g.unique_name(f"{other}/rows")
            pre.append(Node(g.unique_name(f"{node.name}/rows"), "reshape", [other], [other2],
                            {"shape": list(s2)}))  # fmt: skip
        flat = g.unique_name(f"{node.outputs[0]}/rows")
        ins = (
            [src] if other is None else [src if i == rs.outputs[0] else other2 for i in node.inputs]
        )
        moved = Node(node.name, node.op, ins, [flat], dict(node.attrs))
        back = Node(g.unique_name(f"{node.name}/view"), "reshape", [flat], list(node.outputs),
                    {"shape": list(g.shape(node.outputs[0]))})  # fmt: skip
        at = g.nodes.index(node)
        g.nodes[at : at + 1] = [*pre, moved, back]
        g.nodes.remove(rs)
        g = infer_shapes(g)
        changed = True
    return g if changed else graph


def _clean(g: Graph) -> Graph:
    """Values re-inferred, the replaced chains dropped."""
    return eliminate_dead_code(infer_shapes(g))
