"""Valid ONNX models the fuzz corpus starts from: small hand-made graphs that cover the
importer's op handlers in their opset forms, a zoo network, and the long Relu chain."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from tunefarm.frontend import zoo

FLOAT = TensorProto.FLOAT
SEED = 18


def make_model(
    nodes: Sequence[onnx.NodeProto],
    inputs: dict[str, Sequence[Any]],
    outputs: dict[str, Sequence[Any] | None],
    inits: dict[str, np.ndarray] | None = None,
    opset: int = 13,
    name: str = "fuzz",
) -> onnx.ModelProto:
    ins = [helper.make_tensor_value_info(n, FLOAT, s) for n, s in inputs.items()]
    outs = [helper.make_tensor_value_info(n, FLOAT, s or []) for n, s in outputs.items()]
    tensors = [numpy_helper.from_array(a, n) for n, a in (inits or {}).items()]
    m = helper.make_model(
        helper.make_graph(list(nodes), name, ins, outs, tensors),
        opset_imports=[helper.make_opsetid("", opset)],
    )
    m.ir_version = 8 if opset <= 17 else 10
    return m


def node(op: str, ins: Sequence[str], outs: Sequence[str], name: str, **attrs: Any):
    return helper.make_node(op, list(ins), list(outs), name=name, **attrs)


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def small_cnn() -> onnx.ModelProto:
    """Conv + BN + Relu, a residual add, pools, flatten, Gemm, Softmax (opset 13)."""
    c = 4
    nodes = [
        node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", pads=[1, 1, 1, 1], strides=[1, 1]),
        node("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["n1"], "bn1", epsilon=1e-5),
        node("Relu", ["n1"], ["r1"], "relu1"),
        node("Conv", ["r1", "w2"], ["c2"], "conv2", kernel_shape=[3, 3], auto_pad="SAME_UPPER"),
        node("Add", ["c2", "r1"], ["a1"], "add1"),
        node("MaxPool", ["a1"], ["p1"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        node("AveragePool", ["p1"], ["p2"], "pool2", kernel_shape=[2, 2], ceil_mode=1),
        node("GlobalAveragePool", ["p2"], ["g1"], "gap"),
        node("Flatten", ["g1"], ["f1"], "flatten", axis=1),
        node("Gemm", ["f1", "fw", "fb"], ["d1"], "fc", transB=1, alpha=1.0, beta=1.0),
        node("Softmax", ["d1"], ["y"], "softmax", axis=-1),
    ]
    inits = {
        "w1": f32(c, 3, 3, 3, seed=1),
        "b1": f32(c, seed=2),
        "s": np.ones(c, np.float32),
        "bb": np.zeros(c, np.float32),
        "m": np.zeros(c, np.float32),
        "v": np.ones(c, np.float32),
        "w2": f32(c, c, 3, 3, seed=3),
        "fw": f32(10, c, seed=4),
        "fb": f32(10, seed=5),
    }
    return make_model(nodes, {"x": (1, 3, 8, 8)}, {"y": (1, 10)}, inits, name="small_cnn")


def shape_ops() -> onnx.ModelProto:
    """Shape arithmetic folded at import, then Reshape, Clip, Pad, Dropout, ReduceMean, Split,
    Concat, Transpose, Squeeze/Unsqueeze and elementwise ops (opset 13)."""
    nodes = [
        node("Shape", ["x"], ["sh"], "shape"),
        node("Gather", ["sh", "i0"], ["n0"], "gather", axis=0),
        node("Unsqueeze", ["n0", "ax0"], ["n1"], "unsq_n"),
        node("Concat", ["n1", "m1"], ["tgt"], "cat_shape", axis=0),
        node("Reshape", ["x", "tgt"], ["flat"], "reshape"),
        node("Clip", ["flat", "lo", "hi"], ["cl"], "clip"),
        node("Pad", ["cl", "pads", "pv"], ["pd"], "pad", mode="constant"),
        node("Dropout", ["pd"], ["dr"], "dropout"),
        node("Split", ["dr", "sp"], ["s0", "s1"], "split", axis=1),
        node("Sigmoid", ["s0"], ["sg"], "sigmoid"),
        node("Mul", ["sg", "s1"], ["ml"], "mul"),
        node("Concat", ["ml", "s1"], ["ct"], "concat", axis=1),
        node("Unsqueeze", ["ct", "ax0"], ["u"], "unsqueeze"),
        node("Transpose", ["u"], ["t"], "transpose", perm=[1, 0, 2]),
        node("Squeeze", ["t", "ax1"], ["sq"], "squeeze"),
        node("ReduceMean", ["sq"], ["rm"], "reduce", axes=[1], keepdims=1),
        node("Sub", ["sq", "rm"], ["y"], "sub"),
    ]
    inits = {
        "i0": np.array(0, np.int64),
        "ax0": i64(0),
        "ax1": i64(1),
        "m1": i64(-1),
        "lo": np.array(-0.5, np.float32),
        "hi": np.array(0.5, np.float32),
        "pads": i64(0, 1, 0, 1),
        "pv": np.array(0.25, np.float32),
        "sp": i64(10, 10),
    }
    return make_model(nodes, {"x": (2, 3, 2, 3)}, {"y": (2, 20)}, inits, name="shape_ops")


def opset18_ops() -> onnx.ModelProto:
    """The opset 18 input forms: Split num_outputs, ReduceMean and Pad axes inputs."""
    nodes = [
        node("Pad", ["x", "pads", "", "pax"], ["p"], "pad18"),
        node("Split", ["p"], ["a", "b"], "split18", axis=1, num_outputs=2),
        node("Add", ["a", "b"], ["s"], "add18"),
        node("ReduceMean", ["s", "rax"], ["r"], "mean18", keepdims=0),
        node("LeakyRelu", ["r"], ["l"], "leaky", alpha=0.1),
        node("HardSigmoid", ["l"], ["y"], "hsig"),
    ]
    inits = {"pads": i64(1, 1), "pax": i64(1), "rax": i64(2)}
    return make_model(nodes, {"x": (1, 4, 5)}, {"y": (1, 6)}, inits, opset=18, name="opset18")


def opset9_ops() -> onnx.ModelProto:
    """Attribute forms before opset 11: Clip min/max, Pad pads/value; MatMul, LRN."""
    nodes = [
        node("Clip", ["x"], ["c"], "clip9", min=-1.0, max=1.0),
        node("Pad", ["c"], ["p"], "pad9", pads=[0, 0, 1, 1, 0, 0, 1, 1], value=0.5),
        node("LRN", ["p"], ["l"], "lrn9", size=3),
        node("Flatten", ["l"], ["f"], "flat9"),
        node("MatMul", ["f", "w"], ["y"], "matmul9"),
    ]
    inits = {"w": f32(2 * 4 * 4, 3, seed=6)}
    return make_model(nodes, {"x": (1, 2, 2, 2)}, {"y": (1, 3)}, inits, opset=9, name="opset9")


def base_models() -> dict[str, onnx.ModelProto]:
    return {
        "small_cnn": small_cnn(),
        "shape_ops": shape_ops(),
        "opset18": opset18_ops(),
        "opset9": opset9_ops(),
    }


def zoo_model() -> onnx.ModelProto:
    return zoo.build("squeezenet-1.1", image_size=32, seed=SEED)


def relu_chain(n: int) -> onnx.ModelProto:
    """x -> Conv -> n Relu nodes: the long-graph case (fusion, shapes, DCE and the compiler
    each visit every node)."""
    nodes = [node("Conv", ["x", "w"], ["t0"], "conv")]
    nodes += [node("Relu", [f"t{i}"], [f"t{i + 1}"], f"relu{i}") for i in range(n)]
    return make_model(
        nodes, {"x": (1, 4, 4, 4)}, {f"t{n}": (1, 4, 4, 4)}, {"w": f32(4, 4, 1, 1, seed=7)}
    )


def batch_norm_chain(n: int) -> onnx.ModelProto:
    """x -> n BatchNormalization nodes sharing their statistics: batch-norm folding adds two
    params per node (it was quadratic in the node count)."""
    stats = {
        k: np.full(4, v, np.float32) for k, v in zip("sbmv", (0.5, 0.1, 0.0, 1.0), strict=True)
    }
    nodes = [
        node("BatchNormalization", [f"t{i}", *stats], [f"t{i + 1}"], f"bn{i}") for i in range(n)
    ]
    nodes[0].input[0] = "x"
    return make_model(nodes, {"x": (1, 4, 4, 4)}, {f"t{n}": (1, 4, 4, 4)}, stats)
