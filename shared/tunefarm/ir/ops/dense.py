"""Matrix products in the tensor IR: dense (fully connected), packed dense, (batch) matmul.

The reduction stage is always named `name` with spatial axes i, j (b, i, j for batches) and
reduce axis k. A bias is a separate elementwise stage `{name}_bias`, because a reduction
must be a stage's whole body; schedules inline it or compute it at the product's tiles.
"""

from __future__ import annotations

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, min_
from tunefarm.ir.ops.conv import _check_name, _check_tensor
from tunefarm.ir.ops.elementwise import bias_add
from tunefarm.ir.tensor import Tensor

__all__ = ["batch_matmul", "dense", "dense_pack", "matmul"]


def _add_bias(out: Tensor, bias: Tensor | None, name: str) -> Tensor:
    """out[i, j] + bias[j] as stage `{name}_bias`, or `out` when there is no bias."""
    return out if bias is None else bias_add(out, bias, axis=1, name=f"{name}_bias")


def dense(data: Tensor, weight: Tensor, bias: Tensor | None = None, name: str = "dense") -> Tensor:
    """Fully connected layer: data [N, K], weight [O, K] -> data @ weight.T (+ bias [O])."""
    data, weight = _check_tensor(data, "data", 2), _check_tensor(weight, "weight", 2)
    _check_name(name)
    n, kk = data.shape
    o, wk = weight.shape
    if wk != kk:
        raise ValueError(
            f"weight shape {weight.shape}: dim 1 must equal K = {kk} of data {data.shape}"
        )
    k = te.reduce_axis(kk, "k")

    def body(i: Expr, j: Expr) -> Expr:
        return te.sum(data[i, k] * weight[j, k], axis=k)

    out = te.compute((n, o), body, name=name, tag="dense")
    return _add_bias(out, bias, name)


def dense_pack(
    data: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    name: str = "dense_pack",
    rows: int | None = None,
) -> Tensor:
    """Dense with a pre-packed weight [O//ob, K, ob]: out[i, j] = sum_k data[i, k] *
    weight[j // ob, k, j % ob], output [N, O].

    Packing keeps a block of ob output channels contiguous, so the innermost loop over them
    vectorises without gathering.

    `rows` (>= N) pads the output to that many rows, the extra rows repeating the last one
    (the data row index is clamped): a row tile that does not divide N then computes whole
    tiles with no bounds test in its reduction, and a consumer of N rows crops them.
    """
    data, weight = _check_tensor(data, "data", 2), _check_tensor(weight, "weight", 3)
    _check_name(name)
    n, kk = data.shape
    ob_n, wk, ob = weight.shape
    if wk != kk:
        raise ValueError(
            f"weight shape {weight.shape}: dim 1 must equal K = {kk} of data {data.shape}"
        )
    rows = n if rows is None else rows
    if rows < n:
        raise ValueError(f"rows = {rows} must be at least the data's {n} rows")
    k = te.reduce_axis(kk, "k")

    def body(i: Expr, j: Expr) -> Expr:
        row = i if rows == n else min_(i, n - 1)
        return te.sum(data[row, k] * weight[j // ob, k, j % ob], axis=k)

    attrs = {"block": ob}
    out = te.compute((rows, ob_n * ob), body, name=name, tag="dense_pack", attrs=attrs)
    return _add_bias(out, bias, name)


def matmul(a: Tensor, b: Tensor, name: str = "matmul") -> Tensor:
    """a [M, K] @ b [K, N] -> [M, N]."""
    lhs, rhs = _check_tensor(a, "a", 2), _check_tensor(b, "b", 2)
    _check_name(name)
    if lhs.shape[1] != rhs.shape[0]:
        raise ValueError(f"a {lhs.shape} columns must equal b {rhs.shape} rows")
    k = te.reduce_axis(lhs.shape[1], "k")

    def body(i: Expr, j: Expr) -> Expr:
        return te.sum(lhs[i, k] * rhs[k, j], axis=k)

    return te.compute((lhs.shape[0], rhs.shape[1]), body, name=name, tag="matmul")


def batch_matmul(
    a: Tensor, b: Tensor, transpose_b: bool = False, name: str = "batch_matmul"
) -> Tensor:
    """a [B, M, K] x b [B, K, N] (b [B, N, K] when transpose_b) -> [B, M, N].

    A batch of 1 on either side broadcasts against the other.
    """
    lhs, rhs = _check_tensor(a, "a", 3), _check_tensor(b, "b", 3)
    _check_name(name)
    if not isinstance(transpose_b, bool):
        raise ValueError(f"transpose_b must be a bool, got {transpose_b!r}")
    ba, m, kk = lhs.shape
    bb = rhs.shape[0]
    nn, k_b = (rhs.shape[1], rhs.shape[2]) if transpose_b else (rhs.shape[2], rhs.shape[1])
    if ba != bb and 1 not in (ba, bb):
        raise ValueError(f"batch sizes of a {lhs.shape} and b {rhs.shape} must match or be 1")
    if k_b != kk:
        raise ValueError(
            f"K differs: a {lhs.shape} has {kk}, b {rhs.shape} has {k_b} "
            f"(transpose_b={transpose_b})"
        )
    k = te.reduce_axis(kk, "k")

    def body(b: Expr, i: Expr, j: Expr) -> Expr:
        b_a = 0 if ba == 1 else b
        b_b = 0 if bb == 1 else b
        r = rhs[b_b, j, k] if transpose_b else rhs[b_b, k, j]
        return te.sum(lhs[b_a, i, k] * r, axis=k)

    attrs = {"transpose_b": transpose_b}
    shape = (max(ba, bb), m, nn)
    return te.compute(shape, body, name=name, tag="batch_matmul", attrs=attrs)
