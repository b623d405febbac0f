"""Epilogues of folded QDQ convs: what a QDQ model writes after a conv's QuantizeLinear
becomes part of the `qconv2d` that `graph.passes.qdq` made, so the int8 conv's store does
it instead of a float kernel (or an int8 elementwise pass) over the whole tensor.

- qconv2d -> DequantizeLinear -> LeakyRelu | Sigmoid | HardSwish -> QuantizeLinear (the form
  `quantize_static` writes): the qconv's `activation` = [spec, s_mid, z_mid, s_out], which
  rounds the conv value at the model's (s_mid, z_mid), dequantizes it, applies f in float32
  and quantizes at (s_out, z_out), as the model (and ONNX Runtime's QLinear activation
  table) says. Computed in the epilogue instead of a 256-entry table because a byte table
  lookup has no vector form in our C (a gather per lane), while these are a few vector ops.
- qconv2d -> qadd (rule float, the folded DQ-Add-Q): the qconv's residual with
  `residual_rule: float`, QLinearAdd's rounding with the operands in the model's order.

A conv whose output has any other reader, or is a graph output, keeps its own value.
"""

from __future__ import annotations

from tunefarm.graph.ir import Graph, Node
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes

ACTIVATION_OPS = ("leaky_relu", "sigmoid", "hard_swish")


def _plain(node: Node | None) -> bool:
    """A uint8 qconv2d with nothing after its requantize yet."""
    if node is None or node.op != "qconv2d":
        return False
    a = node.attrs
    return (
        a.get("out_dtype") == "uint8"
        and not a.get("relu")
        and a.get("out_max") is None
        and a.get("residual") is None
        and a.get("activation") is None
    )


def _only_reader(g: Graph, readers: dict, value: str) -> Node | None:
    users = readers.get(value, [])
    return users[0] if len(users) == 1 and value not in g.outputs else None


def _spec(node: Node) -> str:
    if node.op == "leaky_relu":
        return f"leaky_relu:{float(node.attrs.get('alpha', 0.01))!r}"
    return node.op


def _per_tensor_u8(node: Node | None, op: str) -> bool:
    if node is None or node.op != op or isinstance(node.attrs.get("scale"), list):
        return False
    return op != "quantize" or node.attrs.get("dtype", "uint8") == "uint8"


def _fuse_activation(g: Graph, conv: Node, readers: dict) -> tuple[Node, list[str]] | None:
    """(the qconv with the activation, names of the nodes it replaces) or None."""
    deq = _only_reader(g, readers, conv.outputs[0])
    if not _per_tensor_u8(deq, "dequantize"):
        return None
    act = _only_reader(g, readers, deq.outputs[0])
    if act is None or act.op not in ACTIVATION_OPS:
        return None
    quant = _only_reader(g, readers, act.outputs[0])
    if not _per_tensor_u8(quant, "quantize"):
        return None
    a = conv.attrs
    if int(deq.attrs.get("zero_point", 0)) != int(a.get("out_zero_point", 0)):
        return None  # a DQ at another zero point than the Q it reads: not the model's pair
    attrs = {**a, "out_zero_point": int(quant.attrs.get("zero_point", 0))}
    attrs["activation"] = [
        _spec(act),
        float(deq.attrs["scale"]),
        int(a.get("out_zero_point", 0)),
        float(quant.attrs["scale"]),
    ]
    attrs["out_scale"] = float(quant.attrs["scale"])
    new = Node(conv.name, "qconv2d", list(conv.inputs), list(quant.outputs), attrs)
    return new, [deq.name, act.name, quant.name]


def _fuse_add(g: Graph, conv: Node, readers: dict) -> tuple[Node, list[str]] | None:
    add = _only_reader(g, readers, conv.outputs[0])
    if add is None or add.op != "qadd" or add.attrs.get("rule") != "float":
        return None
    if add.inputs[0] == add.inputs[1]:
        return None
    first = add.inputs[1] == conv.outputs[0]  # the residual is the Add's first operand
    other = add.inputs[0] if first else add.inputs[1]
    scales, zps = list(add.attrs["scales"]), list(add.attrs["zero_points"])
    mine, theirs = (1, 0) if first else (0, 1)
    if int(zps[mine]) != int(conv.attrs.get("out_zero_point", 0)):
        return None
    attrs = {**conv.attrs, "residual_rule": "float", "residual_first": first}
    attrs["residual"] = [
        float(scales[mine]),
        float(scales[theirs]),
        float(scales[2]),
        int(zps[theirs]),
        int(zps[2]),
    ]
    new = Node(conv.name, "qconv2d", [*conv.inputs[:4], other], list(add.outputs), attrs)
    return new, [add.name]


def fuse_int8_epilogues(graph: Graph) -> Graph:
    """Fold activations, then residual adds, into the folded convs (see the module doc)."""
    g = graph
    for fuse in (_fuse_activation, _fuse_add):
        g = _apply(g, fuse)
    return g


def _apply(graph: Graph, fuse) -> Graph:
    g = graph.copy()
    readers = g.consumers()
    at: dict[str, Node] = {}  # the last replaced node's name -> the fused qconv
    dropped: set[str] = set()
    for node in g.nodes:
        if not _plain(node) and not (fuse is _fuse_add and _addable(node)):
            continue
        done = fuse(g, node, readers)
        if done is None:
            continue
        new, replaced = done
        if node.name in dropped or any(r in dropped for r in replaced):
            continue
        at[replaced[-1]] = new
        dropped.update([node.name, *replaced])
    if not at:
        return graph
    nodes = []
    for n in g.nodes:
        if n.name in at:
            nodes.append(at[n.name])
        elif n.name not in dropped:
            nodes.append(n)
    g.nodes = nodes
    return eliminate_dead_code(infer_shapes(g))


def _addable(node: Node) -> bool:
    """A uint8 qconv2d with an activation but no residual yet (the add comes after it)."""
    a = node.attrs
    return (
        node.op == "qconv2d"
        and a.get("out_dtype") == "uint8"
        and a.get("residual") is None
        and not a.get("relu")
        and a.get("out_max") is None
    )
