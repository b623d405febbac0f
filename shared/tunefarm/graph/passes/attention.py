"""Recognise scaled dot-product attention as the PyTorch exporters spell it, and replace it
with one `attention` node (one fused kernel, one tuning task per shape).

What both exporters (legacy TorchScript, opset 17; dynamo, opset 20) write, after import
and constant folding:

    scores = matmul(q [* c1], kt [* c2])        kt: K^T, maybe transpose(K, last two swapped)
    scores = scores [* c | / c]                 a scale on the product instead (optional)
    logits = scores [+ mask]                    bert's extended mask, GPT-2's causal bias,
                                                Swin's relative position bias; none in ViT
           | where(cond, lowest, scores)        a masked fill with float32's lowest or -inf
                                                (taken as the mask where(cond, lowest, 0))
    p      = softmax(logits, last axis)
    p      = where(1 - equal(p, p), 0, p)       dynamo's SDPA guard: NaN rows (all keys
                                                masked by -inf) become 0 (optional)
    out    = matmul(p, v)

c1, c2, c are scalar constants (the exporters apply sqrt(scale) to q and to K^T
separately); the fused scale is c1 * c2 * c (or / c). q, K^T and v must share their batch
dims (3-D [N, S, D] values are viewed as [1, N, S, D]), v's head dim must equal q's, and
the mask (rank <= 4, float) must broadcast to [..., Sq, Sk] with last dim Sk. The node reads
q, K and v through the transposes the exporters put between the projections and attention
(and writes the output in the layout its transpose wanted): no layout copies remain. Each
intermediate value must have no reader outside the pattern and not be a graph output.
Anything else is left as it is: the pass never changes what the graph computes.
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, Node, Value
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes

__all__ = ["fuse_attention", "unfuse_attention"]

# a masked fill (where(cond, low, scores)) is taken as the additive mask where(cond, low, 0)
# when low is float32's lowest or -inf: score + low then rounds to low (|score| < 1e31)
LOWEST = float(np.finfo(np.float32).min)


class _Match:
    """What one attention occurrence binds: its nodes and operands."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.scale = 1.0
        self.q = self.k = self.v = ""
        self.mask: str | None = None
        self.fill: tuple[str, str] | None = None  # where(cond, lowest, scores): (cond, lowest)
        self.layouts = {"q": "BHSD", "k": "BHDS", "v": "BHSD", "out": "BHSD"}
        self.out = ""  # the value the attention node writes


class _Graph:
    """Producers, readers and scalar constants of the graph being rewritten."""

    def __init__(self, g: Graph) -> None:
        self.g = g
        self.prod = g.producers()
        self.readers = {k: list({id(n): n for n in v}.values()) for k, v in g.consumers().items()}

    def private(self, value: str) -> bool:
        """Read by one node and not a graph output (so replacing its reader is safe)."""
        return len(self.readers.get(value, [])) == 1 and value not in self.g.outputs

    def made(self, value: str, *ops: str) -> Node | None:
        node = self.prod.get(value)
        return node if node is not None and node.op in ops else None

    def scalar(self, value: str) -> float | None:
        g = self.g
        if not g.is_param(value) or g.params[value].size != 1:
            return None
        if g.params[value].dtype != np.float32:
            return None
        x = float(g.params[value].reshape(-1)[0])
        return x if np.isfinite(x) else None


def _scaled(v: _Graph, value: str, m: _Match) -> str:
    """`value` without a private multiplication by a scalar constant (folded into m.scale)."""
    node = v.made(value, "mul")
    if node is None or not v.private(value):
        return value
    for x, c in (node.inputs, node.inputs[::-1]):
        s = v.scalar(c)
        if s is not None and x != c:
            m.scale *= s
            m.nodes.append(node)
            return x
    return value


def _logits(v: _Graph, logits: str, m: _Match) -> str | None:
    """The score matmul's output under the optional mask add and scale, or None."""
    add = v.made(logits, "add")
    if add is not None and v.private(logits):
        for s, mask in (add.inputs, add.inputs[::-1]):
            if v.made(s, "mul", "div", "matmul") and s != mask:
                m.mask = mask
                m.nodes.append(add)
                logits = s
                break
        else:
            return None
    fill = v.made(logits, "where")
    if fill is not None and v.private(logits) and v.made(fill.inputs[2], "mul", "div", "matmul"):
        low = v.scalar(fill.inputs[1])
        if low is None or low > LOWEST:
            return None
        m.fill = (fill.inputs[0], fill.inputs[1])
        m.nodes.append(fill)
        logits = fill.inputs[2]
    scale = v.made(logits, "mul", "div")
    if scale is not None and v.private(logits):
        x, c = scale.inputs
        s = v.scalar(c)
        if scale.op == "mul" and s is None:
            x, c = c, x
            s = v.scalar(c)
        if s is None or (scale.op == "div" and s == 0.0):
            return None
        m.scale *= s if scale.op == "mul" else 1.0 / s
        m.nodes.append(scale)
        logits = x
    return logits if v.made(logits, "matmul") and v.private(logits) else None


def _guarded(v: _Graph, p: str, m: _Match) -> str | None:
    """The value the P V matmul reads: softmax's output, or the NaN guard's where."""
    users = v.readers.get(p, [])
    if p in v.g.outputs:
        return None
    if len(users) == 1:
        return p
    eq = [n for n in users if n.op == "equal" and n.inputs == [p, p]]
    wh = [n for n in users if n.op == "where" and n.inputs[2] == p]
    if len(users) != 2 or len(eq) != 1 or len(wh) != 1 or not v.private(eq[0].outputs[0]):
        return None
    sub = v.readers[eq[0].outputs[0]][0]
    if sub.op != "sub" or sub.inputs[1] != eq[0].outputs[0] or v.scalar(sub.inputs[0]) != 1.0:
        return None
    where = wh[0]
    if where.inputs[0] != sub.outputs[0] or not v.private(sub.outputs[0]):
        return None
    if v.scalar(where.inputs[1]) != 0.0:
        return None
    m.nodes += [eq[0], sub, where]
    return where.outputs[0]


def _match(v: _Graph, softmax: Node) -> tuple[_Match, Node] | None:
    """The attention around this softmax and its final P V matmul, or None."""
    g, m = v.g, _Match()
    x = softmax.inputs[0]
    rank = len(g.shape(x))
    if rank not in (3, 4) or int(softmax.attrs.get("axis", -1)) % rank != rank - 1:
        return None
    scores = _logits(v, x, m)
    if scores is None:
        return None
    mm = v.prod[scores]
    m.q, kt = _scaled(v, mm.inputs[0], m), _scaled(v, mm.inputs[1], m)
    p = _guarded(v, softmax.outputs[0], m)
    if p is None or not v.private(p):
        return None
    pv = v.readers[p][0]
    if pv.op != "matmul" or pv.inputs[0] != p:
        return None
    m.k, m.v, m.out = kt, pv.inputs[1], pv.outputs[0]
    m.nodes += [mm, softmax, pv]
    if not _shapes_fit(g, m, rank):
        return None
    _read_through_transposes(v, m, rank)
    return m, pv


def _through(v: _Graph, value: str, perm: list[int]) -> str | None:
    """The input of the private transpose by `perm` that makes `value`, or None."""
    t = v.made(value, "transpose")
    if t is None or not v.private(value) or list(t.attrs["perm"]) != perm:
        return None
    return t.inputs[0]


def _read_through_transposes(v: _Graph, m: _Match, rank: int) -> None:
    """Operands read in their producers' layout instead of through the exporters'
    transposes: K where K^T is its transpose (BHSD), and with 4-D values the [B, S, H, D]
    projections where q, v are their (0, 2, 1, 3) transposes and K^T its (0, 2, 3, 1)
    (BSHD); the output written as [B, S, H, D] where its only reader transposes it so."""
    swap = [*range(rank - 2), rank - 1, rank - 2]
    if (src := _through(v, m.k, swap)) is not None:
        m.nodes.append(v.prod[m.k])
        m.k, m.layouts["k"] = src, "BHSD"
    if rank != 4:
        return
    from_bshd = {"BHSD": [0, 2, 1, 3], "BHDS": [0, 2, 3, 1]}  # the perm making it of [B,S,H,D]
    for what in ("q", "k", "v"):
        value = getattr(m, what)
        if (src := _through(v, value, from_bshd[m.layouts[what]])) is not None:
            m.nodes.append(v.prod[value])
            setattr(m, what, src)
            m.layouts[what] = "BSHD"
    out, skipped = m.out, []
    same = v.readers.get(out, [])
    if (
        v.private(out)
        and same[0].op == "reshape"
        and v.g.shape(same[0].outputs[0]) == v.g.shape(out)
    ):
        skipped, out = [same[0]], same[0].outputs[0]  # the legacy export's no-op reshape
    users = v.readers.get(out, [])
    if v.private(out) and users[0].op == "transpose" and users[0].attrs["perm"] == [0, 2, 1, 3]:
        m.nodes += [*skipped, users[0]]
        m.out, m.layouts["out"] = users[0].outputs[0], "BSHD"


def _shapes_fit(g: Graph, m: _Match, rank: int) -> bool:
    q, kt, v = g.shape(m.q), g.shape(m.k), g.shape(m.v)
    if any(len(s) != rank for s in (q, kt, v)) or not (q[:-2] == kt[:-2] == v[:-2]):
        return False
    if kt[-2] != q[-1] or v[-2] != kt[-1] or v[-1] != q[-1]:
        return False
    if any(g.value(x).dtype != "float32" for x in (m.q, m.k, m.v)):
        return False
    added = m.mask if m.fill is None else m.fill[0]
    if added is None:
        return True
    mask = g.shape(added)
    if g.value(added).dtype != "float32" or len(mask) > 4 or not mask or mask[-1] != kt[-1]:
        return False
    full = (*q[:-1], kt[-1])
    padded = (1,) * (len(full) - len(mask)) + tuple(mask) if len(mask) <= len(full) else None
    return padded is not None and all(a in (1, b) for a, b in zip(padded, full, strict=True))


def _as4(g: Graph, value: str, nodes: list[Node], tag: str) -> str:
    """`value` viewed as 4-D (leading dims of 1): itself, a reshaped param, or a reshape."""
    shape = g.shape(value)
    if len(shape) == 4:
        return value
    want = (1,) * (4 - len(shape)) + tuple(shape)
    if g.is_param(value):
        return g.add_param(f"{value}/4d", g.params[value].reshape(want))
    out = g.unique_name(f"{value}/4d")
    nodes.append(
        Node(g.unique_name(f"{tag}/view"), "reshape", [value], [out], {"shape": list(want)})
    )
    return out


def _replacement(g: Graph, m: _Match, pv: Node) -> list[Node]:
    """The attention node (with 4-D views of 3-D operands) computing pv's output."""
    nodes: list[Node] = []
    tag = pv.name
    ins = [_as4(g, x, nodes, tag) for x in (m.q, m.k, m.v)]
    if m.fill is not None:  # the masked fill as an additive mask: where(cond, lowest, 0)
        zero = g.add_param(f"{tag}/fill_zero", np.zeros((1,), np.float32))
        m.mask = g.unique_name(f"{tag}/fill_mask")
        nodes.append(
            Node(g.unique_name(f"{tag}/fill"), "where", [m.fill[0], m.fill[1], zero], [m.mask])
        )
        g.values[m.mask] = Value(m.mask, g.shape(m.fill[0]), "float32")
    if m.mask is not None:
        ins.append(_as4(g, m.mask, nodes, tag))
    out = m.out
    shape = g.shape(out)
    attrs: dict = {"scale": float(m.scale)}
    attrs |= {f"{w}_layout": lay for w, lay in m.layouts.items()}
    name = g.unique_name(f"{tag}/attention")
    if len(shape) == 4:
        return [*nodes, Node(name, "attention", ins, [out], attrs)]
    flat = g.unique_name(f"{out}/4d")
    nodes.append(Node(name, "attention", ins, [flat], attrs))
    nodes.append(
        Node(g.unique_name(f"{tag}/unview"), "reshape", [flat], [out], {"shape": list(shape)})
    )
    return nodes


def fuse_attention(graph: Graph) -> Graph:
    """Every matched attention replaced by an `attention` node (see the module doc)."""
    g = graph.copy()
    v = _Graph(g)
    replace: dict[str, list[Node]] = {}
    taken: set[str] = set()
    for node in list(g.nodes):
        if node.op != "softmax":
            continue
        found = _match(v, node)
        if found is None or taken & {n.name for n in found[0].nodes}:
            continue
        m, pv = found
        taken |= {n.name for n in m.nodes}
        replace[v.prod[m.out].name] = _replacement(g, m, pv)
    if not replace:
        return graph
    out: list[Node] = []
    for n in g.nodes:
        out += replace.get(n.name, [n])
    g.nodes = out
    return eliminate_dead_code(infer_shapes(g))


# ---------------------------------------------------------------- back to primitive ops
def unfuse_attention(graph: Graph) -> Graph:
    """Every `attention` node written out again as transposes, matmul, scale, mask add,
    softmax, the NaN guard (a fully masked row gives 0, as the fused kernel does) and
    matmul: for targets whose backend has no attention kernel (the GPUs), since models are
    optimised before the target is known."""
    if not any(n.op == "attention" for n in graph.nodes):
        return graph
    g = graph.copy()
    out: list[Node] = []
    for node in g.nodes:
        out += _primitive(g, node) if node.op == "attention" else [node]
    g.nodes = out
    return infer_shapes(g)


def _primitive(g: Graph, node: Node) -> list[Node]:
    nodes: list[Node] = []
    tag = node.name

    def emit(op: str, ins: list[str], attrs: dict | None = None, out: str | None = None) -> str:
        out = out or g.unique_name(f"{tag}/{op}")
        nodes.append(Node(g.unique_name(f"{tag}/{op}"), op, ins, [out], attrs or {}))
        return out

    def const(name: str, value: float) -> str:
        return g.add_param(f"{tag}/{name}", np.array([value], np.float32))

    a = node.attrs
    perms = {("q", "BSHD"): [0, 2, 1, 3], ("v", "BSHD"): [0, 2, 1, 3],
             ("k", "BHSD"): [0, 1, 3, 2], ("k", "BSHD"): [0, 2, 3, 1]}  # fmt: skip
    ins = []
    for what, value in zip(("q", "k", "v"), node.inputs[:3], strict=True):
        perm = perms.get((what, a.get(f"{what}_layout", "BHDS" if what == "k" else "BHSD")))
        ins.append(value if perm is None else emit("transpose", [value], {"perm": perm}))
    s = emit("mul", [emit("matmul", ins[:2]), const("scale", float(a["scale"]))])
    if len(node.inputs) > 3:
        s = emit("add", [s, node.inputs[3]])
    p = emit("softmax", [s], {"axis": 3})
    nan = emit("sub", [const("one", 1.0), emit("equal", [p, p])])
    p = emit("where", [nan, const("zero", 0.0), p])
    if a.get("out_layout", "BHSD") == "BSHD":
        emit("transpose", [emit("matmul", [p, ins[2]])], {"perm": [0, 2, 1, 3]}, node.outputs[0])
    else:
        emit("matmul", [p, ins[2]], None, node.outputs[0])
    return nodes
