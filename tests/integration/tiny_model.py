"""A tiny ONNX network for service tests: two convs (bias+relu, residual add), a pool and a
dense layer, so a job has three distinct tuning tasks and runs in seconds."""

from __future__ import annotations

import numpy as np


def tiny_model_bytes(seed: int = 0) -> bytes:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)

    def param(name: str, shape: tuple[int, ...], scale: float = 1.0):
        data = (rng.standard_normal(shape) * scale).astype(np.float32)
        return numpy_helper.from_array(data, name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
        helper.make_node("Add", ["c2", "r1"], ["a"], name="add"),
        helper.make_node("GlobalAveragePool", ["a"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wd"], ["y"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [
            param("w1", (16, 3, 3, 3)),
            param("b1", (16,)),
            param("w2", (16, 16, 3, 3), 0.1),
            param("wd", (10, 16)),
        ],
    )
    # IR version 8 so every ONNX Runtime we meet reads it
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(model)
    return model.SerializeToString()
