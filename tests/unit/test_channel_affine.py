"""Per-channel affine (`graph.passes.channel_affine`): DenseNet's batch norm before a conv,
with its ReLU, becomes one `channel_affine` node on CPUs, compiled to one elementwise
kernel in the blocked layout, which matches ONNX Runtime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.extract import for_target
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import fuse_channel_affine, optimize
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor


def dense_block(relu: bool = True, channels: int = 32, cat_out: bool = False):
    """conv, conv -> concat -> BatchNormalization (-> Relu) -> conv: a DenseNet layer's
    pre-activation, which no conv absorbs (the concat is between); `cat_out`: the concat
    is a graph output too."""
    rng = np.random.default_rng(5)
    c = channels
    params = {"w0": rand(c, 3, 3, 3), "w1": rand(c, c, 1, 1), "w2": rand(8, 2 * c, 1, 1)}
    params |= {
        "gamma": rng.uniform(0.5, 2, 2 * c).astype(np.float32),
        "beta": rng.standard_normal(2 * c).astype(np.float32),
        "mean": rng.standard_normal(2 * c).astype(np.float32),
        "var": rng.uniform(0.5, 2, 2 * c).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["a"], name="conv0", pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["a", "w1"], ["b"], name="conv1"),
        helper.make_node("Concat", ["a", "b"], ["cat"], name="cat", axis=1),
        helper.make_node(
            "BatchNormalization", ["cat", "gamma", "beta", "mean", "var"], ["bn"], name="norm"
        ),
    ]
    last = "bn"
    if relu:
        nodes.append(helper.make_node("Relu", ["bn"], ["r"], name="relu"))
        last = "r"
    nodes.append(helper.make_node("Conv", [last, "w2"], ["y"], name="conv2"))
    outputs = ["y", "cat"] if cat_out else ["y"]
    return make_model(nodes, {"x": [1, 3, 10, 10]}, outputs, params)


def mul_add_relu(also_output: str):
    """conv -> Mul by [1, C, 1, 1] -> Add [C, 1, 1] -> Relu, with `also_output` (one of
    the steps' values, or "") a graph output as well."""
    params = {"w": rand(16, 3, 3, 3), "s": rand(1, 16, 1, 1), "t": rand(16, 1, 1)}
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["a"], name="relu0"),  # the conv absorbs this one
        helper.make_node("Mul", ["s", "a"], ["m"], name="mul"),  # the constant first
        helper.make_node("Add", ["m", "t"], ["p"], name="add"),
        helper.make_node("Relu", ["p"], ["y"], name="relu"),
    ]
    outputs = ["y", also_output] if also_output else ["y"]
    return make_model(nodes, {"x": [1, 3, 8, 8]}, outputs, params)


def _compile_and_check(model, tmp_path) -> list[str]:
    """Compile for the host CPU, run, compare with ONNX Runtime; the calls' kernel ops."""
    g = load_onnx(model)
    compiled = compile_graph(g, "cpu")
    compiled.save(tmp_path / "net.tfa")
    inputs = random_inputs(g, seed=6)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    want = onnxruntime_outputs(model.SerializeToString(), inputs)
    assert relative_error(got, want) <= 1e-5
    return [c.kernel.split("_", 1)[1] for c in compiled.plan.calls]


@pytest.mark.parametrize("relu", [True, False])
def test_batch_norm_after_a_concat_becomes_one_node(relu: bool, tmp_path) -> None:
    """The concat, the batch norm and its ReLU: one node on the concat's inputs, one
    elementwise kernel, no concat kernel, no layout transform but the output's."""
    g = optimize(load_onnx(dense_block(relu)))
    t = fuse_channel_affine(g)
    assert [n.op for n in t.nodes] == ["conv2d", "conv2d", "channel_affine", "conv2d"]
    affine = t.nodes[2]
    assert affine.attrs["relu"] is relu and affine.inputs[:2] == ["a", "b"]
    assert [t.shape(v) for v in affine.inputs[2:]] == [(1, 64, 1, 1)] * 2
    same_outputs(g, t)
    assert "channel_affine" in [n.op for n in for_target(g, "cpu").nodes]
    kernels = _compile_and_check(dense_block(relu), tmp_path)
    assert kernels.count("elementwise") == 1 and "concat" not in kernels
    assert kernels.count("layout_transform") == 1
    # on 16 lanes: the two 32-channel inputs, the constants and the output, as
    # [N, C/b, H * W, b] (the pixels in one axis: one division per vector fewer)
    plan = compile_graph(load_onnx(dense_block(relu)), "cpu -isa=avx512").plan
    shapes = {b.name: b.shape for b in plan.buffers}
    (affine,) = [c for c in plan.calls if c.kernel.endswith("_elementwise")]
    want = [(1, 2, 100, 16)] * 2 + [(1, 4, 1, 16)] * 2 + [(1, 4, 100, 16)]
    assert [shapes[a] for a in affine.args] == want


def test_a_concat_read_elsewhere_stays(tmp_path) -> None:
    """The concat (a graph output too) stays, and its kernel joins rows of vectors: the
    blocked [1, C/b, H, W, b] buffers seen as [1, C/b * H * W, b]."""
    g = optimize(load_onnx(dense_block(cat_out=True)))
    t = fuse_channel_affine(g)
    assert [n.op for n in t.nodes] == ["conv2d", "conv2d", "concat", "channel_affine", "conv2d"]
    assert t.nodes[3].inputs[0] == "cat"
    same_outputs(g, t)
    kernels = _compile_and_check(dense_block(cat_out=True), tmp_path)
    assert kernels.count("elementwise") == 1 and kernels.count("concat") == 1
    plan = compile_graph(load_onnx(dense_block(cat_out=True)), "cpu -isa=avx512").plan
    shapes = {b.name: b.shape for b in plan.buffers}
    (cat,) = [c for c in plan.calls if c.kernel.endswith("_concat")]
    assert [shapes[a] for a in cat.args] == [(1, 200, 16), (1, 200, 16), (1, 400, 16)]


@pytest.mark.parametrize(
    ("also_output", "ops"),
    [
        ("", ["conv2d", "channel_affine"]),
        ("p", ["conv2d", "channel_affine", "relu"]),  # the add's value is read: no relu
        ("m", ["conv2d", "mul", "add", "relu"]),  # the multiply's value is read: left alone
    ],
)
def test_a_step_read_elsewhere_stops_the_chain(also_output: str, ops, tmp_path) -> None:
    model = mul_add_relu(also_output)
    g = optimize(load_onnx(model))
    t = fuse_channel_affine(g)
    assert [n.op for n in t.nodes] == ops
    same_outputs(g, t)
    _compile_and_check(model, tmp_path)


def test_for_gpus_the_chain_stays_as_it_was() -> None:
    g = optimize(load_onnx(dense_block()))
    assert "channel_affine" not in [n.op for n in for_target(g, "cuda").nodes]


def test_the_shape_rule_names_a_wrong_scale() -> None:
    from tunefarm.graph.ir import GraphError, Node
    from tunefarm.graph.shapes import infer_node

    g = optimize(load_onnx(dense_block()))
    g.add_param("bad", rand(64))
    node = Node("aff", "channel_affine", ["cat", "bad", "bad"], ["o"], {"relu": True})
    with pytest.raises(GraphError, match=r"aff.*scale 'bad' must have shape \[1, 64, 1, 1\]"):
        infer_node(g, node)


def test_the_task_survey_sees_the_blocked_affine() -> None:
    """`tunefarm tasks` (compiler.tasks) lists the affine with the shapes the compiler
    calls it with: the constants' placeholders have their packed [1, C/b, 1, b] shape."""
    from tunefarm.compiler.tasks import network_tasks

    g = optimize(load_onnx(dense_block()))
    tasks = network_tasks(g, "cpu -isa=avx512", policy="sketch", min_share=0)
    (affine,) = [t.task for t in tasks if t.task.op == "elementwise"]
    assert affine.args["shapes"] == ((1, 2, 100, 16),) * 2 + ((1, 4, 1, 16),) * 2


def test_an_affine_of_the_logical_input(tmp_path) -> None:
    """The network's input (NCHW, not blocked) normalised per channel, then a conv: the
    affine runs logical, with [1, C, 1, 1] constants."""
    params = {"s": rand(1, 3, 1, 1), "t": rand(1, 3, 1, 1), "w": rand(8, 3, 3, 3)}
    nodes = [
        helper.make_node("Mul", ["x", "s"], ["m"], name="mul"),
        helper.make_node("Add", ["m", "t"], ["p"], name="add"),
        helper.make_node("Conv", ["p", "w"], ["y"], name="conv", pads=[1, 1, 1, 1]),
    ]
    model = make_model(nodes, {"x": [1, 3, 6, 6]}, ["y"], params)
    assert "channel_affine" in [n.op for n in for_target(optimize(load_onnx(model)), "cpu").nodes]
    plan = compile_graph(load_onnx(model), "cpu -isa=avx512").plan
    shapes = {b.name: b.shape for b in plan.buffers}
    (affine,) = [c for c in plan.calls if c.kernel.endswith("_elementwise")]
    assert [shapes[a] for a in affine.args] == [(1, 3, 6, 6), (1, 3, 1, 1), (1, 3, 1, 1)] + [
        (1, 3, 6, 6)
    ]
    _compile_and_check(model, tmp_path)
