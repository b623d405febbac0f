"""Softmax and log-softmax along one axis, as separate reduction and elementwise stages.

The max is subtracted before exp so that exp never overflows. Reduced stages keep the
reduced dimension with size 1 (never a 0-d tensor, even for 1-D input); their reduce axis
is named k (rk if the input already has an axis k).
"""

from __future__ import annotations

from collections.abc import Callable

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, exp
from tunefarm.ir.ops.conv import _check_name, _check_tensor
from tunefarm.ir.ops.elementwise import _axis_names
from tunefarm.ir.tensor import Tensor

__all__ = ["log_softmax", "softmax"]


def _norm_axis(axis: int, x: Tensor) -> int:
    if not isinstance(axis, int) or isinstance(axis, bool) or not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"axis must be an int in [{-x.ndim}, {x.ndim}) for x {x.shape}, got {axis!r}"
        )
    return axis % x.ndim


def _reduce_stage(
    x: Tensor,
    ax: int,
    combiner: str,
    name: str,
    fn: Callable[[Expr, tuple[Expr, ...]], Expr] = lambda v, idx: v,
) -> Tensor:
    """out[..., 0, ...] = combiner over k of fn(x[..., k, ...], out index); dim `ax` kept
    with size 1."""
    names = _axis_names(x)
    k = te.reduce_axis(x.shape[ax], next(n for n in ("k", "rk", "k_red") if n not in names))
    reducer = te.max if combiner == "max" else te.sum

    def body(*idx: Expr) -> Expr:
        src = list(idx)
        src[ax] = k.var
        return reducer(fn(x[tuple(src)], idx), axis=k)

    shape = tuple(1 if d == ax else s for d, s in enumerate(x.shape))
    return te.compute(shape, body, name=name, tag=f"softmax_{combiner}", axis_names=names)


def _at(t: Tensor, idx: tuple[Expr, ...], ax: int) -> Expr:
    """Load of a keep-dims reduced tensor at full-shape index idx (0 on the reduced dim)."""
    return t[tuple(0 if d == ax else i for d, i in enumerate(idx))]


def _elementwise(x: Tensor, fn: Callable[..., Expr], name: str, tag: str) -> Tensor:
    return te.compute(x.shape, fn, name=name, tag=tag, axis_names=_axis_names(x))


def softmax(x: Tensor, axis: int = -1, name: str = "softmax") -> Tensor:
    """exp(x - max) / sum(exp(x - max)) along `axis`.

    Stages `{name}_max`, `{name}_exp` (exp(x - max)), `{name}_sum` and `{name}` (normalise).
    """
    x = _check_tensor(x, "x")
    _check_name(name)
    ax = _norm_axis(axis, x)
    mx = _reduce_stage(x, ax, "max", f"{name}_max")
    ex = _elementwise(x, lambda *i: exp(x[i] - _at(mx, i, ax)), f"{name}_exp", "softmax_exp")
    sm = _reduce_stage(ex, ax, "sum", f"{name}_sum")
    return _elementwise(x, lambda *i: ex[i] / _at(sm, i, ax), name, "softmax")


def log_softmax(x: Tensor, axis: int = -1, name: str = "log_softmax") -> Tensor:
    """x - max - log(sum(exp(x - max))) along `axis`.

    Stages `{name}_max`, `{name}_sum` (sum of exp(x - max), exp fused into the reduction) and
    `{name}`.
    """
    x = _check_tensor(x, "x")
    _check_name(name)
    ax = _norm_axis(axis, x)
    mx = _reduce_stage(x, ax, "max", f"{name}_max")
    sm = _reduce_stage(x, ax, "sum", f"{name}_sum", lambda v, idx: exp(v - _at(mx, idx, ax)))

    def body(*i: Expr) -> Expr:
        return x[i] - _at(mx, i, ax) - call("log", _at(sm, i, ax))

    return _elementwise(x, body, name, "log_softmax")
