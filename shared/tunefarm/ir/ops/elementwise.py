"""Elementwise ops: broadcasting binaries, bias_add, activations, cast, and epilogues.

Each op is one stage named `name`. A stage reuses the axis names of the compute stage it
reads when the shapes agree (relu of a conv has axes n, f, y, x), so a schedule can line up
an epilogue's loops with its producer's; otherwise axes are i0, i1, ...

`EPILOGUES` maps an epilogue kind to its op. Every entry takes the producer tensor first,
then the op's own operands and attributes, and `name=`; `epilogue_chain` applies a list of
them after a conv or dense, naming the stages `{name}_{kind}`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import (
    FLOAT_DTYPES,
    INT_DTYPES,
    Expr,
    as_expr,
    call,
    const,
    eq,
    exp,
    is_float,
    max_,
    min_,
    ne,
    select,
)
from tunefarm.ir.expr import cast as cast_expr
from tunefarm.ir.ops.conv import _check_name, _check_tensor
from tunefarm.ir.tensor import ComputeOp, Tensor

__all__ = [
    "EPILOGUES",
    "add",
    "affine",
    "bias_add",
    "cast",
    "clip",
    "divide",
    "epilogue_chain",
    "equal",
    "erf",
    "gelu",
    "hard_sigmoid",
    "hard_swish",
    "leaky_relu",
    "maximum",
    "minimum",
    "multiply",
    "relu",
    "sigmoid",
    "silu",
    "sqrt",
    "square",
    "subtract",
    "tanh",
    "where",
]

Operand = Tensor | int | float


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)


def _scalar(v: int | float, dtype: str) -> Expr:
    """A number as a constant of the tensor's dtype; a float next to an int tensor stays float."""
    if is_float(dtype):
        return const(float(v), dtype)
    return as_expr(int(v) if isinstance(v, int | np.integer) else float(v), dtype)


def _axis_names(t: Tensor) -> list[str]:
    """The producer's spatial axis names when it is a compute stage, else i0, i1, ..."""
    if isinstance(t.op, ComputeOp) and len(t.op.axes) == t.ndim:
        return [ax.name for ax in t.op.axes]
    return [f"i{k}" for k in range(t.ndim)]


def _unary(x: Tensor, fn: Callable[[Expr], Expr], name: str, tag: str, attrs: dict) -> Tensor:
    x = _check_tensor(x, "x")
    _check_name(name)
    return te.compute(
        x.shape, lambda *idx: fn(x[idx]), name=name, tag=tag, attrs=attrs, axis_names=_axis_names(x)
    )


# ---------------------------------------------------------------- broadcasting binaries


def _broadcast_load(t: Tensor, idx: Sequence[Expr]) -> Expr:
    """Load of `t` at output index `idx`, numpy-style: right-aligned, size-1 dims read 0."""
    off = len(idx) - t.ndim
    return t[tuple(0 if s == 1 else idx[off + d] for d, s in enumerate(t.shape))]


def _binary(
    fn: Callable[[Expr, Expr], Expr], a: Operand, b: Operand, name: str, tag: str
) -> Tensor:
    """out = fn(a, b) with numpy broadcasting; one of a, b may be a Python number."""
    _check_name(name)
    for what, v in (("a", a), ("b", b)):
        if not isinstance(v, Tensor) and not _is_number(v):
            raise ValueError(f"{what} must be a Tensor or a number, got {type(v).__name__} {v!r}")
    tensors = [v for v in (a, b) if isinstance(v, Tensor)]
    if not tensors:
        raise ValueError(f"at least one of a, b must be a Tensor, got a={a!r}, b={b!r}")
    sa = a.shape if isinstance(a, Tensor) else ()
    sb = b.shape if isinstance(b, Tensor) else ()
    try:
        shape = tuple(np.broadcast_shapes(sa, sb))
    except ValueError:
        raise ValueError(f"shapes of a {sa} and b {sb} do not broadcast") from None
    dtype = tensors[0].dtype
    same = [t for t in tensors if t.shape == shape]
    names = _axis_names(same[0]) if same else [f"i{k}" for k in range(len(shape))]

    def operand(v: Operand, idx: Sequence[Expr]) -> Expr:
        return _broadcast_load(v, idx) if isinstance(v, Tensor) else _scalar(v, dtype)

    def body(*idx: Expr) -> Expr:
        return fn(operand(a, idx), operand(b, idx))

    return te.compute(shape, body, name=name, tag=tag, axis_names=names)


def add(a: Operand, b: Operand, name: str = "add") -> Tensor:
    """a + b, broadcasting (a residual connection when both are activations)."""
    return _binary(lambda x, y: x + y, a, b, name, "add")


def subtract(a: Operand, b: Operand, name: str = "subtract") -> Tensor:
    return _binary(lambda x, y: x - y, a, b, name, "subtract")


def multiply(a: Operand, b: Operand, name: str = "multiply") -> Tensor:
    return _binary(lambda x, y: x * y, a, b, name, "multiply")


def divide(a: Operand, b: Operand, name: str = "divide") -> Tensor:
    return _binary(lambda x, y: x / y, a, b, name, "divide")


def maximum(a: Operand, b: Operand, name: str = "maximum") -> Tensor:
    return _binary(max_, a, b, name, "maximum")


def minimum(a: Operand, b: Operand, name: str = "minimum") -> Tensor:
    return _binary(min_, a, b, name, "minimum")


def bias_add(x: Tensor, bias: Tensor, axis: int = 1, name: str = "bias_add") -> Tensor:
    """x + bias along `axis` of x (axis 1 = channels of NCHW); bias is 1-D."""
    x, bias = _check_tensor(x, "x"), _check_tensor(bias, "bias", 1)
    _check_name(name)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis must be an int in [{-x.ndim}, {x.ndim}), got {axis!r}")
    ax = axis % x.ndim
    if bias.shape[0] != x.shape[ax]:
        raise ValueError(
            f"bias must have shape ({x.shape[ax]},) to match axis {axis} of x {x.shape}, "
            f"got {bias.shape}"
        )
    return te.compute(
        x.shape,
        lambda *idx: x[idx] + bias[idx[ax]],
        name=name,
        tag="bias_add",
        attrs={"axis": ax},
        axis_names=_axis_names(x),
    )


def affine(
    x: Tensor, scale: Tensor, shift: Tensor, relu: bool = False, name: str = "affine"
) -> Tensor:
    """x * scale + shift (then max(., 0) when `relu`), scale and shift broadcasting to x:
    a batch norm that no conv absorbs (DenseNet's before each conv), with its ReLU, as one
    pass over x instead of a multiply, an add and a ReLU pass."""
    _check_name(name)
    x = _check_tensor(x, "x")
    for what, t in (("scale", scale), ("shift", shift)):
        t = _check_tensor(t, what)
        try:
            ok = np.broadcast_shapes(x.shape, t.shape) == tuple(x.shape)
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{what} {t.shape} must broadcast to x {x.shape}")

    def body(*idx: Expr) -> Expr:
        v = x[idx] * _broadcast_load(scale, idx) + _broadcast_load(shift, idx)
        return max_(v, const(0.0, v.dtype)) if relu else v

    return te.compute(
        x.shape,
        body,
        name=name,
        tag="affine",
        attrs={"relu": bool(relu)},
        axis_names=_axis_names(x),
    )


# ---------------------------------------------------------------- activations


def relu(x: Tensor, name: str = "relu") -> Tensor:
    return _unary(x, lambda v: max_(v, const(0.0, v.dtype)), name, "relu", {})


def clip(x: Tensor, lo: float, hi: float, name: str = "clip") -> Tensor:
    """Clamp to [lo, hi] (relu6 is clip(x, 0, 6))."""
    if not _is_number(lo) or not _is_number(hi) or not lo <= hi:
        raise ValueError(f"clip needs numbers lo <= hi, got lo={lo!r}, hi={hi!r}")
    lo_f, hi_f = float(lo), float(hi)
    return _unary(x, lambda v: min_(max_(v, lo_f), hi_f), name, "clip", {"lo": lo_f, "hi": hi_f})


def sigmoid(x: Tensor, name: str = "sigmoid") -> Tensor:
    """1 / (1 + exp(-x)); exp overflowing to inf for very negative x still gives 0."""

    def fn(v: Expr) -> Expr:
        one = const(1.0, v.dtype)
        return one / (one + exp(-v))

    return _unary(x, fn, name, "sigmoid", {})


def silu(x: Tensor, name: str = "silu") -> Tensor:
    """x * sigmoid(x) in one pass (SiLU: an export's Sigmoid and Mul of the same value)."""

    def fn(v: Expr) -> Expr:
        one = const(1.0, v.dtype)
        return v * (one / (one + exp(-v)))

    return _unary(x, fn, name, "silu", {})


def hard_sigmoid(
    x: Tensor, alpha: float = 0.2, beta: float = 0.5, name: str = "hard_sigmoid"
) -> Tensor:
    """max(0, min(1, alpha * x + beta))."""
    if not _is_number(alpha) or not _is_number(beta):
        raise ValueError(f"alpha and beta must be numbers, got alpha={alpha!r}, beta={beta!r}")
    a, b = float(alpha), float(beta)
    fn = lambda v: min_(max_(v * a + b, 0.0), 1.0)
    return _unary(x, fn, name, "hard_sigmoid", {"alpha": a, "beta": b})


def hard_swish(x: Tensor, name: str = "hard_swish") -> Tensor:
    """x * relu6(x + 3) / 6."""
    return _unary(x, lambda v: v * min_(max_(v + 3.0, 0.0), 6.0) / 6.0, name, "hard_swish", {})


def leaky_relu(x: Tensor, alpha: float = 0.01, name: str = "leaky_relu") -> Tensor:
    """x where x >= 0, alpha * x elsewhere."""
    if not _is_number(alpha):
        raise ValueError(f"alpha must be a number, got {alpha!r}")
    a = float(alpha)
    fn = lambda v: select(v >= 0.0, v, v * a)
    return _unary(x, fn, name, "leaky_relu", {"alpha": a})


def cast(x: Tensor, dtype: str, name: str = "cast") -> Tensor:
    """Convert to `dtype` (one of tunefarm's dtype names, e.g. "float16", "int32")."""
    if dtype not in FLOAT_DTYPES + INT_DTYPES:
        raise ValueError(f"dtype must be one of {FLOAT_DTYPES + INT_DTYPES}, got {dtype!r}")
    return _unary(x, lambda v: cast_expr(v, dtype), name, "cast", {"dtype": dtype})


def equal(a: Operand, b: Operand, name: str = "equal") -> Tensor:
    """1.0 where a == b, else 0.0 (booleans are float 0/1 at run time: masks stay float)."""

    def fn(x: Expr, y: Expr) -> Expr:
        return select(eq(x, y), const(1.0, x.dtype), const(0.0, x.dtype))

    return _binary(fn, a, b, name, "equal")


def where(cond: Tensor, a: Operand, b: Operand, name: str = "where") -> Tensor:
    """a where cond != 0, else b, all three broadcasting (ONNX Where on a float 0/1 mask).

    Both branches are loads or constants that are always in bounds, so the select never
    guards a read."""
    _check_name(name)
    cond = _check_tensor(cond, "cond")
    for what, v in (("a", a), ("b", b)):
        if not isinstance(v, Tensor) and not _is_number(v):
            raise ValueError(f"{what} must be a Tensor or a number, got {type(v).__name__} {v!r}")
    shapes = [t.shape for t in (cond, a, b) if isinstance(t, Tensor)]
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"shapes {shapes} of cond, a and b do not broadcast") from None
    dtype = next(t.dtype for t in (a, b, cond) if isinstance(t, Tensor))

    def operand(v: Operand, idx: Sequence[Expr]) -> Expr:
        return _broadcast_load(v, idx) if isinstance(v, Tensor) else _scalar(v, dtype)

    def body(*idx: Expr) -> Expr:
        c = _broadcast_load(cond, idx)
        return select(ne(c, const(0, c.dtype)), operand(a, idx), operand(b, idx))

    names = [f"i{k}" for k in range(len(shape))]
    return te.compute(shape, body, name=name, tag="where", axis_names=names)


def erf(x: Tensor, name: str = "erf") -> Tensor:
    return _unary(x, lambda v: call("erf", v), name, "erf", {})


def tanh(x: Tensor, name: str = "tanh") -> Tensor:
    return _unary(x, lambda v: call("tanh", v), name, "tanh", {})


def sqrt(x: Tensor, name: str = "sqrt") -> Tensor:
    return _unary(x, lambda v: call("sqrt", v), name, "sqrt", {})


def square(x: Tensor, name: str = "square") -> Tensor:
    """x * x (ONNX Pow with the constant exponent 2, as layer norm's variance writes it)."""
    return _unary(x, lambda v: v * v, name, "square", {})


def gelu(x: Tensor, name: str = "gelu") -> Tensor:
    """The exact (erf) GELU: x * 0.5 * (1 + erf(x / sqrt(2))), one stage."""

    def fn(v: Expr) -> Expr:
        half = const(0.5, v.dtype)
        return (
            v * half * (const(1.0, v.dtype) + call("erf", v * const(0.7071067811865476, v.dtype)))
        )

    return _unary(x, fn, name, "gelu", {})


# ---------------------------------------------------------------- epilogues

EPILOGUES: dict[str, Callable[..., Tensor]] = {
    "add": add,
    "bias_add": bias_add,
    "clip": clip,
    "hard_sigmoid": hard_sigmoid,
    "hard_swish": hard_swish,
    "leaky_relu": leaky_relu,
    "multiply": multiply,
    "relu": relu,
    "sigmoid": sigmoid,
}


def epilogue_chain(x: Tensor, steps: Sequence[tuple[str, Mapping[str, Any]]], name: str) -> Tensor:
    """Apply `steps` [(kind, kwargs), ...] after `x`, e.g. [("bias_add", {"bias": b}),
    ("relu", {})]; stage k is named `{name}_{kind}` (`{name}_{kind}{k}` if a kind repeats).

    kwargs are the op's arguments after the producer: {"b": residual} for add,
    {"bias": b, "axis": 1} for bias_add, {"lo": 0.0, "hi": 6.0} for clip.
    """
    _check_tensor(x, "x")
    _check_name(name)
    kinds = [
        s[0] if isinstance(s, tuple) and len(s) == 2 and isinstance(s[1], Mapping) else None
        for s in steps
    ]
    out = x
    for k, (step, kind) in enumerate(zip(steps, kinds, strict=True)):
        if not isinstance(kind, str) or kind not in EPILOGUES:
            raise ValueError(
                f"steps[{k}] must be (kind, kwargs) with kind in {sorted(EPILOGUES)}, got {step!r}"
            )
        stage = f"{name}_{kind}" if kinds.count(kind) == 1 else f"{name}_{kind}{k}"
        try:
            out = EPILOGUES[kind](out, **dict(step[1]), name=stage)
        except TypeError as err:
            raise ValueError(
                f"steps[{k}] ({kind}): bad arguments {dict(step[1])!r}: {err}"
            ) from None
    return out
