"""ONNX index, mask and resize ops (onnx_index, onnx_resize, run-time integer casts): small
models built with onnx.helper, imported, run with the graph interpreter and compared with
ONNX Runtime; a few are also compiled for the CPU, so the kernels they lower to are checked."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import FrontendError, load_onnx
from tunefarm.graph.interpret import run_graph
from tunefarm.runtime.executor import GraphExecutor

RNG = np.random.default_rng(3)
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs: dict[str, tuple[int, tuple]], inits=None, opset: int = 17):
    """Inputs as name -> (elem type, shape); outputs "y" (float32) inferred by ONNX."""
    infos = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()]
    outs = [helper.make_tensor_value_info("y", F, None)]
    tensors = [numpy_helper.from_array(a, n) for n, a in (inits or {}).items()]
    g = helper.make_graph(nodes, "t", infos, outs, tensors)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return onnx.shape_inference.infer_shapes(m)


def check(m, feeds: dict[str, np.ndarray], compiled: bool = False, tmp_path=None) -> Any:
    graph = load_onnx(m)
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    ref = want.run(None, feeds)[0]
    got = run_graph(graph, feeds)["y"]
    if compiled:
        compile_graph(graph, "cpu").save(tmp_path / "net.tfa")
        got = GraphExecutor.load(tmp_path / "net.tfa").run(feeds)["y"]
    assert got.shape == ref.shape
    scale = float(np.abs(ref[np.isfinite(ref)]).max(initial=1.0))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * scale)
    return graph


def x(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def node(op: str, ins, **attrs):
    return helper.make_node(op, list(ins), ["y"], name=op.lower(), **attrs)


# ---------------------------------------------------------------- gathers
@pytest.mark.parametrize(
    "idx", [np.array([[0, 2], [1, 1]]), np.array([[[1]], [[-1]]]), np.array(2)]
)
def test_gather_constant_indices_any_rank(idx) -> None:
    m = model([node("Gather", ["x", "i"], axis=1)], {"x": (F, (2, 3, 4))}, {"i": idx})
    check(m, {"x": x(2, 3, 4)})


@pytest.mark.parametrize("batch_dims", [0, 1])
def test_gather_nd_constant_and_runtime(batch_dims, tmp_path) -> None:
    idx = np.array([[[1, 0], [2, 3]], [[0, 1], [1, 2]]], np.int64)
    shape = (3, 4, 5)
    if batch_dims:
        idx, shape = idx[..., 1:], (2, 4, 5)
    n = node("GatherND", ["x", "i"], batch_dims=batch_dims)
    check(model([n], {"x": (F, shape)}, {"i": idx}), {"x": x(*shape)})
    m = model([n], {"x": (F, shape), "i": (I64, idx.shape)})
    neg = idx - np.asarray(shape[batch_dims : batch_dims + idx.shape[-1]]) * (idx % 2)
    check(m, {"x": x(*shape), "i": neg}, compiled=True, tmp_path=tmp_path)  # negatives too


def test_gather_elements_constant_and_runtime(tmp_path) -> None:
    idx = RNG.integers(0, 3, (2, 2, 4))
    n = node("GatherElements", ["x", "i"], axis=1)
    check(model([n], {"x": (F, (2, 3, 4))}, {"i": idx}), {"x": x(2, 3, 4)})
    m = model([n], {"x": (F, (2, 3, 4)), "i": (I64, idx.shape)})
    neg = idx - 3 * (idx % 2)  # negative indices count from the end
    check(m, {"x": x(2, 3, 4), "i": neg}, compiled=True, tmp_path=tmp_path)


def test_scatter_nd_constant_indices(tmp_path) -> None:
    idx = np.array([[1], [3]], np.int64)
    n = node("ScatterND", ["x", "i", "u"])
    m = model([n], {"x": (F, (4, 3)), "u": (F, (2, 3))}, {"i": idx})
    check(m, {"x": x(4, 3), "u": x(2, 3)}, compiled=True, tmp_path=tmp_path)


def test_scatter_nd_runtime_indices_refused() -> None:
    n = node("ScatterND", ["x", "i", "u"])
    m = model([n], {"x": (F, (4, 3)), "i": (I64, (2, 1)), "u": (F, (2, 3))})
    with pytest.raises(FrontendError, match="scatternd.*constant indices"):
        load_onnx(m)


@pytest.mark.parametrize(("starts", "ends", "steps"), [([-1], [-100], [-1]), ([0], [5], [2])])
def test_slice_with_steps(starts, ends, steps) -> None:
    c = {k: np.array(v, np.int64) for k, v in (("s", starts), ("e", ends), ("st", steps))}
    inits = {"s": c["s"], "e": c["e"], "a": np.array([1], np.int64), "st": c["st"]}
    m = model([node("Slice", ["x", "s", "e", "a", "st"])], {"x": (F, (2, 5))}, inits)
    check(m, {"x": x(2, 5)})


# ---------------------------------------------------------------- masks, sums, casts
def test_isnan_isinf_where(tmp_path) -> None:
    nodes = [
        helper.make_node("IsNaN", ["x"], ["n"]),
        helper.make_node("IsInf", ["x"], ["i"], detect_negative=0),
        helper.make_node("Or", ["n", "i"], ["b"]),
        node("Where", ["b", "z", "x"]),
    ]
    m = model(nodes, {"x": (F, (2, 4))}, {"z": np.zeros(1, np.float32)})
    v = np.array([[np.nan, 1, np.inf, -np.inf], [2, np.nan, 3, -1]], np.float32)
    check(m, {"x": v}, compiled=True, tmp_path=tmp_path)
    nodes[2:] = [node("Where", ["n", "z", "x"])]
    check(model(nodes[:1] + nodes[2:], {"x": (F, (2, 4))}, {"z": np.zeros(1, np.float32)}),
          {"x": v}, compiled=True, tmp_path=tmp_path)  # fmt: skip
    for attrs in ({}, {"detect_positive": 0}):
        nodes = [helper.make_node("IsInf", ["x"], ["b"], **attrs), node("Where", ["b", "z", "x"])]
        m = model(nodes, {"x": (F, (2, 4))}, {"z": np.zeros(1, np.float32)})
        check(m, {"x": v}, compiled=True, tmp_path=tmp_path)


@pytest.mark.parametrize(("exclusive", "reverse"), [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumsum(exclusive, reverse) -> None:
    n = node("CumSum", ["x", "a"], exclusive=exclusive, reverse=reverse)
    check(model([n], {"x": (F, (2, 5, 3))}, {"a": np.array(1)}), {"x": x(2, 5, 3)})


def test_roberta_position_ids(tmp_path) -> None:
    """RoBERTa's ids -> (ids != pad) -> int32 -> cumsum * mask -> int64 + pad -> Gather."""
    pad = np.array(1, np.int64)
    nodes = [
        helper.make_node("Equal", ["ids", "pad"], ["eq"]),
        helper.make_node("Not", ["eq"], ["ne"]),
        helper.make_node("Cast", ["ne"], ["m"], to=TensorProto.INT32),
        helper.make_node("CumSum", ["m", "ax"], ["cs"]),
        helper.make_node("Cast", ["cs"], ["cs32"], to=TensorProto.INT32),
        helper.make_node("Mul", ["cs32", "m"], ["pm"]),
        helper.make_node("Cast", ["pm"], ["p64"], to=TensorProto.INT64),
        helper.make_node("Add", ["p64", "pad"], ["pos"]),
        helper.make_node("Div", ["pos", "two"], ["half"]),
        node("Gather", ["table", "half"]),
    ]
    inits = {"pad": pad, "ax": np.array(1, np.int64), "two": np.array(2, np.int64)}
    inits["table"] = x(10, 4)
    m = model(nodes, {"ids": (I64, (2, 7))}, inits)
    ids = np.array([[0, 5, 6, 7, 1, 1, 1], [0, 3, 1, 4, 5, 8, 2]], np.int64)
    check(m, {"ids": ids}, compiled=True, tmp_path=tmp_path)


def test_cast_float_to_int_truncates(tmp_path) -> None:
    nodes = [helper.make_node("Cast", ["x"], ["i"], to=TensorProto.INT64),
             node("Cast", ["i"], to=TensorProto.FLOAT)]  # fmt: skip
    v = np.array([[-2.7, -0.5, 0.5, 3.9]], np.float32)
    check(model(nodes, {"x": (F, (1, 4))}), {"x": v}, compiled=True, tmp_path=tmp_path)


def test_cast_to_float16_at_run_time_rounds_to_half(tmp_path) -> None:
    """float32 -> float16 -> float32 of a run-time value: half precision, ties to even,
    overflow to inf, subnormals, exactly as ONNX Runtime (the value then stays float32)."""
    nodes = [helper.make_node("Cast", ["x"], ["h"], to=TensorProto.FLOAT16),
             node("Cast", ["h"], to=TensorProto.FLOAT)]  # fmt: skip
    v = np.array([[1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 70000.0, -1e-6, 3.14159, 65504.0]])
    m = model(nodes, {"x": (F, (1, 6))})
    feeds = {"x": v.astype(np.float32)}
    want = ort.InferenceSession(m.SerializeToString()).run(None, feeds)[0]
    assert want[0, 2] == np.inf and want[0, 0] == 1.0  # the cases are the hard ones
    graph = load_onnx(m)
    compile_graph(graph, "cpu").save(tmp_path / "net.tfa")
    for got in (
        run_graph(graph, feeds)["y"],
        GraphExecutor.load(tmp_path / "net.tfa").run(feeds)["y"],
    ):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("upper", "k"), [(1, 0), (0, 0), (1, 1), (0, -1)])
def test_trilu(upper, k) -> None:
    n = node("Trilu", ["x", "k"], upper=upper)
    check(model([n], {"x": (F, (2, 3, 4))}, {"k": np.array(k)}), {"x": x(2, 3, 4)})


def test_tile_and_range_folded() -> None:
    nodes = [
        helper.make_node("Range", ["s", "l", "d"], ["r"]),
        helper.make_node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "rf"], ["a"]),
        node("Tile", ["a", "reps"]),
    ]
    inits = {k: np.array(v, np.int64) for k, v in (("s", 0), ("l", 3), ("d", 1))}
    inits["reps"] = np.array([2, 1, 3], np.int64)
    check(model(nodes, {"x": (F, (2, 1, 3))}, inits), {"x": x(2, 1, 3)})


# ---------------------------------------------------------------- resize
@pytest.mark.parametrize(
    "attrs",
    [
        {"mode": "nearest"},
        {
            "mode": "nearest",
            "coordinate_transformation_mode": "asymmetric",
            "nearest_mode": "floor",
        },
        {"mode": "linear"},
        {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
        {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
        {"mode": "cubic", "cubic_coeff_a": -0.75},
        {"mode": "cubic", "exclude_outside": 1, "coordinate_transformation_mode": "asymmetric"},
    ],
)
def test_resize_scales(attrs, tmp_path) -> None:
    n = node("Resize", ["x", "", "s"], **attrs)
    scales = np.array([1, 1, 2.0, 1.5], np.float32)
    m = model([n], {"x": (F, (1, 2, 3, 4))}, {"s": scales}, opset=13)
    check(m, {"x": x(1, 2, 3, 4)}, compiled=attrs["mode"] == "cubic", tmp_path=tmp_path)


def test_resize_sizes_downsample_linear() -> None:
    n = node("Resize", ["x", "", "", "sz"], mode="linear")
    m = model([n], {"x": (F, (1, 2, 7, 9))}, {"sz": np.array([1, 2, 4, 16], np.int64)}, opset=18)
    check(m, {"x": x(1, 2, 7, 9)})


def test_resize_runtime_sizes_refused() -> None:
    n = node("Resize", ["x", "", "", "sz"], mode="linear")
    m = model([n], {"x": (F, (1, 2, 7, 9)), "sz": (I64, (4,))})
    with pytest.raises(FrontendError, match="resize.*input 3"):
        load_onnx(m)


@pytest.mark.parametrize("op", ["And", "Or", "Xor"])
def test_logic_on_runtime_booleans(op) -> None:
    nodes = [
        helper.make_node("IsNaN", ["x"], ["a"]),
        helper.make_node("IsInf", ["x"], ["b"]),
        helper.make_node(op, ["a", "b"], ["c"]),
        helper.make_node("Not", ["c"], ["d"]),
        node("Cast", ["d"], to=TensorProto.FLOAT),
    ]  # fmt: skip
    v = np.array([[np.nan, 1, np.inf, -np.inf], [2, np.nan, 3, -1]], np.float32)
    check(model(nodes, {"x": (F, (2, 4))}), {"x": v})


@pytest.mark.parametrize("e", [3.0, -1.0, -0.5])
def test_pow_constant_exponents(e) -> None:
    nodes = [node("Pow", ["x", "e"])]
    v = np.abs(x(2, 5)) + 0.5
    check(model(nodes, {"x": (F, (2, 5))}, {"e": np.array(e, np.float32)}), {"x": v})


@pytest.mark.parametrize(
    ("eq", "a", "b"),
    [
        ("bhqd,bhkd->bhqk", (1, 2, 3, 4), (1, 2, 5, 4)),
        ("ij,jk->ki", (3, 4), (4, 2)),
        ("bij,jk->bik", (2, 3, 4), (4, 5)),
        ("ij->ji", (3, 4), None),
    ],
)
def test_einsum(eq, a, b, tmp_path) -> None:
    ins = {"a": (F, a)} | ({"b": (F, b)} if b else {})
    feeds = {"a": x(*a)} | ({"b": x(*b)} if b else {})
    m = model([node("Einsum", list(ins), equation=eq)], ins)
    check(m, feeds, compiled=eq.startswith("bhqd"), tmp_path=tmp_path)


def test_einsum_with_a_sum_in_one_operand_refused() -> None:
    m = model(
        [node("Einsum", ["a", "b"], equation="ij,kl->ik")], {"a": (F, (2, 3)), "b": (F, (4, 5))}
    )
    with pytest.raises(FrontendError, match="einsum.*summed in one operand"):
        load_onnx(m)


def test_layer_norm_any_axis() -> None:
    n = node("LayerNormalization", ["x", "g", "b"], axis=1, epsilon=1e-5)
    inits = {"g": x(3, 4) + 1, "b": x(3, 4)}
    check(model([n], {"x": (F, (2, 3, 4))}, inits), {"x": x(2, 3, 4)})


@pytest.mark.parametrize(("opset", "mode"), [(10, "linear"), (10, "nearest"), (11, "nearest")])
def test_resize_older_opsets(opset, mode) -> None:
    scales = np.array([1, 1, 2.0, 2.5], np.float32)
    if opset == 10:
        n, inits = node("Resize", ["x", "s"], mode=mode), {"s": scales}
    else:
        n = node("Resize", ["x", "roi", "s"], mode="nearest", nearest_mode="round_prefer_ceil")
        inits = {"roi": np.zeros(0, np.float32), "s": scales}
    check(model([n], {"x": (F, (1, 2, 3, 4))}, inits, opset=opset), {"x": x(1, 2, 3, 4)})


def test_resize_tf_crop_and_resize() -> None:
    n = node("Resize", ["x", "roi", "", "sz"], mode="linear",
             coordinate_transformation_mode="tf_crop_and_resize")  # fmt: skip
    roi = np.array([0, 0, 0.2, 0.1, 1, 1, 0.9, 0.8], np.float32)
    inits = {"roi": roi, "sz": np.array([1, 2, 5, 6], np.int64)}
    check(model([n], {"x": (F, (1, 2, 7, 9))}, inits, opset=13), {"x": x(1, 2, 7, 9)})
