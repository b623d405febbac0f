"""x86 batch matmul (attention's Q K^T and P V): a register-tiled micro-kernel like dense's.

The generic schedule accumulated one output row at a time in memory, and with a transposed
b read it across rows, so ViT's [12, 197, 64] x [12, 64, 197] ran at a few GFLOP/s. Here:

- b is repacked once per call into [B, K, Np] (Np: N rounded up to whole tiles of vectors,
  the extra columns zero; a transposed b is transposed by the same copy), so the product's
  inner loop is a contiguous vector load whatever N is and whether b was transposed;
- a tile of `tile_n` rows x `tile_o` vectors accumulates in registers over K, rows clamped
  to the last real row where the tile sticks out (as in dense), and the output stage crops
  the padded rows and columns;
- one OpenMP region over (batch, column block, row tile).

The repack costs B*K*N copies against B*M*K*N FMAs: 1/M of the work.

Knobs: tile_n (rows), tile_o (vectors per tile), tile_k (K unroll).
"""

from __future__ import annotations

from typing import Any

from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, const, min_, select
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

ROW_TILES = (1, 2, 3, 4, 6, 8)


def bmm_params(task: Task) -> dict[str, Any]:
    """Shapes of a [B, M, K] x [B, K, N] (b [B, N, K] when transpose_b) product."""
    a = task.args
    try:
        ba, m, k = (int(v) for v in a["a"])
        bb, d1, d2 = (int(v) for v in a["b"])
    except KeyError as exc:
        raise TaskError(f"batch_matmul: missing param {exc.args[0]!r} (need a, b)") from None
    except (TypeError, ValueError):
        raise TaskError("batch_matmul: a and b must be 3-D shapes") from None
    tb = a.get("transpose_b", False)
    if not isinstance(tb, bool):
        raise TaskError(f"batch_matmul: transpose_b must be true or false, got {tb!r}")
    n, kb = (d1, d2) if tb else (d2, d1)
    if kb != k:
        raise TaskError(f"batch_matmul: K differs: a {a['a']}, b {a['b']} (transpose_b={tb})")
    if ba != bb and 1 not in (ba, bb):
        raise TaskError(
            f"batch_matmul: batch sizes of a {a['a']} and b {a['b']} must match or be 1"
        )
    return dict(ba=ba, bb=bb, batch=max(ba, bb), m=m, k=k, n=n, transpose_b=tb)


def _vectors(n: int, lanes: int) -> int:
    return -(-n // lanes)


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


class BatchMatmul(Template):
    op = "batch_matmul"

    def validate(self, task: Task) -> dict[str, Any]:
        return bmm_params(task)

    def logical_inputs(self, task):
        self.validate(task)
        return [("a", tuple(task.args["a"])), ("b", tuple(task.args["b"]))]

    def reference(self, task, inputs):
        p = self.validate(task)
        return R.batch_matmul(inputs["a"], inputs["b"], p["transpose_b"])

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["batch"] * p["m"] * p["n"] * p["k"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        vectors = _vectors(p["n"], vector_lanes(target))
        sp = ConfigSpace()
        sp.define_knob("tile_n", [t for t in ROW_TILES if t <= p["m"]] or [1])
        sp.define_knob("tile_o", [v for v in (1, 2, 3, 4) if v <= vectors])
        sp.define_knob("tile_k", [u for u in (1, 2, 4) if p["k"] % u == 0])
        return sp

    def preferred(self, task, space, target):
        """Two vectors wide and as many rows as the registers hold (8 with 16 lanes, 6 with
        8): measured on ViT's attention at one core, 8x2 beat 6x4, 4x4 and 3x4 (the rows
        share each loaded b vector; K is only a head's 64, so a tile is short)."""
        p = self.validate(task)
        lanes = vector_lanes(target)
        inner = min(2, max(space.knobs["tile_o"].entities))
        registers = 16 if lanes >= 16 else 12
        rows = max(t for t in space.knobs["tile_n"].entities if t * inner <= registers)
        ku = 4 if p["k"] % 4 == 0 else 1
        return {"tile_n": rows, "tile_o": inner, "tile_k": ku}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "batch_matmul")
        lanes = vector_lanes(target)
        rows, inner, ku = cfg["tile_n"], cfg["tile_o"], cfg["tile_k"]
        m, n, k = p["m"], p["n"], p["k"]
        mp, np_ = _round_up(m, rows), _round_up(_vectors(n, lanes), inner) * lanes
        a = te.placeholder((p["ba"], m, k), name="a")
        b = te.placeholder(tuple(task.args["b"]), name="b")
        tb = p["transpose_b"]

        def pack(bi: Expr, kk: Expr, j: Expr) -> Expr:
            jj = min_(j, n - 1)
            return select(j < n, b[bi, jj, kk] if tb else b[bi, kk, jj], const(0.0))

        packed = te.compute((p["bb"], k, np_), pack, name="b_pack", axis_names=("b", "k", "j"))
        rk = te.reduce_axis(k, "k")

        def prod(bi: Expr, i: Expr, j: Expr) -> Expr:
            row = i if mp == m else min_(i, m - 1)
            src_a = a[0 if p["ba"] == 1 else bi, row, rk]
            return te.sum(src_a * packed[0 if p["bb"] == 1 else bi, rk, j], axis=rk)

        acc = te.compute((p["batch"], mp, np_), prod, name="acc", axis_names=("b", "i", "j"))
        out = te.compute(
            (p["batch"], m, n),
            lambda bi, i, j: acc[bi, i, j],
            name="out",
            axis_names=("b", "i", "j"),
        )
        steps = _steps(rows, inner, lanes, ku)
        return KernelDef(
            inputs=[a, b],
            outputs=[out],
            steps=steps,
            packers=[lambda x: x, lambda x: x],
            output_packer=lambda x: x,
            io_key=io_key(task),
        )


def _steps(rows: int, inner: int, lanes: int, ku: int) -> list[S.Step]:
    """b_pack in parallel over (batch, k); the product in tiles of rows x inner vectors,
    computed at the output's (batch, column block, row tile) loop, the output cropping."""
    return [
        S.Fuse("b_pack", ("b", "k")),
        S.Parallel("b_pack", "b+k"),
        S.Split("out", "i", (rows,)),
        S.Split("out", "j", (inner, lanes)),
        S.Reorder("out", ("b", "j.0", "i.0", "i.1", "j.1", "j.2")),
        S.Fuse("out", ("b", "j.0", "i.0")),
        S.Parallel("out", "b+j.0+i.0"),
        S.Unroll("out", "j.1"),
        S.Vectorize("out", "j.2"),  # a vector store where N is whole vectors, else scalar
        S.ComputeAt("acc", "out", "b+j.0+i.0"),
        S.Split("acc", "j", (lanes,)),
        S.Split("acc", "k", (ku,)),
        S.Reorder("acc", ("b", "k.0", "k.1", "i", "j.0", "j.1")),
        S.Unroll("acc", "k.1"),
        S.Unroll("acc", "i"),
        S.Unroll("acc", "j.0"),
        S.Vectorize("acc", "j.1"),
    ]
