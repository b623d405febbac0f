"""`benchmarks/model_flops.py`: the direct multiply-adds of a model, counted on its ONNX graph
(the FLOPs a goal's rate is read against the FMA ceiling with, `models.py --peak`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from model_flops import count  # noqa: E402


def _model(nodes, inputs, weights):
    graph = helper.make_graph(
        nodes,
        "m",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(nodes[-1].output[0], TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.zeros(s, np.float32), n) for n, s in weights],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_convs_gemm_and_batched_matmul_are_counted_as_a_runtime_runs_them():
    nodes = [
        # 3x3 s1: 2 * (1*16*8*8) * 8 * 9 = 147456, Winograd-eligible
        helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1]),
        # grouped 3x3 (4 groups, 4 in per group) s2: 2 * (1*16*4*4) * 4 * 9 = 18432, not eligible
        helper.make_node("Conv", ["a", "w2"], ["b"], pads=[1, 1, 1, 1], strides=[2, 2], group=4),
        helper.make_node("Flatten", ["b"], ["f"]),  # 1 x 256
        helper.make_node("Gemm", ["f", "w3"], ["g"], transB=1),  # 2 * 1 * 10 * 256 = 5120
        helper.make_node("Reshape", ["g", "shape"], ["r"]),  # 1 x 2 x 5 x 1
        helper.make_node("MatMul", ["r", "w4"], ["y"]),  # 2 * (2*5*3) * 1 = 60
    ]
    model = _model(
        nodes,
        [("x", [1, 8, 8, 8])],
        [("w1", (16, 8, 3, 3)), ("w2", (16, 4, 3, 3)), ("w3", (10, 256)), ("w4", (1, 3))],
    )
    model.graph.initializer.append(
        numpy_helper.from_array(np.array([1, 2, 5, 1], np.int64), "shape")
    )
    f = count(model)
    assert f.total == 147456 + 18432 + 5120 + 60
    assert f.winograd_eligible == 147456


def test_a_conv_whose_shapes_cannot_be_inferred_is_named():
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="the_conv")]
    model = _model(nodes, [("x", ["n", 8, 8, 8])], [("w", (16, 8, 3, 3))])
    with pytest.raises(ValueError, match="the_conv"):
        count(model)
