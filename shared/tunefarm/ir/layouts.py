"""Data layout strings (TVM style) and numpy transforms between them.

A layout names the axes of an array in memory order. Upper-case letters are *primal* axes
(`N`, `C`, `H`, `W`, `O`, `I`, ...); `<number><lower-case>` is a block (sub-axis) of the
primal axis with the same letter: `NCHW16c` splits `C` into `C // 16` outer and `16` inner
elements, the inner block stored innermost. Templates pick blocked layouts so that the
innermost loop runs over a vector-width block; the oracle and the runtime need the same
transforms to feed and read back such arrays, so they live here once.

Only one block per primal axis is supported (`NCHW4c16c` is rejected): that covers every
layout the x86 templates use and keeps a layout a plain (axis, factor) list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Layout",
    "layout_shape",
    "parse_layout",
    "primal_shape",
    "transform",
    "transform_padded",
]


@dataclass(frozen=True)
class Layout:
    """A parsed layout string.

    axes: one letter per array dimension in memory order; upper-case = primal axis,
        lower-case = block of the primal axis with that letter.
    factors: same length as `axes`; 0 for a primal axis, the block size for a sub-axis.
    """

    axes: tuple[str, ...]
    factors: tuple[int, ...]

    @property
    def name(self) -> str:
        """The canonical layout string, e.g. "NCHW16c"."""
        return "".join(f"{f}{a}" if f else a for a, f in zip(self.axes, self.factors, strict=True))

    @property
    def primal_axes(self) -> tuple[str, ...]:
        """Upper-case axes in the order they appear."""
        return tuple(a for a in self.axes if a.isupper())

    @property
    def ndim(self) -> int:
        return len(self.axes)

    def block(self, axis: str) -> int:
        """Block size of primal `axis` (upper or lower case letter), 1 when not blocked."""
        sub = axis.lower()
        for a, f in zip(self.axes, self.factors, strict=True):
            if a == sub:
                return f
        return 1

    def index(self, axis: str) -> int:
        """Position of `axis` (exact letter) in the layout; ValueError if absent."""
        try:
            return self.axes.index(axis)
        except ValueError:
            raise ValueError(f"axis {axis!r} is not in layout {self.name!r}") from None

    def to_json(self) -> str:
        return self.name

    @classmethod
    def from_json(cls, value: str) -> Layout:
        return parse_layout(value)

    def __str__(self) -> str:
        return self.name


def parse_layout(s: str | Layout) -> Layout:
    """Parse a layout string such as "NCHW", "NCHW16c" or "OIHW8i16o".

    Raises ValueError for an empty string, characters other than letters and digits, a number
    not followed by a lower-case letter, a lower-case letter without a number, a block of size
    zero, a block whose primal axis is missing, or any axis given twice.
    """
    if isinstance(s, Layout):
        return s
    if not isinstance(s, str) or not s:
        raise ValueError(f"layout must be a non-empty string like 'NCHW16c', got {s!r}")
    axes: list[str] = []
    factors: list[int] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isascii() and ch.isdigit():
            j = i
            while j < len(s) and s[j].isascii() and s[j].isdigit():
                j += 1
            if j == len(s) or not (s[j].isascii() and s[j].islower()):
                raise ValueError(
                    f"layout {s!r}: block size {s[i:j]} at position {i} must be followed by a "
                    "lower-case sub-axis letter"
                )
            factor = int(s[i:j])
            if factor <= 0:
                raise ValueError(f"layout {s!r}: block size of sub-axis {s[j]!r} must be > 0")
            axes.append(s[j])
            factors.append(factor)
            i = j + 1
        elif ch.isascii() and ch.isupper():
            axes.append(ch)
            factors.append(0)
            i += 1
        elif ch.isascii() and ch.islower():
            raise ValueError(
                f"layout {s!r}: sub-axis {ch!r} at position {i} needs a block size before it, "
                f"e.g. '16{ch}'"
            )
        else:
            raise ValueError(f"layout {s!r}: unexpected character {ch!r} at position {i}")
    for a in axes:
        if axes.count(a) > 1:
            kind = "primal axis" if a.isupper() else "sub-axis"
            raise ValueError(f"layout {s!r}: {kind} {a!r} appears more than once")
        if a.islower() and a.upper() not in axes:
            raise ValueError(f"layout {s!r}: sub-axis {a!r} has no primal axis {a.upper()!r}")
    return Layout(axes=tuple(axes), factors=tuple(factors))


def _check_shape(shape: tuple[int, ...], layout: Layout, what: str) -> None:
    """Validate that `shape` can be an array stored in `layout`."""
    if len(shape) != layout.ndim:
        raise ValueError(
            f"{what} has {len(shape)} dims {shape} but layout {layout.name!r} has {layout.ndim}"
        )
    for a, f, n in zip(layout.axes, layout.factors, shape, strict=True):
        if int(n) < 0:
            raise ValueError(f"{what} {shape}: axis {a!r} has negative size {n}")
        if f and int(n) != f:
            raise ValueError(
                f"{what} {shape}: sub-axis {a!r} of layout {layout.name!r} must have size {f}, "
                f"got {n}"
            )


def primal_shape(shape: tuple[int, ...], layout: str | Layout) -> dict[str, int]:
    """Full size of every primal axis of an array of `shape` stored in `layout`."""
    lay = parse_layout(layout)
    shape = tuple(int(n) for n in shape)
    _check_shape(shape, lay, "shape")
    return {a: shape[lay.index(a)] * lay.block(a) for a in lay.primal_axes}


def _plan(
    shape: tuple[int, ...], src: Layout, dst: Layout
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Compute the reshape/transpose steps of `transform`.

    Returns (perm_in, primal, split, perm_out, out_shape): transpose the source by perm_in so
    every block sits right after its primal axis, reshape to `primal` (one dim per primal axis,
    in src primal order), reshape to `split` (primal axes split by dst's blocks), then transpose
    by perm_out to dst order.
    """
    if sorted(src.primal_axes) != sorted(dst.primal_axes):
        raise ValueError(
            f"layouts {src.name!r} and {dst.name!r} must have the same primal axes, got "
            f"{''.join(src.primal_axes)!r} and {''.join(dst.primal_axes)!r}"
        )
    _check_shape(shape, src, "input shape")
    perm_in: list[int] = []
    primal: list[int] = []
    for a in src.primal_axes:
        perm_in.append(src.index(a))
        size = shape[src.index(a)]
        if a.lower() in src.axes:
            perm_in.append(src.index(a.lower()))
            size *= src.block(a)
        primal.append(size)
    # Split each primal axis by the destination block; remember where every dst axis lands.
    split: list[int] = []
    pos: dict[str, int] = {}
    for a, size in zip(src.primal_axes, primal, strict=True):
        factor = dst.block(a) if a.lower() in dst.axes else 0
        if factor:
            if size % factor:
                raise ValueError(
                    f"axis {a!r} of size {size} is not divisible by block {factor} of "
                    f"layout {dst.name!r}"
                )
            pos[a], pos[a.lower()] = len(split), len(split) + 1
            split.extend((size // factor, factor))
        else:
            pos[a] = len(split)
            split.append(size)
    perm_out = tuple(pos[a] for a in dst.axes)
    out_shape = tuple(split[p] for p in perm_out)
    return tuple(perm_in), tuple(primal), tuple(split), perm_out, out_shape


def layout_shape(logical_shape: tuple[int, ...], src: str | Layout, dst: str | Layout) -> tuple:
    """Shape of an array of shape `logical_shape` stored in `src` after converting to `dst`.

    With a primal `src` (e.g. "NCHW") `logical_shape` is the logical shape; with a blocked
    `src` it is the blocked shape (e.g. N, C//16, H, W, 16). Raises ValueError when a dst
    block does not divide its axis, naming the axis and both sizes.
    """
    shape = tuple(int(n) for n in logical_shape)
    return _plan(shape, parse_layout(src), parse_layout(dst))[4]


def transform(x: np.ndarray, src: str | Layout, dst: str | Layout) -> np.ndarray:
    """Convert array `x` stored in layout `src` to layout `dst` (a new C-contiguous array).

    Works between any two layouts over the same primal axes, e.g. NCHW->NCHW16c,
    NCHW8c->NCHW16c, OIHW->OIHW4i16o, NCHW->NHWC. Uses only transpose and reshape, so the
    values are moved, never computed. `x` is not modified.
    """
    x = np.asarray(x)
    perm_in, primal, split, perm_out, _ = _plan(x.shape, parse_layout(src), parse_layout(dst))
    y = x.transpose(perm_in).reshape(primal).reshape(split).transpose(perm_out)
    out = np.ascontiguousarray(y)
    if np.may_share_memory(out, x):
        out = out.copy()  # identity transforms must still hand back a fresh array
    return out


def transform_padded(
    x: np.ndarray, src: str | Layout, dst: str | Layout, channels: int, offset: int = 0
) -> np.ndarray:
    """`transform` of a value with `channels` channels (axis C) whose blocked layouts hold C
    padded to a whole number of blocks: `x` may carry padded channels (dropped) and `dst`
    gets its channels padded with zeros to a multiple of its C block. The network compiler
    holds activations so (see `compiler.layouts`). With `offset` the value is x's channels
    [offset, offset + channels)."""
    src, dst = parse_layout(src), parse_layout(dst)
    primal = "".join(src.primal_axes)
    flat = transform(x, src, primal)
    axis = primal.index("C")
    if flat.shape[axis] < offset + channels:
        raise ValueError(f"input has {flat.shape[axis]} channels, fewer than {offset + channels}")
    flat = np.take(flat, np.arange(offset, offset + channels), axis=axis)
    pad = [(0, 0)] * flat.ndim
    pad[axis] = (0, -channels % dst.block("C"))
    return transform(np.pad(flat, pad), primal, dst)
