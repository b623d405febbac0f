"""Activation layouts during compilation: None is the logical layout (NCHW for 4-D values,
row-major for others); a string like "NCHW16c" is a blocked 4-D layout chosen by a kernel.

Layout alteration works value by value: each kernel states the layout it reads and writes;
a value is converted only when a reader wants a layout it is not in, once per (value,
layout) however many readers want it, so transforms sit at the boundaries between kernels
with different blocks and at the network's edges.

A blocked value whose channels the block does not divide is held *padded*: C rounded up to
whole blocks (a conv whose channels the backend pads to whole vectors writes it so, see
`backends.cpu.conv2d.padded_channels`). Its padded lanes are zero where a conv writes them
(zero weights and bias) and hold finite values after per-channel ops (an activation of
zero, a pool); every reader that mixes channels reads them through zero weights, and
every other reader either works per channel (pools, elementwise ops, depthwise convs) or
converts the value, which drops them. Concats along C and views of the whole memory (the
flatten of a 1x1 map) are not done on a padded value, nor divisions and square roots, which
could make a padded lane NaN (0 / 0), and a NaN times a zero weight is still NaN.
"""

from __future__ import annotations

from tunefarm.ir.layouts import layout_shape, parse_layout

Layout = str | None


def block(layout: Layout) -> int:
    """The channel block of a layout, 0 for the logical layout."""
    return 0 if layout is None else parse_layout(layout).block("c")


def padded(logical: tuple[int, ...], layout: Layout) -> bool:
    """Whether a 4-D value of logical shape `logical` is held in `layout` with its channels
    padded (the layout's block does not divide them)."""
    b = block(layout)
    return len(logical) == 4 and b > 1 and logical[1] % b != 0


def physical_shape(logical: tuple[int, ...], layout: Layout) -> tuple[int, ...]:
    """The array shape of a value of logical shape `logical` stored in `layout` (its
    channels rounded up to whole blocks where the block does not divide them)."""
    if layout is None:
        return tuple(logical)
    shape = tuple(int(d) for d in logical)
    if padded(shape, layout):
        b = block(layout)
        shape = (shape[0], -(-shape[1] // b) * b, *shape[2:])
    return tuple(layout_shape(shape, "NCHW", layout))


def same_memory(logical: tuple[int, ...], a: Layout, b: Layout) -> bool:
    """Whether a value stored in layout `a` has the same bytes in layout `b`: equal layouts,
    NCHW and NCHW1c (so a first conv reading RGB input in blocks of one needs no transform),
    or a 4-D value with H = W = 1 and no padded channels, where N, C/b, 1, 1, b is N, C in
    memory for every block (so the flatten before a classifier needs no transform)."""
    if a == b or (len(logical) == 4 and block(a) <= 1 and block(b) <= 1):
        return True
    if padded(logical, a) or padded(logical, b):
        return False
    return len(logical) == 4 and logical[2] * logical[3] == 1
