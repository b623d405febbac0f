"""Scalar expressions of the tensor IR.

Expressions are immutable, structurally compared trees (frozen dataclasses), so they can be
hashed, substituted and simplified freely. Python operators build them: `a + b`, `a * 2`,
`a // 4`, `a < b`. Equality is structural (`==` compares trees); use `eq(a, b)` to build an
equality *expression*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tunefarm.ir.tensor import IterVar, Tensor

FLOAT_DTYPES = ("float32", "float64", "float16")
INT_DTYPES = ("int32", "int64", "int8", "uint8", "int16", "bool")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


class Expr:
    """Base of all expression nodes; provides operator overloading."""

    dtype: str

    def _bin(self, op: str, other: Any, rev: bool = False) -> Binary:
        a, b = (as_expr(other, self.dtype), self) if rev else (self, as_expr(other, self.dtype))
        return Binary(op, a, b, _result_dtype(a.dtype, b.dtype))

    def __add__(self, o: Any) -> Expr:
        return self._bin("+", o)

    def __radd__(self, o: Any) -> Expr:
        return self._bin("+", o, True)

    def __sub__(self, o: Any) -> Expr:
        return self._bin("-", o)

    def __rsub__(self, o: Any) -> Expr:
        return self._bin("-", o, True)

    def __mul__(self, o: Any) -> Expr:
        return self._bin("*", o)

    def __rmul__(self, o: Any) -> Expr:
        return self._bin("*", o, True)

    def __truediv__(self, o: Any) -> Expr:
        return self._bin("/", o)

    def __rtruediv__(self, o: Any) -> Expr:
        return self._bin("/", o, True)

    def __floordiv__(self, o: Any) -> Expr:
        return self._bin("//", o)

    def __mod__(self, o: Any) -> Expr:
        return self._bin("%", o)

    def __neg__(self) -> Expr:
        return Binary("-", as_expr(0, self.dtype), self, self.dtype)

    def __lt__(self, o: Any) -> Expr:
        return Compare("<", self, as_expr(o, self.dtype))

    def __le__(self, o: Any) -> Expr:
        return Compare("<=", self, as_expr(o, self.dtype))

    def __gt__(self, o: Any) -> Expr:
        return Compare(">", self, as_expr(o, self.dtype))

    def __ge__(self, o: Any) -> Expr:
        return Compare(">=", self, as_expr(o, self.dtype))

    def __bool__(self) -> bool:
        raise TypeError("a tensor expression has no truth value; use select()/logical_and()")


def _result_dtype(a: str, b: str) -> str:
    if a == b:
        return a
    if is_float(a) and not is_float(b):
        return a
    if is_float(b) and not is_float(a):
        return b
    return a


@dataclass(frozen=True, eq=True)
class Const(Expr):
    value: int | float
    dtype: str = "int32"


@dataclass(frozen=True, eq=True)
class Var(Expr):
    name: str
    dtype: str = "int32"


@dataclass(frozen=True, eq=True)
class Binary(Expr):
    """Arithmetic: + - * / // % min max. `//` and `%` are on non-negative operands."""

    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(frozen=True, eq=True)
class Compare(Expr):
    op: str
    a: Expr
    b: Expr
    dtype: str = "bool"


@dataclass(frozen=True, eq=True)
class Logical(Expr):
    """and / or / not (`b` is None for not)."""

    op: str
    a: Expr
    b: Expr | None = None
    dtype: str = "bool"


@dataclass(frozen=True, eq=True)
class Select(Expr):
    cond: Expr
    true_value: Expr
    false_value: Expr
    dtype: str


@dataclass(frozen=True, eq=True)
class Cast(Expr):
    value: Expr
    dtype: str


@dataclass(frozen=True, eq=True)
class Call(Expr):
    """A math function from C's libm: exp, log, sqrt, tanh, fabs, erf, pow."""

    func: str
    args: tuple[Expr, ...]
    dtype: str


@dataclass(frozen=True, eq=True)
class Load(Expr):
    tensor: Tensor
    indices: tuple[Expr, ...]
    dtype: str


@dataclass(frozen=True, eq=True)
class Reduce(Expr):
    """A commutative reduction (sum / max / min) of `source` over reduce axes."""

    combiner: str
    source: Expr
    axes: tuple[IterVar, ...]
    dtype: str


# fma(a, b, c): a * b + c rounded once (C's fmaf), for ops that must round as another
# runtime's fused multiply-adds do (see `ir.ops.quantize.add_float`)
MATH_FUNCS = ("exp", "log", "sqrt", "tanh", "fabs", "erf", "pow", "nearbyint", "fma")
# Integer intrinsics: Calls on int32 operands that a backend may map to one instruction.
# dot4(a, b): a holds four uint8 lanes and b four int8 lanes (little-endian bytes of one
# int32 word each); the result is their int32 dot product (x86 VNNI `vpdpbusd`'s unit).
INT_FUNCS = ("dot4",)


def as_expr(value: Any, dtype: str = "int32") -> Expr:
    """Wrap a Python number as a constant of a compatible dtype."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return Const(int(value), "bool")
    if isinstance(value, int):
        return Const(value, dtype if is_float(dtype) else "int32")
    if isinstance(value, float):
        return Const(value, dtype if is_float(dtype) else "float32")
    if hasattr(value, "iter_var_marker"):  # an IterVar used directly as an index
        return value.var
    raise TypeError(f"cannot use {value!r} (type {type(value).__name__}) in a tensor expression")


def const(value: int | float, dtype: str = "float32") -> Const:
    return Const(float(value) if is_float(dtype) else int(value), dtype)


def _pair(a: Any, b: Any) -> tuple[Expr, Expr]:
    if isinstance(a, Expr):
        return a, as_expr(b, a.dtype)
    eb = as_expr(b)
    return as_expr(a, eb.dtype), eb


def min_(a: Any, b: Any) -> Expr:
    x, y = _pair(a, b)
    return Binary("min", x, y, _result_dtype(x.dtype, y.dtype))


def max_(a: Any, b: Any) -> Expr:
    x, y = _pair(a, b)
    return Binary("max", x, y, _result_dtype(x.dtype, y.dtype))


def eq(a: Any, b: Any) -> Expr:
    x, y = _pair(a, b)
    return Compare("==", x, y)


def ne(a: Any, b: Any) -> Expr:
    x, y = _pair(a, b)
    return Compare("!=", x, y)


def logical_and(*conds: Expr) -> Expr:
    out = conds[0]
    for c in conds[1:]:
        out = Logical("and", out, c)
    return out


def logical_or(*conds: Expr) -> Expr:
    out = conds[0]
    for c in conds[1:]:
        out = Logical("or", out, c)
    return out


def select(cond: Expr, t: Any, f: Any) -> Expr:
    x, y = _pair(t, f)
    return Select(cond, x, y, _result_dtype(x.dtype, y.dtype))


def cast(value: Any, dtype: str) -> Expr:
    e = as_expr(value)
    return e if e.dtype == dtype else Cast(e, dtype)


def call(func: str, *args: Any) -> Expr:
    if func not in MATH_FUNCS:
        raise ValueError(f"unknown math function {func!r}; supported: {', '.join(MATH_FUNCS)}")
    exprs = tuple(as_expr(a, "float32") for a in args)
    return Call(func, exprs, exprs[0].dtype)


def exp(x: Expr) -> Expr:
    return call("exp", x)


def nearbyint(x: Expr) -> Expr:
    """Round to the nearest integer, halves to even (C's nearbyint, numpy's rint)."""
    return call("nearbyint", x)


def dot4(a: Expr, b: Expr) -> Expr:
    """The u8 x s8 four-way dot product of two packed int32 words (see INT_FUNCS)."""
    if a.dtype != "int32" or b.dtype != "int32":
        raise TypeError(f"dot4 takes packed int32 words, got {a.dtype} and {b.dtype}")
    return Call("dot4", (a, b), "int32")
