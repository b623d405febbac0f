"""Layout parsing and numpy layout transforms, checked against explicit index loops."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tunefarm.ir.layouts import Layout, layout_shape, parse_layout, primal_shape, transform


def _loop_transform(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Move every element one by one: src index -> primal coordinates -> dst index."""
    s, d = parse_layout(src), parse_layout(dst)
    sizes = {a: x.shape[s.axes.index(a)] * s.block(a) for a in s.primal_axes}
    out_shape = []
    for a, f in zip(d.axes, d.factors, strict=True):
        out_shape.append(f if f else sizes[a] // d.block(a))
    out = np.full(out_shape, -1, dtype=x.dtype)
    for idx in itertools.product(*(range(n) for n in x.shape)):
        coord = {a: 0 for a in s.primal_axes}
        for a, f, i in zip(s.axes, s.factors, idx, strict=True):
            coord[a.upper()] += i if f else i * s.block(a)
        dst_idx = tuple(
            coord[a.upper()] % f if f else coord[a] // d.block(a)
            for a, f in zip(d.axes, d.factors, strict=True)
        )
        out[dst_idx] = x[idx]
    return out


def test_parse_simple_and_blocked() -> None:
    lay = parse_layout("NCHW16c")
    assert lay.axes == ("N", "C", "H", "W", "c")
    assert lay.factors == (0, 0, 0, 0, 16)
    assert lay.primal_axes == ("N", "C", "H", "W")
    assert lay.block("C") == 16 and lay.block("c") == 16 and lay.block("H") == 1
    assert lay.name == "NCHW16c" and str(lay) == "NCHW16c" and lay.ndim == 5
    w = parse_layout("OIHW8i16o")
    assert w.axes == ("O", "I", "H", "W", "i", "o") and w.factors[-2:] == (8, 16)
    assert parse_layout("NC8n").block("N") == 8


def test_layout_is_frozen_hashable_and_json_roundtrips() -> None:
    lay = parse_layout("NCHW8c")
    assert Layout.from_json(lay.to_json()) == lay
    assert hash(lay) == hash(parse_layout("NCHW8c"))
    assert parse_layout(lay) is lay
    with pytest.raises(AttributeError):
        lay.axes = ("N",)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "non-empty"),
        ("NCHWc", "needs a block size"),
        ("NCHW0c", "must be > 0"),
        ("NHW16c", "no primal axis 'C'"),
        ("NCHWC", "primal axis 'C' appears more than once"),
        ("NCHW4c4c", "sub-axis 'c' appears more than once"),
        ("NCHW16", "must be followed by a lower-case"),
        ("NCH16W", "must be followed by a lower-case"),
        ("NC-HW", "unexpected character '-'"),
    ],
)
def test_parse_rejects_malformed(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_layout(text)


def test_parse_rejects_non_string() -> None:
    with pytest.raises(ValueError, match="layout must be"):
        parse_layout(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("shape", "src", "dst"),
    [
        ((2, 8, 3, 5), "NCHW", "NCHW4c"),
        ((2, 2, 3, 5, 4), "NCHW4c", "NCHW"),
        ((1, 4, 2, 3, 2), "NCHW2c", "NCHW4c"),
        ((1, 2, 2, 3, 4), "NCHW4c", "NCHW8c"),
        ((8, 4, 3, 2), "OIHW", "OIHW2i4o"),
        ((2, 2, 3, 2, 2, 4), "OIHW2i4o", "OIHW"),
        ((2, 2, 3, 2, 2, 4), "OIHW2i4o", "OIHW4i2o"),
        ((2, 3, 4, 5), "NCHW", "NHWC"),
        ((2, 4, 5, 3), "NHWC", "NCHW"),
        ((4, 3, 6, 5), "OIHW", "HWIO"),
        ((6, 4), "NC", "NC2n"),
        ((3, 2, 2), "NC2n", "CN"),
        ((2, 6, 3, 2), "NCHW", "HWNC3c"),
        ((1, 3, 2, 2, 2), "NCHW2c", "NHWC"),
        ((2, 3, 4, 5), "NCHW", "NCHW"),
        ((2, 3, 4, 5), "NCHW", "NCHW1c"),
    ],
)
def test_transform_matches_index_loops(shape: tuple[int, ...], src: str, dst: str) -> None:
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    before = x.copy()
    got = transform(x, src, dst)
    want = _loop_transform(x, src, dst)
    assert got.shape == want.shape == layout_shape(shape, src, dst)
    np.testing.assert_array_equal(got, want)
    assert got.flags.c_contiguous and got.dtype == x.dtype
    assert not np.shares_memory(got, x)
    np.testing.assert_array_equal(x, before)


def test_transform_round_trip_random() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 32, 7, 5)).astype(np.float32)
    blocked = transform(x, "NCHW", "NCHW16c")
    assert blocked.shape == (2, 2, 7, 5, 16)
    np.testing.assert_array_equal(blocked[1, 1, 3, 2, 5], x[1, 16 + 5, 3, 2])
    rebl = transform(blocked, "NCHW16c", "NCHW8c")
    np.testing.assert_array_equal(transform(rebl, "NCHW8c", "NCHW"), x)


def test_transform_accepts_non_contiguous_input() -> None:
    x = np.arange(2 * 8 * 3 * 4, dtype=np.int32).reshape(2, 3, 4, 8).transpose(0, 3, 1, 2)
    want = _loop_transform(x, "NCHW", "NCHW4c")
    np.testing.assert_array_equal(transform(x, "NCHW", "NCHW4c"), want)


def test_layout_shape_and_primal_shape() -> None:
    assert layout_shape((1, 64, 56, 56), "NCHW", "NCHW16c") == (1, 4, 56, 56, 16)
    assert layout_shape((64, 32, 3, 3), "OIHW", "OIHW8i16o") == (4, 4, 3, 3, 8, 16)
    assert layout_shape((1, 4, 56, 56, 16), "NCHW16c", "NHWC") == (1, 56, 56, 64)
    assert primal_shape((1, 4, 7, 7, 16), "NCHW16c") == {"N": 1, "C": 64, "H": 7, "W": 7}


def test_block_not_dividing_axis_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"axis 'C' of size 30 is not divisible by block 16"):
        layout_shape((1, 30, 4, 4), "NCHW", "NCHW16c")
    with pytest.raises(ValueError, match="not divisible"):
        transform(np.zeros((1, 30, 4, 4)), "NCHW", "NCHW16c")


def test_mismatched_layouts_and_shapes_are_rejected() -> None:
    with pytest.raises(ValueError, match="same primal axes"):
        transform(np.zeros((1, 2, 3, 4)), "NCHW", "OIHW")
    with pytest.raises(ValueError, match="has 3 dims"):
        transform(np.zeros((1, 2, 3)), "NCHW", "NHWC")
    with pytest.raises(ValueError, match="sub-axis 'c' .* must have size 16, got 8"):
        transform(np.zeros((1, 2, 3, 4, 8)), "NCHW16c", "NCHW")
