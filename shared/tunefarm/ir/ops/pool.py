"""2-D pooling (max / average, windowed and global) in the tensor IR, NCHW or NCHW<k>c.

Stages: `{name}_pad` when the input needs padding (explicit pads, or the ceil-mode overhang
past the bottom/right edge); max pooling is then one reduction `{name}`; average pooling is
a sum `{name}_sum` followed by `{name}`, which divides by the number of elements that count.
Reduce axes are ky, kx; spatial axes n, c, y, x (n, cc, y, x, cb when blocked).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Const, Expr, as_expr, cast, const, max_, min_
from tunefarm.ir.ops.conv import _check_name, _check_tensor, _int_tuple, _padding, _window, pad
from tunefarm.ir.ops.quantize import requant_value
from tunefarm.ir.tensor import Tensor

__all__ = ["global_avg_pool2d_q", "global_pool2d", "pool2d"]

_KINDS = ("max", "avg")


def _layout(data: Tensor, layout: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Validate `layout` against data; returns (output axis names, pad-stage axis names)."""
    m = re.fullmatch(r"NCHW(?:(\d+)c)?", layout) if isinstance(layout, str) else None
    if m is None:
        raise ValueError(f"layout must be 'NCHW' or 'NCHW<k>c' (e.g. 'NCHW8c'), got {layout!r}")
    if m.group(1) is None:
        _check_tensor(data, "data", 4)
        return ("n", "c", "y", "x"), ("n", "c", "h", "w")
    _check_tensor(data, "data", 5)
    if data.shape[4] != int(m.group(1)):
        raise ValueError(
            f"data shape {data.shape}: last dim must be the block {m.group(1)} of layout {layout!r}"
        )
    return ("n", "cc", "y", "x", "cb"), ("n", "cc", "h", "w", "cb")


def _check_kind(kind: str) -> str:
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
    return kind


def _lowest(dtype: str) -> float:
    """The value max pooling pads with: it never wins (float32 lowest, -3.4e38)."""
    dt = np.dtype(dtype)
    return float(np.finfo(dt).min) if dt.kind == "f" else float(np.iinfo(dt).min)


def _out_size(size: int, k: int, s: int, d: int, p0: int, p1: int, ceil_mode: bool) -> int:
    """ONNX output size: with ceil_mode a last window must start inside input or top pad."""
    span = d * (k - 1) + 1
    if max(p0, p1) >= span:
        raise ValueError(f"padding ({p0}, {p1}) must be smaller than the kernel extent {span}")
    num = size + p0 + p1 - span
    if num < 0:
        raise ValueError(
            f"kernel {k} with dilation {d} does not fit input size {size} padded by ({p0}, {p1})"
        )
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p0:
        out -= 1
    return out


def _taps(out: int, k: int, s: int, d: int, lo: int, hi: int) -> list[int]:
    """Per output position, the number of window taps in padded coordinates [lo, hi)."""
    return [sum(1 for t in range(k) if lo <= o * s + t * d < hi) for o in range(out)]


def _count_expr(y: Expr, out: int, k: int, s: int, d: int, lo: int, hi: int) -> Expr:
    """`_taps` as an int expression of output position y; a constant when it does not vary.

    Every operand of // is non-negative: `hi - start` > 0 because each window starts before
    the end of the input (ONNX output size), and the low side is clamped at 0 first.
    """
    counts = _taps(out, k, s, d, lo, hi)
    if len(set(counts)) == 1:
        return as_expr(counts[0])
    start = y if s == 1 else y * s
    full_hi = all(o * s + d * (k - 1) < hi for o in range(out))
    if d == 1:
        upper = start + k if full_hi else min_(start + k, hi)
        return upper - (start if lo == 0 else max_(start, lo))
    t_hi = as_expr(k) if full_hi else min_((hi - start + (d - 1)) // d, k)
    return t_hi if lo == 0 else t_hi - (max_(lo - start, 0) + (d - 1)) // d


def _divisor(count_h: Expr, count_w: Expr, dtype: str) -> Expr:
    if isinstance(count_h, Const) and isinstance(count_w, Const):
        return const(float(count_h.value * count_w.value), dtype)
    return cast(count_h * count_w, dtype)


Pair = tuple[int, ...]


def _out_hw(hw: Pair, k: Pair, s: Pair, d: Pair, p: Pair, ceil_mode: bool) -> tuple[int, int]:
    """Output (OH, OW); every window must cover at least one input element."""
    out = []
    for axis in (0, 1):
        size, p0 = hw[axis], p[axis]
        o = _out_size(size, k[axis], s[axis], d[axis], p0, p[axis + 2], ceil_mode)
        if 0 in _taps(o, k[axis], s[axis], d[axis], p0, p0 + size):
            raise ValueError(
                f"with padding {p} and dilation {d} some {('height', 'width')[axis]} window "
                "covers no input element"
            )
        out.append(o)
    return out[0], out[1]


def _pool_pad(
    data: Tensor,
    fill: float,
    k: Pair,
    s: Pair,
    d: Pair,
    p: Pair,
    ohw: Pair,
    name: str,
    names: Sequence[str],
) -> Tensor:
    """Pad stage `name` filled with `fill`, or `data` itself when no window leaves the input.

    Ceil-mode windows may reach past the bottom/right padding (the overhang): that is padded
    too, so every window load is in bounds.
    """
    hw = data.shape[2:4]
    extra = [
        max(0, (ohw[a] - 1) * s[a] + d[a] * (k[a] - 1) + 1 - (hw[a] + p[a] + p[a + 2]))
        for a in (0, 1)
    ]
    if not any(p) and not any(extra):
        return data
    before, after = [0] * data.ndim, [0] * data.ndim
    before[2], before[3] = p[0], p[1]
    after[2], after[3] = p[2] + extra[0], p[3] + extra[1]
    return pad(data, before, after, fill, name=name, axis_names=names)


def pool2d(
    data: Tensor,
    kind: str,
    kernel: Sequence[int],
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    ceil_mode: bool = False,
    count_include_pad: bool = False,
    layout: str = "NCHW",
    name: str = "pool",
) -> Tensor:
    """Max or average pooling over H, W with ONNX semantics (output size, ceil_mode, padding).

    Max pads with the dtype's lowest value; avg divides by the window's elements inside the
    input, or inside the explicitly padded input with count_include_pad (never counting the
    ceil-mode overhang).
    """
    _check_kind(kind)
    _check_name(name)
    out_names, pad_names = _layout(data, layout)
    k = _int_tuple(kernel, 2, "kernel", 1)
    s = _int_tuple(strides, 2, "strides", 1)
    d = _int_tuple(dilation, 2, "dilation", 1)
    p = _padding(padding)
    for what, flag in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
        if not isinstance(flag, bool):
            raise ValueError(f"{what} must be a bool, got {flag!r}")
    hw = data.shape[2:4]
    oh, ow = _out_hw(hw, k, s, d, p, ceil_mode)
    fill = _lowest(data.dtype) if kind == "max" else 0.0
    padded = _pool_pad(data, fill, k, s, d, p, (oh, ow), f"{name}_pad", pad_names)
    ky, kx = te.reduce_axis(k[0], "ky"), te.reduce_axis(k[1], "kx")

    def window(*idx: Expr) -> Expr:
        ix = list(idx)
        ix[2], ix[3] = _window(idx[2], s[0], ky, d[0]), _window(idx[3], s[1], kx, d[1])
        return padded[tuple(ix)]

    shape = (*data.shape[:2], oh, ow, *data.shape[4:])
    attrs = {"kernel": k, "strides": s, "padding": p, "dilation": d, "ceil_mode": ceil_mode}
    attrs.update(count_include_pad=count_include_pad, layout=layout)
    if kind == "max":
        body = lambda *idx: te.max(window(*idx), axis=[ky, kx])
        return te.compute(shape, body, name, tag="max_pool2d", attrs=attrs, axis_names=out_names)
    total = te.compute(
        shape,
        lambda *idx: te.sum(window(*idx), axis=[ky, kx]),
        f"{name}_sum",
        tag="avg_pool2d_sum",
        attrs=attrs,
        axis_names=out_names,
    )
    return _avg_divide(total, hw, k, s, d, p, count_include_pad, name)


def _avg_divide(
    total: Tensor, hw: Pair, k: Pair, s: Pair, d: Pair, p: Pair, cip: bool, name: str
) -> Tensor:
    """Stage `name` = window sums / the number of window elements that count."""
    _, _, oh, ow = total.shape[:4]
    # Counted range in padded coordinates: the input, or the input plus explicit padding.
    lo_h, lo_w = (0, 0) if cip else (p[0], p[1])
    hi_h = hw[0] + p[0] + (p[2] if cip else 0)
    hi_w = hw[1] + p[1] + (p[3] if cip else 0)

    def divide(*idx: Expr) -> Expr:
        ch = _count_expr(idx[2], oh, k[0], s[0], d[0], lo_h, hi_h)
        cw = _count_expr(idx[3], ow, k[1], s[1], d[1], lo_w, hi_w)
        return total[idx] / _divisor(ch, cw, total.dtype)

    return te.compute(
        total.shape,
        divide,
        name,
        tag="avg_pool2d",
        attrs=total.op.attrs,
        axis_names=[a.name for a in total.op.axes],
    )


def global_pool2d(
    data: Tensor, kind: str, layout: str = "NCHW", name: str = "global_pool"
) -> Tensor:
    """Max or mean over all of H and W, keeping them as size-1 dims.

    Avg is `{name}_sum` then `{name}` (division by H*W); max is the single stage `{name}`.
    """
    _check_kind(kind)
    _check_name(name)
    out_names, _ = _layout(data, layout)
    h, w = data.shape[2], data.shape[3]
    ky, kx = te.reduce_axis(h, "ky"), te.reduce_axis(w, "kx")
    shape = (*data.shape[:2], 1, 1, *data.shape[4:])

    def window(*idx: Expr) -> Expr:
        return data[(idx[0], idx[1], ky.var, kx.var, *idx[4:])]

    attrs = {"layout": layout}
    if kind == "max":
        body = lambda *idx: te.max(window(*idx), axis=[ky, kx])
        return te.compute(
            shape, body, name, tag="global_max_pool2d", attrs=attrs, axis_names=out_names
        )
    total = te.compute(
        shape,
        lambda *idx: te.sum(window(*idx), axis=[ky, kx]),
        f"{name}_sum",
        tag="global_avg_pool2d_sum",
        attrs=attrs,
        axis_names=out_names,
    )
    area = const(float(h * w), total.dtype)
    return te.compute(
        shape,
        lambda *idx: total[idx] / area,
        name,
        tag="global_avg_pool2d",
        attrs=attrs,
        axis_names=out_names,
    )


def global_avg_pool_scale(s_in: float, s_out: float, area: int) -> float:
    """s_in / (s_out * float32(area)) in float32: the requantize scale of a quantized mean,
    as ONNX Runtime's QLinearGlobalAveragePool computes it."""
    f = np.float32
    return float(f(s_in) / (f(s_out) * f(area)))


def global_avg_pool2d_q(
    data: Tensor,
    qparams: Sequence[float],
    dtype: str,
    layout: str = "NCHW",
    name: str = "global_pool",
) -> Tensor:
    """Quantized mean over H and W: the int32 sum `{name}_sum` minus z_in * H*W, requantized
    with `global_avg_pool_scale` (rint, + z_out, saturate). qparams: (s_in, z_in, s_out,
    z_out)."""
    _check_name(name)
    out_names, _ = _layout(data, layout)
    h, w = data.shape[2], data.shape[3]
    ky, kx = te.reduce_axis(h, "ky"), te.reduce_axis(w, "kx")
    shape = (*data.shape[:2], 1, 1, *data.shape[4:])
    s_in, z_in, s_out, z_out = qparams
    scale = global_avg_pool_scale(s_in, s_out, h * w)
    attrs = {"layout": layout}
    total = te.compute(
        shape,
        lambda *idx: te.sum(
            cast(data[(idx[0], idx[1], ky.var, kx.var, *idx[4:])], "int32"), axis=[ky, kx]
        ),
        f"{name}_sum",
        tag="global_avg_pool2d_sum",
        attrs=attrs,
        axis_names=out_names,
    )
    bias = const(-int(z_in) * h * w, "int32")
    return te.compute(
        shape,
        lambda *idx: requant_value(
            total[idx] + bias, const(scale), const(int(z_out), "int32"), dtype
        ),  # fmt: skip
        name,
        tag="global_avg_pool2d_q",
        attrs=attrs,
        axis_names=out_names,
    )
