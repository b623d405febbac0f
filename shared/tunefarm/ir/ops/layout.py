"""Layout transforms (NCHW <-> NCHW16c, NCHW8c -> NCHW16c, OIHW -> OIHW8i16o, NCHW <-> NHWC).

A layout string names dimensions in memory order: upper-case letters are primal axes,
`<n><lower>` is an inner block of n elements of the primal axis with that letter (one block
per primal axis). The transform is one stage that only moves values; its index arithmetic
is kept as simple as the two block sizes allow, because it ends up in generated code.
The numpy-side `tunefarm.ir.layouts` does the same on arrays; this module parses layouts on
its own so that the IR does not depend on it.
"""

from __future__ import annotations

import re

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, const, min_, select
from tunefarm.ir.ops.conv import _check_name, _check_tensor
from tunefarm.ir.tensor import Tensor

__all__ = ["layout_transform"]


def _parse_layout(layout: str, what: str = "layout") -> list[tuple[str, int]]:
    """[(letter, block)] in memory order; block is 0 for a primal (upper-case) axis."""
    if not isinstance(layout, str) or not re.fullmatch(r"(?:[A-Z]|[0-9]+[a-z])+", layout):
        raise ValueError(
            f"{what} must be upper-case axes and <number><lower-case> blocks like 'NCHW16c', "
            f"got {layout!r}"
        )
    axes = [(ch, int(num) if num else 0) for num, ch in re.findall(r"([0-9]*)([A-Za-z])", layout)]
    letters = [a for a, _ in axes]
    for a, f in axes:
        if letters.count(a) > 1:
            raise ValueError(f"{what} {layout!r}: axis {a!r} appears more than once")
        if a.islower() and f <= 0:
            raise ValueError(f"{what} {layout!r}: block size of {a!r} must be > 0, got {f}")
        if a.islower() and a.upper() not in letters:
            raise ValueError(f"{what} {layout!r}: block {a!r} has no primal axis {a.upper()!r}")
    return axes


def _src_index(outer: Expr, inner: Expr | None, fs: int, fd: int) -> tuple[Expr, Expr | None]:
    """Source (primal, block) index of one primal axis from the destination's (outer, inner).

    fs / fd are the source / destination block sizes (0 = not blocked).
    """
    if fs == fd:
        return outer, inner
    if fs == 0:
        return outer * fd + inner, None
    if fd == 0:
        return outer // fs, outer % fs
    if fd % fs == 0:  # e.g. 8c -> 16c: a destination block holds fd // fs source blocks
        return outer * (fd // fs) + inner // fs, inner % fs
    if fs % fd == 0:  # e.g. 16c -> 8c
        r = fs // fd
        return outer // r, (outer % r) * fd + inner
    coord = outer * fd + inner
    return coord // fs, coord % fs


def _offset_index(
    outer: Expr, inner: Expr | None, s_block: dict, d_block: dict, offset: int, last: int | None
) -> dict[str, Expr]:
    """Source index of axis C (and its block) for destination channel `outer`[, `inner`]
    shifted by `offset`; with `last`, the channel is clamped to it first, so that a padded
    destination lane, whose value the select replaces by zero, still loads in bounds (a
    vectorised select may load both sides)."""
    fd, fs = d_block.get("C", 0), s_block.get("C", 0)
    coord = outer * fd + inner if fd else outer
    if last is not None:
        coord = min_(coord, last)
    if offset:
        coord = coord + offset
    return {"C": coord // fs, "c": coord % fs} if fs else {"C": coord}


def layout_transform(
    x: Tensor,
    src: str,
    dst: str,
    name: str = "layout_transform",
    channels: int | None = None,
    offset: int = 0,
) -> Tensor:
    """Copy `x`, stored in layout `src`, into layout `dst` (same primal axes).

    Axes of the stage are named after dst: a primal axis by its lower-case letter (n, c, h,
    w), a block by its letter plus "b" (cb). ValueError when x's shape does not fit `src` or a
    dst block does not divide its axis. With `channels` the value has that many channels
    (axis C) and blocked layouts hold them padded to whole blocks: padded source channels
    are not read, padded destination channels are written as zeros (a select, no load).
    With `offset` too, the value is x's channels [offset, offset + channels) (a slice of x
    along C read straight into `dst`).
    """
    x = _check_tensor(x, "x")
    _check_name(name)
    s_axes, d_axes = _parse_layout(src, "src"), _parse_layout(dst, "dst")
    s_primal = sorted(a for a, _ in s_axes if a.isupper())
    if s_primal != sorted(a for a, _ in d_axes if a.isupper()):
        raise ValueError(f"src {src!r} and dst {dst!r} must have the same primal axes")
    if x.ndim != len(s_axes):
        raise ValueError(f"x shape {x.shape} has {x.ndim} dims but src {src!r} has {len(s_axes)}")
    s_block = {a.upper(): f for a, f in s_axes if a.islower()}
    d_block = {a.upper(): f for a, f in d_axes if a.islower()}
    size: dict[str, int] = {}
    for (a, f), n in zip(s_axes, x.shape, strict=True):
        if f and n != f:
            raise ValueError(f"x shape {x.shape}: block {a!r} of src {src!r} must be {f}, got {n}")
        if a.isupper():
            size[a] = n * s_block.get(a, 1)
    padded = channels is not None and "C" in size
    if offset and not padded:
        raise ValueError("offset needs channels (the slice's channel count) and an axis C")
    if padded:
        if not 0 < channels <= size["C"] - offset or offset < 0:
            raise ValueError(
                f"channels [{offset}, {offset + channels}) must lie in x's {size['C']}"
            )
        size["C"] = channels
    for a, f in d_block.items():
        if padded and a == "C":
            continue
        if size[a] % f:
            raise ValueError(
                f"axis {a!r} of size {size[a]} is not divisible by block {f} of dst {dst!r}"
            )
    shape = tuple(f if f else -(-size[a] // d_block.get(a, 1)) for a, f in d_axes)
    guard = padded and size["C"] % d_block.get("C", size["C"]) != 0
    names = [a.lower() if a.isupper() else f"{a}b" for a, _ in d_axes]
    pos = {a: k for k, (a, _) in enumerate(d_axes)}

    def body(*idx: Expr) -> Expr:
        src_idx: dict[str, Expr] = {}
        for a in s_primal:
            inner = idx[pos[a.lower()]] if a in d_block else None
            if a == "C" and (offset or guard):
                last = channels - 1 if guard else None
                src_idx.update(_offset_index(idx[pos[a]], inner, s_block, d_block, offset, last))
                continue
            outer_i, inner_i = _src_index(idx[pos[a]], inner, s_block.get(a, 0), d_block.get(a, 0))
            src_idx[a] = outer_i
            if inner_i is not None:
                src_idx[a.lower()] = inner_i
        value = x[tuple(src_idx[a] for a, _ in s_axes)]
        if not guard:
            return value
        coord = idx[pos["C"]] * d_block["C"] + idx[pos["c"]]
        return select(coord < channels, value, const(0.0, x.dtype))

    attrs = {"src_layout": src, "dst_layout": dst}
    if padded:
        attrs["channels"] = channels
    if offset:
        attrs["offset"] = offset
    return te.compute(shape, body, name=name, tag="layout_transform", attrs=attrs, axis_names=names)
