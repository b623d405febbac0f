"""An average pool after a 1x1 conv runs first (`graph.passes.pool_first`): DenseNet's
transitions (1x1 conv, 2x2 average pool) compute the conv on a quarter of the pixels, for
ONNX Runtime's output."""

from __future__ import annotations

import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.extract import for_target
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import optimize, pool_before_pointwise_conv
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor


def transition(
    kernel: int = 1, relu: bool = False, pool: str = "AveragePool", bias: bool = True, **attrs
):
    """conv(32 -> 16, kernel x kernel) (-> Relu) -> 2x2 pool, stride 2 (+ `attrs`)."""
    params = {"w": rand(16, 32, kernel, kernel)} | ({"b": rand(16)} if bias else {})
    nodes = [helper.make_node("Conv", ["x", "w", *(["b"] if bias else [])], ["c"], name="conv")]
    last = "c"
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["r"], name="relu"))
        last = "r"
    pool_attrs = {"kernel_shape": [2, 2], "strides": [2, 2]} | attrs
    nodes.append(helper.make_node(pool, [last], ["y"], name="pool", **pool_attrs))
    return make_model(nodes, {"x": [1, 32, 8, 8]}, ["y"], params)


@pytest.mark.parametrize("bias", [True, False])
def test_the_pool_runs_first(bias: bool, tmp_path) -> None:
    model = transition(bias=bias)
    g = optimize(load_onnx(model))
    t = pool_before_pointwise_conv(g)
    assert [n.op for n in t.nodes] == ["pool2d", "conv2d"]
    assert t.shape(t.nodes[0].outputs[0]) == (1, 32, 4, 4)  # the conv's input, pooled
    assert t.nodes[1].outputs == g.nodes[-1].outputs
    same_outputs(g, t)
    assert [n.op for n in for_target(g, "cpu").nodes] == ["pool2d", "conv2d"]
    compile_graph(load_onnx(model), "cpu").save(tmp_path / "t.tfa")
    inputs = random_inputs(g, seed=8)
    got = GraphExecutor.load(tmp_path / "t.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= 1e-5


@pytest.mark.parametrize(
    "model",
    [
        transition(relu=True),  # not affine: relu(avg) != avg(relu)
        transition(kernel=3),  # a 3x3 conv mixes pixels
        transition(pool="MaxPool"),
        transition(pads=[1, 1, 1, 1]),  # padded windows: the weights no longer add up to 1
        transition(ceil_mode=1),
    ],
)
def test_other_pools_and_convs_stay(model) -> None:
    g = optimize(load_onnx(model))
    assert pool_before_pointwise_conv(g) is g
