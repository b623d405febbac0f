"""GPU depthwise conv2d NCHW (groups == channels, channel multiplier m >= 1).

Memory-bound: no shared tiles. Channels, rows and columns are each split block / thread /
inner; a thread accumulates its ci x yi x xi tile in registers over the whole kernel window
(unrolled when `unroll_explicit`), reading the input straight from global memory.

Knobs: tile_c, tile_y, tile_x (3-way), auto_unroll_max_step, unroll_explicit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.common import define_unroll
from tunefarm.backends.gpu_common.conv2d import largest_divisor
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import depthwise_conv2d_nchw
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

TAGS = ("threadIdx.z", "threadIdx.y", "threadIdx.x")


class DepthwiseDirect(Template):
    op = "depthwise_conv2d"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if p["groups"] != p["c"]:
            raise TaskError(
                f"depthwise_conv2d needs groups == channels, got groups={p['groups']}, "
                f"C={p['c']} (other grouped convs have no GPU template)"
            )
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        extra = epilogue_inputs(p["epilogue"], p["o"], (p["n"], p["o"], p["oh"], p["ow"]))
        data = ("data", (p["n"], p["c"], p["h"], p["w"]))
        return [data, ("weight", (p["o"], 1, p["kh"], p["kw"])), *extra]

    def reference(self, task, inputs):
        p = self.validate(task)
        out = R.depthwise_conv2d_nchw(
            inputs["data"], inputs["weight"], p["strides"], p["padding"], p["dilation"]
        )
        return reference_epilogue(out, p["epilogue"], inputs)

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["o"] * p["oh"] * p["ow"] * p["kh"] * p["kw"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = ConfigSpace()
        sp.define_split("tile_c", p["o"], 3, filter=lambda f: f[2] <= 4)
        sp.define_split("tile_y", p["oh"], 3, filter=lambda f: f[2] <= 4)
        sp.define_split("tile_x", p["ow"], 3, filter=lambda f: f[2] <= 4)
        define_unroll(sp)
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        tc = largest_divisor(p["o"], 4)
        ty = largest_divisor(p["oh"], 8)
        tx = largest_divisor(p["ow"], 8)
        return {
            "tile_c": (p["o"] // tc, tc, 1),
            "tile_y": (p["oh"] // ty, ty, 1),
            "tile_x": (p["ow"] // tx, tx, 1),
            "auto_unroll_max_step": 512,
            "unroll_explicit": 1,
        }

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "depthwise_conv2d")
        data = te.placeholder((p["n"], p["c"], p["h"], p["w"]), name="data")
        weight = te.placeholder((p["o"], 1, p["kh"], p["kw"]), name="weight")
        conv = depthwise_conv2d_nchw(
            data, weight, p["strides"], p["padding"], p["dilation"], name="conv"
        )
        out, extra = build_epilogue(conv, p["epilogue"], lambda i: (i[1],), (p["o"],), "out")
        steps, acc = accumulator(conv, out)
        if any(p["padding"]):
            steps.append(S.ComputeInline("conv_pad"))
        o = out.name
        for axis, knob in (("c", "tile_c"), ("y", "tile_y"), ("x", "tile_x")):
            steps.append(S.Split(o, axis, tuple(cfg[knob][1:])))
        order = ["n"] + [f"{a}.{k}" for k in range(3) for a in ("c", "y", "x")]
        steps += [S.Reorder(o, tuple(order)), S.Fuse(o, ("n", "c.0"))]
        steps += [S.Bind(o, "n+c.0", "blockIdx.z"), S.Bind(o, "y.0", "blockIdx.y")]
        steps += [S.Bind(o, "x.0", "blockIdx.x")]
        steps += [S.Bind(o, f"{a}.1", t) for a, t in zip("cyx", TAGS, strict=True)]
        steps += [S.Unroll(o, f"{a}.2") for a in "cyx"]
        steps += [S.ComputeAt(acc, o, "x.1"), S.Reorder(acc, ("ry", "rx", "n", "c", "y", "x"))]
        steps += [S.Unroll(acc, a) for a in ("n", "c", "y", "x")]
        if cfg["auto_unroll_max_step"]:
            steps.append(S.Pragma(acc, "ry", "auto_unroll_max_step", cfg["auto_unroll_max_step"]))
        if cfg["unroll_explicit"]:
            steps.append(S.Unroll(acc, "rx"))
        return KernelDef(
            inputs=[data, weight, *(t for _, t in extra)],
            outputs=[out],
            steps=steps,
            packers=[np.ascontiguousarray] * (2 + len(extra)),
            output_packer=np.ascontiguousarray,
            io_key=io_key(task, layout="NCHW"),
        )
