"""Dead kernel taps (`graph.passes.conv_taps`): a conv's taps that read only padding are cut
away, the padding shifted to match; outputs stay those of the numpy interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.passes import optimize, split_bands, trim_dead_taps
from tunefarm.graph.passes.conv_taps import bands, live_taps


def conv_model(size: int, k: int, dilation: int, pad: int, stride: int = 1, bias: bool = True):
    inits = {"w": rand(6, 4, k, k), "b": rand(6)}
    attrs = {"pads": [pad] * 4, "dilations": [dilation] * 2, "strides": [stride] * 2}
    ins = ["x", "w", "b"] if bias else ["x", "w"]
    nodes = [helper.make_node("Conv", ins, ["y"], name="conv", **attrs)]
    return load_onnx(make_model(nodes, {"x": [1, 4, size, size]}, ["y"], inits))


def test_live_taps_of_one_axis() -> None:
    # 14 rows, 3 taps 24 apart, padding 24: only the centre reads a row
    assert live_taps(14, 3, 1, 24, 24, 14) == range(1, 2)
    # dilation 12: the outer taps reach rows 0-1 and 12-13 from some outputs
    assert live_taps(14, 3, 1, 12, 12, 14) == range(0, 3)
    assert live_taps(8, 3, 1, 1, 1, 8) == range(0, 3)  # an ordinary 3x3
    assert live_taps(5, 5, 1, 9, 4, 7) == range(1, 4)  # taps 0 and 4 read only padding


@pytest.mark.parametrize(
    "size,k,dilation,pad,stride,taps",
    [
        (14, 3, 24, 24, 1, 1),  # DeepLabV3's ASPP at rate 24 on a 14x14 map: the centre
        (14, 3, 36, 36, 1, 1),
        (5, 5, 4, 9, 1, 3),  # five taps, the outer two dead
        (4, 3, 4, 5, 2, 2),  # strided: the first tap reads only padding, the last some input
    ],
)
def test_dead_taps_are_cut_and_outputs_unchanged(size, k, dilation, pad, stride, taps) -> None:
    g = conv_model(size, k, dilation, pad, stride)
    t = trim_dead_taps(g)
    (node,) = t.nodes
    assert t.shape(node.inputs[1])[2:] == (taps, taps)
    assert t.shape("y") == g.shape("y")
    if taps == 1:  # a 1x1 conv: no dilation, and here no padding either
        assert node.attrs["dilation"] == [1, 1] and node.attrs["padding"] == [0, 0, 0, 0]
    same_outputs(g, t)


@pytest.mark.parametrize("size,dilation,pad", [(14, 12, 12), (8, 1, 1), (6, 2, 0)])
def test_convs_whose_taps_all_read_input_are_left_alone(size, dilation, pad) -> None:
    g = conv_model(size, 3, dilation, pad, bias=False)
    t = trim_dead_taps(g)
    assert t.nodes[0].inputs == g.nodes[0].inputs
    assert t.nodes[0].attrs == g.nodes[0].attrs
    assert np.array_equal(t.params["w"], g.params["w"])


def test_bands_of_one_axis() -> None:
    # rate 12 on 14 rows: rows 0-1 see taps 1-2, rows 2-11 the centre, rows 12-13 taps 0-1
    assert bands(14, 3, 12, 12, 14) == [(0, 2, range(1, 3)), (2, 12, range(1, 2)),
                                        (12, 14, range(0, 2))]  # fmt: skip
    assert bands(8, 3, 1, 1, 8) == [(0, 1, range(1, 3)), (1, 7, range(0, 3)), (7, 8, range(0, 2))]


@pytest.mark.parametrize(
    "size,dilation,pad,epilogue",
    [(14, 12, 12, ["Relu"]), (9, 6, 6, []), (10, 4, 8, ["Sigmoid"])],
)
def test_mostly_padding_convs_split_into_bands(size, dilation, pad, epilogue) -> None:
    g = conv_model(size, 3, dilation, pad)
    if epilogue:
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                                  pads=[pad] * 4, dilations=[dilation] * 2)]  # fmt: skip
        nodes.append(helper.make_node(epilogue[0], ["c"], ["y"], name="act"))
        inits = {"w": rand(6, 4, 3, 3), "b": rand(6)}
        g = load_onnx(make_model(nodes, {"x": [1, 4, size, size]}, ["y"], inits))
    t = optimize(g)
    convs = [n for n in t.nodes if n.op == "conv2d"]
    assert len(convs) > 1 and "concat" in {n.op for n in t.nodes}
    live = sum(int(np.prod(t.shape(n.outputs[0])[2:])) * t.params[n.inputs[1]][0, 0].size
               for n in convs)  # fmt: skip
    assert live <= 0.5 * int(np.prod(g.shape("y")[2:])) * 9  # the padding's products are gone
    assert all(n.attrs["padding"] == [0, 0, 0, 0] for n in convs)
    if epilogue:  # the activation is each band's epilogue
        assert all(n.attrs["epilogue"][-1] == epilogue[0].lower() for n in convs)
    same_outputs(g, t)


def test_convs_that_mostly_read_input_are_not_split() -> None:
    for size, dilation, pad in ((14, 1, 1), (14, 2, 2), (28, 12, 12)):
        t = split_bands(conv_model(size, 3, dilation, pad))
        assert [n.op for n in t.nodes] == ["conv2d"]
