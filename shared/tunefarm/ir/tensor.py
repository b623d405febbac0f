"""Tensors and operations of the tensor IR: placeholders and compute stages.

A compute stage is `out[i, j, ...] = body(i, j, ...)` where the body may be a reduction
over reduce axes. Stages form a DAG through the `Load`s in their bodies; `ComputeDAG`
orders it. Tensors compare by identity (two stages with the same name are a bug the DAG
reports).
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from tunefarm.ir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    Expr,
    Load,
    Logical,
    Reduce,
    Select,
    Var,
    as_expr,
)


@dataclass(frozen=True, eq=True)
class IterVar:
    """A loop axis: spatial (one per output dimension) or reduce."""

    var: Var
    extent: int
    kind: str = "spatial"
    iter_var_marker = True

    @property
    def name(self) -> str:
        return self.var.name

    # IterVars are usable directly inside index expressions.
    def __add__(self, o: Any) -> Expr:
        return self.var + o

    def __radd__(self, o: Any) -> Expr:
        return o + self.var if isinstance(o, Expr) else self.var.__radd__(o)

    def __mul__(self, o: Any) -> Expr:
        return self.var * o

    def __rmul__(self, o: Any) -> Expr:
        return self.var.__rmul__(o)

    def __sub__(self, o: Any) -> Expr:
        return self.var - o

    def __floordiv__(self, o: Any) -> Expr:
        return self.var // o

    def __mod__(self, o: Any) -> Expr:
        return self.var % o


class Tensor:
    """The output of an operation (a placeholder or a compute stage)."""

    def __init__(self, name: str, shape: Sequence[int], dtype: str, op: Operation):
        self.name = name
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtype
        self.op = op

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices: Any) -> Load:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != len(self.shape):
            raise ValueError(
                f"tensor {self.name!r} has {len(self.shape)} dimensions, "
                f"indexed with {len(indices)}"
            )
        return Load(self, tuple(as_expr(i) for i in indices), self.dtype)

    def __repr__(self) -> str:
        return f"Tensor({self.name}, {self.shape}, {self.dtype})"


@dataclass(eq=False)
class Operation:
    name: str


@dataclass(eq=False)
class PlaceholderOp(Operation):
    shape: tuple[int, ...]
    dtype: str


@dataclass(eq=False)
class ComputeOp(Operation):
    """`axes` are the spatial axes (one per output dim); `body` may be a `Reduce`."""

    axes: tuple[IterVar, ...]
    body: Expr
    tag: str = ""
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def reduce_axes(self) -> tuple[IterVar, ...]:
        return self.body.axes if isinstance(self.body, Reduce) else ()

    @property
    def all_axes(self) -> tuple[IterVar, ...]:
        return self.axes + self.reduce_axes


def placeholder(shape: Sequence[int], dtype: str = "float32", name: str = "data") -> Tensor:
    shape = tuple(int(s) for s in shape)
    if any(s <= 0 for s in shape):
        raise ValueError(f"placeholder {name!r}: every dimension must be positive, got {shape}")
    return Tensor(name, shape, dtype, PlaceholderOp(name, shape, dtype))


def compute(
    shape: Sequence[int],
    fcompute: Callable[..., Any],
    name: str = "compute",
    tag: str = "",
    attrs: dict[str, Any] | None = None,
    axis_names: Sequence[str] | None = None,
) -> Tensor:
    """Define `name[i...] = fcompute(i...)`; axis names come from fcompute's parameters."""
    shape = tuple(int(s) for s in shape)
    if any(s <= 0 for s in shape):
        raise ValueError(f"compute {name!r}: every dimension must be positive, got {shape}")
    if axis_names is None:
        params = list(inspect.signature(fcompute).parameters)
        varargs = any(
            p.kind == inspect.Parameter.VAR_POSITIONAL
            for p in inspect.signature(fcompute).parameters.values()
        )
        axis_names = [f"i{k}" for k in range(len(shape))] if varargs else params
    if len(axis_names) != len(shape):
        raise ValueError(f"compute {name!r}: {len(shape)} dims but {len(axis_names)} axis names")
    axes = tuple(IterVar(Var(n), e, "spatial") for n, e in zip(axis_names, shape, strict=True))
    body = as_expr(fcompute(*[a.var for a in axes]), "float32")
    dtype = body.dtype
    op = ComputeOp(name, axes, body, tag, dict(attrs or {}))
    return Tensor(name, shape, dtype, op)


def reduce_axis(extent: int, name: str) -> IterVar:
    if int(extent) <= 0:
        raise ValueError(f"reduce axis {name!r}: extent must be positive, got {extent}")
    return IterVar(Var(name), int(extent), "reduce")


def _reduce(combiner: str, source: Any, axis: IterVar | Sequence[IterVar]) -> Reduce:
    axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
    src = as_expr(source, "float32")
    return Reduce(combiner, src, axes, src.dtype)


def sum(source: Any, axis: IterVar | Sequence[IterVar]) -> Reduce:  # noqa: A001
    return _reduce("sum", source, axis)


def max(source: Any, axis: IterVar | Sequence[IterVar]) -> Reduce:  # noqa: A001
    return _reduce("max", source, axis)


def min(source: Any, axis: IterVar | Sequence[IterVar]) -> Reduce:  # noqa: A001
    return _reduce("min", source, axis)


def children(e: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions of a node (the generic traversal every pass uses)."""
    kind = type(e)
    if kind is Binary or kind is Compare:  # the common case first: index arithmetic
        return (e.a, e.b)  # type: ignore[attr-defined]
    if kind is Var or kind is Const:
        return ()
    if isinstance(e, (Binary, Compare)):
        return (e.a, e.b)
    if isinstance(e, Logical):
        return (e.a,) if e.b is None else (e.a, e.b)
    if isinstance(e, Select):
        return (e.cond, e.true_value, e.false_value)
    if isinstance(e, Cast):
        return (e.value,)
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Load):
        return e.indices
    if isinstance(e, Reduce):
        return (e.source,)
    sub = getattr(e, "sub_exprs", None)  # codegen-level nodes (e.g. BufferLoad) opt in
    return sub() if sub is not None else ()


def walk(e: Expr) -> Iterator[Expr]:
    """Pre-order traversal."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def loads_of(e: Expr) -> list[Load]:
    return [n for n in walk(e) if isinstance(n, Load)]


def input_tensors(t: Tensor) -> list[Tensor]:
    """Tensors a compute stage reads, in first-use order, without repeats."""
    if not isinstance(t.op, ComputeOp):
        return []
    seen: dict[int, Tensor] = {}
    for load in loads_of(t.op.body):
        seen.setdefault(id(load.tensor), load.tensor)
    return list(seen.values())


class ComputeDAG:
    """All stages reachable from `outputs`, in topological order (producers first)."""

    def __init__(self, outputs: Sequence[Tensor], inputs: Sequence[Tensor] | None = None):
        self.outputs = list(outputs)
        self.tensors: list[Tensor] = []
        # each stage's inputs, walked once here: `readers` asks for them over and over (a
        # network's sketch derivation asked ~600k expression nodes per task without this)
        self._sources: dict[int, list[Tensor]] = {}
        self._readers: dict[int, list[Tensor]] | None = None

        def visit(t: Tensor) -> None:
            if id(t) in self._sources:
                return
            self._sources[id(t)] = sources = input_tensors(t)
            for src in sources:
                visit(src)
            self.tensors.append(t)

        for out in self.outputs:
            visit(out)
        names = [t.name for t in self.tensors]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(
                f"stage names must be unique in a compute DAG; repeated: {sorted(dup)}"
            )
        found = [t for t in self.tensors if isinstance(t.op, PlaceholderOp)]
        if inputs is not None:
            missing = [t.name for t in found if all(t is not i for i in inputs)]
            if missing:
                raise ValueError(f"placeholders {missing} are read but not listed as inputs")
            self.inputs = list(inputs)
        else:
            self.inputs = found
        self.by_name = {t.name: t for t in self.tensors}

    @property
    def compute_stages(self) -> list[Tensor]:
        return [t for t in self.tensors if isinstance(t.op, ComputeOp)]

    def readers(self, t: Tensor) -> list[Tensor]:
        """The compute stages that read `t`, in topological order (a fresh list)."""
        if self._readers is None:
            self._readers = {}
            for c in self.compute_stages:
                for src in self._sources[id(c)]:
                    self._readers.setdefault(id(src), []).append(c)
        return list(self._readers.get(id(t), ()))

    def flops(self) -> float:
        """Floating point operations of one run: per stage, points x ops per point."""
        total = 0.0
        for t in self.compute_stages:
            points = 1
            for ax in t.op.all_axes:
                points *= ax.extent
            total += points * builtins.max(_count_ops(t.op.body), 1 if t.op.reduce_axes else 0)
        return total


def _count_ops(e: Expr) -> int:
    n = 0
    for node in walk(e):
        if isinstance(node, Binary) and node.dtype.startswith("float"):
            n += 1
        elif isinstance(node, Reduce):
            n += 1
        elif isinstance(node, Call):
            n += 1
    return n


__all__ = [
    "ComputeDAG",
    "ComputeOp",
    "Const",
    "IterVar",
    "PlaceholderOp",
    "Tensor",
    "compute",
    "placeholder",
    "reduce_axis",
    "sum",
    "max",
    "min",
    "walk",
    "children",
    "loads_of",
]
