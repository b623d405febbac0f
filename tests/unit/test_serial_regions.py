"""Parallel loops too small to pay for waking the OpenMP team run serially
(`backends/cpu/serial.py`): the emitted C of a tiny kernel has no region, a big kernel keeps
its region, a one-core target has none, and the serial and parallel kernels of one network
compute what numpy computes."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from tunefarm.backends import registry
from tunefarm.backends.cpu import serial
from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.measure import MeasureInput
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task

CPU = "cpu -isa=avx2 -cores=2"
REGION = "#pragma omp parallel for"


def source(task: Task) -> str:
    return registry.generate_source(MeasureInput(task, registry.default_config(task))).code


def test_a_tiny_elementwise_runs_serially_and_a_big_conv_keeps_its_region() -> None:
    add = Task.make("elementwise", target=CPU, fn="add", shapes=[(2, 64, 7, 7), (1, 64, 1, 1)])
    code = source(add)
    assert "omp parallel" not in code
    # each element: a store of a sum of two loads (4 operations)
    assert f"/* serial: work {4 * 2 * 64 * 7 * 7} */" in code
    conv = Task.make(
        "conv2d", target=CPU, data=(1, 64, 56, 56), weight=(64, 64, 3, 3), padding=(1, 1, 1, 1)
    )
    assert f"{REGION} num_threads(2)" in source(conv)
    big_add = Task.make("elementwise", target=CPU, fn="add", shapes=[(1, 64, 112, 112)] * 2)
    assert REGION in source(big_add)


def test_a_math_call_weighs_more_than_arithmetic() -> None:
    """Softmax over 64x1000 (whole 8-lane rows): the exp pass, an exp per element, is above
    the threshold; the max's and the sum's vector partials and their combining (loads,
    compares, adds) and the normalisation (a multiply per element) are below it."""
    code = source(Task.make("softmax", target=CPU, shape=(64, 1000), axis=-1))
    assert code.count(REGION) == 1 and code.count("/* serial: work") == 5
    assert serial.CALL_WORK > 10 * 4  # an expf against a four-operation elementwise store


def test_a_one_core_target_emits_no_region() -> None:
    conv = Task.make(
        "conv2d",
        target="cpu -isa=avx2 -cores=1",
        data=(1, 64, 56, 56),
        weight=(64, 64, 3, 3),
        padding=(1, 1, 1, 1),
    )
    code = source(conv)
    assert "omp parallel" not in code and code.count("/* serial: work") == 2


def attention_tail(rows: int, cols: int) -> tuple[bytes, np.ndarray]:
    """Softmax, a residual add and a transpose on [rows, cols] (the model, its add's bias)."""
    bias = np.random.default_rng(rows).standard_normal((rows, cols)).astype(np.float32)
    n = helper.make_node
    nodes = [
        n("Softmax", ["x"], ["s"], axis=-1),
        n("Add", ["s", "bias"], ["a"]),
        n("Transpose", ["a"], ["y"], perm=[1, 0]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, cols])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "tail", [x], [y], [numpy_helper.from_array(bias, "bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString(), bias


def numpy_tail(x: np.ndarray, bias: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True) + bias).T


def test_serial_and_parallel_kernels_match_numpy(tmp_path) -> None:
    regions = {}
    for rows, cols in [(3, 50), (128, 3000)]:
        model, bias = attention_tail(rows, cols)
        _, graph = load_model(model)
        compiled = compile_graph(graph, CPU)
        regions[rows] = sum(k.code.count(REGION) for k in compiled.plan.kernels)
        compiled.save(tmp_path / f"tail{rows}.tfa")
        x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32) * 3
        got = GraphExecutor.load(tmp_path / f"tail{rows}.tfa").run({"x": x})["y"]
        np.testing.assert_allclose(got, numpy_tail(x, bias), rtol=2e-5, atol=1e-6)
    assert regions[3] == 0  # every kernel of the small network serial
    # softmax's passes over the rows (the max's and the sum's vector partials, exp, the
    # normalisation) and the add are regions, the partials' combining per row is not; the
    # transpose (a load and a store per element: 768,000) is not
    assert regions[128] == 5
