"""GPU conv2d NCHW, direct, with shared-memory tiles (the shape of AutoTVM's CUDA conv2d).

Each output axis f, y, x is split four ways: block, virtual thread, thread, inner. A thread
accumulates its fi x yi x xi tile in registers (a cache_write computed at the thread axis,
unrolled so it is indexed by constants); the reduction is split (rc, ry, rx into outer and
inner), and at every outer step the block's threads fetch the input window and the weights
that the inner steps read into shared memory together, fenced by barriers.

Knobs: tile_f, tile_y, tile_x (4-way splits), tile_rc, tile_ry, tile_rx (2-way),
auto_unroll_max_step, unroll_explicit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.common import define_unroll, fetch_steps
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import conv2d_nchw
from tunefarm.ir.ops.epilogue import build_epilogue, epilogue_inputs, reference_epilogue
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    KernelDef,
    Template,
    accumulator,
    check_config,
    conv_params,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

THREAD_TAGS = ("threadIdx.z", "threadIdx.y", "threadIdx.x")


def largest_divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


def output_tile_steps(out: str, acc: str, axes: tuple[str, str, str, str]) -> list[S.Step]:
    """Bind a 4-way split NCHW output to blocks, virtual threads and threads; the
    accumulator computed per thread, its inner tile unrolled."""
    n, f, y, x = axes
    order = [n] + [f"{a}.{k}" for k in range(4) for a in (f, y, x)]
    steps: list[S.Step] = [S.Reorder(out, tuple(order)), S.Fuse(out, (n, f"{f}.0"))]
    steps += [S.Bind(out, f"{n}+{f}.0", "blockIdx.z")]
    steps += [S.Bind(out, f"{y}.0", "blockIdx.y"), S.Bind(out, f"{x}.0", "blockIdx.x")]
    steps += [S.Bind(out, f"{a}.1", "vthread") for a in (f, y, x)]
    steps += [S.Bind(out, f"{a}.2", t) for a, t in zip((f, y, x), THREAD_TAGS, strict=True)]
    steps += [S.Unroll(out, f"{a}.3") for a in (f, y, x)]
    steps.append(S.ComputeAt(acc, out, f"{x}.2"))
    return steps


class Conv2dDirect(Template):
    op = "conv2d"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if p["groups"] != 1:
            raise TaskError(
                f"conv2d on a GPU: groups={p['groups']} is served by depthwise_conv2d "
                "(groups == channels) only"
            )
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        extra = epilogue_inputs(p["epilogue"], p["o"], (p["n"], p["o"], p["oh"], p["ow"]))
        data = ("data", (p["n"], p["c"], p["h"], p["w"]))
        return [data, ("weight", (p["o"], p["c"], p["kh"], p["kw"])), *extra]

    def reference(self, task, inputs):
        p = self.validate(task)
        out = R.conv2d_nchw(
            inputs["data"], inputs["weight"], p["strides"], p["padding"], p["dilation"]
        )
        return reference_epilogue(out, p["epilogue"], inputs)

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["o"] * p["oh"] * p["ow"] * p["c"] * p["kh"] * p["kw"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = ConfigSpace()
        # virtual threads and the inner (register) tile are bounded; threads are not, so a
        # block too large for the device is a build error the tuner learns from
        sp.define_split("tile_f", p["o"], 4, filter=lambda f: f[1] <= 4 and f[3] <= 8)
        sp.define_split("tile_y", p["oh"], 4, filter=lambda f: f[1] <= 4 and f[3] <= 4)
        sp.define_split("tile_x", p["ow"], 4, filter=lambda f: f[1] <= 4 and f[3] <= 4)
        sp.define_split("tile_rc", p["c"], 2)
        sp.define_split("tile_ry", p["kh"], 2)
        sp.define_split("tile_rx", p["kw"], 2)
        define_unroll(sp)
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        fi = largest_divisor(p["o"], 4)
        tf = largest_divisor(p["o"] // fi, 8)
        ty = largest_divisor(p["oh"], 8)
        tx = largest_divisor(p["ow"], 8)
        rci = largest_divisor(p["c"], 8)
        return {
            "tile_f": (p["o"] // (tf * fi), 1, tf, fi),
            "tile_y": (p["oh"] // ty, 1, ty, 1),
            "tile_x": (p["ow"] // tx, 1, tx, 1),
            "tile_rc": (p["c"] // rci, rci),
            "tile_ry": (1, p["kh"]),
            "tile_rx": (1, p["kw"]),
            "auto_unroll_max_step": 512,
            "unroll_explicit": 1,
        }

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "conv2d")
        data = te.placeholder((p["n"], p["c"], p["h"], p["w"]), name="data")
        weight = te.placeholder((p["o"], p["c"], p["kh"], p["kw"]), name="weight")
        conv = conv2d_nchw(data, weight, p["strides"], p["padding"], p["dilation"], name="conv")
        out, extra = build_epilogue(conv, p["epilogue"], lambda i: (i[1],), (p["o"],), "out")
        steps, acc = accumulator(conv, out)
        src = "conv_pad" if any(p["padding"]) else "data"
        steps += [S.CacheRead(src, "shared", (acc,)), S.CacheRead("weight", "shared", (acc,))]
        if src == "conv_pad":
            steps.append(S.ComputeInline("conv_pad"))
        o = out.name
        for axis, knob in (("f", "tile_f"), ("y", "tile_y"), ("x", "tile_x")):
            steps.append(S.Split(o, axis, tuple(cfg[knob][1:])))
        steps += output_tile_steps(o, acc, ("n", "f", "y", "x"))
        steps += reduction_steps(acc, cfg)
        threads = (cfg["tile_f"][2], cfg["tile_y"][2], cfg["tile_x"][2])
        for shared in (f"{src}.shared", "weight.shared"):
            steps.append(S.ComputeAt(shared, acc, "rx.0"))
            steps += fetch_steps(shared, 4, threads, THREAD_TAGS)
        return KernelDef(
            inputs=[data, weight, *(t for _, t in extra)],
            outputs=[out],
            steps=steps,
            packers=[np.ascontiguousarray] * (2 + len(extra)),
            output_packer=np.ascontiguousarray,
            io_key=io_key(task, layout="NCHW"),
        )


def reduction_steps(acc: str, cfg: dict[str, Any]) -> list[S.Step]:
    """rc, ry, rx split outer/inner, outer loops first; the register tile unrolled."""
    steps: list[S.Step] = [S.Split(acc, r, (cfg[f"tile_{r}"][1],)) for r in ("rc", "ry", "rx")]
    order = ("rc.0", "ry.0", "rx.0", "rc.1", "ry.1", "rx.1", "n", "f", "y", "x")
    steps.append(S.Reorder(acc, order))
    steps += [S.Unroll(acc, a) for a in ("n", "f", "y", "x")]
    if cfg["auto_unroll_max_step"]:
        steps.append(S.Pragma(acc, "rc.0", "auto_unroll_max_step", cfg["auto_unroll_max_step"]))
    if cfg["unroll_explicit"]:
        steps += [S.Unroll(acc, "ry.1"), S.Unroll(acc, "rx.1")]
    return steps
