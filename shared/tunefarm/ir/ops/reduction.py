"""Reductions of graph ops: reduce_mean over a set of axes, and ONNX local response
normalisation (a windowed sum of squares across channels).

reduce_mean is one stage (the 1/count scale is applied to each term inside the sum, so no
second pass over the output is needed). lrn is two: `{name}_sqsum`, a reduction over the
channel window whose out-of-range taps are a select (never a load), and `{name}`, the
elementwise normalisation. Reduce axes are named r0, r1, ...; spatial axes i0, i1, ...
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, const, logical_and, select
from tunefarm.ir.ops.conv import _check_name, _check_tensor, _is_int
from tunefarm.ir.ops.movement import normalize_axis
from tunefarm.ir.tensor import Tensor

__all__ = ["lrn", "reduce_mean", "reduced_axes"]


def reduced_axes(axes: Any, ndim: int) -> tuple[int, ...]:
    """Sorted non-negative axes; None or empty means all (ONNX ReduceMean's default)."""
    if axes is None or (isinstance(axes, Sequence) and len(axes) == 0):
        return tuple(range(ndim))
    if not isinstance(axes, Sequence) or isinstance(axes, str):
        raise ValueError(f"axes must be a list of ints, got {axes!r}")
    norm = [normalize_axis(a, ndim, "axes") for a in axes]
    if len(set(norm)) != len(norm):
        raise ValueError(f"axes must not repeat an axis, got {list(axes)!r}")
    return tuple(sorted(norm))


def reduce_mean(
    x: Tensor, axes: Sequence[int] | None = None, keepdims: bool = True, name: str = "reduce_mean"
) -> Tensor:
    """Mean over `axes` (may be negative; None = all), keeping them as size 1 if `keepdims`.

    Reducing every axis without keepdims gives shape (1,), not a 0-d tensor: a kernel
    argument always has at least one dimension, and the flat data is the same.
    """
    x = _check_tensor(x, "x")
    _check_name(name)
    if not isinstance(keepdims, bool | int):
        raise ValueError(f"keepdims must be a bool, got {keepdims!r}")
    red = reduced_axes(axes, x.ndim)
    rvars = {d: te.reduce_axis(x.shape[d], f"r{d}") for d in red}
    kept = [d for d in range(x.ndim) if d not in red]
    if keepdims:
        shape = [1 if d in red else x.shape[d] for d in range(x.ndim)]
    else:
        shape = [x.shape[d] for d in kept] or [1]
    scale = const(1.0 / math.prod(x.shape[d] for d in red), x.dtype)

    def body(*idx: Expr) -> Expr:
        out_of = dict(zip(range(x.ndim) if keepdims else kept, idx, strict=False))
        src = tuple(rvars[d].var if d in rvars else out_of[d] for d in range(x.ndim))
        return te.sum(x[src] * scale, axis=list(rvars.values()))

    attrs = {"axes": red, "keepdims": bool(keepdims)}
    names = [f"i{k}" for k in range(len(shape))]
    return te.compute(shape, body, name=name, tag="reduce_mean", attrs=attrs, axis_names=names)


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what} must be a number, got {v!r}")
    return float(v)


def _window_sum(x: Tensor, size: int, name: str) -> Tensor:
    """sq[n, c, ...] = sum over c' in [c - floor((size-1)/2), c + ceil((size-1)/2)] ∩ [0, C)
    of x[n, c', ...]^2; taps outside the channels are a select on 0, never a load."""
    channels, pre = x.shape[1], (size - 1) // 2
    k = te.reduce_axis(size, "r1")

    def body(*idx: Expr) -> Expr:
        ch = idx[1] + k.var - pre if pre else idx[1] + k.var
        conds = ([ch >= 0] if pre else []) + ([ch < channels] if size - 1 - pre else [])
        v = x[(idx[0], ch, *idx[2:])]
        sq = v * v
        return te.sum(select(logical_and(*conds), sq, const(0.0, x.dtype)) if conds else sq, k)

    names = [f"i{d}" for d in range(x.ndim)]
    return te.compute(x.shape, body, name=name, tag="lrn_sqsum", axis_names=names)


def lrn(
    x: Tensor,
    size: int,
    alpha: float = 1e-4,
    beta: float = 0.75,
    bias: float = 1.0,
    name: str = "lrn",
) -> Tensor:
    """ONNX LRN across channels (axis 1 of an N, C, D1, ... input):
    y = x / (bias + alpha / size * square_sum) ** beta."""
    x = _check_tensor(x, "x")
    _check_name(name)
    if x.ndim < 3:
        raise ValueError(f"x shape must be (N, C, D1, ...) with at least 3 dims, got {x.shape}")
    if not _is_int(size) or size < 1:
        raise ValueError(f"size must be an int >= 1, got {size!r}")
    a, b, c = _number(alpha, "alpha"), _number(beta, "beta"), _number(bias, "bias")
    sq = _window_sum(x, int(size), f"{name}_sqsum")
    scale, shift, power = const(a / size, x.dtype), const(c, x.dtype), const(b, x.dtype)

    def body(*idx: Expr) -> Expr:
        return x[idx] / call("pow", shift + sq[idx] * scale, power)

    attrs = {"size": int(size), "alpha": a, "beta": b, "bias": c}
    names = [f"i{d}" for d in range(x.ndim)]
    return te.compute(x.shape, body, name=name, tag="lrn", attrs=attrs, axis_names=names)
