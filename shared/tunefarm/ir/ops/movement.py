"""Data-movement ops a network compiler needs between the anchor ops: concat, slice,
transpose and copy (constant padding is `tunefarm.ir.ops.conv.pad`).

Each op is one stage named `name` with axes i0, i1, ... . Nothing here computes; what
matters is that every load stays in bounds in the generated C: concat picks its source with
a select chain, so each input is only read in the branch that covers its range, and the
emitter turns a select into a C conditional (or a scalar loop when the condition depends on
the vector lane), never into an unconditional load.

Argument names match the graph op's params (axis, shapes, begin, end, perm), so a
ValueError raised here already names the param a task got wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import INT_DTYPES, Expr, cast, max_, min_, select
from tunefarm.ir.ops.conv import _check_name, _check_tensor, _is_int
from tunefarm.ir.tensor import Tensor

__all__ = [
    "broadcast_to",
    "check_perm",
    "concat",
    "copy",
    "gather",
    "normalize_axis",
    "slice_axis",
    "slice_range",
    "transpose",
]


def normalize_axis(axis: Any, ndim: int, what: str = "axis") -> int:
    """`axis` in [-ndim, ndim) as a non-negative int; ValueError naming `what` otherwise."""
    if not _is_int(axis) or not -ndim <= axis < ndim:
        raise ValueError(f"{what} must be an int in [{-ndim}, {ndim}), got {axis!r}")
    return int(axis) % ndim


def _names(ndim: int) -> list[str]:
    return [f"i{k}" for k in range(ndim)]


def _shifted(idx: Sequence[Expr], ax: int, offset: int) -> tuple[Expr, ...]:
    """`idx` with `offset` subtracted on axis `ax` (no `- 0` left in the generated code)."""
    out = list(idx)
    if offset:
        out[ax] = out[ax] - offset
    return tuple(out)


def _check_concat(xs: Sequence[Tensor], ax: int) -> None:
    """Same rank everywhere, same extents off the axis; the message names `shapes`."""

    def off_axis(t: Tensor) -> list[int]:
        return [s for d, s in enumerate(t.shape) if d != ax]

    for k, t in enumerate(xs[1:], start=1):
        if t.ndim != xs[0].ndim or off_axis(t) != off_axis(xs[0]):
            raise ValueError(
                f"shapes must agree on every dim but axis {ax}: input 0 is {xs[0].shape}, "
                f"input {k} is {t.shape}"
            )


def concat(xs: Sequence[Tensor], axis: int, name: str = "concat") -> Tensor:
    """Join `xs` along `axis` (may be negative).

    out[..., i, ...] = xs[k][..., i - offset_k, ...] for the k whose range holds i, written
    as a select chain so that each input is read only where it is in range.
    """
    if isinstance(xs, Tensor) or not isinstance(xs, Sequence) or not xs:
        raise ValueError(f"xs must be a non-empty sequence of Tensors, got {xs!r}")
    xs = [_check_tensor(t, f"xs[{k}]") for k, t in enumerate(xs)]
    _check_name(name)
    ax = normalize_axis(axis, xs[0].ndim)
    _check_concat(xs, ax)
    offsets = [0]
    for t in xs:
        offsets.append(offsets[-1] + t.shape[ax])
    shape = list(xs[0].shape)
    shape[ax] = offsets[-1]

    def body(*idx: Expr) -> Expr:
        out = xs[-1][_shifted(idx, ax, offsets[-2])]
        for k in range(len(xs) - 2, -1, -1):
            out = select(idx[ax] < offsets[k + 1], xs[k][_shifted(idx, ax, offsets[k])], out)
        return out

    attrs = {"axis": ax, "offsets": tuple(offsets)}
    return te.compute(
        shape, body, name=name, tag="concat", attrs=attrs, axis_names=_names(len(shape))
    )


def slice_range(dim: int, begin: Any, end: Any) -> tuple[int, int]:
    """ONNX Slice bounds for one axis with step 1: negatives count from the end, then both
    are clamped to [0, dim]; an empty result is an error (a kernel needs an output)."""
    for what, v in (("begin", begin), ("end", end)):
        if not _is_int(v):
            raise ValueError(f"{what} must be an int, got {v!r}")
    b, e = (int(v) + dim if v < 0 else int(v) for v in (begin, end))
    b, e = min(max(b, 0), dim), min(max(e, 0), dim)
    if b >= e:
        raise ValueError(
            f"begin must be < end after normalising to the axis of size {dim}, got "
            f"begin={begin!r} ({b}), end={end!r} ({e})"
        )
    return b, e


def slice_axis(x: Tensor, axis: int, begin: int, end: int, name: str = "slice") -> Tensor:
    """x[..., begin:end, ...] on `axis` (step 1; ONNX bounds, see `slice_range`).

    One output of a split is one slice; reads are in bounds by construction.
    """
    x = _check_tensor(x, "x")
    _check_name(name)
    ax = normalize_axis(axis, x.ndim)
    b, e = slice_range(x.shape[ax], begin, end)
    shape = list(x.shape)
    shape[ax] = e - b
    attrs = {"axis": ax, "begin": b, "end": e}
    return te.compute(
        shape,
        lambda *idx: x[_shifted(idx, ax, -b)],
        name=name,
        tag="slice",
        attrs=attrs,
        axis_names=_names(x.ndim),
    )


def check_perm(perm: Any, ndim: int) -> tuple[int, ...]:
    """`perm` as a tuple when it is a permutation of 0..ndim-1 (None: reverse, as ONNX)."""
    if perm is None:
        return tuple(range(ndim - 1, -1, -1))
    ok = isinstance(perm, Sequence) and all(_is_int(p) for p in perm)
    if not ok or sorted(int(p) for p in perm) != list(range(ndim)):
        raise ValueError(f"perm must be a permutation of 0..{ndim - 1}, got {perm!r}")
    return tuple(int(p) for p in perm)


def transpose(x: Tensor, perm: Sequence[int] | None = None, name: str = "transpose") -> Tensor:
    """out[i0, ..., ik] = x[j] with j[perm[d]] = i_d, i.e. out.shape[d] = x.shape[perm[d]]."""
    x = _check_tensor(x, "x")
    _check_name(name)
    p = check_perm(perm, x.ndim)
    shape = tuple(x.shape[d] for d in p)

    def body(*idx: Expr) -> Expr:
        src: list[Expr] = [idx[0]] * x.ndim
        for d, axis in enumerate(p):
            src[axis] = idx[d]
        return x[tuple(src)]

    return te.compute(
        shape, body, name=name, tag="transpose", attrs={"perm": p}, axis_names=_names(x.ndim)
    )


def copy(x: Tensor, name: str = "copy") -> Tensor:
    """Identity: materialises a value (e.g. a graph output that is also an input)."""
    x = _check_tensor(x, "x")
    _check_name(name)
    return te.compute(
        x.shape, lambda *idx: x[idx], name=name, tag="copy", axis_names=_names(x.ndim)
    )


def gather(data: Tensor, indices: Tensor, axis: int = 0, name: str = "gather") -> Tensor:
    """ONNX Gather: out[pre, j, post] = data[pre, indices[j], post] along `axis` (an
    embedding lookup when data is a [vocab, hidden] table and indices are token ids).

    Negative indices count from the end, as ONNX; an index still outside the axis is clamped
    to it (ONNX Runtime refuses such input; a kernel must never read outside `data`).
    """
    data, indices = _check_tensor(data, "data"), _check_tensor(indices, "indices")
    _check_name(name)
    if indices.dtype not in INT_DTYPES:
        raise ValueError(f"indices must have an integer dtype, got {indices.dtype}")
    ax = normalize_axis(axis, data.ndim)
    size, ni = data.shape[ax], indices.ndim
    shape = (*data.shape[:ax], *indices.shape, *data.shape[ax + 1 :])

    def body(*idx: Expr) -> Expr:
        k = cast(indices[tuple(idx[ax : ax + ni])], "int32")
        k = select(k < 0, k + size, k)
        k = max_(min_(k, size - 1), 0)
        return data[(*idx[:ax], k, *idx[ax + ni :])]

    return te.compute(
        shape, body, name=name, tag="gather", attrs={"axis": ax}, axis_names=_names(len(shape))
    )


def broadcast_to(x: Tensor, shape: Sequence[int], name: str = "broadcast_to") -> Tensor:
    """x broadcast numpy-style to `shape` (ONNX Expand once its shape is resolved)."""
    x = _check_tensor(x, "x")
    _check_name(name)
    if not isinstance(shape, Sequence) or not all(_is_int(d) and d >= 1 for d in shape):
        raise ValueError(f"shape must be a list of ints >= 1, got {shape!r}")
    if len(shape) < x.ndim or any(
        s not in (1, d) for s, d in zip(x.shape, shape[len(shape) - x.ndim :], strict=True)
    ):
        raise ValueError(f"x {x.shape} does not broadcast to shape {tuple(shape)}")
    off = len(shape) - x.ndim

    def body(*idx: Expr) -> Expr:
        return x[tuple(0 if s == 1 else idx[off + d] for d, s in enumerate(x.shape))]

    out = tuple(int(d) for d in shape)
    return te.compute(out, body, name=name, tag="broadcast_to", axis_names=_names(len(out)))
