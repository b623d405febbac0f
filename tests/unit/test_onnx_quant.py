"""Quantized ONNX import: QDQ models from `onnxruntime.quantization.quantize_static` (zoo
resnet-18 and mobilenet-v2, random weights, small images) import, compile and match ONNX
Runtime's int8 output within one quantization step; bad Q/DQ parameters and the QLinear /
Integer ops are errors naming the node."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from ort_int8 import assert_matches_ort_int8

from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.frontend.onnx_import import FrontendError
from tunefarm.graph.ir import random_inputs
from tunefarm.runtime.executor import GraphExecutor


def qdq_model(name: str, tmp_path) -> str:
    """Weights are quantized to 7 bits (`reduce_range`): on hosts without AVX-512 VNNI, ONNX
    Runtime's u8s8 kernels sum pairs of products in int16 (vpmaddubsw), which saturates for
    8-bit weights, so its output is not the exact int8 result ours is (on an AVX2 host 6% of
    resnet-18's and 73% of mobilenet-v2's outputs were off by more than a step). With 7-bit
    weights a pair fits in int16 and ONNX Runtime is exact on every host."""
    src, dst = tmp_path / f"{name}.onnx", tmp_path / f"{name}_int8.onnx"
    zoo.save(name, src, image_size=64)
    _, graph = load_model(str(src))

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.feeds = iter([random_inputs(graph, i) for i in range(4)])

        def get_next(self):
            return next(self.feeds, None)

    quantize_static(
        str(src),
        str(dst),
        Reader(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        reduce_range=True,
    )
    return str(dst)


def output_step(path: str) -> float:
    """The scale of the DequantizeLinear that makes the model's output."""
    model = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = model.graph.output[0].name
    (node,) = [n for n in model.graph.node if out in n.output]
    assert node.op_type == "DequantizeLinear"
    return float(np.asarray(inits[node.input[1]]).ravel()[0])


@pytest.mark.parametrize("name", ["resnet-18", "mobilenet-v2"])
def test_qdq_model_matches_onnxruntime_int8(name: str, tmp_path) -> None:
    """mobilenet-v2 matches only because its QDQ adds become `qadd` with QLinearAdd's float
    rounding: with the model's own Q/DQ semantics (float add, then quantize) one residual
    element in 15,000 rounds the other way and 9% of the outputs move by up to 4 steps."""
    path = qdq_model(name, tmp_path)
    _, graph = load_model(path)
    counts = graph.op_counts()
    assert counts.get("quantize", 0) > 10  # the QDQ pairs became graph ops
    if name == "mobilenet-v2":
        assert counts["qadd"] == 10 and "dense" not in counts  # adds and the Gemm folded
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    ex = GraphExecutor.load(tmp_path / "q.tfa")
    step = output_step(path)
    for seed in (100, 101):
        x = random_inputs(graph, seed)
        want = session.run(None, x)[0]
        (got,) = ex.run(x).values()
        within = np.abs(got - want) <= step * (1 + 1e-4)
        assert within.mean() >= 0.99, (within.mean(), np.abs(got - want).max(), step)


def q_model(nodes, inits, x_shape=(1, 4, 3, 3), x_type=TensorProto.FLOAT) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "q",
        [helper.make_tensor_value_info("x", x_type, list(x_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(x_shape))],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def qdq(scale, zero, axis=1) -> list:
    return [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="Q1", axis=axis),
        helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="DQ1", axis=axis),
    ]


@pytest.mark.parametrize(
    "scale, zero, axis, message",
    [
        (np.float32(0.0), np.uint8(0), 1, "scale must be positive"),
        (np.float32(-0.1), np.uint8(3), 1, "scale must be positive"),
        (np.float32(np.inf), np.uint8(3), 1, "scale must be positive"),
        (np.array([0.1, 0.2, 0.3, 0.4], np.float32), np.zeros(4, np.uint8), 5, "axis 5 is out"),
        (np.array([0.1, 0.2], np.float32), np.zeros(2, np.uint8), 1, "per-channel scale has 2"),
        (np.float32(0.1), np.int32(300), 1, "zero point dtype int32"),
    ],
)
def test_bad_qdq_parameters_name_the_node(scale, zero, axis, message) -> None:
    model = q_model(qdq(scale, zero, axis), {"s": scale, "z": zero})
    with pytest.raises(FrontendError, match="node 'Q1' \\(QuantizeLinear\\)") as info:
        load_model(model)
    assert message in str(info.value)


def test_per_channel_qdq_imports_and_interprets() -> None:
    from tunefarm.graph.interpret import run_graph

    scale = np.array([0.1, 0.2, 0.05, 0.4], np.float32)
    zero = np.array([0, 10, 128, 255], np.uint8)
    _, graph = load_model(q_model(qdq(scale, zero), {"s": scale, "z": zero}))
    x = np.random.default_rng(0).uniform(-20, 20, (1, 4, 3, 3)).astype(np.float32)
    (got,) = run_graph(graph, {"x": x}).values()
    s, z = scale.reshape(1, 4, 1, 1), zero.reshape(1, 4, 1, 1).astype(np.float32)
    want = (np.clip(np.rint(x / s) + z, 0, 255) - z) * s
    np.testing.assert_array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("op", ["ConvInteger", "MatMulInteger", "QLinearMatMul"])  # float x
def test_qlinear_and_integer_ops_are_named(op: str) -> None:
    node = helper.make_node(op, ["x", "w"], ["y"], name="n1")
    model = q_model([node], {"w": np.ones((4, 4, 1, 1), np.int8)})
    with pytest.raises(FrontendError, match=f"node 'n1' \\({op}\\)"):
        load_model(model)


def qlinearconv_model(per_channel: bool, rng, o: int = 16, c: int = 8) -> onnx.ModelProto:
    ws = rng.uniform(0.002, 0.02, o if per_channel else 1).astype(np.float32)
    inits = {
        "xs": np.float32(0.05), "xz": np.uint8(100),
        "w": rng.integers(-127, 128, (o, c, 3, 3)).astype(np.int8),
        "ws": ws, "wz": np.zeros(ws.shape, np.int8),
        "ys": np.float32(0.07), "yz": np.uint8(30),
        "b": rng.integers(-3000, 3000, o).astype(np.int32),
    }  # fmt: skip
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="Q"),
        helper.make_node(
            "QLinearConv",
            ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
            ["yq"],
            name="qconv",
            pads=[1, 1, 1, 1],
            strides=[2, 2],
        ),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="DQ"),
    ]
    graph = helper.make_graph(
        nodes,
        "qlc",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 9, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, o, 5, 5])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("per_channel, o, c", [(False, 16, 8), (True, 16, 8), (True, 6, 5)])
def test_qlinearconv_matches_onnxruntime_exactly(per_channel: bool, o, c, tmp_path) -> None:
    """(6, 5): odd channel counts run padded to 8 (`graph.passes.qdq_channels`)."""
    model = qlinearconv_model(per_channel, np.random.default_rng(4), o, c)
    _, graph = load_model(model)
    assert graph.op_counts()["qconv2d"] == 1
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    x = {"x": np.random.default_rng(5).uniform(-6, 6, (1, c, 9, 9)).astype(np.float32)}
    want = ort.InferenceSession(model.SerializeToString()).run(None, x)[0]
    (got,) = GraphExecutor.load(tmp_path / "q.tfa").run(x).values()
    assert_matches_ort_int8(got, want)


def test_qlinearconv_weight_zero_point_folds_or_is_named(tmp_path) -> None:
    """A weight zero point is folded into the weights (w - zw) when that fits int8."""
    model = qlinearconv_model(False, np.random.default_rng(4))
    w = np.random.default_rng(6).integers(-100, 100, (16, 8, 3, 3)).astype(np.int8)
    for t in model.graph.initializer:
        if t.name == "wz":
            t.CopyFrom(numpy_helper.from_array(np.array([3], np.int8), "wz"))
        if t.name == "w":
            t.CopyFrom(numpy_helper.from_array(w, "w"))
    _, graph = load_model(model)
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    x = {"x": np.random.default_rng(5).uniform(-6, 6, (1, 8, 9, 9)).astype(np.float32)}
    want = ort.InferenceSession(model.SerializeToString()).run(None, x)[0]
    (got,) = GraphExecutor.load(tmp_path / "q.tfa").run(x).values()
    assert_matches_ort_int8(got, want)
    for t in model.graph.initializer:
        if t.name == "wz":
            t.CopyFrom(numpy_helper.from_array(np.array([-100], np.int8), "wz"))
    with pytest.raises(FrontendError, match="node 'qconv' \\(QLinearConv\\).*spans"):
        load_model(model)
