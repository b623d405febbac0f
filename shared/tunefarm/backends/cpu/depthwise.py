"""x86 depthwise conv2d in NCHW[cb]c: memory-bound, so vectorise over the channel block,
keep a row tile of accumulators in registers and unroll the kernel window.

Knobs: tile_c (cb), tile_ow (reg_n), unroll_kw.
"""

from __future__ import annotations

from typing import Any

from tunefarm.backends.cpu.conv2d import (
    ConvTemplate,
    best_block,
    block_filter,
    blocked_conv_kernel,
    conv_params,
    define_pad_knob,
    pad_steps,
    register_tile_steps,
    with_pad,
)
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import depthwise_conv2d_nchwc
from tunefarm.ir.ops.epilogue import build_epilogue
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, accumulator, check_config, divisors
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def depthwise_space(p: dict[str, Any]) -> ConfigSpace:
    """The knobs of a depthwise conv of params `p` (`conv_params`), float or int8: the
    channel block (pinned by the network's `blocks`), the row tile, the window unroll."""
    sp = ConfigSpace()
    pinned = p["blocks"][0] if p["blocks"] else None
    sp.define_split("tile_c", p["c"], 2, max_factor=64, filter=block_filter(pinned))
    sp.define_split("tile_ow", p["ow"], 2, max_factor=32)
    sp.define_knob("unroll_kw", [True, False])
    define_pad_knob(sp, p["padding"])
    return sp


def depthwise_preferred(p: dict[str, Any], target: Target) -> dict[str, Any]:
    """The default config: a vector-wide channel block, up to 8 outputs per row tile."""
    cb = p["blocks"][0] if p["blocks"] else best_block(p["c"], vector_lanes(target))
    reg = max(d for d in divisors(p["ow"]) if d <= 8)
    values = {"tile_c": (p["c"] // cb, cb), "tile_ow": (p["ow"] // reg, reg), "unroll_kw": True}
    return with_pad(values, p, "inline")


class DepthwiseNCHWc(ConvTemplate):
    op = "depthwise_conv2d"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if not (p["groups"] == p["c"] == p["o"]):
            raise TaskError(
                f"depthwise_conv2d needs groups == channels == output channels (multiplier 1), "
                f"got groups={p['groups']}, C={p['c']}, O={p['o']}"
            )
        if p["blocks"] and p["blocks"][0] != p["blocks"][1]:
            raise TaskError(
                f"depthwise_conv2d: blocks {list(p['blocks'])} must be equal (one channel block)"
            )
        return p

    def space(self, task: Task, target: Target) -> ConfigSpace:
        return depthwise_space(self.validate(task))

    def preferred(self, task, space, target):
        return depthwise_preferred(self.validate(task), target)

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "depthwise_conv2d")
        cb = cfg["tile_c"][1]
        data = te.placeholder((p["n"], p["c"] // cb, p["h"], p["w"], cb), name="data")
        weight = te.placeholder((p["c"] // cb, 1, p["kh"], p["kw"], 1, cb), name="weight")
        conv = depthwise_conv2d_nchwc(
            data, weight, p["strides"], p["padding"], p["dilation"], name="conv"
        )
        out, extra = build_epilogue(
            conv, p["epilogue"], lambda i: (i[1], i[4]), (p["c"] // cb, cb), "out"
        )
        steps, acc = accumulator(conv, out)
        if any(p["padding"]):
            steps += pad_steps("conv_pad", ("n", "cc", "h", "w", "cb"), cfg["pad"])
        unroll = ("kh", "kw") if cfg["unroll_kw"] else ()
        tile = {"tile_ow": cfg["tile_ow"], "oc_inner": 1}
        steps += register_tile_steps(
            out.name, acc, ("n", "cc", "oh", "ow", "cb"), tile, ("kh", "kw"), unroll
        )
        return blocked_conv_kernel(task, [data, weight], extra, out, steps, cb, cb, f"OIHW1i{cb}o")
