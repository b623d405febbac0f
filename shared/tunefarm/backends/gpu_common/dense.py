"""GPU dense (fully connected): out[i, j] = sum_k data[i, k] * weight[j, k] (+ epilogue).

A block owns ni rows and to x oi output columns; each of its `to` threads accumulates ni x oi
outputs in registers. The reduction is split (ko, ki); at each outer step the block fetches
the ni x ki slice of data and the (to*oi) x ki slice of the weight into shared memory with
float4 loads and stores (`vec` = 4 where K and ki allow), between barriers.

With `k_threads` > 1 the schedule is the small-batch one instead: each output is summed by
k_threads threads together (a cross-thread reduction), tile_o's thread factor outputs per
block.

Knobs: tile_n (2-way), tile_o (3-way: block, thread, inner), tile_k (2-way), vec (4: float4
fetches where the K tile is a multiple of 4), k_threads, auto_unroll_max_step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.anchor_ops import DenseOp
from tunefarm.backends.gpu_common.common import UNROLL_STEPS
from tunefarm.backends.gpu_common.conv2d import largest_divisor
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.dense import dense
from tunefarm.ir.ops.epilogue import build_epilogue
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, accumulator, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task

K_THREADS = (32, 64)  # threads summing one output's K together (cross-thread reduction)


def fetch_vector_steps(stage: str, threads: int, vec: int) -> list[S.Step]:
    """Fetch a 2-D shared tile: rows x (columns / vec) split over the threads, `vec`
    contiguous columns per thread as one vector load and store."""
    return [
        S.Split(stage, "ax1", (vec,)),
        S.Fuse(stage, ("ax0", "ax1.0")),
        S.Split(stage, "ax0+ax1.0", (threads,)),
        S.Bind(stage, "ax0+ax1.0.1", "threadIdx.x"),
        S.Vectorize(stage, "ax1.1"),
    ]


def cross_thread_steps(out: str, acc: str, rows: int, k_threads: int, unroll: int):
    """For small batches (a matrix-vector product): a block of `rows` x `k_threads` threads,
    one output per threadIdx.y, its K split over threadIdx.x and summed across the threads
    (tile_n, the inner output tile, vec and the shared tiles do not apply)."""
    steps: list[S.Step] = [
        S.Split(out, "j", (rows,)),
        S.Bind(out, "i", "blockIdx.y"),
        S.Bind(out, "j.0", "blockIdx.x"),
        S.Bind(out, "j.1", "threadIdx.y"),
        S.ComputeAt(acc, out, "j.1"),
        S.Split(acc, "k", (k_threads,)),
        S.Reorder(acc, ("k.1", "k.0", "i", "j")),
        S.Bind(acc, "k.1", "threadIdx.x"),
    ]
    if unroll:
        steps.append(S.Pragma(acc, "k.0", "auto_unroll_max_step", unroll))
    return steps


class DenseShared(DenseOp):
    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = ConfigSpace()
        sp.define_split("tile_n", p["n"], 2, filter=lambda f: f[1] <= 8)
        sp.define_split("tile_o", p["o"], 3, filter=lambda f: f[2] <= 8)
        sp.define_split("tile_k", p["k"], 2)
        sp.define_knob("vec", [1, 4] if p["k"] % 4 == 0 else [1])
        sp.define_knob("k_threads", [1, *(t for t in K_THREADS if t <= p["k"])])
        sp.define_knob("auto_unroll_max_step", list(UNROLL_STEPS))
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        oi = largest_divisor(p["o"], 4)
        to = largest_divisor(p["o"] // oi, 64)
        ki = largest_divisor(p["k"], 32)
        vec = 4 if p["k"] % 4 == 0 and ki % 4 == 0 else 1
        return {
            "tile_n": (p["n"] // largest_divisor(p["n"], 4), largest_divisor(p["n"], 4)),
            "tile_o": (p["o"] // (to * oi), to, oi),
            "tile_k": (p["k"] // ki, ki),
            "vec": vec,
            "k_threads": 1,
            "auto_unroll_max_step": 512,
        }

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "dense")
        ni, (to, oi), ki = cfg["tile_n"][1], cfg["tile_o"][1:], cfg["tile_k"][1]
        vec = cfg["vec"] if ki % cfg["vec"] == 0 else 1  # vec: float4 where the K tile allows
        data = te.placeholder((p["n"], p["k"]), name="data")
        weight = te.placeholder((p["o"], p["k"]), name="weight")
        acc_t = dense(data, weight, name="dense")
        out, extra = build_epilogue(acc_t, p["epilogue"], lambda i: (i[1],), (p["o"],), "out")
        steps, acc = accumulator(acc_t, out)
        o = out.name
        if cfg["k_threads"] > 1:
            steps += cross_thread_steps(o, acc, to, cfg["k_threads"], cfg["auto_unroll_max_step"])
            return self._kernel(task, data, weight, out, extra, steps)
        steps += [S.CacheRead("data", "shared", (acc,)), S.CacheRead("weight", "shared", (acc,))]
        steps += [
            S.Split(o, "i", (ni,)),
            S.Split(o, "j", (to, oi)),
            S.Reorder(o, ("i.0", "j.0", "j.1", "i.1", "j.2")),
            S.Bind(o, "i.0", "blockIdx.y"),
            S.Bind(o, "j.0", "blockIdx.x"),
            S.Bind(o, "j.1", "threadIdx.x"),
            S.Unroll(o, "i.1"),
            S.Vectorize(o, "j.2") if oi in (2, 4) else S.Unroll(o, "j.2"),
            S.ComputeAt(acc, o, "j.1"),
            S.Split(acc, "k", (ki,)),
            S.Reorder(acc, ("k.0", "k.1", "i", "j")),
            S.Unroll(acc, "i"),
            S.Unroll(acc, "j"),
        ]
        if cfg["auto_unroll_max_step"]:
            steps.append(S.Pragma(acc, "k.0", "auto_unroll_max_step", cfg["auto_unroll_max_step"]))
        for shared in ("data.shared", "weight.shared"):
            steps.append(S.ComputeAt(shared, acc, "k.0"))
            steps += fetch_vector_steps(shared, to, vec)
        return self._kernel(task, data, weight, out, extra, steps)

    @staticmethod
    def _kernel(task, data, weight, out, extra, steps) -> KernelDef:
        return KernelDef(
            inputs=[data, weight, *(t for _, t in extra)],
            outputs=[out],
            steps=steps,
            packers=[np.ascontiguousarray] * (2 + len(extra)),
            output_packer=np.ascontiguousarray,
            io_key=io_key(task, layout="NK"),
        )
