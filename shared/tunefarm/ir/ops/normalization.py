"""Layer normalisation (ONNX LayerNormalization, and the ReduceMean/Sub/Pow/Sqrt/Div form
exporters also write, which a graph pass folds into the same op).

Three stages: `{name}_mean` and `{name}_var` reduce over the normalised trailing axes (the
variance reads x - mean, two passes over a row as numpy computes it, which keeps float32
rounding close to ONNX Runtime's), and `{name}` scales and shifts elementwise. Reduce axes
are named r0, r1, ...; spatial axes i0, i1, ...
"""

from __future__ import annotations

import math
import numbers

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, const
from tunefarm.ir.ops.conv import _check_name, _check_tensor
from tunefarm.ir.ops.movement import normalize_axis
from tunefarm.ir.tensor import Tensor

__all__ = ["layer_norm"]


def _row_stat(x: Tensor, ax: int, name: str, term) -> Tensor:
    """out[lead..., 0...] = mean over the axes from `ax` on of term(x load, lead index)."""
    rvars = [te.reduce_axis(x.shape[d], f"r{d}") for d in range(ax, x.ndim)]
    scale = const(1.0 / math.prod(x.shape[ax:]), x.dtype)
    shape = (*x.shape[:ax], *([1] * (x.ndim - ax)))

    def body(*idx: Expr) -> Expr:
        src = (*idx[:ax], *(r.var for r in rvars))
        return te.sum(term(x[src], idx) * scale, axis=rvars)

    names = [f"i{k}" for k in range(x.ndim)]
    return te.compute(shape, body, name=name, tag="layer_norm_stat", axis_names=names)


def layer_norm(
    x: Tensor,
    gamma: Tensor,
    beta: Tensor | None = None,
    axis: int = -1,
    epsilon: float = 1e-5,
    name: str = "layer_norm",
) -> Tensor:
    """(x - mean) / sqrt(var + epsilon) * gamma + beta, statistics over axes axis..end;
    gamma and beta have the shape of those trailing axes."""
    x, gamma = _check_tensor(x, "x"), _check_tensor(gamma, "gamma")
    _check_name(name)
    ax = normalize_axis(axis, x.ndim)
    tail = tuple(x.shape[ax:])
    for what, t in (("gamma", gamma), ("beta", beta)):
        if t is not None and tuple(t.shape) != tail:
            raise ValueError(f"{what} must have shape {tail} (x's axes {ax}..), got {t.shape}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or epsilon < 0:
        raise ValueError(f"epsilon must be a number >= 0, got {epsilon!r}")

    def lead0(idx):
        return (*idx[:ax], *([0] * (x.ndim - ax)))

    mean = _row_stat(x, ax, f"{name}_mean", lambda v, idx: v)
    centred = lambda v, idx: (v - mean[lead0(idx)]) * (v - mean[lead0(idx)])  # noqa: E731
    var = _row_stat(x, ax, f"{name}_var", centred)
    eps = const(float(epsilon), x.dtype)

    def body(*idx: Expr) -> Expr:
        inv = const(1.0, x.dtype) / call("sqrt", var[lead0(idx)] + eps)
        y = (x[idx] - mean[lead0(idx)]) * inv * gamma[idx[ax:]]
        return y + beta[idx[ax:]] if beta is not None else y

    attrs = {"axis": ax, "epsilon": float(epsilon)}
    names = [f"i{k}" for k in range(x.ndim)]
    return te.compute(x.shape, body, name=name, tag="layer_norm", attrs=attrs, axis_names=names)
