"""A 4-D ReduceMean over H and W (the dynamo exporter's squeeze-excite pooling) becomes a
global average pool (`graph.passes.pooling`), which compiles in the blocked layout."""

from __future__ import annotations

import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.passes import mean_to_global_pool


def se_model(axes: list[int], keepdims: int = 1):
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("ReduceMean", ["c"], ["m"], name="mean", axes=axes, keepdims=keepdims),
    ]
    if keepdims:  # the gate multiplies the activation, as in a squeeze-excite block
        nodes.append(helper.make_node("Mul", ["c", "m"], ["y"], name="gate"))
    out = "y" if keepdims else "m"
    return load_onnx(make_model(nodes, {"x": [1, 3, 10, 10]}, [out], {"w": rand(32, 3, 3, 3)}))


@pytest.mark.parametrize("axes", [[2, 3], [-1, -2]])
def test_mean_over_h_and_w_becomes_a_global_pool(axes) -> None:
    g = se_model(axes)
    t = mean_to_global_pool(g)
    assert [n.op for n in t.nodes] == ["conv2d", "global_pool2d", "mul"]
    same_outputs(g, t)
    plan = compile_graph(g, "cpu").plan
    transforms = [c.node for c in plan.calls if "layout_transform" in c.kernel]
    assert transforms == ["y->NCHW"]  # the pool and the gate read the blocked conv output


@pytest.mark.parametrize("axes,keepdims", [([1], 1), ([2], 1), ([2, 3], 0)])
def test_other_means_are_left_alone(axes, keepdims) -> None:
    g = se_model(axes, keepdims)
    assert [n.op for n in mean_to_global_pool(g).nodes] == [n.op for n in g.nodes]
