"""Activation layouts during compilation: None is the logical layout (NCHW for 4-D values,
row-major for others); a string like "NCHW16c" is a blocked 4-D layout chosen by a kernel.

Layout alteration works value by value: each kernel states the layout it reads and writes;
a value is converted only when a reader wants a layout it is not in, once per (value,
layout) however many readers want it, so transforms sit at the boundaries between kernels
with different blocks and at the network's edges.
"""

from __future__ import annotations

from tunefarm.ir.layouts import layout_shape, parse_layout

Layout = str | None


def physical_shape(logical: tuple[int, ...], layout: Layout) -> tuple[int, ...]:
    """The array shape of a value of logical shape `logical` stored in `layout`."""
    if layout is None:
        return tuple(logical)
    return tuple(layout_shape(tuple(logical), "NCHW", layout))


def block(layout: Layout) -> int:
    """The channel block of a layout, 0 for the logical layout."""
    return 0 if layout is None else parse_layout(layout).block("c")


def same_memory(logical: tuple[int, ...], a: Layout, b: Layout) -> bool:
    """Whether a value stored in layout `a` has the same bytes in layout `b`: equal layouts,
    NCHW and NCHW1c (so a first conv reading RGB input in blocks of one needs no transform),
    or a 4-D value with H = W = 1, where N, C/b, 1, 1, b is N, C in memory for every block
    (so the flatten before a classifier needs no transform)."""
    if a == b or (len(logical) == 4 and block(a) <= 1 and block(b) <= 1):
        return True
    return len(logical) == 4 and logical[2] * logical[3] == 1
