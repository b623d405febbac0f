"""Long chains of nodes (issue 25, item 14): memory placement is not quadratic in the calls,
the driver is tables rather than one statement per call (C compilers are superlinear in one
function's size), and a model over TUNEFARM_MAX_NODES is refused before any work. Bounds
are on CPU time of this process, with a wide margin: the host may be loaded."""

from __future__ import annotations

import time

import pytest
from onnx import TensorProto, helper

from tunefarm.frontend.limits import DEFAULT_MAX_NODES, count_nodes, nodes_problem
from tunefarm.frontend.onnx_import import FrontendError


def relu_chain(n: int):
    names = ["x", *(f"t{i}" for i in range(1, n)), "y"]
    nodes = [helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(n)]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    graph = helper.make_graph(nodes, "chain", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_placement_is_linear_in_a_chain():
    """20,000 short-lived temps: the old placement compared each with every placed one
    (2 x 10^8 pairs, minutes); now with those of the same stretch of calls only."""
    from tunefarm.runtime.memory import place

    n = 20_000
    blocks = {f"t{i}": (64, i, i + 1) for i in range(n)}
    start = time.process_time()
    offsets, arena = place(blocks)
    assert time.process_time() - start < 5  # ~0.2 s when idle
    assert arena == 128 and {offsets["t0"], offsets["t1"]} == {0, 64}


def test_placement_matches_the_pairwise_rule():
    """Blocks live at the same time never overlap, with long- and short-lived mixed."""
    import random

    from tunefarm.runtime.memory import place

    rng = random.Random(0)
    blocks = {}
    for i in range(400):
        first = rng.randrange(1000)
        blocks[f"b{i}"] = (64 * rng.randrange(1, 5), first, first + rng.choice((0, 3, 90, 700)))
    offsets, arena = place(blocks)
    for a, (sa, fa, la) in blocks.items():
        for b, (sb, fb, lb) in blocks.items():
            if a < b and fa <= lb and fb <= la:
                oa, ob = offsets[a], offsets[b]
                assert oa + sa <= ob or ob + sb <= oa, (a, b)
        assert offsets[a] + sa <= arena


def test_a_long_chain_compiles_to_a_table_driven_driver():
    from tunefarm.compiler.network import compile_graph
    from tunefarm.frontend.onnx_import import load_onnx
    from tunefarm.runtime.artifact import driver_source

    start = time.process_time()
    graph = load_onnx(relu_chain(5_000))
    net = compile_graph(graph, "cpu")
    source = driver_source(net.plan)
    assert time.process_time() - start < 30  # ~2 s when idle
    assert len(net.plan.calls) == 5_000
    assert source.count("tf_net_call(b, i)") == 1  # one loop, not a statement per call
    assert source.count("\n") < 4_000  # tables of eight values a line (was 3 lines a call)


def test_a_model_over_the_node_limit_is_refused_before_any_work(monkeypatch):
    from tunefarm.frontend.onnx_import import load_onnx

    model = relu_chain(30)
    assert count_nodes(model) == 30 and nodes_problem(model) is None
    assert DEFAULT_MAX_NODES == 50_000
    assert "TUNEFARM_MAX_NODES" in nodes_problem(model, limit=10)
    monkeypatch.setattr("tunefarm.frontend.limits.default_max_nodes", lambda: 10)
    with pytest.raises(FrontendError, match="30 nodes, over the limit of 10"):
        load_onnx(model)
