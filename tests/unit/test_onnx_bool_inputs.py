"""A bool graph input (an attention mask exported as bool) imports as a one-byte buffer that
its consumers read as 0/1, and the compiled network matches ONNX Runtime exactly on the CPU
and on OpenCL."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from test_gpu_kernels import need_opencl

from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.graph.interpret import run_graph
from tunefarm.runtime.executor import ExecutorError, GraphExecutor


def masked_model() -> onnx.ModelProto:
    """y = where(mask, x, -1) + cast(mask, float) * 2: the mask feeds Where and Cast."""
    nodes = [
        helper.make_node("Where", ["mask", "x", "minus_one"], ["kept"], name="where"),
        helper.make_node("Cast", ["mask"], ["maskf"], to=TensorProto.FLOAT, name="cast"),
        helper.make_node("Mul", ["maskf", "two"], ["scaled"], name="mul"),
        helper.make_node("Add", ["kept", "scaled"], ["y"], name="add"),
    ]
    graph = helper.make_graph(
        nodes,
        "bool_mask",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 7]),
            helper.make_tensor_value_info("mask", TensorProto.BOOL, [2, 5, 7]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 7])],
        [
            numpy_helper.from_array(np.float32(-1.0), "minus_one"),
            numpy_helper.from_array(np.float32(2.0), "two"),
        ],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def feeds() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "x": rng.standard_normal((2, 5, 7)).astype(np.float32),
        "mask": rng.random((2, 5, 7)) < 0.5,
    }


@pytest.mark.parametrize("target", ["cpu -isa=avx2", "opencl"])
def test_a_bool_input_matches_onnxruntime_exactly(target, tmp_path) -> None:
    if target == "opencl":
        need_opencl()
    m, inputs = masked_model(), feeds()
    _, graph = load_model(m)
    assert dict((v.name, v.dtype) for v in graph.inputs)["mask"] == "bool"
    want = ort.InferenceSession(m.SerializeToString()).run(None, inputs)[0]
    np.testing.assert_array_equal(run_graph(graph, inputs)["y"], want)
    path = compile_graph(graph, target).save(tmp_path / "net.tfa").path
    ex = GraphExecutor.load(path)
    assert ex.input_info()["mask"] == ((2, 5, 7), "bool")
    np.testing.assert_array_equal(ex.run(inputs)["y"], want)
    # a float mask is not silently reinterpreted as bytes
    with pytest.raises(ExecutorError, match="input 'mask'.*dtype bool"):
        ex.run({**inputs, "mask": inputs["mask"].astype(np.float32)})
