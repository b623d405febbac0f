"""A small float CNN for the int8 QDQ fold: what `onnxruntime.quantization.quantize_static`
turns into a QDQ model whose convs used to stay float (issue 23).

    model = zoo_qdq.epilogue_net(size=32)   # onnx.ModelProto, input "x" (1, 3, size, size)

x -> Conv 3->13 3x3 dilation 2 -> LeakyRelu(0.1)
  -> Conv 13->27 3x3 dilation 2 -> Sigmoid
  -> Conv 27->27 3x3 -> HardSwish = h
  -> Conv 27->27 1x1 -> Add(h)
  -> depthwise Conv 27 3x3 dilation 2 -> LeakyRelu(0.2) -> y (1, 27, size, size)

Odd channel counts, dilated dense and depthwise convs, each of the activations the int8
epilogue computes, and a residual Add of two quantized tensors. Weights are He-scaled
normals (seeded), so activations stay near unit scale and every output depends on x.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17


class _Net:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def conv(self, name: str, x: str, cin: int, cout: int, k: int, dil: int = 1, groups: int = 1):
        fan_in = cin // groups * k * k
        w = self.rng.standard_normal((cout, cin // groups, k, k)) * np.sqrt(2.0 / fan_in)
        b = self.rng.standard_normal(cout) * 0.1
        self.inits += [
            numpy_helper.from_array(w.astype(np.float32), f"{name}_w"),
            numpy_helper.from_array(b.astype(np.float32), f"{name}_b"),
        ]
        pad = dil * (k - 1) // 2
        self.nodes.append(
            helper.make_node(
                "Conv",
                [x, f"{name}_w", f"{name}_b"],
                [name],
                name=name,
                kernel_shape=[k, k],
                pads=[pad] * 4,
                dilations=[dil, dil],
                group=groups,
            )
        )
        return name

    def op(self, op_type: str, inputs: list[str], out: str, **attrs) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out


def epilogue_net(size: int = 32, seed: int = 0) -> onnx.ModelProto:
    """The float model (see the module doc), checked."""
    n = _Net(seed)
    a = n.op("LeakyRelu", [n.conv("c1", "x", 3, 13, 3, dil=2)], "a1", alpha=0.1)
    a = n.op("Sigmoid", [n.conv("c2", a, 13, 27, 3, dil=2)], "a2")
    h = n.op("HardSwish", [n.conv("c3", a, 27, 27, 3)], "a3")
    a = n.op("Add", [n.conv("c4", h, 27, 27, 1), h], "a4")
    n.op("LeakyRelu", [n.conv("c5", a, 27, 27, 3, dil=2, groups=27)], "y", alpha=0.2)
    graph = helper.make_graph(
        n.nodes,
        "qdq_epilogues",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 27, size, size])],
        n.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
