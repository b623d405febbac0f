"""x86 dense (fully connected) with a pre-packed weight [O/ob, K, ob].

At batch 1 this is a matrix-vector product bound by reading the weight, so the schedule
streams the packed weight contiguously: a tile of `o_inner` vectors of `ob` outputs is
accumulated in registers over the whole K, K unrolled by `tile_k`, tiles in parallel.

With more than one row (a transformer's [batch * seq, hidden] activations) that would
stream the whole weight once per row, so `tile_n` rows share each weight vector: the
accumulator tile is tile_n x o_inner vectors, the rows loop inside K, and the tiles are
ordered weight block outer, rows inner, so a weight block stays in cache across the rows.
The row tile need not divide N (ViT's 197 tokens are prime): the product is computed on N
rounded up to whole tiles (the extra rows repeat the last data row) and the output stage
crops, so the reduction has no bounds test; only the store of the last tile has one.

Knobs: tile_o (blocks, o_inner, ob), tile_k, and tile_n when N > 1.

A config whose unrolled reduction body is over `MAX_UNROLLED_VECTORS` vector FMAs is refused
before any source is written (`unroll_limit`): gcc takes tens of CPU seconds on such a body
and the kernel, its accumulators far beyond the register file, is never among the fast ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.anchor_ops import DenseOp
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.dense import dense_pack
from tunefarm.ir.ops.epilogue import build_epilogue
from tunefarm.measure.errors import DeviceLimitError
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, accumulator, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task


class DensePack(DenseOp):
    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = ConfigSpace()
        sp.define_split("tile_o", p["o"], 3, max_factor=64, filter=lambda f: f[1] <= 8)
        sp.define_knob("tile_k", [k for k in (1, 2, 4, 8, 16) if p["k"] % k == 0])
        if p["n"] > 1:  # only then: batch-1 spaces (and their records) stay as they were
            sp.define_knob("tile_n", [t for t in ROW_TILES if t <= p["n"]])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        lanes = vector_lanes(target)
        ob = next((b for b in (lanes, lanes // 2, 8, 4, 2) if p["o"] % b == 0), 1)
        blocks = p["o"] // ob
        rows, inner = register_tile(p["n"], blocks, lanes)
        cfg = {"tile_o": (blocks // inner, inner, ob), "tile_k": 4 if p["k"] % 4 == 0 else 1}
        return cfg if p["n"] == 1 else {**cfg, "tile_n": rows}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "dense")
        inner, ob, ku = cfg["tile_o"][1], cfg["tile_o"][2], cfg["tile_k"]
        rows = cfg.get("tile_n", 1)
        unroll_limit(ku * rows * inner * -(-ob // vector_lanes(target)))
        block = super_block(p["n"], rows)
        padded = -(-p["n"] // (rows * block)) * rows * block
        data = te.placeholder((p["n"], p["k"]), name="data")
        weight = te.placeholder((p["o"] // ob, p["k"], ob), name="weight")
        acc_t = dense_pack(data, weight, name="dense", rows=padded)
        out, extra = build_epilogue(
            acc_t, p["epilogue"], lambda i: (i[1],), (p["o"],), "out", shape=(p["n"], p["o"])
        )
        steps, acc = accumulator(acc_t, out)
        o = out.name
        if rows > 1:
            steps += _row_tiled(o, acc, rows, inner, ob, ku, block)
        else:
            steps += [
                S.Split(o, "j", (inner, ob)),
                S.Fuse(o, ("i", "j.0")),
                S.Parallel(o, "i+j.0"),
                S.Unroll(o, "j.1"),
                S.Vectorize(o, "j.2"),
                S.ComputeAt(acc, o, "i+j.0"),
                S.Split(acc, "j", (ob,)),
                S.Split(acc, "k", (ku,)),
                S.Reorder(acc, ("i", "k.0", "k.1", "j.0", "j.1")),
                S.Unroll(acc, "k.1"),
                S.Unroll(acc, "j.0"),
                S.Vectorize(acc, "j.1"),
            ]
        packers = [
            lambda x: np.ascontiguousarray(x),
            lambda x: np.ascontiguousarray(x.reshape(-1, ob, p["k"]).transpose(0, 2, 1)),
        ]
        packers += [lambda x: np.ascontiguousarray(x) for _ in extra]
        return KernelDef(
            inputs=[data, weight, *(t for _, t in extra)],
            outputs=[out],
            steps=steps,
            packers=packers,
            output_packer=lambda x: np.ascontiguousarray(x),
            io_key=io_key(task, ob=ob),
            notes={"weight_layout": f"OI{ob}o"},
        )


ROW_TILES = (1, 2, 3, 4, 5, 6, 8)

# Vector FMAs in the unrolled body (tile_k x tile_n x tile_o[1] x vectors of tile_o[2]).
# BERT's dense 128x768 -> 3072 on AVX2: the best configs of every recorded template search
# have 24-576 (benchmarks/results-search-speed-i27*.json); gcc's CPU on one core: 8 x 8 x 8
# x 6 = 3072 takes 46.9 s (past the 30 s build limit, so a search paid the limit for
# nothing), 1152 3.2 s, 576 1.2 s, 384 0.5-4.8 s, a typical candidate 0.1-0.6 s.
MAX_UNROLLED_VECTORS = 1024


def unroll_limit(vectors: int) -> None:
    """DeviceLimitError (a quick build error naming the limit) for a body of `vectors`
    unrolled vector FMAs over `MAX_UNROLLED_VECTORS`: its build would cost more than the
    search gains from measuring it."""
    if vectors > MAX_UNROLLED_VECTORS:
        raise DeviceLimitError(
            f"dense: the unrolled reduction body has {vectors} vector FMAs (tile_k x tile_n x "
            f"tile_o[1] x vectors of tile_o[2]), over the limit of {MAX_UNROLLED_VECTORS}"
        )


def register_tile(n: int, blocks: int, lanes: int) -> tuple[int, int]:
    """(rows, vectors) of the default accumulator tile: the most accumulators doing useful
    work (24 of 32 registers with 16 lanes, 10 of 16 below; the rows a tile that does not
    divide N computes for nothing count off), then the most FMAs per loaded value. Once
    the register file is full the loop is bound by the FMAs, not the loads: BERT's 128
    rows run 3% faster in 8 x 3 tiles than in 6 x 4 (132 rows computed for 128), 107-110
    against 111-113 GFLOP/s on one Zen 4 core, whose FMA peak is about 115. With 16
    registers, 12 accumulators (4 x 3) leave too few for the weight vectors and the
    broadcast row value: on one Zen 3 core (AVX2) 5 x 2 tiles ran 128 x 768 -> 3072 in
    9.2 ms against 4 x 3's 10.9 (6 x 2: 10.1, 4 x 2: 13.2), and 197 rows in 14.8 against
    21.0 ms."""
    if n == 1:
        registers = 16 if lanes >= 16 else 8
        return 1, next(i for i in (4, 2, 1) if blocks % i == 0 and i <= registers)
    registers = 24 if lanes >= 16 else 10
    best, best_score = (1, 1), (0.0, 0.0)
    for rows in (t for t in ROW_TILES if t <= n):
        for inner in (i for i in (4, 3, 2, 1) if blocks % i == 0 and i * rows <= registers):
            useful = n / (-(-n // rows) * rows)
            score = (round(useful * rows * inner, 9), rows * inner / (rows + inner))
            if score > best_score:
                best, best_score = (rows, inner), score
    return best


SUPER_BLOCK = 33
# Rows up to which no super-blocks are made, whatever the tile: a batch-1 transformer's
# rows (ViT's 197 tokens; 33 tiles of 6 rows).
SUPER_BLOCK_ROWS = 198


def super_block(n: int, rows: int) -> int:
    """Row tiles per super-block, 1 for none. Past SUPER_BLOCK tiles (a batch of
    transformer rows, 1024-1576, whose activations outgrow L2 while each weight block
    sweeps them) the rows go in super-blocks outside the weight blocks, so a block's rows
    stay cached across the weight blocks: +1-3.5% on one Zen 4 core in
    `benchmarks/dense_order.c` (1576 x 768 -> 3072: 107.8 -> 111.5 GFLOP/s). The blocks are
    as even as the count of them allows (263 tiles: 8 of 33, one tile computed for
    nothing). Up to SUPER_BLOCK_ROWS rows nothing changes: AVX2's 5-row tile makes ViT's
    197 rows 40 tiles, and two super-blocks of 20 stream the whole weight twice; on one
    Zen 3 core that ran ViT's four dense shapes 4-10% slower than one sweep
    (docs/transformers.md, "Zen 3 (AVX2)")."""
    tiles = -(-n // rows)
    if tiles <= SUPER_BLOCK or n <= SUPER_BLOCK_ROWS:
        return 1
    count = -(-tiles // SUPER_BLOCK)
    return -(-tiles // count)


def _row_tiled(
    o: str, acc: str, rows: int, inner: int, ob: int, ku: int, block: int = 1
) -> list[S.Step]:
    """Tiles of `rows` rows x `inner` vectors of `ob` outputs accumulated in registers, each
    K step loading `inner` weight vectors once for all rows; weight block outer, rows
    inner in the parallel loop (inside super-blocks of `block` row tiles when > 1)."""
    if block > 1:
        tiles = [
            S.Split(o, "i", (block, rows)),
            S.Split(o, "j", (inner, ob)),
            S.Reorder(o, ("i.0", "j.0", "i.1", "i.2", "j.1", "j.2")),
            S.Fuse(o, ("i.0", "j.0", "i.1")),
        ]
        loop, row = "i.0+j.0+i.1", "i.2"
    else:
        tiles = [
            S.Split(o, "i", (rows,)),
            S.Split(o, "j", (inner, ob)),
            S.Reorder(o, ("j.0", "i.0", "i.1", "j.1", "j.2")),
            S.Fuse(o, ("j.0", "i.0")),
        ]
        loop, row = "j.0+i.0", "i.1"
    return [
        *tiles,
        S.Parallel(o, loop),
        S.Unroll(o, row),
        S.Unroll(o, "j.1"),
        S.Vectorize(o, "j.2"),
        S.ComputeAt(acc, o, loop),
        S.Split(acc, "j", (ob,)),
        S.Split(acc, "k", (ku,)),
        S.Reorder(acc, ("k.0", "k.1", "i", "j.0", "j.1")),
        S.Unroll(acc, "k.1"),
        S.Unroll(acc, "i"),
        S.Unroll(acc, "j.0"),
        S.Vectorize(acc, "j.1"),
    ]
