"""Convolutions (and the constant padding they need) in the tensor IR.

Every convolution is one reduction stage named `name`; when any padding is non-zero the input
is first padded by a separate stage `{name}_pad`, so that a schedule can inline it or compute
it at a tile of the convolution. Axis names are fixed per op (`n, f, y, x` and `rc, ry, rx`
for NCHW) because schedule templates refer to axes by name.

The small argument checkers at the top are shared by the other op modules of this package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, as_expr, const, logical_and, select
from tunefarm.ir.tensor import Tensor

__all__ = [
    "conv2d_nchw",
    "conv2d_nchwc",
    "conv2d_nhwc",
    "conv_output_size",
    "depthwise_conv2d_nchw",
    "depthwise_conv2d_nchwc",
    "group_conv2d_nchwc",
    "group_span",
    "pad",
]

# ---------------------------------------------------------------- argument checking


def _is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def _check_tensor(t: Any, what: str, ndim: int | None = None) -> Tensor:
    """`t` itself if it is a Tensor with `ndim` dimensions, else ValueError naming `what`."""
    if not isinstance(t, Tensor):
        raise ValueError(f"{what} must be a Tensor, got {type(t).__name__} {t!r}")
    if ndim is not None and t.ndim != ndim:
        raise ValueError(f"{what} must have {ndim} dimensions, got shape {t.shape}")
    return t


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    return name


def _int_tuple(value: Any, n: int, what: str, minimum: int) -> tuple[int, ...]:
    """`value` (an int, or a sequence of n ints) as an n-tuple of ints >= minimum."""
    seq = (value,) * n if _is_int(value) else value
    if not isinstance(seq, Sequence) or len(seq) != n or not all(_is_int(v) for v in seq):
        raise ValueError(f"{what} must be an int or a sequence of {n} ints, got {value!r}")
    if any(v < minimum for v in seq):
        raise ValueError(f"{what} values must be >= {minimum}, got {value!r}")
    return tuple(int(v) for v in seq)


def _padding(value: Any, what: str = "padding") -> tuple[int, int, int, int]:
    """Padding must be exactly (top, left, bottom, right), non-negative ints."""
    if not isinstance(value, Sequence) or len(value) != 4 or not all(_is_int(v) for v in value):
        raise ValueError(f"{what} must be 4 ints (top, left, bottom, right), got {value!r}")
    if any(v < 0 for v in value):
        raise ValueError(f"{what} values must be >= 0, got {value!r}")
    pt, pl, pb, pr = (int(v) for v in value)
    return pt, pl, pb, pr


def conv_output_size(size: int, k: int, stride: int, pad_total: int, dilation: int) -> int:
    """Output extent of a convolution window sliding over `size` (+ `pad_total` padding)."""
    for what, v, lo in (("size", size, 1), ("k", k, 1), ("stride", stride, 1)):
        if not _is_int(v) or v < lo:
            raise ValueError(f"{what} must be an int >= {lo}, got {v!r}")
    if not _is_int(pad_total) or pad_total < 0:
        raise ValueError(f"pad_total must be an int >= 0, got {pad_total!r}")
    if not _is_int(dilation) or dilation < 1:
        raise ValueError(f"dilation must be an int >= 1, got {dilation!r}")
    span = dilation * (k - 1) + 1
    if size + pad_total < span:
        raise ValueError(
            f"kernel {k} with dilation {dilation} (extent {span}) does not fit input size {size} "
            f"padded by {pad_total}"
        )
    return (size + pad_total - span) // stride + 1


def _window(out_axis: Expr, stride: int, red: Any, dilation: int) -> Expr:
    """`out_axis * stride + red * dilation` without the trivial multiplications by one."""
    red = as_expr(red)
    a = out_axis if stride == 1 else out_axis * stride
    return a + (red if dilation == 1 else red * dilation)


# ---------------------------------------------------------------- padding


def pad(
    data: Tensor,
    pad_before: Sequence[int],
    pad_after: Sequence[int],
    value: float = 0.0,
    name: str = "pad",
    axis_names: Sequence[str] | None = None,
) -> Tensor:
    """Constant-pad every dimension of `data`: out = data inside, `value` in the border.

    The border is a select, never a load, so the stage reads `data` only in bounds.
    `axis_names` defaults to i0, i1, ...
    """
    data = _check_tensor(data, "data")
    _check_name(name)
    nd = data.ndim
    before = _int_tuple(pad_before, nd, "pad_before", 0)
    after = _int_tuple(pad_after, nd, "pad_after", 0)
    if not isinstance(value, int | float | np.number) or isinstance(value, bool):
        raise ValueError(f"value must be a number, got {value!r}")
    shape = tuple(s + b + a for s, b, a in zip(data.shape, before, after, strict=True))
    names = list(axis_names) if axis_names is not None else [f"i{k}" for k in range(nd)]
    fill = const(float(value), data.dtype)

    def body(*idx: Expr) -> Expr:
        conds, src = [], []
        for i, b, a, s in zip(idx, before, after, data.shape, strict=True):
            src.append(i - b if b else i)
            if b:
                conds.append(i >= b)
            if a:
                conds.append(i < b + s)
        load = data[tuple(src)]
        return select(logical_and(*conds), load, fill) if conds else load

    attrs = {"pad_before": before, "pad_after": after, "value": float(value)}
    return te.compute(shape, body, name=name, tag="pad", attrs=attrs, axis_names=names)


def _pad_hw(
    data: Tensor, h_dim: int, pads: tuple[int, int, int, int], name: str, names: Sequence[str]
) -> Tensor:
    """Zero-pad dims h_dim and h_dim + 1 as stage `{name}_pad`; `data` itself when no pad."""
    if not any(pads):
        return data
    before, after = [0] * data.ndim, [0] * data.ndim
    before[h_dim], before[h_dim + 1] = pads[0], pads[1]
    after[h_dim], after[h_dim + 1] = pads[2], pads[3]
    return pad(data, before, after, 0.0, name=f"{name}_pad", axis_names=names)


def _conv_attrs(
    strides: Any, padding: Any, dilation: Any
) -> tuple[tuple[int, ...], tuple[int, int, int, int], tuple[int, ...]]:
    return (
        _int_tuple(strides, 2, "strides", 1),
        _padding(padding),
        _int_tuple(dilation, 2, "dilation", 1),
    )


def _out_hw(
    h: int, w: int, kh: int, kw: int, s: tuple[int, ...], p: tuple[int, ...], d: tuple[int, ...]
) -> tuple[int, int]:
    oh = conv_output_size(h, kh, s[0], p[0] + p[2], d[0])
    ow = conv_output_size(w, kw, s[1], p[1] + p[3], d[1])
    return oh, ow


def _groups(groups: Any, c: int, o: int) -> int:
    if not _is_int(groups) or groups < 1:
        raise ValueError(f"groups must be an int >= 1, got {groups!r}")
    if c % groups or o % groups:
        raise ValueError(f"groups={groups} must divide input channels {c} and output channels {o}")
    return int(groups)


# ---------------------------------------------------------------- convolutions


def conv2d_nchw(
    data: Tensor,
    kernel: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    name: str = "conv",
) -> Tensor:
    """2-D convolution, data NCHW, kernel OIHW with I = C // groups; output N,O,OH,OW.

    Spatial axes n, f, y, x; reduce axes rc (input channel within the group), ry, rx.
    """
    data, kernel = _check_tensor(data, "data", 4), _check_tensor(kernel, "kernel", 4)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, c, h, w = data.shape
    o, ic, kh, kw = kernel.shape
    g = _groups(groups, c, o)
    if ic != c // g:
        raise ValueError(
            f"kernel shape {kernel.shape}: dim 1 must be C // groups = {c // g} "
            f"(data {data.shape}, groups={g}), got {ic}"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 2, p, name, ("n", "c", "h", "w"))
    rc, ry, rx = te.reduce_axis(ic, "rc"), te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")
    o_per_group = o // g

    def body(n: Expr, f: Expr, y: Expr, x: Expr) -> Expr:
        chan = rc.var if g == 1 else (f // o_per_group) * ic + rc.var
        src = padded[n, chan, _window(y, s[0], ry, d[0]), _window(x, s[1], rx, d[1])]
        return te.sum(src * kernel[f, rc, ry, rx], axis=[rc, ry, rx])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": g, "layout": "NCHW"}
    return te.compute((n, o, oh, ow), body, name=name, tag="conv2d_nchw", attrs=attrs)


def conv2d_nhwc(
    data: Tensor,
    kernel: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    groups: int = 1,
    name: str = "conv",
) -> Tensor:
    """2-D convolution, data NHWC, kernel HWIO with I = C // groups; output N,OH,OW,O.

    Spatial axes n, y, x, f; reduce axes ry, rx, rc.
    """
    data, kernel = _check_tensor(data, "data", 4), _check_tensor(kernel, "kernel", 4)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, h, w, c = data.shape
    kh, kw, ic, o = kernel.shape
    g = _groups(groups, c, o)
    if ic != c // g:
        raise ValueError(
            f"kernel shape {kernel.shape}: dim 2 must be C // groups = {c // g} "
            f"(data {data.shape}, groups={g}), got {ic}"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 1, p, name, ("n", "h", "w", "c"))
    ry, rx, rc = te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx"), te.reduce_axis(ic, "rc")
    o_per_group = o // g

    def body(n: Expr, y: Expr, x: Expr, f: Expr) -> Expr:
        chan = rc.var if g == 1 else (f // o_per_group) * ic + rc.var
        src = padded[n, _window(y, s[0], ry, d[0]), _window(x, s[1], rx, d[1]), chan]
        return te.sum(src * kernel[ry, rx, rc, f], axis=[ry, rx, rc])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": g, "layout": "NHWC"}
    return te.compute((n, oh, ow, o), body, name=name, tag="conv2d_nhwc", attrs=attrs)


def conv2d_nchwc(
    data: Tensor,
    kernel: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    name: str = "conv",
) -> Tensor:
    """Blocked convolution: data [N, IC//ib, H, W, ib], kernel [OC//ob, IC//ib, KH, KW, ib, ob].

    Output [N, OC//ob, OH, OW, ob] with spatial axes n, occ, oh, ow, ocb and reduce axes
    icc, kh, kw, icb; the pad stage keeps the blocked layout.
    """
    data, kernel = _check_tensor(data, "data", 5), _check_tensor(kernel, "kernel", 6)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, icc_n, h, w, ib = data.shape
    occ_n, k_icc, kh, kw, k_ib, ob = kernel.shape
    if (k_icc, k_ib) != (icc_n, ib):
        raise ValueError(
            f"kernel shape {kernel.shape}: dims 1 and 4 must be the data's channel blocks "
            f"({icc_n}, {ib}) of data {data.shape}, got ({k_icc}, {k_ib})"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 2, p, name, ("n", "icc", "h", "w", "icb"))
    icc, rkh = te.reduce_axis(icc_n, "icc"), te.reduce_axis(kh, "kh")
    rkw, icb = te.reduce_axis(kw, "kw"), te.reduce_axis(ib, "icb")

    def body(n: Expr, occ: Expr, oh: Expr, ow: Expr, ocb: Expr) -> Expr:
        src = padded[n, icc, _window(oh, s[0], rkh, d[0]), _window(ow, s[1], rkw, d[1]), icb]
        return te.sum(src * kernel[occ, icc, rkh, rkw, icb, ocb], axis=[icc, rkh, rkw, icb])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": 1, "layout": f"NCHW{ib}c"}
    shape = (n, occ_n, oh, ow, ob)
    return te.compute(shape, body, name=name, tag="conv2d_nchwc", attrs=attrs)


def group_span(c: int, o: int, groups: int, ob: int) -> tuple[int, int]:
    """(input channels one output block of `ob` channels reads, the period of its start).

    Groups stay packed in the blocked layout: an output block holding whole groups (Og
    divides ob) reads the `ob // Og` groups' inputs, consecutive blocks consecutive spans;
    a block inside one group (ob divides Og) reads that group's Cg inputs, the span moving
    on every `Og // ob` blocks. Any other block size mixes part-groups: ValueError."""
    cg, og = c // groups, o // groups
    if ob % og == 0:
        return cg * (ob // og), 1
    if og % ob == 0:
        return cg, og // ob
    raise ValueError(
        f"output block {ob} must hold whole groups or divide one ({og} outputs per group)"
    )


def group_conv2d_nchwc(
    data: Tensor,
    kernel: Tensor,
    groups: int,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    name: str = "conv",
) -> Tensor:
    """Grouped convolution in the blocked layout, groups kept packed: data [N, C//ib, H, W,
    ib], kernel [O//ob, span//ib, KH, KW, ib, ob] where `span` input channels feed one output
    block (`group_span`); the kernel holds zeros where an input channel is outside an output
    channel's group. Output [N, O//ob, OH, OW, ob].

    It is conv2d_nchwc with each output block reading its own span of input blocks, so the
    dense conv's register-tiled schedule applies; when several groups share a block the
    zeros cost FMAs (ob // Og times the useful ones) but no layout change or gather.
    Spatial axes n, occ, oh, ow, ocb; reduce axes icc, kh, kw, icb.
    """
    data, kernel = _check_tensor(data, "data", 5), _check_tensor(kernel, "kernel", 6)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, icc_n, h, w, ib = data.shape
    occ_n, k_icc, kh, kw, k_ib, ob = kernel.shape
    c, o = icc_n * ib, occ_n * ob
    g = _groups(groups, c, o)
    span, period = group_span(c, o, g, ob)
    if k_ib != ib or span % ib or span != k_icc * ib:
        raise ValueError(
            f"kernel shape {kernel.shape}: dim 1 x dim 4 must be the {span} input channels "
            f"an output block reads, in blocks of the data's {ib} (data {data.shape})"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 2, p, name, ("n", "icc", "h", "w", "icb"))
    icc, rkh = te.reduce_axis(k_icc, "icc"), te.reduce_axis(kh, "kh")
    rkw, icb = te.reduce_axis(kw, "kw"), te.reduce_axis(ib, "icb")

    def body(n: Expr, occ: Expr, oh: Expr, ow: Expr, ocb: Expr) -> Expr:
        base = (occ if period == 1 else occ // period) * k_icc
        src = padded[n, base + icc, _window(oh, s[0], rkh, d[0]), _window(ow, s[1], rkw, d[1]), icb]
        return te.sum(src * kernel[occ, icc, rkh, rkw, icb, ocb], axis=[icc, rkh, rkw, icb])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": g, "layout": f"NCHW{ib}c"}
    shape = (n, occ_n, oh, ow, ob)
    return te.compute(shape, body, name=name, tag="group_conv2d_nchwc", attrs=attrs)


def depthwise_conv2d_nchw(
    data: Tensor,
    kernel: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    name: str = "depthwise",
) -> Tensor:
    """Depthwise convolution: data NCHW, kernel [C*m, 1, KH, KW]; output N, C*m, OH, OW.

    Output channel c reads input channel c // m (channel multiplier m). Spatial axes
    n, c, y, x; reduce axes ry, rx.
    """
    data, kernel = _check_tensor(data, "data", 4), _check_tensor(kernel, "kernel", 4)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, c, h, w = data.shape
    o, one, kh, kw = kernel.shape
    if one != 1 or o % c:
        raise ValueError(
            f"kernel shape {kernel.shape} must be (C*m, 1, KH, KW) with C = {c} (data {data.shape})"
        )
    mult = o // c
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 2, p, name, ("n", "c", "h", "w"))
    ry, rx = te.reduce_axis(kh, "ry"), te.reduce_axis(kw, "rx")

    def body(n: Expr, c: Expr, y: Expr, x: Expr) -> Expr:
        chan = c if mult == 1 else c // mult
        src = padded[n, chan, _window(y, s[0], ry, d[0]), _window(x, s[1], rx, d[1])]
        return te.sum(src * kernel[c, 0, ry, rx], axis=[ry, rx])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": c, "layout": "NCHW"}
    return te.compute((n, o, oh, ow), body, name=name, tag="depthwise_conv2d_nchw", attrs=attrs)


def depthwise_conv2d_nchwc(
    data: Tensor,
    kernel: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    name: str = "depthwise",
) -> Tensor:
    """Blocked depthwise convolution (multiplier 1): data [N, C//cb, H, W, cb], kernel
    [C//cb, 1, KH, KW, 1, cb]; output [N, C//cb, OH, OW, cb].

    Spatial axes n, cc, oh, ow, cb; reduce axes kh, kw.
    """
    data, kernel = _check_tensor(data, "data", 5), _check_tensor(kernel, "kernel", 6)
    _check_name(name)
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, cc_n, h, w, cb_n = data.shape
    k_cc, one, kh, kw, one_b, k_cb = kernel.shape
    if (k_cc, one, one_b, k_cb) != (cc_n, 1, 1, cb_n):
        raise ValueError(
            f"kernel shape {kernel.shape} must be ({cc_n}, 1, KH, KW, 1, {cb_n}) to match data "
            f"{data.shape}"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = _pad_hw(data, 2, p, name, ("n", "cc", "h", "w", "cb"))
    rkh, rkw = te.reduce_axis(kh, "kh"), te.reduce_axis(kw, "kw")

    def body(n: Expr, cc: Expr, oh: Expr, ow: Expr, cb: Expr) -> Expr:
        src = padded[n, cc, _window(oh, s[0], rkh, d[0]), _window(ow, s[1], rkw, d[1]), cb]
        return te.sum(src * kernel[cc, 0, rkh, rkw, 0, cb], axis=[rkh, rkw])

    attrs = {"strides": s, "padding": p, "dilation": d, "groups": cc_n * cb_n}
    attrs["layout"] = f"NCHW{cb_n}c"
    shape = (n, cc_n, oh, ow, cb_n)
    return te.compute(shape, body, name=name, tag="depthwise_conv2d_nchwc", attrs=attrs)
