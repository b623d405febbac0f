"""x86 grouped (non-depthwise) conv2d in the blocked NCHW[x]c layout, groups kept packed.

ResNeXt and RegNet convs have 4 to 64 channels per group. The generic template ran them in
NCHW, one output at a time, with a layout transform on each side (~22 ms per call in
resnext50). Here the conv reads and writes the network's own channel blocks: an output block
reads only the input blocks its groups own (`group_span`), with the weight pre-packed so that
an input channel outside an output channel's group multiplies a zero. That is the dense
conv's micro-kernel (`register_tile_steps`): a tile of `reg_n` columns x `oc_inner` vectors
in registers over the span's blocks and the kernel window.

When a vector holds several small groups (4 channels per group, 16 lanes) most of its FMAs
multiply zeros, yet they cost what a 4-lane FMA per group would, without the transforms.

Knobs: tile_oc (blocks, oc_inner, ob), tile_ow, unroll_kw, order, pad; the channel blocks
are the network's (`group_blocks`) or the task's pinned ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.cpu.conv2d import (
    ORDERS,
    ConvTemplate,
    best_block,
    blocked_conv_kernel,
    blocked_conv_schedule,
    conv_params,
    define_pad_knob,
    with_pad,
)
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import group_conv2d_nchwc, group_span
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import check_config, divisors
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def blocks_fit(c: int, o: int, groups: int, ib: int, ob: int) -> str:
    """Why blocks (ib, ob) cannot keep this conv's groups packed, or "" when they can."""
    try:
        span, _ = group_span(c, o, groups, ob)
    except ValueError as exc:
        return str(exc)
    if c % ib or o % ob or span % ib:
        return f"input block {ib} must divide the {span} input channels an output block reads"
    return ""


def group_blocks(c: int, o: int, groups: int, lanes: int) -> tuple[int, int] | None:
    """The network's channel blocks for a grouped conv (each side's widest vector-friendly
    block, as its neighbours keep them), or None where they would split a group."""
    ib, ob = best_block(c, lanes), best_block(o, lanes)
    return None if blocks_fit(c, o, groups, ib, ob) else (ib, ob)


def is_grouped(p: dict[str, Any]) -> bool:
    return p["groups"] > 1 and not (p["groups"] == p["c"] == p["o"])


def pack_weight(w: np.ndarray, c: int, groups: int, ib: int, ob: int) -> np.ndarray:
    """Logical OIHW weight [O, C/groups, KH, KW] -> [O/ob, span/ib, KH, KW, ib, ob], zero
    where an input channel of the block's span is outside the output channel's group."""
    o, cg, kh, kw = w.shape
    og = o // groups
    span, period = group_span(c, o, groups, ob)
    out = np.zeros((o // ob, span, kh, kw, ob), dtype=w.dtype)
    for oc in range(o):
        occ, ocb = divmod(oc, ob)
        first = (oc // og) * cg - (occ // period) * span  # the group's first channel in span
        out[occ, first : first + cg, :, :, ocb] = w[oc]
    out = out.reshape(o // ob, span // ib, ib, kh, kw, ob).transpose(0, 1, 3, 4, 2, 5)
    return np.ascontiguousarray(out)


class GroupConvNCHWc(ConvTemplate):
    op = "group_conv2d_nchwc"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if not is_grouped(p):
            raise TaskError(
                f"{self.op} needs 1 < groups < channels (got groups={p['groups']}, "
                f"C={p['c']}, O={p['o']}); dense and depthwise convs have their own templates"
            )
        if p["blocks"]:
            why = blocks_fit(p["c"], p["o"], p["groups"], *p["blocks"])
            if why:
                raise TaskError(f"{self.op}: blocks {list(p['blocks'])}: {why}")
        return p

    def blocks(self, p: dict[str, Any], target: Target) -> tuple[int, int]:
        if p["blocks"]:
            return p["blocks"]
        found = group_blocks(p["c"], p["o"], p["groups"], vector_lanes(target))
        if found is None:
            raise TaskError(
                f"{self.op}: no channel blocks keep {p['groups']} groups of C={p['c']}, "
                f"O={p['o']} packed; pin blocks: [ib, ob] or use the generic group_conv2d"
            )
        return found

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        _ib, ob = self.blocks(p, target)
        sp = ConfigSpace()
        sp.define_split(
            "tile_oc", p["o"], 3, max_factor=64, filter=lambda f: f[2] == ob and f[1] <= 4
        )
        sp.define_split("tile_ow", p["ow"], 2, max_factor=32)
        sp.define_knob("unroll_kw", [True, False])
        sp.define_knob("order", list(ORDERS))
        define_pad_knob(sp, p["padding"])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        _ib, ob = self.blocks(p, target)
        _span, period = group_span(p["c"], p["o"], p["groups"], ob)
        reg = max(d for d in divisors(p["ow"]) if d <= 14)
        # blocks inside one group share their input loads: two per tile where they pair up
        inner = 2 if reg <= 8 and period % 2 == 0 else 1
        values = {
            "tile_oc": (p["o"] // ob // inner, inner, ob),
            "tile_ow": (p["ow"] // reg, reg),
            "unroll_kw": True,
            "order": "kw_outer",
        }
        return with_pad(values, p, "copy")

    def instantiate(self, task: Task, config: dict[str, Any], target: Target):
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, self.op)
        ib, ob = self.blocks(p, target)
        span, _ = group_span(p["c"], p["o"], p["groups"], ob)
        cfg["oc_inner"] = cfg["tile_oc"][1]
        data = te.placeholder((p["n"], p["c"] // ib, p["h"], p["w"], ib), name="data")
        weight = te.placeholder((p["o"] // ob, span // ib, p["kh"], p["kw"], ib, ob), name="weight")
        conv = group_conv2d_nchwc(
            data, weight, p["groups"], p["strides"], p["padding"], p["dilation"], name="conv"
        )
        out, extra, steps = blocked_conv_schedule(conv, p, cfg, ob)
        layout = f"G{p['groups']}OIHW{ib}i{ob}o"
        kdef = blocked_conv_kernel(task, [data, weight], extra, out, steps, ib, ob, layout)
        c, groups = p["c"], p["groups"]
        kdef.packers[1] = lambda w: pack_weight(w, c, groups, ib, ob)
        return kdef
