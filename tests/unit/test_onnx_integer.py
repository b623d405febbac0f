"""ONNX's integer ops (ConvInteger, MatMulInteger, QLinearMatMul) import as int8 conv tasks
and, compiled, match ONNX Runtime bit for bit on small models built with onnx.helper; the
forms we do not take are errors naming the node."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.frontend.onnx_import import FrontendError
from tunefarm.graph.interpret import run_graph
from tunefarm.ir import quant_reference as QR
from tunefarm.runtime.executor import GraphExecutor

F32 = TensorProto.FLOAT


def model(nodes, inits, x_shape, y_shape, opset=13) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "int",
        [helper.make_tensor_value_info("x", F32, list(x_shape))],
        [helper.make_tensor_value_info("y", F32, list(y_shape))],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def quantize_x(zero: int = 100) -> tuple[list, dict]:
    node = helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="Q")
    return [node], {"xs": np.float32(0.05), "xz": np.uint8(zero)}


def to_float(src: str, scale: float, via_cast: bool) -> list:
    """int32 -> float y: Cast then Mul (quantize_dynamic's form) or a DequantizeLinear."""
    if via_cast:
        return [
            helper.make_node("Cast", [src], ["acc_f"], to=F32, name="cast"),
            helper.make_node("Mul", ["acc_f", "ys"], ["y"], name="mul"),
        ]
    return [helper.make_node("DequantizeLinear", [src, "ys"], ["y"], name="DQ")]


def run_both(m: onnx.ModelProto, x: np.ndarray, tmp_path) -> tuple[np.ndarray, np.ndarray]:
    _, graph = load_model(m)
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    (got,) = GraphExecutor.load(tmp_path / "q.tfa").run({"x": x}).values()
    want = ort.InferenceSession(m.SerializeToString()).run(None, {"x": x})[0]
    (interp,) = run_graph(graph, {"x": x}).values()
    np.testing.assert_array_equal(interp, got)  # the numpy interpreter agrees too
    return got, want


def conv_integer_model(rng, w_dtype=np.int8, w_zero=None, via_cast=True, x_zero=True):
    o, c = 8, 4
    lo, hi = (-100, 100) if w_dtype == np.int8 else (30, 220)
    inits = {"w": rng.integers(lo, hi, (o, c, 3, 3)).astype(w_dtype), "ys": np.float32(0.01)}
    nodes, q = quantize_x()
    inits.update(q)
    ins = ["xq", "w", "xz" if x_zero else ""]
    if w_zero is not None:
        inits["wz"] = np.asarray(w_zero, w_dtype)
        ins.append("wz")
    nodes.append(
        helper.make_node(
            "ConvInteger", ins, ["acc"], name="cint", pads=[1, 1, 1, 1], strides=[2, 2]
        )
    )
    nodes += to_float("acc", 0.01, via_cast)
    return model(nodes, inits, (1, c, 9, 9), (1, o, 5, 5)), inits


@pytest.mark.parametrize(
    "w_dtype, w_zero, via_cast, x_zero",
    [
        (np.int8, None, True, True),
        (np.int8, 0, False, False),
        (np.uint8, 128, True, True),
    ],
)
def test_conv_integer_matches_onnxruntime(w_dtype, w_zero, via_cast, x_zero, tmp_path) -> None:
    m, _ = conv_integer_model(np.random.default_rng(1), w_dtype, w_zero, via_cast, x_zero)
    _, graph = load_model(m)
    assert graph.op_counts()["qconv2d"] == 1
    x = np.random.default_rng(2).uniform(-6, 6, (1, 4, 9, 9)).astype(np.float32)
    got, want = run_both(m, x, tmp_path)
    np.testing.assert_array_equal(got, want)


def test_conv_integer_per_channel_weight_zero_point() -> None:
    """Per-output-channel w_zero_point (ONNX Runtime's ConvInteger refuses it): against the
    numpy int32 reference."""
    zero = np.array([120, 128, 130, 125, 127, 129, 131, 126], np.uint8)
    m, inits = conv_integer_model(np.random.default_rng(3), np.uint8, zero)
    _, graph = load_model(m)
    x = np.random.default_rng(4).uniform(-6, 6, (1, 4, 9, 9)).astype(np.float32)
    (got,) = run_graph(graph, {"x": x}).values()
    xq = QR.quantize(x, 0.05, 100, "uint8")
    acc = QR.conv2d_int(xq, inits["w"], 100, zero, [2, 2], [1, 1, 1, 1])
    np.testing.assert_array_equal(got, acc.astype(np.float32) * np.float32(0.01))


def matmul_model(rng, op: str, b_zero=None, per_column=False, y_int8=False, rows=(3,)):
    k, n = 16, 12
    b_dtype = np.int8 if b_zero is None or np.asarray(b_zero).dtype == np.int8 else np.uint8
    lo, hi = (-120, 120) if b_dtype == np.int8 else (20, 240)
    inits = {"b": rng.integers(lo, hi, (k, n)).astype(b_dtype), "ys": np.float32(0.3)}
    nodes, q = quantize_x(90)
    inits.update(q)
    if op == "MatMulInteger":
        ins = ["xq", "b", "xz"]
        if b_zero is not None:
            inits["bz"] = np.asarray(b_zero, b_dtype)
            ins.append("bz")
        nodes.append(helper.make_node(op, ins, ["acc"], name="mmi"))
        nodes += to_float("acc", 0.3, via_cast=True)
    else:
        bs = rng.uniform(0.002, 0.02, n if per_column else 1).astype(np.float32)
        inits.update(bs=bs, bz=np.zeros(bs.shape, b_dtype) if b_zero is None else b_zero)
        yz = np.int8(-5) if y_int8 else np.uint8(110)
        inits.update(yz=yz)
        ins = ["xq", "xs", "xz", "b", "bs", "bz", "ys", "yz"]
        nodes.append(helper.make_node(op, ins, ["yq"], name="qmm"))
        nodes.append(helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="DQ"))
    return model(nodes, inits, (*rows, k), (*rows, n)), inits


@pytest.mark.parametrize(
    "b_zero, rows",
    [(None, (3,)), (np.uint8(128), (2, 5)), (np.arange(120, 132, dtype=np.uint8), (4,))],
)
def test_matmul_integer_matches_onnxruntime(b_zero, rows, tmp_path) -> None:
    m, _ = matmul_model(np.random.default_rng(5), "MatMulInteger", b_zero, rows=rows)
    _, graph = load_model(m)
    assert graph.op_counts()["qconv2d"] == 1
    x = np.random.default_rng(6).uniform(-4, 4, (*rows, 16)).astype(np.float32)
    got, want = run_both(m, x, tmp_path)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("per_column", [False, True])
def test_qlinear_matmul_matches_onnxruntime(per_column, tmp_path) -> None:
    m, _ = matmul_model(np.random.default_rng(7), "QLinearMatMul", None, per_column)
    x = np.random.default_rng(8).uniform(-4, 4, (3, 16)).astype(np.float32)
    got, want = run_both(m, x, tmp_path)
    np.testing.assert_array_equal(got, want)


def test_qlinear_matmul_int8_output_matches_reference() -> None:
    """uint8 a with an int8 y (ONNX Runtime has no kernel for it): the numpy reference."""
    m, inits = matmul_model(np.random.default_rng(7), "QLinearMatMul", None, True, True)
    _, graph = load_model(m)
    x = np.random.default_rng(8).uniform(-4, 4, (3, 16)).astype(np.float32)
    (got,) = run_graph(graph, {"x": x}).values()
    acc = QR.dense_int(QR.quantize(x, 0.05, 90, "uint8"), inits["b"].T, 90, 0)
    scale = np.float32(0.05) * inits["bs"] / np.float32(0.3)
    y = QR.requantize(acc, scale, -5, "int8", axis=1)
    np.testing.assert_array_equal(got, QR.dequantize(y, 0.3, -5))


def swap_init(m: onnx.ModelProto, name: str, value) -> onnx.ModelProto:
    for t in m.graph.initializer:
        if t.name == name:
            t.CopyFrom(numpy_helper.from_array(np.asarray(value), name))
    return m


def test_integer_ops_refuse_what_they_do_not_take() -> None:
    rng = np.random.default_rng(9)
    m, _ = conv_integer_model(rng, np.uint8, 128)
    swap_init(m, "wz", np.uint8(3))  # 220 - 3 leaves int8
    with pytest.raises(FrontendError, match=r"node 'cint' \(ConvInteger\).*spans"):
        load_model(m)
    m, _ = conv_integer_model(rng, np.int8, 0)
    swap_init(m, "wz", np.uint8(0))
    with pytest.raises(FrontendError, match=r"node 'cint' \(ConvInteger\).*zero point is uint8"):
        load_model(m)
    m, _ = matmul_model(rng, "MatMulInteger")
    m.graph.initializer.pop(0)  # B is now quantized at run time from a second input
    m.graph.input.append(helper.make_tensor_value_info("bf", F32, [16, 12]))
    m.graph.initializer.append(numpy_helper.from_array(np.int8(0), "bzero"))
    m.graph.node.insert(0, helper.make_node("QuantizeLinear", ["bf", "xs", "bzero"], ["b"]))
    with pytest.raises(FrontendError, match=r"node 'mmi' \(MatMulInteger\).*run time"):
        load_model(m)
    m, _ = matmul_model(rng, "QLinearMatMul")
    swap_init(m, "yz", np.int32(0))
    with pytest.raises(FrontendError, match=r"node 'qmm' \(QLinearMatMul\).*y zero point dtype"):
        load_model(m)


def test_int8_activations_are_named() -> None:
    m, _ = matmul_model(np.random.default_rng(10), "MatMulInteger")
    swap_init(m, "xz", np.int8(0))
    with pytest.raises(FrontendError, match=r"node 'mmi' \(MatMulInteger\).*only uint8"):
        load_model(m)
