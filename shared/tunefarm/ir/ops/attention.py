"""Scaled dot-product attention as one compute definition: softmax(Q K^T * scale + mask) V.

Shapes (default layouts): q [B, H, Sq, D]; k as K^T [B, H, D, Sk] (layout "BHDS": what
the graph's matmul reads); v [B, H, Sk, D]; an optional additive mask broadcastable to
[B, H, Sq, Sk] whose last dim is Sk (each of its other dims 1 or full); output
[B, H, Sq, D]. Other layouts (`LAYOUTS`) read K itself ("BHSD", where K^T was a transpose
of it) and q, k, v or write the output as [B, S, H, D] ("BSHD"): the projections' own
layout, so the transposes the exporters put around attention need not run.

Stages (all named after `name`):
- `{name}_kp` [B, H, D, Skp]: K^T times the scale (read from either layout), its key axis
  padded with zeros to `pad` (a multiple of the vector width), so the score's inner loop
  is whole vectors and the scale costs nothing per product;
- `{name}_bias` [mask dims, Skp] (with a mask or padded keys): the mask, -inf on the
  padded keys, so the row loops below add one contiguous vector and test nothing;
- `{name}_score` [B, H, Sq, Skp]: Q K^T (reduce over d);
- `{name}_max` [B, H, Sq, 1]: the row max of score + mask (-inf on the padded keys);
- `{name}_exp` [B, H, Sq, Skp]: exp(score + mask - max), the shift keeping exp finite, and
  so 0 on the padded keys (the row sum runs over whole vectors; P V over the Sk real keys);
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

__all__ = [
    "LAYOUTS",
    "attention",
    "attention_dims",
    "attention_flops",
]

AXES4 = ("b", "h", "i", "j")
# the layouts each operand may come in (letters: batch, heads, sequence, head dim); "BSHD"
# is a [B, S, H*D] projection viewed as [B, S, H, D], read in place of its transpose
LAYOUTS = {
    "q": ("BHSD", "BSHD"),
    "k": ("BHDS", "BHSD", "BSHD"),  # BHDS: K^T, as the score matmul reads it
    "v": ("BHSD", "BSHD"),
    "out": ("BHSD", "BSHD"),
}
EXP_FLOOR = -80.0  # exp(-80) = 1.8e-35: below it a weight is 0 (see attention's exp stage)
DEFAULT_LAYOUTS = {"q": "BHSD", "k": "BHDS", "v": "BHSD", "out": "BHSD"}


def _dims(what: str, shape: tuple[int, ...], layout: str) -> dict[str, int]:
    if layout not in LAYOUTS[what]:
        raise ValueError(f"{what}_layout must be one of {', '.join(LAYOUTS[what])}, got {layout!r}")
    if len(shape) != 4 or min(shape) < 1:
        raise ValueError(f"{what} must be a 4-D shape of positive ints, got {list(shape)}")
    return dict(zip(layout, shape, strict=True))


def _shape(layout: str, dims: dict[str, int]) -> list[int]:
    return [dims[c] for c in layout]


def attention_dims(
    q: tuple[int, ...],
    k: tuple[int, ...],
    v: tuple[int, ...],
    mask: tuple[int, ...] | None,
    layouts: dict[str, str] | None = None,
) -> tuple[int, int, int, int, int]:
    """(B, H, Sq, Sk, D) of the operands in their layouts; ValueError naming the operand
    whose shape does not fit the others."""
    lay = {**DEFAULT_LAYOUTS, **(layouts or {})}
    qd = _dims("q", q, lay["q"])
    _dims("out", q, lay["out"])  # checks the layout name only
    b, h, sq, d = qd["B"], qd["H"], qd["S"], qd["D"]
    kd = _dims("k", k, lay["k"])
    sk = kd["S"]
    want = {"B": b, "H": h, "S": sk, "D": d}
    if kd != want:
        raise ValueError(
            f"k {list(k)} must be {lay['k']} = {_shape(lay['k'], want)} for q {list(q)}"
        )
    if _dims("v", v, lay["v"]) != want:
        raise ValueError(f"v {list(v)} must be {lay['v']} = {_shape(lay['v'], want)}")
    if mask is not None:
        full = (b, h, sq)
        fits = len(mask) == 4 and all(m in (1, f) for m, f in zip(mask[:3], full, strict=True))
        if not fits or mask[3] != sk:
            raise ValueError(
                f"mask {list(mask)} must be 4-D [B, H, Sq, Sk], last dim Sk = {sk}, each other "
                f"dim 1 or {list(full)}"
            )
    return b, h, sq, sk, d


def attention_flops(b: int, h: int, sq: int, sk: int, d: int) -> float:
    """Two products of 2 B H Sq Sk D each, plus ~6 per score for mask, max, exp and sum."""
    return float(b * h * sq * sk * (4 * d + 6))


def _load(t: Tensor, layout: str, **idx: Expr) -> Expr:
    """t at logical index B, H, S, D (letters of `layout`)."""
    return t[tuple(idx[c] for c in layout)]


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    scale: float = 1.0,
    pad: int = 1,
    name: str = "attention",
    rows: int = 1,
    layouts: dict[str, str] | None = None,
) -> Tensor:
    """softmax(q K^T * scale + mask) v over the keys, as the stages the module lists;
    `layouts` names the layout of q, k, v and the output (`LAYOUTS`; default BHSD, K^T).

    `rows` pads the query axis of every stage but the output to a multiple of `rows` (the
    padded rows repeat the last one: its q and mask rows are clamped), so a block of `rows`
    query rows computes with no bounds test and the output crops, as dense_pack does."""
    lay = {**DEFAULT_LAYOUTS, **(layouts or {})}
    masks = None if mask is None else mask.shape
    b, h, sq, sk, d = attention_dims(q.shape, k.shape, v.shape, masks, lay)
    if not name.isidentifier():
        raise ValueError(f"name must be an identifier, got {name!r}")
    if not math.isfinite(scale):
        raise ValueError(f"scale must be finite, got {scale!r}")
    skp = -(-sk // pad) * pad
    sqp = -(-sq // rows) * rows

    def row(i: Expr) -> Expr:
        return i if sqp == sq else min_(i, sq - 1)

    def kp_body(bi: Expr, hi: Expr, di: Expr, j: Expr) -> Expr:
        key = j if skp == sk else min_(j, sk - 1)
        src = _load(k, lay["k"], B=bi, H=hi, S=key, D=di) * const(float(scale))
        return src if skp == sk else select(j < sk, src, const(0.0))

    kp = te.compute((b, h, d, skp), kp_body, name=f"{name}_kp", axis_names=("b", "h", "d", "j"))
    rd = te.reduce_axis(d, "d")

    def score_body(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        qv = _load(q, lay["q"], B=bi, H=hi, S=row(i), D=rd.var)
        return te.sum(qv * kp[bi, hi, rd, j], axis=rd)

    score = te.compute((b, h, sqp, skp), score_body, name=f"{name}_score", axis_names=AXES4)

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

    def exp_body(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        """exp(t), exactly 0 at or below EXP_FLOOR: a masked key's weight (exp(-1e4) or
        exp(-inf); the vector exp clamps to exp(-87.3) = 1.2e-38) would make every product
        with it a denormal, ~100x a normal FMA (bert-base's padding mask ran 40x slower).
        A select on t itself (the loads of its branch are those of its condition, so the
        emitter vectorises it: a compare and a blend, where a clamped 0/1 ramp took five
        operations); a NaN t fails the test and stays NaN."""
        t = logit(bi, hi, i, j) - mx[bi, hi, i, 0]
        return select(t <= const(EXP_FLOOR), const(0.0), exp(t))

    ex = te.compute((b, h, sqp, skp), exp_body, name=f"{name}_exp", axis_names=AXES4)
    rs = te.reduce_axis(skp, "k")
    sm = te.compute(
        (b, h, sqp, 1),
        lambda bi, hi, i, z: te.sum(ex[bi, hi, i, rs], axis=rs),
        name=f"{name}_sum",
        axis_names=AXES4,
    )
    rv = te.reduce_axis(sk, "k")  # the real keys only: P V does no work on the padding

    def pv(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        return te.sum(ex[bi, hi, i, rv] * _load(v, lay["v"], B=bi, H=hi, S=rv.var, D=j), axis=rv)

    acc = te.compute((b, h, sqp, d), pv, name=f"{name}_acc", axis_names=AXES4)

    def out_at(bi: Expr, hi: Expr, i: Expr, j: Expr) -> Expr:
        live = mx[bi, hi, i, 0] > const(float("-inf"))
        return select(live, acc[bi, hi, i, j] / sm[bi, hi, i, 0], const(0.0))

    if lay["out"] == "BHSD":
        return te.compute((b, h, sq, d), out_at, name=name, tag="attention", axis_names=AXES4)
    return te.compute(
        (b, sq, h, d),
        lambda bi, i, hi, j: out_at(bi, hi, i, j),
        name=name,
        tag="attention",
        axis_names=("b", "i", "h", "j"),
    )
