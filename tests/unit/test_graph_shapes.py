"""Shape/dtype inference and the numpy graph interpreter: every op's inferred shape agrees
with what the interpreter computes, errors name the node, and run_graph checks its inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tunefarm.graph.interpret import run_graph, run_graph_all, run_node
from tunefarm.graph.ir import OPS, Graph, GraphError, Node, Value
from tunefarm.graph.packed_ops import PACKED_OPS
from tunefarm.graph.quant_ops import QUANT_OPS
from tunefarm.graph.shapes import infer_node, infer_shapes
from tunefarm.ir import layouts
from tunefarm.ir import reference as R

RNG = np.random.default_rng(3)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def graph_of(
    op: str,
    inputs: dict[str, tuple[int, ...]],
    attrs: dict[str, Any],
    params: dict[str, np.ndarray] | None = None,
    n_out: int = 1,
    order: list[str] | None = None,
) -> Graph:
    """One node `op` reading the runtime inputs then the params (or `order`); values inferred."""
    params = params or {}
    outs = [f"y{i}" for i in range(n_out)]
    node = Node("n0", op, order or [*inputs, *params], outs, attrs)
    values = {n: Value(n, s) for n, s in inputs.items()}
    values |= {n: Value(n, a.shape, str(a.dtype)) for n, a in params.items()}
    g = Graph("g", [Value(n, s) for n, s in inputs.items()], outs, [node], params, values)
    return infer_shapes(g)


CONV = {"strides": [2, 1], "padding": [1, 0, 1, 2], "dilation": [1, 2], "groups": 2}
POOL = {"kernel": [3, 2], "strides": [2, 2], "padding": [1, 0, 1, 1], "dilation": [1, 1]}
# (op, runtime input shapes, attrs, param shapes, number of outputs)
CASES: list[tuple[str, dict, dict, dict, int]] = [
    ("conv2d", {"x": (2, 4, 9, 8)}, CONV | {"epilogue": []}, {"w": (6, 2, 3, 3)}, 1),
    (
        "conv2d",
        {"x": (1, 3, 6, 6)},
        {"epilogue": ["bias", "relu"]},
        {"w": (4, 3, 1, 1), "b": (4,)},
        1,
    ),
    ("dense", {"x": (3, 5)}, {"epilogue": ["bias", "clip:0:1"]}, {"w": (4, 5), "b": (4,)}, 1),
    ("matmul", {"a": (2, 1, 3, 4)}, {}, {"b": (5, 4, 6)}, 1),
    ("matmul", {"a": (4,)}, {}, {"b": (2, 4, 3)}, 1),
    (
        "batch_norm",
        {"x": (2, 3, 4, 4)},
        {"epsilon": 1e-5},
        {"s": (3,), "b": (3,), "m": (3,), "v": (3,)},
        1,
    ),
    ("relu", {"x": (2, 3)}, {}, {}, 1),
    ("sigmoid", {"x": (2, 3)}, {}, {}, 1),
    ("silu", {"x": (2, 3)}, {}, {}, 1),
    ("hard_swish", {"x": (2, 3)}, {}, {}, 1),
    ("leaky_relu", {"x": (2, 3)}, {"alpha": 0.1}, {}, 1),
    ("clip", {"x": (2, 3)}, {"lo": -0.5, "hi": 0.5}, {}, 1),
    ("hard_sigmoid", {"x": (2, 3)}, {"alpha": 0.2, "beta": 0.5}, {}, 1),
    ("add", {"a": (2, 1, 4)}, {}, {"b": (3, 1)}, 1),
    ("sub", {"a": (2, 3)}, {}, {"b": ()}, 1),
    ("mul", {"a": (2, 3)}, {}, {"b": (3,)}, 1),
    ("div", {"a": (2, 3)}, {}, {"b": (2, 1)}, 1),
    (
        "channel_affine",
        {"x": (2, 3, 4, 5)},
        {"relu": True},
        {"s": (1, 3, 1, 1), "t": (1, 3, 1, 1)},
        1,
    ),
    ("lrn", {"x": (1, 5, 3, 3)}, {"size": 3, "alpha": 1e-3, "beta": 0.75, "bias": 1.0}, {}, 1),
    ("pool2d", {"x": (1, 2, 9, 7)}, POOL | {"kind": "max", "ceil_mode": True}, {}, 1),
    ("pool2d", {"x": (1, 2, 9, 7)}, POOL | {"kind": "avg", "count_include_pad": True}, {}, 1),
    ("global_pool2d", {"x": (2, 3, 4, 5)}, {"kind": "avg"}, {}, 1),
    ("reshape", {"x": (2, 3, 4)}, {"shape": [6, 4]}, {}, 1),
    ("transpose", {"x": (2, 3, 4)}, {"perm": [2, 0, 1]}, {}, 1),
    ("concat", {"a": (2, 3), "b": (2, 5)}, {"axis": -1}, {}, 1),
    ("split", {"x": (2, 7)}, {"axis": 1, "sizes": [3, 4]}, {}, 2),
    ("pad", {"x": (2, 3)}, {"pads": [1, 0, 2, -1], "value": 0.5}, {}, 1),
    ("softmax", {"x": (2, 3, 4)}, {"axis": 1}, {}, 1),
    ("reduce_mean", {"x": (2, 3, 4)}, {"axes": [0, 2], "keepdims": False}, {}, 1),
    ("reduce_mean", {"x": (2, 3, 4)}, {"axes": [], "keepdims": True}, {}, 1),
    ("layout_transform", {"x": (1, 32, 3, 3)}, {"src": "NCHW", "dst": "NCHW16c"}, {}, 1),
    ("erf", {"x": (2, 3)}, {}, {}, 1),
    ("tanh", {"x": (2, 3)}, {}, {}, 1),
    ("sqrt", {"x": (2, 3)}, {}, {}, 1),
    ("square", {"x": (2, 3)}, {}, {}, 1),
    ("gelu", {"x": (2, 3)}, {}, {}, 1),
    ("equal", {"a": (2, 1, 4)}, {}, {"b": (3, 1)}, 1),
    ("where", {"c": (2, 1, 4)}, {}, {"a": (3, 1), "b": ()}, 1),
    ("expand", {"x": (3, 1)}, {"shape": [2, 3, 4]}, {}, 1),
    ("slice", {"x": (3, 5)}, {"axis": -1, "begin": 1, "end": 4}, {}, 1),
    ("layer_norm", {"x": (2, 3, 4)}, {"axis": 1, "epsilon": 1e-5}, {"g": (3, 4), "b": (3, 4)}, 1),
    # q [B,H,Sq,D], K^T [B,H,D,Sk], v [B,H,Sk,D], an additive mask over the keys
    (
        "attention",
        {"q": (1, 2, 3, 4), "k": (1, 2, 4, 5), "v": (1, 2, 5, 4)},
        {"scale": 0.5},
        {"m": (1, 1, 1, 5)},
        1,
    ),
]
# ops reading integers (gather's indices, cast's source): cases in test_transformer_import.py
INT_INPUT_OPS = {"gather", "cast"}


def test_cases_cover_every_op() -> None:
    # the quantized ops take integer inputs: their cases are in test_quantize_pass.py, and
    # the packed ones' in test_vta_network.py
    assert {c[0] for c in CASES} == set(OPS) - set(QUANT_OPS) - set(PACKED_OPS) - INT_INPUT_OPS


@pytest.mark.parametrize(("op", "inputs", "attrs", "params", "n_out"), CASES)
def test_inferred_shapes_match_interpreter(op, inputs, attrs, params, n_out) -> None:
    params = {k: np.abs(rand(*s)) + 0.5 for k, s in params.items()}  # var > 0, b != 0
    g = graph_of(op, inputs, attrs, params, n_out)
    feeds = {k: rand(*s) for k, s in inputs.items()}
    out = run_graph(g, feeds)  # checks every result against the value table
    assert list(out) == g.outputs


def test_expected_shapes() -> None:
    def shape(op: str, inputs: dict, attrs: dict, params: dict | None = None) -> tuple:
        arrays = {k: rand(*v) for k, v in (params or {}).items()}
        return graph_of(op, inputs, attrs, arrays).shape("y0")

    assert shape("conv2d", {"x": (2, 4, 9, 8)}, CONV, {"w": (6, 2, 3, 3)}) == (2, 6, 5, 6)
    assert shape("matmul", {"a": (4,)}, {}, {"b": (2, 4, 3)}) == (2, 3)
    pool = POOL | {"kind": "max", "ceil_mode": True}
    assert shape("pool2d", {"x": (1, 2, 9, 7)}, pool) == (1, 2, 5, 4)
    assert shape("reduce_mean", {"x": (2, 3, 4)}, {"axes": [0, -1], "keepdims": False}) == (3,)
    assert shape("reduce_mean", {"x": (2, 3, 4)}, {"axes": []}) == (1, 1, 1)
    assert shape("pad", {"x": (2, 3)}, {"pads": [1, 0, 2, -1]}) == (5, 2)
    lt = {"src": "NCHW", "dst": "NCHW16c"}
    assert shape("layout_transform", {"x": (1, 32, 3, 3)}, lt) == (1, 2, 3, 3, 16)


def test_interpreter_values() -> None:
    x, w, b, res = rand(1, 4, 5, 5), rand(6, 4, 3, 3), rand(6), rand(1, 6, 3, 3)
    attrs = {"epilogue": ["bias", "residual", "relu"]}
    order = ["x", "w", "b", "r"]  # bias, then residual, after the main inputs
    g = graph_of(
        "conv2d", {"x": (1, 4, 5, 5), "r": (1, 6, 3, 3)}, attrs, {"w": w, "b": b}, 1, order
    )
    want = R.relu(R.conv2d_nchw(x, w) + b.reshape(1, -1, 1, 1) + res)
    np.testing.assert_allclose(run_graph(g, {"x": x, "r": res})["y0"], want, atol=1e-5)
    g = graph_of("layout_transform", {"x": (1, 32, 2, 2)}, {"src": "NCHW", "dst": "NCHW8c"})
    x = rand(1, 32, 2, 2)
    np.testing.assert_array_equal(
        run_graph(g, {"x": x})["y0"], layouts.transform(x, "NCHW", "NCHW8c")
    )
    g = graph_of("lrn", {"x": (1, 4, 1, 1)}, {"size": 3, "alpha": 3.0, "beta": 1.0, "bias": 1.0})
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 4, 1, 1)
    sq = np.array([1 + 4, 1 + 4 + 9, 4 + 9 + 16, 9 + 16], np.float32)
    np.testing.assert_allclose(run_graph(g, {"x": x})["y0"].ravel(), x.ravel() / (1 + sq))


def test_run_graph_all_returns_every_value() -> None:
    g = graph_of("relu", {"x": (2, 3)}, {})
    env = run_graph_all(g, {"x": -np.ones((2, 3), np.float32)})
    assert set(env) == {"x", "y0"} and not env["y0"].any()


def test_run_node() -> None:
    node = Node("t", "transpose", ["x"], ["y"], {"perm": [1, 0]})
    (out,) = run_node(node, [np.arange(6, dtype=np.float32).reshape(2, 3)])
    assert out.shape == (3, 2)
    with pytest.raises(GraphError, match=r"node 't' \(transpose\): ValueError"):
        run_node(node, [np.zeros((2, 3, 4), np.float32)])


# ---------------------------------------------------------------- errors
def error(op: str, inputs: dict, attrs: dict, params: dict | None = None, n_out: int = 1) -> str:
    with pytest.raises(GraphError) as info:
        graph_of(
            op,
            inputs,
            attrs,
            {k: np.zeros(s, np.float32) for k, s in (params or {}).items()},
            n_out,
        )
    return str(info.value)


def test_conv_channel_mismatch_names_node() -> None:
    msg = error("conv2d", {"x": (1, 3, 8, 8)}, {"epilogue": []}, {"w": (4, 2, 3, 3)})
    assert msg.startswith("node 'n0' (conv2d): weight 'w' [4, 2, 3, 3] has 2 input channels")
    assert "needs 3" in msg


@pytest.mark.parametrize(
    ("op", "inputs", "attrs", "params", "n_out", "text"),
    [
        ("concat", {"a": (2, 3), "b": (3, 3)}, {"axis": 1}, {}, 1, "off the concat axis 1"),
        ("reshape", {"x": (2, 3)}, {"shape": [4, 2]}, {}, 1, "(6 elements) to [4, 2] (8 elements)"),
        ("split", {"x": (2, 7)}, {"axis": 1, "sizes": [3, 3]}, {}, 2, "sum to 6, but axis 1"),
        ("dense", {"x": (2, 3)}, {"epilogue": ["bias"]}, {"w": (4, 3), "b": (3,)}, 1, "shape [4]"),
        ("dense", {"x": (2, 3)}, {"epilogue": ["bias"]}, {"w": (4, 3)}, 1, "needs 3 inputs"),
        ("dense", {"x": (2, 3)}, {"epilogue": ["swish"]}, {"w": (4, 3)}, 1, "unknown kind"),
        ("add", {"a": (2, 3), "b": (4,)}, {}, {}, 1, "do not broadcast"),
        ("transpose", {"x": (2, 3)}, {"perm": [0, 0]}, {}, 1, "permutation"),
        ("pool2d", {"x": (1, 1, 4, 4)}, POOL | {"kind": "max", "padding": [0, 2, 0, 0]}, {}, 1,
         "smaller than the kernel"),
        ("layout_transform", {"x": (1, 12, 2, 2)}, {"src": "NCHW", "dst": "NCHW8c"}, {}, 1,
         "block"),
        ("softmax", {"x": (2, 3)}, {}, {}, 1, "missing attr 'axis'"),
        ("relu", {"x": (2, 3)}, {}, {}, 2, "expected 1 outputs, got 2"),
        ("swish", {"x": (2, 3)}, {}, {}, 1, "unknown op"),
        ("layer_norm", {"x": (2, 3)}, {"axis": -1, "epsilon": 1e-5}, {"g": (2,)}, 1,
         "must have shape [3]"),
        ("expand", {"x": (2, 3)}, {"shape": [4, 3]}, {}, 1, "cannot expand"),
    ],
)  # fmt: skip
def test_infer_errors(op, inputs, attrs, params, n_out, text) -> None:
    msg = error(op, inputs, attrs, params, n_out)
    assert msg.startswith(f"node 'n0' ({op}): ") and text in msg


def test_infer_node_undefined_input_and_infer_shapes_refreshes() -> None:
    g = graph_of("relu", {"x": (2, 3)}, {})
    with pytest.raises(GraphError, match="input 'nope' has no shape"):
        infer_node(g, Node("n1", "relu", ["nope"], ["z"]))
    g.values["y0"] = Value("y0", (9, 9))
    g.values["stale"] = Value("stale", (1,))
    fresh = infer_shapes(g)
    assert fresh.shape("y0") == (2, 3) and "stale" not in fresh.values
    assert g.shape("y0") == (9, 9)  # the input graph is left alone
    with pytest.raises(GraphError, match=r"value table says \[9, 9\]"):
        run_graph(g, {"x": rand(2, 3)})


def test_run_graph_checks_inputs() -> None:
    g = graph_of("add", {"a": (2, 3), "b": (3,)}, {})
    with pytest.raises(GraphError, match=r"missing \['b'\].*the graph takes a\[2, 3\], b\[3\]"):
        run_graph(g, {"a": rand(2, 3)})
    with pytest.raises(GraphError, match=r"unknown \['c'\]"):
        run_graph(g, {"a": rand(2, 3), "b": rand(3), "c": rand(1)})
    with pytest.raises(GraphError, match=r"input 'b' must have shape \[3\], got \[4\]"):
        run_graph(g, {"a": rand(2, 3), "b": rand(4)})
    out = run_graph(g, {"a": np.ones((2, 3)), "b": np.ones(3)})  # float64 is cast to float32
    assert out["y0"].dtype == np.float32
