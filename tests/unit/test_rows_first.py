"""A pick of a few rows moves above the row-wise nodes before it
(`graph.passes.rows_first`): torchvision ViT's last layer computes its MLP, residuals and
layer norms for the class token only, for ONNX Runtime's output."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from test_graph_passes import rand, same_outputs
from test_onnx_import import make_model

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.graph.ir import random_inputs
from tunefarm.graph.passes import optimize, select_rows_first
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor

S, H, F = 5, 8, 16  # tokens, hidden, MLP width


def vit_tail(batch: int = 1, seq_first: bool = False, index=0, also_out: bool = False):
    """ViT's last layer after attention, then `x[:, index]` and a head:
    a = a0 (+ transpose of a seq-first [S, B, H]) + r;  y = a + mlp(ln(a));  head(ln(y)[:, i])."""
    p = {
        "w1": rand(H, F), "b1": rand(F), "w2": rand(F, H), "b2": rand(H),
        "g1": rand(H), "e1": rand(H), "g2": rand(H), "e2": rand(H),
        "wh": rand(H, 3), "bh": rand(3), "idx": np.array(index, np.int64),
    }  # fmt: skip
    nodes = []
    a0 = "a0"
    if seq_first:
        nodes.append(helper.make_node("Transpose", ["a0"], ["a0t"], perm=[1, 0, 2]))
        a0 = "a0t"
    nodes += [
        helper.make_node("Add", [a0, "r"], ["a"]),
        helper.make_node("LayerNormalization", ["a", "g1", "e1"], ["n1"], axis=-1),
        helper.make_node("MatMul", ["n1", "w1"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["m1b"]),
        helper.make_node("Gelu", ["m1b"], ["g"]),
        helper.make_node("MatMul", ["g", "w2"], ["m2"]),
        helper.make_node("Add", ["m2", "b2"], ["m2b"]),
        helper.make_node("Add", ["a", "m2b"], ["y"]),
        helper.make_node("LayerNormalization", ["y", "g2", "e2"], ["n2"], axis=-1),
        helper.make_node("Gather", ["n2", "idx"], ["cls"], axis=1),
        helper.make_node("MatMul", ["cls", "wh"], ["h"]),
        helper.make_node("Add", ["h", "bh"], ["out"]),
    ]
    a0_shape = [S, batch, H] if seq_first else [batch, S, H]
    outs = ["out", "y"] if also_out else ["out"]
    return make_model(nodes, {"a0": a0_shape, "r": [batch, S, H]}, outs, p, opset=20)


def check_against_ort(model, tmp_path) -> None:
    compile_graph(load_onnx(model), "cpu").save(tmp_path / "t.tfa")
    inputs = random_inputs(load_onnx(model), seed=3)
    got = GraphExecutor.load(tmp_path / "t.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= 1e-5


@pytest.mark.parametrize(
    ("batch", "seq_first", "index"),
    [(1, False, 0), (1, True, 0), (2, False, -1), (1, False, [0, 3])],
)
def test_the_last_layer_computes_the_picked_rows(batch, seq_first, index, tmp_path) -> None:
    model = vit_tail(batch, seq_first, index)
    g = load_onnx(model)
    t = optimize(g)
    picked = len(np.atleast_1d(index))
    denses = [n for n in t.nodes if n.op == "dense"]
    assert [t.shape(n.inputs[0])[0] for n in denses] == [batch * picked] * 2 + [batch * picked]
    assert [n.op for n in t.nodes].count("gather") == 2  # a0 (or its transpose) and r
    same_outputs(g, t)
    check_against_ort(model, tmp_path)


def test_a_transpose_that_moves_rows_is_where_the_pick_stops(tmp_path) -> None:
    """At batch 2 a seq-first [S, 2, H] transposed to [2, S, H] reorders the rows: the pick
    is made after the transpose, and the nodes after it still move."""
    model = vit_tail(2, seq_first=True)
    t = optimize(load_onnx(model))
    gathers = [n for n in t.nodes if n.op == "gather"]
    assert len(gathers) == 2
    assert [t.shape(n.inputs[0])[0] for n in t.nodes if n.op == "dense"] == [2, 2, 2]
    check_against_ort(model, tmp_path)


def test_rows_read_elsewhere_are_computed_whole() -> None:
    """y is a graph output too: the MLP stays whole, only the final layer norm moves."""
    model = vit_tail(also_out=True)
    g = optimize(load_onnx(model))
    assert [g.shape(n.inputs[0])[0] for n in g.nodes if n.op == "dense"] == [S, S, 1]
    same_outputs(load_onnx(model), g)


def test_a_pick_of_every_row_changes_nothing() -> None:
    g = optimize(load_onnx(vit_tail(index=[0, 1, 2, 3, 4])))
    assert select_rows_first(g) is g
