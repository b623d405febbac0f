"""QDQ pairs around Add, Gemm, Conv + activation and max pools fold into int8 ops
(`graph.passes.qdq`) and, compiled, match ONNX Runtime's fused QLinearAdd / QGemm /
QLinearConv bit for bit on small onnx.helper models; int8 max pool kernels are exact."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from ort_int8 import assert_matches_ort_int8

from tunefarm.backends import registry
from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.graph.interpret import run_graph
from tunefarm.measure import MeasureSettings
from tunefarm.oprun import run_op
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task, TaskError

F32 = TensorProto.FLOAT


def make(nodes, inits, inputs, out_shape) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info(k, F32, list(s)) for k, s in inputs.items()],
        [helper.make_tensor_value_info("y", F32, list(out_shape))],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def qdq(x: str, s: str, z: str) -> list:
    return [
        helper.make_node("QuantizeLinear", [x, s, z], [f"{x}_q"]),
        helper.make_node("DequantizeLinear", [f"{x}_q", s, z], [f"{x}_dq"]),
    ]


def check(m: onnx.ModelProto, feeds: dict, op: str, tmp_path) -> None:
    _, graph = load_model(m)
    assert op in graph.op_counts(), graph.op_counts()
    assert "add" not in graph.op_counts() and "dense" not in graph.op_counts()
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    (got,) = GraphExecutor.load(tmp_path / "q.tfa").run(feeds).values()
    (interp,) = run_graph(graph, feeds).values()
    want = ort.InferenceSession(m.SerializeToString()).run(None, feeds)[0]
    np.testing.assert_array_equal(interp, got)
    assert_matches_ort_int8(got, want)


@pytest.mark.parametrize("shape", [(1, 8, 5, 5), (3, 20)])
def test_qdq_add_matches_qlinearadd(shape, tmp_path) -> None:
    inits = {
        "sa": np.float32(0.031), "za": np.uint8(120),
        "sb": np.float32(0.017), "zb": np.uint8(7),
        "sc": np.float32(0.041), "zc": np.uint8(99),
    }  # fmt: skip
    nodes = qdq("a", "sa", "za") + qdq("b", "sb", "zb")
    nodes.append(helper.make_node("Add", ["a_dq", "b_dq"], ["c"], name="add"))
    nodes += qdq("c", "sc", "zc")
    nodes.append(helper.make_node("Identity", ["c_dq"], ["y"]))
    m = make(nodes, inits, {"a": shape, "b": shape}, shape)
    rng = np.random.default_rng(0)
    feeds = {k: rng.uniform(-4, 5, shape).astype(np.float32) for k in ("a", "b")}
    check(m, feeds, "qadd", tmp_path)


@pytest.mark.parametrize("per_channel", [False, True])
def test_qdq_gemm_matches_qgemm(per_channel: bool, tmp_path) -> None:
    rng = np.random.default_rng(1)
    m_rows, k, n = 2, 16, 12
    ws = rng.uniform(0.002, 0.02, n if per_channel else 1).astype(np.float32)
    inits = {
        "sx": np.float32(0.05), "zx": np.uint8(100),
        "w": rng.integers(-127, 128, (n, k)).astype(np.int8),
        "ws": ws, "wz": np.zeros(ws.shape, np.int8),
        "b": rng.integers(-3000, 3000, n).astype(np.int32),
        "bs": (np.float32(0.05) * ws).astype(np.float32), "bz": np.zeros(ws.shape, np.int32),
        "sy": np.float32(0.07), "zy": np.uint8(30),
    }  # fmt: skip
    nodes = qdq("x", "sx", "zx")
    nodes += [
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["w_dq"], axis=0),
        helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["b_dq"], axis=0),
        helper.make_node("Gemm", ["x_dq", "w_dq", "b_dq"], ["g"], name="gemm", transB=1),
    ]
    nodes += qdq("g", "sy", "zy")
    nodes.append(helper.make_node("Identity", ["g_dq"], ["y"]))
    m = make(nodes, inits, {"x": (m_rows, k)}, (m_rows, n))
    feeds = {"x": rng.uniform(-6, 6, (m_rows, k)).astype(np.float32)}
    check(m, feeds, "qconv2d", tmp_path)


@pytest.mark.parametrize("act", ["Relu", "Clip"])
def test_qdq_conv_with_activation_matches_qlinearconv(act: str, tmp_path) -> None:
    """DQ -> Conv -> Relu / Clip(0, 6) -> Q at zero point 0, as our QDQ export writes it."""
    rng = np.random.default_rng(2)
    o, c = 8, 4
    ws = rng.uniform(0.002, 0.02, o).astype(np.float32)
    inits = {
        "sx": np.float32(0.05), "zx": np.uint8(100),
        "w": rng.integers(-127, 128, (o, c, 3, 3)).astype(np.int8),
        "ws": ws, "wz": np.zeros(o, np.int8),
        "b": rng.integers(-3000, 3000, o).astype(np.int32),
        "bs": (np.float32(0.05) * ws).astype(np.float32), "bz": np.zeros(o, np.int32),
        "sy": np.float32(0.03), "zy": np.uint8(0), "lo": np.float32(0), "hi": np.float32(6),
    }  # fmt: skip
    nodes = qdq("x", "sx", "zx")
    nodes += [
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["w_dq"], axis=0),
        helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["b_dq"], axis=0),
        helper.make_node("Conv", ["x_dq", "w_dq", "b_dq"], ["v"], name="conv", pads=[1] * 4),
        helper.make_node(act, ["v", "lo", "hi"] if act == "Clip" else ["v"], ["g"]),
    ]
    nodes += qdq("g", "sy", "zy")
    nodes.append(helper.make_node("Identity", ["g_dq"], ["y"]))
    m = make(nodes, inits, {"x": (1, c, 6, 6)}, (1, o, 6, 6))
    feeds = {"x": rng.uniform(-6, 6, (1, c, 6, 6)).astype(np.float32)}
    _, graph = load_model(m)
    (conv,) = [n for n in graph.nodes if n.op == "qconv2d"]
    assert conv.attrs["relu"] and ("out_max" in conv.attrs) == (act == "Clip")
    check(m, feeds, "qconv2d", tmp_path)


@pytest.mark.parametrize("op", ["MaxPool", "GlobalMaxPool", "GlobalAveragePool"])
def test_qdq_pool_runs_on_uint8(op: str, tmp_path) -> None:
    """DQ -> MaxPool -> Q at the same scale and zero point (as quantize_static writes it)
    becomes a uint8 max pool: exact, no float in between; DQ -> GlobalAveragePool -> Q a
    quantized mean equal to ONNX Runtime's QLinearGlobalAveragePool."""
    inits = {"s": np.float32(0.04), "z": np.uint8(77), "so": np.float32(0.011), "zo": np.uint8(3)}
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}
    nodes = qdq("x", "s", "z")
    nodes.append(helper.make_node(op, ["x_dq"], ["p"], **(attrs if op == "MaxPool" else {})))
    nodes += qdq("p", "so", "zo") if op == "GlobalAveragePool" else qdq("p", "s", "z")
    nodes.append(helper.make_node("Identity", ["p_dq"], ["y"]))
    out = (1, 8, 4, 4) if op == "MaxPool" else (1, 8, 1, 1)
    m = make(nodes, inits, {"x": (1, 8, 7, 7)}, out)
    feeds = {"x": np.random.default_rng(3).uniform(-4, 6, (1, 8, 7, 7)).astype(np.float32)}
    _, graph = load_model(m)
    (pool,) = [n for n in graph.nodes if "pool" in n.op]
    assert graph.value(pool.inputs[0]).dtype == "uint8"
    check(m, feeds, pool.op, tmp_path)


@pytest.mark.parametrize(
    "task",
    [
        Task.make("pool2d", data=[1, 16, 9, 9], kind="max", kernel=[3, 3], strides=[2, 2],
                  padding=[1, 1, 1, 1], dtype="uint8"),
        Task.make("pool2d", data=[2, 8, 7, 7], kind="max", kernel=[2, 2], strides=[1, 1],
                  padding=[0, 0, 1, 1], ceil_mode=True, dtype="int8"),
        Task.make("global_pool2d", data=[1, 32, 3, 3], kind="max", dtype="uint8"),
        Task.make("global_pool2d", data=[1, 32, 7, 7], kind="avg", dtype="uint8",
                  qparams=[0.02, 100, 0.013, 7]),
        Task.make("global_pool2d", data=[2, 16, 2, 2], kind="avg", dtype="int8",
                  qparams=[0.02, -3, 0.02, 5]),
    ],
)  # fmt: skip
def test_int8_pool_kernels_are_exact(task: Task) -> None:
    """Compiled int8 max pools and quantized means equal the numpy reference."""
    space = registry.config_space(task)
    configs = [registry.default_config(task).as_dict(), space.get(len(space) - 1)]
    for run in run_op(task, configs, sweep=1, settings=MeasureSettings(repeat=1)):
        assert run.ok, run.error_msg


def test_int8_average_pool_is_refused_by_name() -> None:
    task = Task.make("pool2d", data=[1, 8, 4, 4], kind="avg", kernel=[2, 2], dtype="uint8")
    with pytest.raises(TaskError, match="pool2d: dtype 'uint8'.*max pooling"):
        registry.config_space(task)
