"""Conv over 3-D [N, C, L] data (Whisper's front end) imports as a conv2d over [N, C, 1, L]
and matches ONNX Runtime: strides, pads, dilation, auto_pad, groups; bad weights are named."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import FrontendError, load_onnx
from tunefarm.runtime.executor import GraphExecutor


def conv1d_model(attrs: dict, c: int = 6, o: int = 4, k: int = 3, length: int = 17):
    rng = np.random.default_rng(0)
    groups = attrs.get("group", 1)
    w = rng.standard_normal((o, c // groups, k)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="c1d", **attrs)
    graph = helper.make_graph(
        [node],
        "conv1d",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, length])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize(
    "attrs",
    [
        {"pads": [1, 1], "strides": [2]},  # Whisper's second conv
        {"pads": [2, 0], "dilations": [2]},
        {"auto_pad": "SAME_UPPER", "strides": [2]},
        {"group": 2, "pads": [1, 1]},
    ],
)
def test_conv1d_matches_onnxruntime(attrs: dict, tmp_path) -> None:
    model = conv1d_model(attrs)
    x = {"x": np.random.default_rng(1).standard_normal((1, 6, 17)).astype(np.float32)}
    want = ort.InferenceSession(model.SerializeToString()).run(None, x)[0]
    graph = load_onnx(model)
    compile_graph(graph, "cpu").save(tmp_path / "c.tfa")
    got = GraphExecutor.load(tmp_path / "c.tfa").run(x)["y"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv1d_with_a_run_time_weight_is_named() -> None:
    model = conv1d_model({"pads": [1, 1]})
    model.graph.initializer.pop(0)  # w becomes a graph input
    model.graph.input.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 6, 3]))
    with pytest.raises(FrontendError, match="node 'c1d' \\(Conv\\).*constant non-empty 3-D"):
        load_onnx(model)
