"""The loop-nest IR that lowering produces and the emitters consume.

Buffers are flat arrays; loads and stores take one flat index expression. A `For` carries
its annotation (serial, parallel, unroll, vectorize, or a GPU thread binding) so the C and
CUDA emitters decide how to realise it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from tunefarm.ir.expr import Const, Expr


@dataclass(frozen=True)
class Buffer:
    """scope: "arg" (kernel argument), "static" (module-level scratch), "local" (declared
    at its attach point; small, meant to live in registers), "shared" (a GPU block's shared
    memory, filled by the block's threads together)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    scope: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True, eq=True)
class BufferLoad(Expr):
    buffer: Buffer
    index: Expr
    dtype: str

    def sub_exprs(self) -> tuple[Expr, ...]:
        return (self.index,)

    def rebuild_children(self, go: Callable[[Expr], Expr]) -> Expr:
        index = go(self.index)
        return self if index is self.index else BufferLoad(self.buffer, index, self.dtype)


class Stmt:
    pass


@dataclass
class For(Stmt):
    var: str
    extent: int
    kind: str  # serial | parallel | unroll | vectorize | bind
    body: list[Stmt]
    thread: str | None = None
    pragmas: list[tuple[str, int]] = field(default_factory=list)
    reduce: bool = False  # a loop over a reduce axis (a GPU binds one for cross-thread sums)


@dataclass
class Store(Stmt):
    buffer: Buffer
    index: Expr
    value: Expr


@dataclass
class If(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass
class Decl(Stmt):
    buffer: Buffer


@dataclass
class LoweredFunc:
    name: str
    args: list[Buffer]
    statics: list[Buffer]
    body: list[Stmt]
    ranges: dict[str, tuple[int, int]]  # every loop variable's inclusive range


def flat_index(indices: list[Expr] | tuple[Expr, ...], shape: tuple[int, ...]) -> Expr:
    """Row-major flattening: ((i0 * s1 + i1) * s2 + i2) ..."""
    out: Expr | None = None
    for idx, ext in zip(indices, shape, strict=True):
        out = idx if out is None else out * ext + idx
    return out if out is not None else Const(0)


def walk_stmts(stmts: list[Stmt]):
    for s in stmts:
        yield s
        if isinstance(s, (For, If)):
            yield from walk_stmts(s.body)
