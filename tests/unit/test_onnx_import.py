"""ONNX import: small models built with onnx.helper for every supported op (in each opset
form where the form changed), imported, run with the graph interpreter and compared with
onnxruntime; plus the errors for models the importer refuses."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.frontend.onnx_import import SUPPORTED_OPS, FrontendError, load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph

FLOAT = TensorProto.FLOAT
RNG = np.random.default_rng(7)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def make_model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, Sequence[Any]],
    outputs: Sequence[str] | dict[str, Sequence[Any]],
    inits: dict[str, np.ndarray] | None = None,
    opset: int = 13,
    inits_as_inputs: bool = False,
) -> onnx.ModelProto:
    """A one-graph model: float inputs of the given shapes, initializers, outputs (given as
    a dict with shapes, or names whose shapes ONNX shape inference fills in)."""
    inits = inits or {}
    infos = [helper.make_tensor_value_info(n, FLOAT, s) for n, s in inputs.items()]
    if inits_as_inputs:
        infos += [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inits.items()
        ]
    shapes = outputs if isinstance(outputs, dict) else dict.fromkeys(outputs)
    outs = [helper.make_tensor_value_info(n, FLOAT, s) for n, s in shapes.items()]
    tensors = [numpy_helper.from_array(a, n) for n, a in inits.items()]
    graph = helper.make_graph(nodes, "test", infos, outs, tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 17 else 10
    # the checker wants output shapes; ONNX shape inference fills them in
    return onnx.shape_inference.infer_shapes(model, data_prop=True)


def check(model: onnx.ModelProto, input_shapes: dict | None = None, **feeds: np.ndarray) -> Graph:
    """Import `model`, run it with the interpreter and with onnxruntime, compare outputs."""
    graph = load_onnx(model, input_shapes)
    for v in graph.inputs:
        feeds.setdefault(v.name, rand(*v.shape))
    got = run_graph(graph, feeds)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = sess.run(None, feeds)
    assert graph.outputs == [o.name for o in model.graph.output]
    for name, ref in zip(graph.outputs, want, strict=True):
        out = got[name]
        assert out.shape == ref.shape, (name, out.shape, ref.shape)
        err = float(np.max(np.abs(out.astype(np.float64) - ref), initial=0.0))
        assert err <= 1e-4 * max(1.0, float(np.max(np.abs(ref), initial=0.0))), (name, err)
    return graph


def node(op: str, ins: Sequence[str], outs: Sequence[str] = ("y",), **attrs: Any):
    return helper.make_node(op, list(ins), list(outs), name=f"{op.lower()}0", **attrs)


def one(
    op: str, x_shape: Sequence[int], inits: dict | None = None, opset: int = 13, **attrs: Any
) -> Graph:
    """A model of one node reading "x" then the initializers in order; checked vs ORT."""
    inits = inits or {}
    n = node(op, ["x", *inits], **attrs)
    return check(make_model([n], {"x": x_shape}, ["y"], inits, opset))


# ---------------------------------------------------------------- conv and pooling
@pytest.mark.parametrize(
    ("x", "w", "attrs"),
    [
        ((1, 3, 9, 9), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
        ((1, 3, 9, 10), (4, 3, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
        ((1, 3, 8, 7), (4, 3, 2, 4), {"auto_pad": "SAME_LOWER", "strides": [2, 1]}),
        ((1, 3, 8, 8), (4, 3, 3, 3), {"auto_pad": "VALID", "strides": [2, 2]}),
        ((2, 4, 11, 9), (6, 2, 3, 3), {"group": 2, "dilations": [2, 1], "pads": [2, 0, 1, 1]}),
        ((1, 6, 7, 7), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}),
    ],
)
@pytest.mark.parametrize("bias", [True, False])
def test_conv(x, w, attrs, bias) -> None:
    inits = {"w": rand(*w)} | ({"b": rand(w[0])} if bias else {})
    g = one("Conv", x, inits, **attrs)
    (conv,) = g.nodes
    assert conv.op == "conv2d" and conv.attrs["epilogue"] == (["bias"] if bias else [])
    assert conv.inputs == ["x", "w", "b"][: 2 + bias]
    assert conv.attrs["groups"] == attrs.get("group", 1) and len(conv.attrs["padding"]) == 4


@pytest.mark.parametrize(
    "attrs",
    [
        {"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1},
        {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1], "ceil_mode": 1},
        {"kernel_shape": [2, 2], "dilations": [2, 2], "strides": [1, 2]},
        {"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"},
    ],
)
def test_max_pool(attrs) -> None:
    g = one("MaxPool", (1, 2, 10, 9), **attrs)
    assert g.nodes[0].op == "pool2d" and g.nodes[0].attrs["kind"] == "max"


@pytest.mark.parametrize("count_include_pad", [0, 1])
@pytest.mark.parametrize("ceil_mode", [0, 1])
def test_average_pool(count_include_pad, ceil_mode) -> None:
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 0]}
    g = one("AveragePool", (1, 2, 10, 9), count_include_pad=count_include_pad,
            ceil_mode=ceil_mode, **attrs)  # fmt: skip
    assert g.nodes[0].attrs["count_include_pad"] is bool(count_include_pad)


def test_average_pool_opset7_same_lower() -> None:
    one("AveragePool", (1, 2, 7, 8), opset=7, kernel_shape=[3, 2], strides=[2, 2],
        auto_pad="SAME_LOWER")  # fmt: skip


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool(op) -> None:
    assert one(op, (2, 3, 5, 4)).nodes[0].op == "global_pool2d"


def test_lrn() -> None:
    one("LRN", (1, 7, 4, 5), size=3, alpha=2e-4, beta=0.7, bias=1.5)
    one("LRN", (2, 6, 3, 3), size=5)


@pytest.mark.parametrize("opset", [7, 9, 15])
def test_batch_norm(opset) -> None:
    c = 5
    inits = {"s": rand(c), "b": rand(c), "m": rand(c), "v": np.abs(rand(c)) + 0.5}
    attrs = {"spatial": 1} if opset == 7 else {}
    g = one("BatchNormalization", (2, c, 3, 4), inits, opset=opset, epsilon=1e-3, **attrs)
    assert g.nodes[0].op == "batch_norm" and g.nodes[0].attrs["epsilon"] == pytest.approx(1e-3)


# ---------------------------------------------------------------- matrix products
@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize(
    ("alpha", "beta", "c_shape"),
    [(1.0, 1.0, (5,)), (0.5, 2.0, (5,)), (1.0, 0.5, (1, 5)), (1.5, 1.0, ()), (1.0, 1.0, None)],
)
def test_gemm_dense(trans_b, alpha, beta, c_shape) -> None:
    b = rand(5, 4) if trans_b else rand(4, 5)
    inits = {"B": b} | ({"C": rand(*c_shape)} if c_shape is not None else {})
    g = one("Gemm", (3, 4), inits, transB=trans_b, alpha=alpha, beta=beta)
    (dense,) = g.nodes
    assert dense.op == "dense" and g.shape(dense.inputs[1]) == (5, 4)
    assert dense.attrs["epilogue"] == (["bias"] if c_shape is not None else [])


def test_gemm_full_c_and_trans_a() -> None:
    g = one("Gemm", (4, 3), {"B": rand(4, 5), "C": rand(3, 5)}, transA=1, alpha=2.0, beta=0.5)
    assert g.op_counts() == {"transpose": 1, "dense": 1, "add": 1}


def test_gemm_runtime_b() -> None:
    n = node("Gemm", ["a", "b", "c"], transB=1, alpha=0.5, beta=2.0)
    g = check(make_model([n], {"a": (3, 4), "b": (5, 4), "c": (5,)}, ["y"]))
    assert g.op_counts() == {"transpose": 1, "matmul": 1, "mul": 2, "add": 1}


def test_matmul_constant_b_is_dense() -> None:
    g = one("MatMul", (3, 4), {"B": rand(4, 6)})
    assert g.op_counts() == {"dense": 1} and g.params[g.nodes[0].inputs[1]].shape == (6, 4)


def test_matmul_batched_and_runtime() -> None:
    # a 3-D activation by a weight: rows folded into one dense (a transformer's projection)
    assert one("MatMul", (2, 3, 4), {"B": rand(4, 6)}).op_counts() == {"reshape": 2, "dense": 1}
    g = check(make_model([node("MatMul", ["a", "b"])], {"a": (2, 3, 4), "b": (4, 2)}, ["y"]))
    assert g.op_counts() == {"matmul": 1}


# ---------------------------------------------------------------- elementwise
@pytest.mark.parametrize(
    ("op", "opset", "attrs"),
    [
        ("Relu", 13, {}),
        ("Sigmoid", 13, {}),
        ("LeakyRelu", 13, {"alpha": 0.2}),
        ("LeakyRelu", 7, {}),
        ("HardSigmoid", 13, {"alpha": 0.3, "beta": 0.4}),
        ("HardSwish", 14, {}),
    ],
)
def test_unary(op, opset, attrs) -> None:
    one(op, (2, 3, 4, 5), opset=opset, **attrs)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_binary_broadcast(op) -> None:
    c = (np.abs(rand(3, 1, 1)) + 0.5).astype(np.float32)
    g = one(op, (2, 3, 4, 5), {"c": c})
    assert g.nodes[0].op == op.lower() and g.is_param("c")
    n = node(op, ["a", "b"])
    check(
        make_model([n], {"a": (2, 1, 5), "b": (3, 1)}, ["y"], opset=7),
        b=np.full((3, 1), 2, np.float32),
    )


def test_clip_opset6_style_attrs_and_opset13_inputs() -> None:
    g = one("Clip", (2, 8), opset=7, min=-0.5, max=0.25)
    assert g.nodes[0].attrs == {"lo": -0.5, "hi": 0.25}
    g = one("Clip", (2, 8), opset=7, max=0.25)
    assert g.nodes[0].attrs["lo"] == -float(np.finfo(np.float32).max)
    n = node("Clip", ["x", "", "hi"])
    g = check(make_model([n], {"x": (2, 8)}, ["y"], {"hi": np.array(0.3, np.float32)}))
    assert g.nodes[0].attrs["hi"] == pytest.approx(0.3) and not g.params
    g = one("Clip", (2, 8), {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)})
    assert g.nodes[0].attrs == {"lo": 0.0, "hi": 6.0}


def test_sum_of_three() -> None:
    n = node("Sum", ["a", "b", "c"])
    g = check(make_model([n], {"a": (2, 3), "b": (2, 3), "c": (1, 3)}, ["y"]))
    assert g.op_counts() == {"add": 2} and g.nodes[-1].outputs == ["y"]


@pytest.mark.parametrize(
    ("opset", "axis", "ops"),
    [
        (11, 1, {"reshape": 2, "softmax": 1}),
        (11, -1, {"softmax": 1}),
        (13, 1, {"softmax": 1}),
        (13, None, {"softmax": 1}),
    ],
)
def test_softmax(opset, axis, ops) -> None:
    attrs = {} if axis is None else {"axis": axis}
    assert one("Softmax", (2, 3, 4, 5), opset=opset, **attrs).op_counts() == ops


@pytest.mark.parametrize(("opset", "axes"), [(13, [1, 3]), (13, None), (18, [-1]), (18, None)])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_reduce_mean(opset, axes, keepdims) -> None:
    if opset >= 18:
        inits = {} if axes is None else {"axes": np.array(axes, np.int64)}
        g = one("ReduceMean", (2, 3, 4, 5), inits, opset=opset, keepdims=keepdims)
    else:
        attrs = {} if axes is None else {"axes": axes}
        g = one("ReduceMean", (2, 3, 4, 5), opset=opset, keepdims=keepdims, **attrs)
    assert g.op_counts() == {"reduce_mean": 1}


# ---------------------------------------------------------------- shapes and data movement
def test_reshape_zero_and_minus_one() -> None:
    g = one("Reshape", (2, 3, 4, 5), {"s": np.array([0, -1, 5], np.int64)})
    assert g.nodes[0].attrs["shape"] == [2, 12, 5] and not g.params


def test_flatten_transpose_concat() -> None:
    assert one("Flatten", (2, 3, 4, 5), axis=2).nodes[0].attrs["shape"] == [6, 20]
    assert one("Flatten", (2, 3, 4), axis=0).nodes[0].attrs["shape"] == [1, 24]
    assert one("Transpose", (2, 3, 4)).nodes[0].attrs["perm"] == [2, 1, 0]
    one("Transpose", (2, 3, 4), perm=[0, 2, 1])
    g = one("Concat", (2, 3, 4), {"c": rand(2, 1, 4)}, axis=-2)
    assert g.nodes[0].attrs["axis"] == 1


def test_view_pattern_folds_to_one_reshape() -> None:
    """x.view(x.size(0), -1) as PyTorch exports it."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Constant", [], ["i0"], value=numpy_helper.from_array(np.array(0))),
        helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
        helper.make_node("Constant", [], ["ax"], value_ints=[0]),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Constant", [], ["m1"], value_ints=[-1]),
        helper.make_node("Concat", ["n1", "m1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    g = check(make_model(nodes, {"x": (3, 4, 2, 2)}, {"y": (3, 16)}))
    assert g.op_counts() == {"reshape": 1} and not g.params
    assert g.nodes[0].attrs["shape"] == [3, 16]
    assert g.nodes[0].name == "Reshape_7"  # unnamed nodes get generated names


@pytest.mark.parametrize("opset", [11, 13])
def test_squeeze_unsqueeze(opset) -> None:
    axes = np.array([0, 3], np.int64)
    if opset >= 13:
        nodes = [node("Unsqueeze", ["x", "a"], ["u"]), node("Squeeze", ["u", "a"], ["y"])]
        nodes[1].name = "squeeze0"
        inits = {"a": axes}
    else:
        nodes = [
            node("Unsqueeze", ["x"], ["u"], axes=[0, 3]),
            node("Squeeze", ["u"], ["y"], axes=[0, 3]),
        ]
        nodes[1].name = "squeeze0"
        inits = {}
    g = check(make_model(nodes, {"x": (3, 4, 5)}, ["y", "u"], inits, opset))
    assert g.shape("u") == (1, 3, 4, 1, 5) and g.op_counts() == {"reshape": 2}
    sq = node("Squeeze", ["x"])
    assert check(make_model([sq], {"x": (1, 3, 1, 2)}, ["y"], opset=opset)).shape("y") == (3, 2)


@pytest.mark.parametrize(
    ("opset", "split", "attrs"),
    [
        (11, [1, 4], {}),
        (11, None, {}),
        (13, [1, 4], {}),
        (13, None, {}),
        (18, None, {"num_outputs": 2}),
    ],
)
def test_split(opset, split, attrs) -> None:
    dim = 5 if split or attrs else 6
    inits = {}
    ins = ["x"]
    if split is not None and opset >= 13:
        inits, ins = {"s": np.array(split, np.int64)}, ["x", "s"]
    elif split is not None:
        attrs = {"split": split}
    n = node("Split", ins, ["y0", "y1"], axis=1, **attrs)
    g = check(make_model([n], {"x": (2, dim, 3)}, ["y0", "y1"], inits, opset))
    assert g.op_counts() == {"split": 1} and len(g.nodes[0].outputs) == 2


@pytest.mark.parametrize("opset", [7, 11, 18])
def test_pad(opset) -> None:
    pads = [0, 1, 2, 0, 0, 2, 1, 3]
    if opset < 11:
        g = one("Pad", (1, 2, 3, 4), opset=opset, pads=pads, value=1.5)
    else:
        inits = {"p": np.array(pads, np.int64), "v": np.array(1.5, np.float32)}
        g = one("Pad", (1, 2, 3, 4), inits, opset=opset)
    assert g.nodes[0].attrs == {"pads": pads, "value": 1.5}
    if opset >= 18:
        inits = {"p": np.array([1, 2, 3, 0], np.int64), "v": np.array(0.0, np.float32),
                 "a": np.array([-1, 2], np.int64)}  # fmt: skip
        assert one("Pad", (1, 2, 3, 4), inits, opset=opset).shape("y") == (1, 2, 5, 8)


def test_initializers_listed_as_inputs_opset7() -> None:
    inits = {"w": rand(4, 3, 3, 3), "b": rand(4)}
    n = node("Conv", ["x", "w", "b"], pads=[1, 1, 1, 1])
    model = make_model([n], {"x": (1, 3, 6, 6)}, ["y"], inits, opset=7, inits_as_inputs=True)
    g = check(model)
    assert [v.name for v in g.inputs] == ["x"] and set(g.params) == {"w", "b"}


def test_dropout_and_identity_removed() -> None:
    nodes = [
        node("Identity", ["x"], ["i1"]),
        node("Relu", ["i1"], ["r"]),
        node("Dropout", ["r"], ["d", "mask"]),
        node("Identity", ["d"], ["y"]),
    ]
    for n, name in zip(nodes, ["id0", "relu0", "drop0", "id1"], strict=True):
        n.name = name
    g = check(make_model(nodes, {"x": (2, 3)}, ["y"], opset=13))
    assert g.op_counts() == {"relu": 1} and g.nodes[0].outputs == ["y"]
    n = node("Dropout", ["x", "ratio"], ["y"])
    g = check(make_model([n], {"x": (2, 3)}, ["y"], {"ratio": np.array(0.3, np.float32)}, 12))
    assert g.op_counts() == {"reshape": 1}  # output copies the input, keeping its ONNX name


def test_constants_and_folding() -> None:
    nodes = [
        helper.make_node("Constant", [], ["c"], value_float=2.0),
        helper.make_node("Constant", [], ["d"], value=numpy_helper.from_array(rand(3))),
        helper.make_node("Mul", ["d", "c"], ["e"]),
        helper.make_node("Cast", ["e"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "f"], ["y"]),
    ]
    g = check(make_model(nodes, {"x": (2, 3)}, ["y"]))
    assert g.op_counts() == {"add": 1} and list(g.params) == ["f"]


def test_dynamic_input_with_input_shapes() -> None:
    model = make_model([node("Relu", ["x"])], {"x": ("batch", 3, "h", 4)}, ["y"])
    g = check(model, {"x": [2, 3, 5, 4]})
    assert g.inputs[0].shape == (2, 3, 5, 4)


def test_load_from_file_and_bytes(tmp_path: Path) -> None:
    model = make_model([node("Relu", ["x"])], {"x": (1, 3)}, ["y"])
    path = tmp_path / "relu.onnx"
    onnx.save(model, str(path))
    assert load_onnx(path).name == "test"
    assert load_onnx(str(path), name="net").name == "net"
    assert load_onnx(model.SerializeToString()).op_counts() == {"relu": 1}


# ---------------------------------------------------------------- errors
def test_unsupported_op() -> None:
    model = make_model([node("Selu", ["x"])], {"x": (2, 3)}, ["y"])
    with pytest.raises(FrontendError) as info:
        load_onnx(model)
    msg = str(info.value)
    assert (
        "node 'selu0' (Selu): unsupported op; supported: Abs, Add, And, ArgMax, ArgMin, AveragePool"
        in msg
    )
    assert ", ".join(SUPPORTED_OPS) in msg and list(SUPPORTED_OPS) == sorted(SUPPORTED_OPS)


def test_conv_transpose_and_3d_conv_rejected() -> None:
    model = make_model([node("ConvTranspose", ["x", "w"])], {"x": (1, 2, 4, 4)}, ["y"],
                       {"w": rand(2, 3, 3, 3)})  # fmt: skip
    with pytest.raises(FrontendError, match=r"'convtranspose0' \(ConvTranspose\).*not supported"):
        load_onnx(model)
    model = make_model([node("Conv", ["x", "w"])], {"x": (1, 2, 4, 4, 4)}, ["y"],
                       {"w": rand(3, 2, 3, 3, 3)})  # fmt: skip
    with pytest.raises(FrontendError, match=r"only 1-D and 2-D convolution"):
        load_onnx(model)


@pytest.mark.parametrize("how", ["truncated", "garbage", "file"])
def test_invalid_model_bytes(how, tmp_path: Path) -> None:
    data = make_model([node("Relu", ["x"])], {"x": (1, 3)}, ["y"]).SerializeToString()
    data = data[: len(data) // 2] if how == "truncated" else b"\x0f\xffnot an onnx model\x00"
    target: Any = data
    if how == "file":
        target = tmp_path / "model.onnx"
        target.write_bytes(data)
    with pytest.raises(FrontendError, match="not a valid ONNX model") as info:
        load_onnx(target)
    if how == "file":
        assert str(info.value).startswith(f"{target}: not a valid ONNX model")


def test_old_opset_rejected() -> None:
    model = make_model([node("Relu", ["x"])], {"x": (1, 3)}, ["y"], opset=6)
    with pytest.raises(FrontendError, match="opset 6 is not supported; need opset 7 or newer"):
        load_onnx(model)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.onnx"
    with pytest.raises(FrontendError, match=f"{path}: no such file"):
        load_onnx(path)


def test_dynamic_dim_needs_input_shapes() -> None:
    model = make_model([node("Relu", ["x"])], {"x": ("N", 3, 224, 224)}, ["y"])
    with pytest.raises(FrontendError) as info:
        load_onnx(model)
    msg = str(info.value)
    assert "'x' dim 0 ('N') is dynamic" in msg and "--input-shape x:1,3,224,224" in msg


def test_input_shapes_errors() -> None:
    model = make_model([node("Relu", ["x"])], {"x": ("N", 3)}, ["y"])
    with pytest.raises(
        FrontendError, match=r"unknown input\(s\) \['z'\]; the model's inputs are \['x'\]"
    ):
        load_onnx(model, {"z": [1, 3]})
    with pytest.raises(FrontendError, match="dim 1 is 3 in the model, but input_shapes gives 4"):
        load_onnx(model, {"x": [1, 4]})


def test_non_float_input_rejected() -> None:
    vi = helper.make_tensor_value_info("x", TensorProto.UINT8, [2])
    out = helper.make_tensor_value_info("y", TensorProto.UINT8, [2])
    graph = helper.make_graph([node("Neg", ["x"])], "g", [vi], [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(FrontendError, match="input 'x' has element type uint8; only float32"):
        load_onnx(model)


def test_pad_reflect_rejected() -> None:
    model = make_model([node("Pad", ["x", "p"], mode="reflect")], {"x": (1, 4)}, ["y"],
                       {"p": np.array([0, 1, 0, 1], np.int64)})  # fmt: skip
    with pytest.raises(FrontendError, match=r"node 'pad0' \(Pad\): Pad mode 'reflect'"):
        load_onnx(model)


def test_max_pool_indices_rejected() -> None:
    n = node("MaxPool", ["x"], ["y", "idx"], kernel_shape=[2, 2])
    model = make_model([n], {"x": (1, 1, 4, 4)}, ["y"])
    with pytest.raises(FrontendError, match=r"'maxpool0' \(MaxPool\): the Indices output"):
        load_onnx(model)


def test_fold_only_op_on_runtime_value_rejected() -> None:
    model = make_model([node("Floor", ["x"])], {"x": (3, 4)}, ["y"])
    with pytest.raises(FrontendError, match=r"'floor0' \(Floor\): supported only on constant"):
        load_onnx(model)


def test_batch_norm_training_outputs_rejected() -> None:
    c = 2
    inits = {k: np.ones(c, np.float32) for k in ("s", "b", "m", "v")}
    n = node("BatchNormalization", ["x", *inits], ["y", "rm", "rv"], training_mode=1)
    model = make_model([n], {"x": (2, c, 3, 3)}, ["y"], inits, opset=15)
    with pytest.raises(FrontendError, match="training-mode outputs"):
        load_onnx(model)


def test_shape_mismatch_names_onnx_node() -> None:
    model = make_model([node("Conv", ["x", "w"])], {"x": (1, 3, 8, 8)}, ["y"],
                       {"w": rand(4, 2, 3, 3)})  # fmt: skip
    with pytest.raises(FrontendError, match=r"node 'conv0' \(Conv\): .*input channels") as info:
        load_onnx(model, input_shapes=None)
    assert isinstance(info.value, ValueError)
