"""x86 fused attention: softmax(Q K^T * scale + mask) V in one kernel per shape.

The unfused graph writes the [B, H, Sq, Sk] scores to memory four times (the product, the
scale, the mask add, the softmax) and reads them back for P V. Here one OpenMP region runs
over (batch, head, block of `tile_n` query rows), and for each block:

- the score block [tile_n, Skp] accumulates in registers, `tile_n` rows x `tile_o` vectors
  of keys at a time over the head dim (K^T was scaled and padded to whole vectors once per
  call, `_kp`, as batch_matmul repacks its b: B H D Sk copies against B H Sq Sk D FMAs,
  in vectors but for each row's last, padded one); where `tile_o` does not divide the key
  vectors (ViT's 13), the last tile is peeled (`peel_tail`) and holds only the vectors
  left, so no FMA runs on a key vector that is all padding;
- max, exp and sum run over the block's rows while they are in L1 (exp vectorised);
- P V accumulates `tile_n` rows x `tile_d` vectors of the head dim in registers, the
  probabilities broadcast one key at a time, then is divided by the row sums.

Knobs: tile_n (query rows per block), tile_o (key vectors per score register tile),
tile_d (head-dim vectors per P V register tile).
"""

from __future__ import annotations

import math
from typing import Any

from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.attention import LAYOUTS, attention, attention_dims, attention_flops
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config, identity, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

ROW_TILES = (1, 2, 3, 4, 6, 8, 12, 14)
OUT = "attn"  # the output stage; the others are f"{OUT}_score" etc.


def _shape4(task: Task, key: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in task.args[key])
    except KeyError:
        raise TaskError(f"attention: missing param {key!r} (need q, k, v)") from None
    except (TypeError, ValueError):
        raise TaskError(f"attention: param {key!r} must be a 4-D shape") from None


def attention_params(task: Task) -> dict[str, Any]:
    """Shapes, layouts and scale of an attention task; TaskError naming the bad param. The
    layouts (params q_layout, k_layout, v_layout, out_layout) are those of
    `tunefarm.ir.ops.attention.LAYOUTS`, the first of each the default (k: K^T)."""
    q, k, v = (_shape4(task, n) for n in ("q", "k", "v"))
    layouts = {w: task.args.get(f"{w}_layout", LAYOUTS[w][0]) for w in LAYOUTS}
    mask = _shape4(task, "mask") if task.args.get("mask") is not None else None
    scale = task.args.get("scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not math.isfinite(scale):
        raise TaskError(f"attention: param 'scale' must be a finite number, got {scale!r}")
    try:
        b, h, sq, sk, d = attention_dims(q, k, v, mask, layouts)
    except ValueError as exc:
        raise TaskError(f"attention: {exc}") from None
    return dict(q=q, k=k, v=v, mask=mask, scale=float(scale), layouts=layouts,
                b=b, h=h, sq=sq, sk=sk, d=d)  # fmt: skip


def _vectors(n: int, lanes: int) -> int:
    return -(-n // lanes)


class Attention(Template):
    op = "attention"

    def validate(self, task: Task) -> dict[str, Any]:
        return attention_params(task)

    def logical_inputs(self, task):
        p = self.validate(task)
        names = [("q", p["q"]), ("k", p["k"]), ("v", p["v"])]
        return names + ([("mask", p["mask"])] if p["mask"] else [])

    def reference(self, task, inputs):
        p = self.validate(task)
        xs = (inputs["q"], inputs["k"], inputs["v"], inputs.get("mask"))
        return R.attention(*xs, p["scale"], p["layouts"])

    def flops(self, task):
        p = self.validate(task)
        return attention_flops(p["b"], p["h"], p["sq"], p["sk"], p["d"])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        lanes = vector_lanes(target)
        keys, dims = _vectors(p["sk"], lanes), _vectors(p["d"], lanes)
        sp = ConfigSpace()
        sp.define_knob("tile_n", [t for t in ROW_TILES if t <= p["sq"]] or [1])
        sp.define_knob("tile_o", [o for o in (1, 2, 3, 4) if o <= keys])
        sp.define_knob("tile_d", [t for t in (1, 2, 4, 8) if t <= dims and dims % t == 0])
        return sp

    def preferred(self, task, space, target):
        """The score tile (rows x key vectors) that fits the registers (32 vector registers
        with AVX-512, 16 with AVX2, a few kept for operands) at the least estimated cost:
        padded rows x key vectors, times the load-port excess where a tile issues more
        loads (a broadcast per row, a vector per key tile) than FMAs; the last key tile
        holds the vectors left over (ViT's 197 keys are 13 vectors of 16: six tiles of 2
        and one of 1, whose 7 loads feed 6 FMAs; 197 rows pad to 198 in blocks of 6, 208
        in blocks of 8); then the head dim in as few register tiles as fit beside those
        rows."""
        p = self.validate(task)
        lanes = vector_lanes(target)
        registers = 28 if lanes >= 16 else 12
        keys = _vectors(p["sk"], lanes)

        def excess(rows: int, vecs: int) -> float:
            return vecs * max(1.0, (rows + vecs) / (rows * vecs)) if vecs else 0.0

        def cost(rows: int, inner: int) -> tuple[float, bool, int, int]:
            per_row = (keys // inner) * excess(rows, inner) + excess(rows, keys % inner)
            # ties: no tail tile, then more rows, then more key vectors
            return -(-p["sq"] // rows) * rows * per_row, keys % inner > 0, -rows, -inner

        tiles = [
            (r, o)
            for r in space.knobs["tile_n"].entities
            for o in space.knobs["tile_o"].entities
            if r * o <= registers
        ]
        rows, inner = min(tiles, key=lambda t: cost(*t))
        dims = [t for t in space.knobs["tile_d"].entities if t * rows <= registers]
        return {"tile_n": rows, "tile_o": inner, "tile_d": max(dims or [1])}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "attention")
        lanes = vector_lanes(target)
        xs = [te.placeholder(s, name=n) for n, s in self.logical_inputs(task)]
        mask = xs[3] if len(xs) == 4 else None
        pad, rows = lanes, cfg["tile_n"]
        out = attention(*xs[:3], mask, p["scale"], pad, OUT, rows, p["layouts"])
        steps = _steps(cfg["tile_n"], cfg["tile_o"], cfg["tile_d"], lanes)
        return KernelDef(
            inputs=xs,
            outputs=[out],
            steps=steps,
            packers=[identity] * len(xs),
            output_packer=identity,
            io_key=io_key(task),
        )


def _steps(rows: int, inner: int, dv: int, lanes: int) -> list[S.Step]:
    """_kp at root in parallel; every other stage at the output's (b, h, row block) loop;
    the row max and sum factored into one vector of partials per row (then a horizontal
    step), exp vectorised over the keys."""
    at = "b+h+i.0"
    score, mx, ex, sm, acc = (f"{OUT}_{s}" for s in ("score", "max", "exp", "sum", "acc"))
    steps: list[S.Step] = [
        S.Fuse(f"{OUT}_kp", ("b", "h", "d")),
        S.Parallel(f"{OUT}_kp", "b+h+d"),
        S.Split(f"{OUT}_kp", "j", (lanes,)),  # K^T rows: whole vectors, the padded one apart
        S.Vectorize(f"{OUT}_kp", "j.1"),
        S.Split(OUT, "i", (rows,)),
        S.Reorder(OUT, ("b", "h", "i.0", "i.1", "j")),  # a BSHD output loops over h first
        S.Fuse(OUT, ("b", "h", "i.0")),
        S.Parallel(OUT, at),
        S.Split(OUT, "j", (lanes,)),
        S.Vectorize(OUT, "j.1"),
    ]
    for red in (mx, sm):
        rf = f"{red}.rf"
        steps += [
            S.RFactor(red, "k", lanes),
            S.Reorder(rf, ("b", "h", "i", "j", "k_o", "k_i")),
            S.Vectorize(rf, "k_i"),
        ]
    steps += [S.ComputeAt(s, OUT, at) for s in (acc, sm, f"{sm}.rf", ex, mx, f"{mx}.rf", score)]
    return steps + [
        S.Split(score, "j", (inner, lanes)),
        S.Reorder(score, ("b", "h", "j.0", "d", "i", "j.1", "j.2")),
        S.Pragma(score, "j.0", "peel_tail"),  # the last key tile: the vectors that exist
        S.Unroll(score, "i"),
        S.Unroll(score, "j.1"),
        S.Vectorize(score, "j.2"),
        S.Split(ex, "j", (lanes,)),
        S.Vectorize(ex, "j.1"),
        S.Split(acc, "j", (dv, lanes)),
        S.Reorder(acc, ("b", "h", "j.0", "k", "i", "j.1", "j.2")),
        S.Unroll(acc, "i"),
        S.Unroll(acc, "j.1"),
        S.Vectorize(acc, "j.2"),
    ]
