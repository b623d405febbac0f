"""A conv read only by a global pool (squeezenet's 1000-way classifier) runs with its
output channels padded to whole vectors (`graph.passes.pooled_conv`), where the target's
conv picks a wider block for the padded count, and still gives ONNX Runtime's output."""

from __future__ import annotations

import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.extract import for_target
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import optimize, pad_pooled_convs
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor


def classifier(o: int = 136, bias: bool = True, extra_reader: bool = False):
    """conv(16 -> o) -> Relu -> GlobalAveragePool -> Flatten: a classifier head."""
    params = {"w": rand(o, 16, 1, 1)} | ({"b": rand(o)} if bias else {})
    nodes = [
        helper.make_node("Conv", ["x", "w", *(["b"] if bias else [])], ["c"], name="cls"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["y"], name="flat"),
    ]
    outputs = ["y", "r"] if extra_reader else ["y"]
    return make_model(nodes, {"x": [1, 16, 5, 5]}, outputs, params)


@pytest.mark.parametrize("bias", [True, False])
def test_padding_keeps_the_outputs(bias: bool) -> None:
    g = optimize(load_onnx(classifier(bias=bias)))
    t = pad_pooled_convs(g, lambda graph, conv: 144)
    assert [n.op for n in t.nodes] == ["conv2d", "global_pool2d", "slice", "reshape"]
    conv = t.nodes[0]
    assert t.shape(conv.inputs[1])[0] == 144 and t.shape(conv.outputs[0])[1] == 144
    assert len(conv.inputs) == (3 if bias else 2)
    assert t.nodes[2].attrs == {"axis": 1, "begin": 0, "end": 136}
    same_outputs(g, t)


def test_a_conv_read_elsewhere_or_wide_enough_is_left_alone() -> None:
    g = optimize(load_onnx(classifier(extra_reader=True)))
    assert pad_pooled_convs(g, lambda graph, conv: 144) is g
    g = optimize(load_onnx(classifier()))
    assert pad_pooled_convs(g, lambda graph, conv: 136) is g


@pytest.mark.parametrize(("isa", "channels"), [("avx512", 144), ("avx2", 136)])
def test_the_target_decides_the_padding(isa: str, channels: int) -> None:
    """136 = 8 x 17: blocks of 8, half an AVX-512 vector, so it pads to 144 (9 x 16) there;
    AVX2 vectors are 8 lanes: nothing to gain, nothing padded."""
    g = optimize(load_onnx(classifier()))
    t = for_target(g, f"cpu -isa={isa}")
    assert t.shape(t.nodes[0].outputs[0])[1] == channels


def test_padded_classifier_matches_onnxruntime(tmp_path) -> None:
    model = classifier()
    g = load_onnx(model)
    compile_graph(g, "cpu").save(tmp_path / "cls.tfa")
    inputs = random_inputs(g, seed=7)
    got = GraphExecutor.load(tmp_path / "cls.tfa").run(inputs)
    assert got["y"].shape == (1, 136)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= 1e-5
