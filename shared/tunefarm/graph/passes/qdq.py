"""QDQ folding: a float conv between a DequantizeLinear and a QuantizeLinear, as QDQ models
write it, becomes one `qconv2d` (int8 x uint8 products accumulated exactly in int32, as
ONNX Runtime's QLinearConv does), instead of float arithmetic on dequantized values.

Pattern (after import, before fusion):
    dequantize(q_x; s_x, z_x) -> conv2d(w, [b]) -> quantize(s_y, z_y) -> q_y
where w and b are folded DequantizeLinears of constants whose integers the importer kept
(`frontend.onnx_quant.QDQ_INT`): symmetric int8 weights per tensor or per output channel,
int32 bias at scale s_x * s_w. The requantize scale is computed in float32 as
(s_x * s_w) / s_y, as ONNX Runtime computes it. Anything else stays as imported (float
arithmetic between Q/DQ pairs, which computes what the model says up to float rounding).
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, Node
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.passes.qdq_channels import pad_int8_channels
from tunefarm.graph.passes.qdq_epilogue import fuse_int8_epilogues
from tunefarm.graph.shapes import infer_shapes

QDQ_INT, QDQ_SCALE = "#qdq_int", "#qdq_scale"  # as frontend.onnx_quant names them


def _ints(g: Graph, value: str) -> tuple[np.ndarray, np.ndarray] | None:
    if value + QDQ_INT in g.params and value + QDQ_SCALE in g.params:
        return g.params[value + QDQ_INT], g.params[value + QDQ_SCALE]
    return None


def _single_reader(readers: dict, value: str, op: str) -> Node | None:
    users = readers.get(value, [])
    return users[0] if len(users) == 1 and users[0].op == op else None


def fold_qdq(graph: Graph) -> Graph:
    g = graph.copy()
    producers, readers = g.producers(), g.consumers()
    replaced: dict[str, Node] = {}  # quantize node name -> qconv2d taking its place
    dropped: set[str] = set()
    extra: dict[str, list[Node]] = {}  # quantize node name -> nodes taking its place
    for node in g.nodes:
        if node.op == "add":
            folded = _fold_add(g, node, producers, readers)
        elif node.op == "dense":
            folded = _fold_dense(g, node, producers, readers)
        elif node.op in ("pool2d", "global_pool2d"):
            folded = _fold_max_pool(g, node, producers, readers)
        else:
            folded = _fold_conv(g, node, producers, readers)
        if folded is not None:
            quant, new, between = folded
            replaced[quant.name] = new[-1]
            extra[quant.name] = new
            dropped.update([node.name, *between])
    nodes: list[Node] = []
    for n in g.nodes:
        if n.name not in dropped:
            nodes += extra.get(n.name, [n])
    g.nodes = nodes
    if not replaced and not any(n.op == "qconv2d" for n in g.nodes):  # (QLinearConv makes some)
        return graph
    if replaced:
        g = eliminate_dead_code(infer_shapes(g))
    return pad_int8_channels(fuse_int8_epilogues(g))


def _per_tensor(node: Node) -> bool:
    return not isinstance(node.attrs["scale"], list)


def _fold_add(g: Graph, node: Node, producers: dict, readers: dict):
    deqs = [producers.get(v) for v in node.inputs]
    quant = _single_reader(readers, node.outputs[0], "quantize")
    between: list[str] = []
    if quant is None:  # add -> Relu -> Q at zero point 0: the uint8 saturation is the ReLU
        act, quant = _activation(readers, node.outputs[0])
        if act is None or act.op != "relu" or quant is None or act.outputs[0] in g.outputs:
            return None
        if quant.attrs.get("zero_point", 0) != 0 or quant.attrs.get("dtype") != "uint8":
            return None
        between = [act.name]
    if quant is None or node.outputs[0] in g.outputs or not _per_tensor(quant):
        return None
    if any(d is None or d.op != "dequantize" or not _per_tensor(d) for d in deqs):
        return None
    a, b = (d.inputs[0] for d in deqs)
    dtype = quant.attrs.get("dtype", "uint8")
    va, vb = g.value(a), g.value(b)
    if va.shape != vb.shape or not va.dtype == vb.dtype == dtype:
        return None
    scales = [float(d.attrs["scale"]) for d in deqs] + [float(quant.attrs["scale"])]
    zps = [int(d.attrs.get("zero_point", 0)) for d in deqs]
    zps.append(int(quant.attrs.get("zero_point", 0)))
    attrs = {"scales": scales, "zero_points": zps, "rule": "float"}
    return quant, [Node(node.name, "qadd", [a, b], list(quant.outputs), attrs)], between


def _qdq_ends(g: Graph, node: Node, producers: dict, readers: dict):
    """(dequantize feeding input 0, the single quantize reading the output), or None."""
    deq = producers.get(node.inputs[0])
    quant = _single_reader(readers, node.outputs[0], "quantize")
    if deq is None or deq.op != "dequantize" or quant is None or node.outputs[0] in g.outputs:
        return None
    if not (_per_tensor(deq) and _per_tensor(quant)) or quant.attrs.get("dtype") != "uint8":
        return None
    if g.value(deq.inputs[0]).dtype != "uint8":
        return None
    return deq, quant


def _fold_max_pool(g: Graph, node: Node, producers: dict, readers: dict):
    """A max pool between a DQ and a Q of the same scale and zero point runs on the
    integers: the max of quantized values is the quantized max (exact)."""
    ends = _qdq_ends(g, node, producers, readers)
    if ends is None:
        return None
    deq, quant = ends
    if node.op == "global_pool2d" and node.attrs.get("kind") == "avg":  # QLinearGlobalAveragePool
        qparams = [float(deq.attrs["scale"]), int(deq.attrs.get("zero_point", 0))]
        qparams += [float(quant.attrs["scale"]), int(quant.attrs.get("zero_point", 0))]
        attrs = {**node.attrs, "qparams": qparams}
        return quant, [Node(node.name, node.op, [deq.inputs[0]], list(quant.outputs), attrs)], []
    if node.attrs.get("kind", "max") != "max":
        return None
    same = all(deq.attrs.get(k, 0) == quant.attrs.get(k, 0) for k in ("scale", "zero_point"))
    if not same:
        return None
    return quant, [Node(node.name, node.op, [deq.inputs[0]], list(quant.outputs), node.attrs)], []


def _int_bias(g: Graph, node: Node, o: int, has_bias: bool) -> np.ndarray | None:
    if not has_bias:
        return np.zeros(o, np.int32)
    b = _ints(g, node.inputs[2])
    if b is None or b[0].dtype != np.int32 or b[0].size != o:
        return None
    return b[0].reshape(-1).astype(np.int32)


def _fold_dense(g: Graph, node: Node, producers: dict, readers: dict):
    """dense [M, K] x [N, K] as reshape -> 1x1 qconv2d -> reshape (a 1x1 image is the same
    memory in every channel block)."""
    ends = _qdq_ends(g, node, producers, readers)
    weights = _ints(g, node.inputs[1])
    epi = list(node.attrs.get("epilogue", []))
    if ends is None or weights is None or epi not in ([], ["bias"]):
        return None
    deq, quant = ends
    w_int, s_w = weights
    m, k = g.shape(node.inputs[0])
    if w_int.dtype != np.int8 or w_int.ndim != 2 or s_w.size not in (1, w_int.shape[0]):
        return None
    n = w_int.shape[0]
    bias = _int_bias(g, node, n, epi == ["bias"])
    if k % 4 or n % 4 or bias is None:
        return None
    requant = (np.float32(deq.attrs["scale"]) * np.broadcast_to(s_w, (n,))).astype(np.float32)
    requant = (requant / np.float32(quant.attrs["scale"])).astype(np.float32)
    x4, y4 = g.unique_name(f"{node.name}.x4"), g.unique_name(f"{node.name}.y4")
    ins = [
        x4,
        g.add_param(f"{node.name}.weight_q", w_int.reshape(n, k, 1, 1)),
        g.add_param(f"{node.name}.bias_q", bias),
        g.add_param(f"{node.name}.requant", requant),
    ]
    attrs = {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1]}
    attrs.update(data_zero_point=int(deq.attrs.get("zero_point", 0)), out_dtype="uint8")
    attrs.update(out_zero_point=int(quant.attrs.get("zero_point", 0)), relu=False, residual=None)
    attrs.update(data_scale=float(deq.attrs["scale"]), out_scale=float(quant.attrs["scale"]))
    attrs["weight_scale"] = np.broadcast_to(s_w, (n,)).astype(np.float32).tolist()
    rows = Node(f"{node.name}.rows", "reshape", [deq.inputs[0]], [x4], {"shape": [m, k, 1, 1]})
    cols = Node(f"{node.name}.cols", "reshape", [y4], list(quant.outputs), {"shape": [m, n]})
    return quant, [rows, Node(node.name, "qconv2d", ins, [y4], attrs), cols], []


def activation_spec(node: Node) -> str | None:
    """The requantizing epilogue's spec of a LeakyRelu / Sigmoid / HardSwish node (see
    `tunefarm.ir.ops.quantize.activation_value`), None for any other op."""
    if node.op == "leaky_relu":
        return f"leaky_relu:{float(node.attrs.get('alpha', 0.01))!r}"
    return node.op if node.op in ("sigmoid", "hard_swish") else None


def _activation(readers: dict, value: str) -> tuple[Node | None, Node | None]:
    """(relu, clip-at-zero or requantizing activation node, the quantize reading it) after
    `value`, or (None, None)."""
    users = readers.get(value, [])
    if len(users) != 1 or users[0].op not in (
        "relu",
        "clip",
        "leaky_relu",
        "sigmoid",
        "hard_swish",
    ):
        return None, None
    act = users[0]
    if act.op == "clip" and float(act.attrs.get("lo", -1.0)) != 0.0:
        return None, None
    return act, _single_reader(readers, act.outputs[0], "quantize")


def _fold_conv(g: Graph, node: Node, producers: dict, readers: dict):
    a = node.attrs
    if node.op != "conv2d" or list(a.get("epilogue", [])) not in ([], ["bias"]):
        return None
    deq = producers.get(node.inputs[0])
    quant = _single_reader(readers, node.outputs[0], "quantize")
    act = None
    if quant is None:  # conv -> Relu / Clip(0, hi) -> QuantizeLinear, as QDQ exports write
        act, quant = _activation(readers, node.outputs[0])
        if act is not None and act.outputs[0] in g.outputs:
            return None
    weights = _ints(g, node.inputs[1])
    if deq is None or deq.op != "dequantize" or quant is None or weights is None:
        return None
    if node.outputs[0] in g.outputs or quant.attrs.get("dtype") != "uint8":
        return None
    s_x, z_x = deq.attrs["scale"], deq.attrs.get("zero_point", 0)
    s_y, z_y = quant.attrs["scale"], quant.attrs.get("zero_point", 0)
    if isinstance(s_x, list) or isinstance(s_y, list) or g.value(deq.inputs[0]).dtype != "uint8":
        return None
    w_int, s_w = weights
    if w_int.dtype != np.int8 or s_w.size not in (1, w_int.shape[0]):
        return None
    groups = int(a.get("groups", 1))
    depthwise = groups > 1 and w_int.shape[1] == 1 and groups == w_int.shape[0]
    if groups > 1 and not depthwise:
        return None
    o = w_int.shape[0]  # any channel count: `qdq_channels` pads them
    s_w = np.broadcast_to(s_w, (o,)).astype(np.float32)
    acc_scale = np.float32(s_x) * s_w
    bias = np.zeros(o, np.int32)
    if "bias" in a.get("epilogue", []):
        b = _ints(g, node.inputs[2])
        if b is None or b[0].dtype != np.int32:
            return None
        bias = b[0].reshape(-1).astype(np.int32)
    spec = activation_spec(act) if act is not None else None
    # Conv -> f -> Q: f on the accumulator's own scale, one rounding (activation_value)
    requant = acc_scale if spec else (acc_scale / np.float32(s_y)).astype(np.float32)
    ins = [
        deq.inputs[0],
        g.add_param(f"{node.name}.weight_q", w_int),
        g.add_param(f"{node.name}.bias_q", bias),
        g.add_param(f"{node.name}.requant", requant),
    ]
    attrs = {k: a[k] for k in ("strides", "padding", "dilation", "groups") if k in a}
    attrs.update(data_zero_point=int(z_x), out_dtype="uint8", out_zero_point=int(z_y))
    attrs.update(relu=act is not None and spec is None, residual=None)
    if spec is not None:
        attrs["activation"] = [spec, 0.0, 0, float(s_y)]
    if act is not None and act.op == "clip" and float(act.attrs["hi"]) < 3e38:
        top = int(z_y) + np.rint(np.float32(act.attrs["hi"]) / np.float32(s_y))
        attrs["out_max"] = int(min(max(top, int(z_y)), 255))  # the bound on the output grid
    attrs.update(data_scale=float(s_x), weight_scale=s_w.tolist(), out_scale=float(s_y))
    between = [act.name] if act is not None else []
    return quant, [Node(node.name, "qconv2d", ins, list(quant.outputs), attrs)], between
