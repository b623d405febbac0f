"""Scaled dot-product attention as one compute definition: softmax(Q K^T * scale + mask) V.

Shapes: q [B, H, Sq, D]; k as K^T [B, H, D, Sk] (layout "BHDS": what the graph's matmul
reads) or as K [B, H, Sk, D] ("BHSD": where K^T was a transpose of it); v [B, H, Sk, D];
an optional additive mask broadcastable to [B, H, Sq, Sk] whose last dim is Sk (each of its
other dims 1 or full). Output [B, H, Sq, D].

Stages (all named after `name`):
- `{name}_kp` [B, H, D, Skp]: K^T times the scale (read from either layout), its key axis
  padded with zeros to `pad` (a multiple of the vector width), so the score's inner loop
  is whole vectors and the scale costs nothing per product;
- `{name}_bias` [mask dims, Skp] (with a mask or padded keys): the mask, -inf on the
  padded keys, so the row loops below add one contiguous vector and test nothing;
- `{name}_score` [B, H, Sq, Skp]: Q K^T (reduce over d);
- `{name}_max` [B, H, Sq, 1]: the row max of score + mask (-inf on the padded keys);
- `{name}_exp` [B, H, Sq, Skp]: exp(score + mask - max), the shift keeping exp finite, and
  so 0 on the padded keys (the padded rows of v are never weighed: their weight is 0);
- `{name}_sum` [B, H, Sq, 1] and `{name}_acc` [B, H, Sq, D]: the row sum and P V unscaled;
- `{name}`: acc / sum, and 0 for a row whose every key is masked by -inf (where softmax is
  NaN: the exporters' IsNaN/Where guard around scaled_dot_product_attention writes 0 there).
A schedule computes every stage but `_kp` inside a block of query rows of the output, so a
score row lives in registers or L1 and never goes to memory.
"""

from __future__ import annotations

import math

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, const, exp, min_, select
from tunefarm.ir.tensor import Tensor

__all__ = ["K_LAYOUTS", "attention", "attention_flops", "check_attention_shapes"]

AXES4 = ("b", "h", "i", "j")
K_LAYOUTS = ("BHDS", "BHSD")  # K^T as the score matmul reads it, or K itself


def check_attention_shapes(
    q: tuple[int, ...],
    k: tuple[int, ...],
    v: tuple[int, ...],
    mask: tuple[int, ...] | None,
    k_layout: str = "BHDS",
) -> None:
    """ValueError naming the operand whose shape does not fit the others."""
    if k_layout not in K_LAYOUTS:
        raise ValueError(f"k_layout must be one of {', '.join(K_LAYOUTS)}, got {k_layout!r}")
    for what, s in (("q", q), ("k", k), ("v", v)):
        if len(s) != 4 or min(s) < 1:
            raise ValueError(f"{what} must be a 4-D shape of positive ints, got {list(s)}")
    b, h, _, d = q
    sk = k[3] if k_layout == "BHDS" else k[2]
    want = (b, h, d, sk) if k_layout == "BHDS" else (b, h, sk, d)
    if tuple(k) != want:
        raise ValueError(f"k {list(k)} must be {k_layout} = {list(want)} for q {list(q)}")
    if tuple(v) != (b, h, sk, d):
        raise ValueError(f"v {list(v)} must be [B, H, Sk, D] = {[b, h, sk, d]}")
    if mask is None:
        return
    full = (b, h, q[2])
    fits = len(mask) == 4 and all(m in (1, f) for m, f in zip(mask[:3], full, strict=True))
    if not fits or mask[3] != sk:
        raise ValueError(
            f"mask {list(mask)} must be 4-D, last dim Sk = {sk}, each other dim 1 or {list(full)}"
        )


def attention_flops(q: tuple[int, ...], v: tuple[int, ...]) -> float:
    """Two products of 2 B H Sq Sk D each, plus ~6 per score for mask, max, exp and sum."""
    b, h, sq, d = q
    sk = v[2]
    return float(b * h * sq * sk * (4 * d + 6))


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scale: float = 1.0,
    pad: int = 1,
    name: str = "attention",
    rows: int = 1,
    k_layout: str = "BHDS",
) -> Tensor:
    """softmax(q kt * scale + mask) v over the last axis, as the stages the module lists.

    `rows` pads the query axis of every stage but the output to a multiple of `rows` (the
    padded rows repeat the last one: its q and mask rows are clamped), so a block of `rows`
    query rows computes with no bounds test and the output crops, as dense_pack does."""
    check_attention_shapes(
        q.shape, k.shape, v.shape, None if mask is None else mask.shape, k_layout
    )
    if not name.isidentifier():
        raise ValueError(f"name must be an identifier, got {name!r}")
    if not math.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale!r}")
    b, h, sq, d = q.shape
    sk = v.shape[2]
    skp = -(-sk // pad) * pad
    sqp = -(-sq // rows) * rows

    def row(i: Expr) -> Expr:
        return i if sqp == sq else min_(i, sq - 1)

    def kp_body(bi: Expr, hi: Expr, di: Expr, j: Expr) -> Expr:
        key = j if skp == sk else min_(j, sk - 1)
        src = (k[bi, hi, di, key] if k_layout == "BHDS" else k[bi, hi, key, di]) * const(
            float(scale)
        )
        return src if skp == sk else select(j < sk, src, const(0.0))

    kp = te.compute((b, h, d, skp), kp_body, name=f"{name}_kp", axis_names=("b", "h", "d", "j"))
    rd = te.reduce_axis(d, "d")
    score = te.compute(
        (b, h, sqp, skp),
        lambda bi, hi, i, j: te.sum(q[bi, hi, row(i), rd] * kp[bi, hi, rd, j], axis=rd),
        name=f"{name}_score",
        axis_names=AXES4,
    )

    bias = None
    if mask is not None or skp != sk:
        lead = mask.shape[:3] if mask is not None else (1, 1, 1)

        def bias_body(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
            key = j if skp == sk else min_(j, sk - 1)
            m = mask[bi, hi, i, key] if mask is not None else const(0.0)
            return m if skp == sk else select(j < sk, m, const(float("-inf")))

        bias = te.compute((*lead, skp), bias_body, name=f"{name}_bias", axis_names=AXES4)

    def logit(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        """score + mask, -inf on the padded keys."""
        if bias is None:
            return score[bi, hi, i, j]
        idx = tuple(
            0 if m == 1 else x for m, x in zip(bias.shape[:3], (bi, hi, row(i)), strict=True)
        )
        return score[bi, hi, i, j] + bias[(*idx, j)]

    rk = te.reduce_axis(skp, "k")
    mx = te.compute(
        (b, h, sqp, 1),
        lambda bi, hi, i, z: te.max(logit(bi, hi, i, rk.var), axis=rk),
        name=f"{name}_max",
        axis_names=AXES4,
    )
    ex = te.compute(
        (b, h, sqp, skp),
        lambda bi, hi, i, j: exp(logit(bi, hi, i, j) - mx[bi, hi, i, 0]),
        name=f"{name}_exp",
        axis_names=AXES4,
    )
    rs = te.reduce_axis(skp, "k")
    sm = te.compute(
        (b, h, sqp, 1),
        lambda bi, hi, i, z: te.sum(ex[bi, hi, i, rs], axis=rs),
        name=f"{name}_sum",
        axis_names=AXES4,
    )
    rv = te.reduce_axis(skp, "k")

    def pv(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        key = rv.var if skp == sk else min_(rv.var, sk - 1)
        return te.sum(ex[bi, hi, i, rv] * v[bi, hi, key, j], axis=rv)

    acc = te.compute((b, h, sqp, d), pv, name=f"{name}_acc", axis_names=AXES4)

    def out_body(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        live = mx[bi, hi, i, 0] > const(float("-inf"))
        return select(live, acc[bi, hi, i, j] / sm[bi, hi, i, 0], const(0.0))

    return te.compute((b, h, sq, d), out_body, name=name, tag="attention", axis_names=AXES4)
