"""Graph passes on small hand-made graphs: each pass keeps the outputs the numpy interpreter
computes and changes the structure as intended; plus the whole pipeline on a zoo network."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from test_onnx_import import make_model

from tunefarm.frontend import zoo
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph
from tunefarm.graph.passes import (
    eliminate_dead_code,
    fold_batch_norm,
    fold_constants,
    fuse_epilogues,
    optimize,
)

RNG = np.random.default_rng(3)


def rand(*shape: int, positive: bool = False) -> np.ndarray:
    x = RNG.standard_normal(shape).astype(np.float32)
    return np.abs(x) + 0.5 if positive else x


def same_outputs(before: Graph, after: Graph) -> None:
    feeds = {v.name: rand(*v.shape) for v in before.inputs}
    want, got = run_graph(before, feeds), run_graph(after, feeds)
    for name, ref in want.items():
        np.testing.assert_allclose(got[name], ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())


def conv_bn_model(extra_nodes=(), out="y", extra_inits=None, extra_inputs=None):
    """x -> conv(w) -> bn -> [extra nodes] -> out"""
    c = 8
    inits = {
        "w": rand(c, 4, 3, 3),
        "g": rand(c, positive=True),
        "b": rand(c),
        "m": rand(c),
        "v": rand(c, positive=True),
        **(extra_inits or {}),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["bn"], name="bn"),
        *extra_nodes,
    ]
    inputs = {"x": [1, 4, 6, 6], **(extra_inputs or {})}
    return load_onnx(make_model(nodes, inputs, [out], inits))


def ops(graph: Graph) -> list[str]:
    return [n.op for n in graph.nodes]


def test_batch_norm_folds_into_the_conv() -> None:
    g = conv_bn_model(out="bn")
    folded = fold_batch_norm(g)
    assert ops(folded) == ["conv2d"]
    assert folded.nodes[0].attrs["epilogue"] == ["bias"]
    same_outputs(g, folded)


def test_batch_norm_not_after_a_conv_becomes_mul_add() -> None:
    inits = {"g": rand(4, positive=True), "b": rand(4), "m": rand(4), "v": rand(4, positive=True)}
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("BatchNormalization", ["r", "g", "b", "m", "v"], ["y"], name="bn"),
    ]
    g = load_onnx(make_model(nodes, {"x": [2, 4, 5, 5]}, ["y"], inits))
    out = fold_batch_norm(g)
    assert ops(out) == ["relu", "mul", "add"]
    same_outputs(g, out)


def test_batch_norm_of_a_conv_with_two_readers_is_not_folded() -> None:
    nodes = [helper.make_node("Add", ["c", "bn"], ["y"], name="add")]
    g = conv_bn_model(nodes)
    out = fold_batch_norm(g)
    assert ops(out) == ["conv2d", "mul", "add", "add"]
    same_outputs(g, out)


def test_fusion_absorbs_bias_residual_and_activation() -> None:
    nodes = [
        helper.make_node("Add", ["bn", "x2"], ["s"], name="residual"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    g = conv_bn_model(nodes, extra_inputs={"x2": [1, 8, 6, 6]})
    fused = fuse_epilogues(fold_batch_norm(g))
    assert ops(fused) == ["conv2d"]
    assert fused.nodes[0].attrs["epilogue"] == ["bias", "residual", "relu"]
    assert fused.nodes[0].inputs[3] == "x2"
    same_outputs(g, fused)


def test_fusion_folds_per_channel_constants_into_bias_and_weights() -> None:
    nodes = [
        helper.make_node("Mul", ["bn", "s"], ["t"], name="scale"),
        helper.make_node("Add", ["t", "k"], ["u"], name="shift"),
        helper.make_node("Clip", ["u", "lo", "hi"], ["y"], name="relu6"),
    ]
    inits = {
        "s": rand(8, 1, 1),
        "k": rand(1, 8, 1, 1),
        "lo": np.array(0, np.float32),
        "hi": np.array(6, np.float32),
    }
    g = conv_bn_model(nodes, extra_inits=inits)
    out = optimize(g)
    assert ops(out) == ["conv2d"]
    assert out.nodes[0].attrs["epilogue"] == ["bias", "clip:0.0:6.0"]
    same_outputs(g, out)


def test_fusion_stops_at_a_value_with_two_readers_or_a_graph_output() -> None:
    nodes = [
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("Sigmoid", ["r"], ["y"], name="sig"),
        helper.make_node("Add", ["r", "y"], ["z"], name="add"),
    ]
    g = conv_bn_model(nodes, out="z")
    out = optimize(g)
    assert ops(out) == ["conv2d", "sigmoid", "add"]
    assert out.nodes[0].attrs["epilogue"] == ["bias", "relu"]
    same_outputs(g, out)
    g_out = conv_bn_model([helper.make_node("Relu", ["bn"], ["y"], name="relu")], out="bn")
    assert ops(optimize(g_out))[0] == "conv2d"


def test_residual_add_of_two_convs_is_absorbed_once() -> None:
    inits = {"w1": rand(8, 4, 1, 1), "w2": rand(8, 4, 1, 1)}
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], name="c1"),
        helper.make_node("Conv", ["x", "w2"], ["b"], name="c2"),
        helper.make_node("Add", ["a", "b"], ["s"], name="add"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    g = load_onnx(make_model(nodes, {"x": [1, 4, 5, 5]}, ["y"], inits))
    out = optimize(g)
    assert ops(out) == ["conv2d", "conv2d"]
    assert sorted(len(n.attrs["epilogue"]) for n in out.nodes) == [0, 2]
    same_outputs(g, out)


def test_constant_folding_and_dead_code() -> None:
    g = conv_bn_model(out="bn")
    g.nodes.insert(0, _transpose_of_param(g))
    folded = fold_constants(g)
    assert "wt" in folded.params and all(n.op != "transpose" for n in folded.nodes)
    cleaned = eliminate_dead_code(folded)
    assert "wt" not in cleaned.params and "wt" not in cleaned.values
    same_outputs(g, cleaned)


def _transpose_of_param(g: Graph):
    from tunefarm.graph.ir import Node, Value

    g.values["wt"] = Value("wt", tuple(reversed(g.shape("w"))))
    return Node("t", "transpose", ["w"], ["wt"], {"perm": [3, 2, 1, 0]})


@pytest.mark.parametrize("name", ["resnet-18", "mobilenet-v2"])
def test_optimize_leaves_only_anchors_and_structure(name: str) -> None:
    g = load_onnx(zoo.build(name, image_size=64))
    out = optimize(g)
    counts = out.op_counts()
    assert "batch_norm" not in counts and "relu" not in counts and "clip" not in counts
    assert "add" not in counts  # every residual add is fused
    same_outputs(g, out)
