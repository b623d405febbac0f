"""The IR operator library, run by the numpy evaluator and checked against the oracle.

Shapes are small and deliberately awkward: odd sizes, channel counts that are not multiples
of 4, stride 2, asymmetric padding, dilation 2, groups, batch 2, ceil_mode.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tunefarm.ir import ops
from tunefarm.ir import reference as ref
from tunefarm.ir import tensor as te
from tunefarm.ir.evaluate import evaluate
from tunefarm.ir.expr import select

RNG = np.random.default_rng(1234)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def run(out: te.Tensor, **feed: np.ndarray) -> np.ndarray:
    return evaluate([out], feed)[0]


def names(out: te.Tensor) -> list[str]:
    return [t.name for t in te.ComputeDAG([out]).compute_stages]


def axis_names(t: te.Tensor) -> tuple[list[str], list[str]]:
    return [a.name for a in t.op.axes], [a.name for a in t.op.reduce_axes]


# (N, C, H, W, O, KH, KW, strides, padding, dilation, groups)
CONV_CASES = [
    (2, 3, 7, 9, 5, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1),
    (1, 3, 9, 8, 5, 3, 2, (2, 2), (1, 0, 2, 1), (1, 1), 1),
    (2, 4, 11, 7, 6, 3, 3, (2, 1), (0, 2, 1, 0), (2, 2), 2),
    (1, 5, 6, 6, 7, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), 1),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_nchw_matches_reference_and_counts_flops(case: tuple) -> None:
    n, c, h, w, o, kh, kw, s, p, d, g = case
    x, k = rand(n, c, h, w), rand(o, c // g, kh, kw)
    out = ops.conv2d_nchw(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), s, p, d, g
    )
    want = ref.conv2d_nchw(x, k, s, p, d, g)
    np.testing.assert_allclose(run(out, x=x, k=k), want, rtol=1e-5, atol=1e-5)
    assert names(out) == (["conv_pad", "conv"] if any(p) else ["conv"])
    assert axis_names(out) == (["n", "f", "y", "x"], ["rc", "ry", "rx"])
    _, _, oh, ow = want.shape
    assert te.ComputeDAG([out]).flops() == 2 * n * o * oh * ow * c * kh * kw // g


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_nhwc_matches_reference(case: tuple) -> None:
    n, c, h, w, o, kh, kw, s, p, d, g = case
    x, k = rand(n, h, w, c), rand(kh, kw, c // g, o)
    out = ops.conv2d_nhwc(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), s, p, d, g, "c1"
    )
    want = ref.conv2d_nhwc(x, k, s, p, d, g)
    np.testing.assert_allclose(run(out, x=x, k=k), want, rtol=1e-5, atol=1e-5)
    assert axis_names(out)[0] == ["n", "y", "x", "f"]


def test_conv2d_nchwc_blocked_layout() -> None:
    x, k = rand(2, 2, 7, 8, 3), rand(2, 2, 3, 3, 3, 2)  # IC = 6 (ib 3), OC = 4 (ob 2)
    s, p, d = (2, 2), (1, 0, 2, 1), (1, 2)
    out = ops.conv2d_nchwc(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), s, p, d, "cb"
    )
    want = ref.conv2d_nchwc(x, k, s, p, d)
    np.testing.assert_allclose(run(out, x=x, k=k), want, rtol=1e-5, atol=1e-5)
    assert axis_names(out) == (["n", "occ", "oh", "ow", "ocb"], ["icc", "kh", "kw", "icb"])
    assert names(out) == ["cb_pad", "cb"]
    assert te.ComputeDAG([out]).by_name["cb_pad"].shape == (2, 2, 10, 9, 3)
    assert te.ComputeDAG([out]).flops() == 2 * np.prod(want.shape) * 6 * 9


@pytest.mark.parametrize("mult", [1, 2])
def test_depthwise_conv2d_nchw(mult: int) -> None:
    x, k = rand(2, 3, 9, 8), rand(3 * mult, 1, 3, 3)
    s, p, d = (2, 2), (2, 1, 0, 1), (2, 1)
    out = ops.depthwise_conv2d_nchw(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), s, p, d
    )
    want = ref.depthwise_conv2d_nchw(x, k, s, p, d)
    np.testing.assert_allclose(run(out, x=x, k=k), want, rtol=1e-5, atol=1e-5)
    n, oc, oh, ow = want.shape
    assert te.ComputeDAG([out]).flops() == 2 * n * oc * oh * ow * 3 * 3 * 3 // 3


def test_depthwise_conv2d_nchwc() -> None:
    x, k = rand(2, 2, 7, 6, 3), rand(2, 1, 3, 3, 1, 3)  # C = 6 in blocks of 3
    s, p, d = (1, 2), (1, 1, 0, 2), (2, 1)
    out = ops.depthwise_conv2d_nchwc(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), s, p, d
    )
    x_nchw = ref.layout_transform(x, "NCHW3c", "NCHW")
    k_oihw = np.moveaxis(k, 5, 1).reshape(6, 1, 3, 3)  # [cc, cb, 1, kh, kw, 1] -> [C, 1, ..]
    want = ref.layout_transform(
        ref.depthwise_conv2d_nchw(x_nchw, k_oihw, s, p, d), "NCHW", "NCHW3c"
    )
    np.testing.assert_allclose(run(out, x=x, k=k), want, rtol=1e-5, atol=1e-5)
    assert axis_names(out) == (["n", "cc", "oh", "ow", "cb"], ["kh", "kw"])


def test_pad_generic_nd_with_value() -> None:
    x = rand(3, 4, 2)
    out = ops.pad(te.placeholder(x.shape, name="x"), (1, 0, 2), (0, 3, 1), value=1.5)
    want = np.pad(x, ((1, 0), (0, 3), (2, 1)), constant_values=1.5)
    np.testing.assert_array_equal(run(out, x=x), want)
    assert te.ComputeDAG([out]).flops() == 0


def test_conv_output_size() -> None:
    assert ops.conv_output_size(7, 3, 2, 2, 1) == 4
    assert ops.conv_output_size(11, 3, 1, 1, 2) == 8
    with pytest.raises(ValueError, match="does not fit"):
        ops.conv_output_size(3, 3, 1, 0, 2)
    with pytest.raises(ValueError, match="stride"):
        ops.conv_output_size(7, 3, 0, 0, 1)


# ---------------------------------------------------------------- dense


@pytest.mark.parametrize("with_bias", [False, True])
def test_dense(with_bias: bool) -> None:
    x, w, b = rand(3, 7), rand(5, 7), rand(5)
    bias = te.placeholder((5,), name="b") if with_bias else None
    out = ops.dense(te.placeholder(x.shape, name="x"), te.placeholder(w.shape, name="w"), bias)
    got = run(out, x=x, w=w, b=b)
    np.testing.assert_allclose(got, ref.dense(x, w, b if with_bias else None), rtol=1e-5)
    assert names(out) == (["dense", "dense_bias"] if with_bias else ["dense"])
    dense_stage = te.ComputeDAG([out]).by_name["dense"]
    assert axis_names(dense_stage) == (["i", "j"], ["k"])


def test_dense_pack() -> None:
    x, w, b = rand(3, 7), rand(6, 7), rand(6)
    packed = w.reshape(2, 3, 7).transpose(0, 2, 1).copy()  # [O//3, K, 3]
    out = ops.dense_pack(
        te.placeholder(x.shape, name="x"),
        te.placeholder(packed.shape, name="w"),
        te.placeholder((6,), name="b"),
    )
    np.testing.assert_allclose(run(out, x=x, w=packed, b=b), ref.dense(x, w, b), rtol=1e-5)


def test_matmul_and_batch_matmul() -> None:
    a, b = rand(3, 5), rand(5, 4)
    out = ops.matmul(te.placeholder(a.shape, name="a"), te.placeholder(b.shape, name="b"))
    np.testing.assert_allclose(run(out, a=a, b=b), ref.matmul(a, b), rtol=1e-5)
    for sa, sb, tb in [((2, 3, 5), (2, 5, 4), False), ((2, 3, 5), (2, 4, 5), True),
                       ((1, 3, 5), (2, 5, 4), False), ((2, 3, 5), (1, 4, 5), True)]:  # fmt: skip
        a, b = rand(*sa), rand(*sb)
        out = ops.batch_matmul(te.placeholder(sa, name="a"), te.placeholder(sb, name="b"), tb)
        np.testing.assert_allclose(run(out, a=a, b=b), ref.batch_matmul(a, b, tb), rtol=1e-5)


# ---------------------------------------------------------------- pooling

# (kind, kernel, strides, padding, dilation, ceil_mode, count_include_pad)
POOL_CASES = [
    ("max", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, False),
    ("max", (3, 2), (2, 2), (1, 0, 0, 1), (2, 1), True, False),
    ("max", (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True, False),
    ("avg", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, False),
    ("avg", (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False, True),
    ("avg", (2, 3), (2, 2), (0, 1, 1, 0), (1, 1), True, False),
    ("avg", (2, 3), (2, 2), (0, 1, 1, 0), (1, 1), True, True),
]


def _ref_pool(x: np.ndarray, case: tuple) -> np.ndarray:
    kind, k, s, p, d, ceil_mode, cip = case
    if kind == "max":
        return ref.max_pool2d_nchw(x, k, s, p, d, ceil_mode)
    return ref.avg_pool2d_nchw(x, k, s, p, ceil_mode, cip)


@pytest.mark.parametrize("case", POOL_CASES)
def test_pool2d_nchw(case: tuple) -> None:
    kind, k, s, p, d, ceil_mode, cip = case
    x = rand(2, 3, 7, 8)
    out = ops.pool2d(te.placeholder(x.shape, name="x"), kind, k, s, p, d, ceil_mode, cip)
    np.testing.assert_allclose(run(out, x=x), _ref_pool(x, case), rtol=1e-5, atol=1e-6)
    assert te.ComputeDAG([out]).by_name["pool"].shape == _ref_pool(x, case).shape
    assert ("pool_sum" in names(out)) == (kind == "avg")
    reduce_stage = te.ComputeDAG([out]).by_name["pool" if kind == "max" else "pool_sum"]
    assert axis_names(reduce_stage) == (["n", "c", "y", "x"], ["ky", "kx"])


@pytest.mark.parametrize("case", [POOL_CASES[1], POOL_CASES[5], POOL_CASES[6]])
def test_pool2d_blocked_layout(case: tuple) -> None:
    kind, k, s, p, d, ceil_mode, cip = case
    x = rand(2, 2, 7, 8, 4)
    out = ops.pool2d(
        te.placeholder(x.shape, name="x"), kind, k, s, p, d, ceil_mode, cip, "NCHW4c", "bp"
    )
    want = _ref_pool(ref.layout_transform(x, "NCHW4c", "NCHW"), case)
    np.testing.assert_allclose(
        run(out, x=x), ref.layout_transform(want, "NCHW", "NCHW4c"), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("cip", [False, True])
def test_avg_pool_with_dilation(cip: bool) -> None:
    x = rand(1, 2, 9, 7)
    k, s, p, d = (3, 2), (2, 1), (2, 1, 1, 1), (2, 3)
    out = ops.pool2d(te.placeholder(x.shape, name="x"), "avg", k, s, p, d, False, cip)
    got = run(out, x=x)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])), constant_values=np.nan)
    want = np.empty_like(got)
    for oy in range(got.shape[2]):
        for ox in range(got.shape[3]):
            win = xp[:, :, oy * s[0] : oy * s[0] + d[0] * k[0] : d[0]]
            win = win[:, :, :, ox * s[1] : ox * s[1] + d[1] * k[1] : d[1]]
            denom = win.shape[2] * win.shape[3] if cip else (~np.isnan(win[0, 0])).sum()
            want[:, :, oy, ox] = np.nansum(win, axis=(2, 3)) / denom
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("layout", ["NCHW", "NCHW2c"])
def test_global_pool2d(kind: str, layout: str) -> None:
    x = rand(2, 3, 5, 7) if layout == "NCHW" else rand(2, 3, 5, 7, 2)
    out = ops.global_pool2d(te.placeholder(x.shape, name="x"), kind, layout)
    fn = np.max if kind == "max" else np.mean
    np.testing.assert_allclose(run(out, x=x), fn(x, axis=(2, 3), keepdims=True), rtol=1e-5)


# ---------------------------------------------------------------- elementwise

BINARY = [
    (ops.add, np.add),
    (ops.subtract, np.subtract),
    (ops.multiply, np.multiply),
    (ops.divide, np.divide),
    (ops.maximum, np.maximum),
    (ops.minimum, np.minimum),
]


@pytest.mark.parametrize(("op", "np_op"), BINARY)
def test_broadcast_binary(op: Callable[..., te.Tensor], np_op: Callable[..., Any]) -> None:
    a, b = rand(2, 3, 1, 5), rand(3, 4, 1) + 3.0
    ta, tb = te.placeholder(a.shape, name="a"), te.placeholder(b.shape, name="b")
    np.testing.assert_allclose(run(op(ta, tb), a=a, b=b), np_op(a, b), rtol=1e-6)
    np.testing.assert_allclose(run(op(ta, 2.5), a=a), np_op(a, np.float32(2.5)), rtol=1e-6)
    np.testing.assert_allclose(run(op(-1.5, tb), b=b), np_op(np.float32(-1.5), b), rtol=1e-6)


def test_bias_add_axes() -> None:
    x, b1, b3 = rand(2, 3, 4, 5), rand(3), rand(5)
    tx = te.placeholder(x.shape, name="x")
    out = ops.bias_add(tx, te.placeholder((3,), name="b"))
    np.testing.assert_allclose(run(out, x=x, b=b1), ref.bias_add(x, b1, 1), rtol=1e-6)
    out = ops.bias_add(tx, te.placeholder((5,), name="b"), axis=-1)
    np.testing.assert_allclose(run(out, x=x, b=b3), ref.bias_add(x, b3, -1), rtol=1e-6)


UNARY = [
    (lambda t: ops.relu(t), ref.relu),
    (lambda t: ops.clip(t, -0.5, 0.7), lambda a: ref.clip(a, -0.5, 0.7)),
    (lambda t: ops.sigmoid(t), ref.sigmoid),
    (lambda t: ops.silu(t), ref.silu),
    (lambda t: ops.hard_sigmoid(t, 0.3, 0.4), lambda a: ref.hard_sigmoid(a, 0.3, 0.4)),
    (lambda t: ops.hard_swish(t), ref.hard_swish),
    (lambda t: ops.leaky_relu(t, 0.1), lambda a: ref.leaky_relu(a, 0.1)),
    (lambda t: ops.cast(t, "float16"), lambda a: a.astype(np.float16)),
    (lambda t: ops.cast(t, "int32"), lambda a: a.astype(np.int32)),
]


@pytest.mark.parametrize(("build", "oracle"), UNARY)
def test_unary(build: Callable[..., te.Tensor], oracle: Callable[..., np.ndarray]) -> None:
    x = rand(3, 5, 7) * 4.0
    x[0, 0, :3] = [-100.0, 100.0, 0.0]  # exp overflow in sigmoid must still give 0 / 1
    got = run(build(te.placeholder(x.shape, name="x")), x=x)
    want = oracle(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_epilogue_chain_after_conv() -> None:
    x, k, b, r = rand(2, 3, 6, 5), rand(4, 3, 3, 3), rand(4), rand(2, 4, 6, 5)
    conv = ops.conv2d_nchw(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), padding=(1,) * 4
    )
    steps = [
        ("bias_add", {"bias": te.placeholder((4,), name="b")}),
        ("add", {"b": te.placeholder(r.shape, name="r")}),
        ("relu", {}),
    ]
    out = ops.epilogue_chain(conv, steps, "conv")
    want = ref.relu(ref.conv2d_nchw(x, k, padding=(1, 1, 1, 1)) + b[:, None, None] + r)
    np.testing.assert_allclose(run(out, x=x, k=k, b=b, r=r), want, rtol=1e-5, atol=1e-5)
    assert names(out) == ["conv_pad", "conv", "conv_bias_add", "conv_add", "conv_relu"]
    assert axis_names(out)[0] == ["n", "f", "y", "x"]  # epilogue loops line up with the conv
    assert {"relu", "bias_add", "add", "clip", "hard_swish", "sigmoid", "leaky_relu"} <= set(
        ops.EPILOGUES
    )
    with pytest.raises(ValueError, match="kind in"):
        ops.epilogue_chain(conv, [("gelu", {})], "conv")


# ---------------------------------------------------------------- softmax and layout


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_softmax_and_log_softmax(axis: int) -> None:
    x = rand(3, 5, 4) * 10.0
    tx = te.placeholder(x.shape, name="x")
    out = ops.softmax(tx, axis)
    np.testing.assert_allclose(run(out, x=x), ref.softmax(x, axis), rtol=1e-5, atol=1e-7)
    assert names(out) == ["softmax_max", "softmax_exp", "softmax_sum", "softmax"]
    out = ops.log_softmax(tx, axis, name="ls")
    np.testing.assert_allclose(run(out, x=x), ref.log_softmax(x, axis), rtol=1e-5, atol=1e-5)


LAYOUTS = [
    ((2, 8, 3, 5), "NCHW", "NCHW4c"),
    ((2, 2, 3, 5, 4), "NCHW4c", "NCHW"),
    ((2, 2, 3, 5, 4), "NCHW4c", "NCHW8c"),
    ((2, 1, 3, 5, 8), "NCHW8c", "NCHW4c"),
    ((1, 3, 3, 2, 2), "NCHW2c", "NCHW3c"),
    ((8, 6, 3, 1), "OIHW", "OIHW2i4o"),
    ((2, 6, 3, 5), "NCHW", "NHWC"),
    ((2, 3, 5, 6), "NHWC", "NCHW"),
]


@pytest.mark.parametrize(("shape", "src", "dst"), LAYOUTS)
def test_layout_transform(shape: tuple, src: str, dst: str) -> None:
    x = rand(*shape)
    out = ops.layout_transform(te.placeholder(shape, name="x"), src, dst)
    np.testing.assert_array_equal(run(out, x=x), ref.layout_transform(x, src, dst))


# ---------------------------------------------------------------- evaluator


def test_evaluator_slices_big_grids_and_reports_bad_feeds() -> None:
    x, k = rand(2, 3, 7, 9), rand(5, 3, 3, 3)
    out = ops.conv2d_nchw(
        te.placeholder(x.shape, name="x"), te.placeholder(k.shape, name="k"), (2, 1), (1,) * 4
    )
    whole = evaluate([out], {"x": x, "k": k})[0]
    for max_grid in (10, 50, 2000):  # reduce grid alone too big / per pixel / per row chunk
        sliced = evaluate([out], {"x": x, "k": k}, max_grid=max_grid)[0]
        np.testing.assert_array_equal(whole, sliced)
    with pytest.raises(ValueError, match="placeholder 'k'"):
        evaluate([out], {"x": x})
    with pytest.raises(ValueError, match=r"feed\['x'\] must have shape"):
        evaluate([out], {"x": x[:1], "k": k})
    with pytest.raises(ValueError, match="list of Tensors"):
        evaluate(out, {"x": x, "k": k})  # type: ignore[arg-type]


def test_evaluator_bounds_selects_and_min_reduction() -> None:
    x = rand(5)
    tx = te.placeholder((5,), name="x")
    with pytest.raises(IndexError, match="outside"):
        evaluate([te.compute((5,), lambda i: tx[i + 1], name="shift")], {"x": x})
    guarded = te.compute((5,), lambda i: select(i < 4, tx[i + 1], 0.0), name="shift")
    np.testing.assert_array_equal(run(guarded, x=x), np.append(x[1:], 0.0))
    r = te.reduce_axis(5, "r")
    smallest = te.compute((1,), lambda i: te.min(tx[r], axis=r), name="smallest")
    assert run(smallest, x=x)[0] == x.min()


# ---------------------------------------------------------------- bad arguments


def _p(*shape: int, name: str = "x") -> te.Tensor:
    return te.placeholder(shape, name=name)


BAD = [
    (lambda: ops.conv2d_nchw(_p(1, 4, 5, 5), _p(2, 3, 3, 3, name="k")), "dim 1 must be"),
    (lambda: ops.conv2d_nchw(_p(1, 4, 5, 5), _p(3, 2, 3, 3, name="k"), groups=2), "groups=2"),
    (lambda: ops.conv2d_nchw(_p(1, 4, 5, 5), _p(2, 4, 3, 3, name="k"), padding=(1, 1)), "4 ints"),
    (lambda: ops.conv2d_nchw(_p(1, 4, 5, 5), _p(2, 4, 3, 3, name="k"), strides=(0, 1)), "strides"),
    (lambda: ops.conv2d_nchw(_p(1, 4, 2, 5), _p(2, 4, 3, 3, name="k")), "does not fit"),
    (lambda: ops.conv2d_nchw(_p(1, 4, 5), _p(2, 4, 3, 3, name="k")), "data must have 4"),
    (lambda: ops.conv2d_nchw(np.zeros((1, 1, 1, 1)), _p(1, 1, 1, 1)), "data must be a Tensor"),
    (lambda: ops.conv2d_nchwc(_p(1, 2, 5, 5, 4), _p(1, 2, 3, 3, 2, 4, name="k")), "channel"),
    (lambda: ops.depthwise_conv2d_nchw(_p(1, 3, 5, 5), _p(4, 1, 3, 3, name="k")), "C\\*m"),
    (lambda: ops.dense(_p(3, 7), _p(5, 6, name="w")), "K = 7"),
    (lambda: ops.dense(_p(3, 7), _p(5, 7, name="w"), _p(4, name="b")), "bias must have shape"),
    (lambda: ops.batch_matmul(_p(2, 3, 5), _p(3, 5, 4, name="b")), "batch sizes"),
    (lambda: ops.pool2d(_p(1, 2, 5, 5), "min", (2, 2)), "kind must be"),
    (lambda: ops.pool2d(_p(1, 2, 5, 5), "max", (2, 2), layout="NHWC"), "layout must be"),
    (lambda: ops.pool2d(_p(1, 2, 5, 5, 3), "max", (2, 2), layout="NCHW4c"), "block 4"),
    (lambda: ops.pool2d(_p(1, 2, 5, 5), "avg", (2, 2), padding=(2, 0, 0, 0)), "smaller than"),
    (lambda: ops.add(_p(2, 3), _p(4, name="y")), "do not broadcast"),
    (lambda: ops.add(1.0, 2.0), "at least one"),
    (lambda: ops.clip(_p(3), 1.0, 0.0), "lo <= hi"),
    (lambda: ops.cast(_p(3), "float128"), "dtype must be"),
    (lambda: ops.bias_add(_p(2, 3), _p(2, name="b")), "bias must have shape"),
    (lambda: ops.softmax(_p(2, 3), axis=2), "axis must be"),
    (lambda: ops.layout_transform(_p(2, 6, 3, 3), "NCHW", "NCHW4c"), "not divisible"),
    (lambda: ops.layout_transform(_p(2, 6, 3, 3), "NCHW", "NCH"), "same primal"),
    (lambda: ops.layout_transform(_p(2, 6, 3, 3), "NCHW", "NCHWc"), "dst must be"),
    (lambda: ops.layout_transform(_p(2, 6, 3, 3), "NCHW4c", "NCHW"), "has 4 dims"),
    (lambda: ops.pad(_p(2, 3), (1,), (1, 1)), "pad_before"),
    (lambda: ops.relu(_p(3), name=""), "name must be"),
]


@pytest.mark.parametrize(("build", "message"), BAD)
def test_bad_arguments_raise_value_error(build: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


def _readers_walked(dag: te.ComputeDAG, t: te.Tensor) -> list[te.Tensor]:
    """`ComputeDAG.readers` by its definition, walking every stage's body afresh."""
    return [c for c in dag.compute_stages if any(s is t for s in te.input_tensors(c))]


def test_dag_readers_match_their_definition() -> None:
    """The readers map built once per DAG (issue 27: a network's sketch derivation asked it
    ~600k expression nodes per task) gives what walking the bodies gives, for every stage:
    softmax's max is read by two stages, x by two, the output by none."""
    x = te.placeholder((3, 5), name="x")
    out = ops.softmax(x)
    dag = te.ComputeDAG([out])
    for t in dag.tensors:
        assert [r.name for r in dag.readers(t)] == [r.name for r in _readers_walked(dag, t)]
    assert (
        [r.name for r in dag.readers(dag.by_name["softmax_max"])]
        == [r.name for r in _readers_walked(dag, dag.by_name["softmax_max"])]
        != []
    )
    assert dag.readers(out) == []
    got = dag.readers(x)
    got.clear()  # a fresh list each call: the caller may change it
    assert dag.readers(x) == _readers_walked(dag, x) != []


def test_dag_readers_of_a_padded_conv() -> None:
    x, k = te.placeholder((1, 3, 7, 7), name="x"), te.placeholder((4, 3, 3, 3), name="k")
    out = ops.conv2d_nchw(x, k, (1, 1), (1, 1, 1, 1), (1, 1), 1, "conv")
    dag = te.ComputeDAG([out])
    assert [r.name for r in dag.readers(x)] == ["conv_pad"]
    assert [r.name for r in dag.readers(k)] == ["conv"]
    for t in dag.tensors:
        assert dag.readers(t) == _readers_walked(dag, t)
