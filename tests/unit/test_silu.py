"""SiLU (`graph.passes.silu`): an export's Mul(x, Sigmoid(x)) becomes one `silu` node, which
a conv or dense before it absorbs as its epilogue (`graph.passes.fuse`) and which otherwise
runs as one elementwise kernel; both match ONNX Runtime."""

from __future__ import annotations

import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import fuse_silu, optimize
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor


def silu_model(gate_first: bool, extra_reader: bool = False, pool: bool = False):
    """conv -> SiLU (as Sigmoid and Mul); with `pool` a max pool between them, so no anchor
    can absorb the SiLU."""
    conv = "p" if pool else "c"
    nodes = [
        helper.make_node("Conv", ["x", "w"], [conv], name="conv", pads=[1, 1, 1, 1]),
        *([helper.make_node("MaxPool", ["p"], ["c"], kernel_shape=[1, 1])] if pool else []),
        helper.make_node("Sigmoid", ["c"], ["s"], name="sig"),
        helper.make_node("Mul", ["s", "c"] if gate_first else ["c", "s"], ["m"], name="mul"),
    ]
    outputs = ["m"]
    if extra_reader:  # the sigmoid's output is read again: it must stay
        nodes.append(helper.make_node("Add", ["m", "s"], ["y"], name="add"))
        outputs = ["y"]
    return make_model(nodes, {"x": [1, 3, 9, 9]}, outputs, {"w": rand(24, 3, 3, 3)})


@pytest.mark.parametrize("gate_first", [False, True])
def test_mul_of_a_value_and_its_sigmoid_becomes_silu(gate_first: bool, tmp_path) -> None:
    model = silu_model(gate_first)
    g = load_onnx(model)
    t = fuse_silu(g)
    assert [n.op for n in t.nodes] == ["conv2d", "silu"]
    same_outputs(g, t)
    compile_graph(g, "cpu").save(tmp_path / "silu.tfa")  # optimize runs fuse_silu
    (conv,) = optimize(g).nodes  # and the conv absorbs the silu
    assert conv.op == "conv2d" and conv.attrs["epilogue"][-1] == "silu"
    inputs = random_inputs(g, seed=4)
    got = GraphExecutor.load(tmp_path / "silu.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= 1e-5


def test_a_sigmoid_read_elsewhere_is_left_alone() -> None:
    g = load_onnx(silu_model(False, extra_reader=True))
    assert [n.op for n in fuse_silu(g).nodes] == ["conv2d", "sigmoid", "mul", "add"]


def test_a_silu_no_anchor_absorbs_matches_onnxruntime(tmp_path) -> None:
    model = silu_model(False, pool=True)
    g = load_onnx(model)
    assert [n.op for n in optimize(g).nodes] == ["conv2d", "pool2d", "silu"]
    compile_graph(g, "cpu").save(tmp_path / "silu.tfa")
    inputs = random_inputs(g, seed=5)
    got = GraphExecutor.load(tmp_path / "silu.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= 1e-5


def test_a_blocked_activation_runs_as_rows_of_vectors() -> None:
    """The silu of a blocked activation [1, C/b, H, W, b] (here a pool's output) reads and
    writes it as [1, C/b * H * W, b]: its loop indexes rows, not H and W by division per
    vector."""
    g = load_onnx(silu_model(False, pool=True))
    plan = compile_graph(g, "cpu -isa=avx512").plan
    shapes = {b.name: b.shape for b in plan.buffers}
    (silu,) = [c for c in plan.calls if c.kernel.endswith("_elementwise")]
    assert [shapes[a] for a in silu.args] == [(1, 3 * 81, 8)] * 2  # 24 channels: blocks of 8
