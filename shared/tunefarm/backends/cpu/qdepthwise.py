"""x86 int8 depthwise conv2d in NCHW[cb]c: uint8 activations, int8 weights (stored widened
to int32 lanes, since weights are packed once), int32 accumulators.

No four-way dot product here (each channel sums only its own window), so the inner update
is `acc += (int32(data) - za) * w` on int32 vectors; the C emitter widens the uint8 channel
block with one vector conversion. Schedule and knobs are the float depthwise template's
(tile_c, tile_ow, unroll_kw, pad); the epilogue is the int8 conv's (bias, requantize,
residual, ReLU). Params as `conv2d_int8` with weight (C, 1, KH, KW).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.cpu.conv2d import (
    pad_steps,
    register_tile_steps,
)
from tunefarm.backends.cpu.depthwise import depthwise_preferred, depthwise_space
from tunefarm.backends.cpu.qconv2d import Conv2dInt8, qconv_params
from tunefarm.ir import layouts as L
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.qconv import conv_int8_epilogue, depthwise_nchwc_int8
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


class DepthwiseInt8(Conv2dInt8):
    op = "depthwise_conv2d_int8"

    def validate(self, task: Task) -> dict[str, Any]:
        a = task.args
        try:
            c, one = int(a["data"][1]), int(a["weight"][1])
            o = int(a["weight"][0])
        except (KeyError, TypeError, ValueError, IndexError):
            raise TaskError(f"{task.op}: data must be (N,C,H,W) and weight (C,1,KH,KW)") from None
        if one != 1 or o != c:
            raise TaskError(f"{task.op}: weight {list(a['weight'])} must be ({c}, 1, KH, KW)")
        fake = Task.make(task.op, target=task.target, **{**a, "weight": (c, c, *a["weight"][2:])})
        p = qconv_params(fake)
        if p["blocks"] and p["blocks"][0] != p["blocks"][1]:
            raise TaskError(f"{task.op}: blocks {list(p['blocks'])} must be equal")
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        return [
            (n, (p["c"], 1, p["kh"], p["kw"])) if n == "weight" else (n, s)
            for n, s in super().logical_inputs(task)
        ]

    def reference(self, task, inputs):
        p = self.validate(task)
        x = QR.conv2d_int(
            inputs["data"],
            inputs["weight"],
            p["za"],
            0,
            p["strides"],
            p["padding"],
            p["dilation"],
            groups=p["c"],
        )
        return self.finish_reference(p, x, inputs)

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["c"] * p["oh"] * p["ow"] * p["kh"] * p["kw"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        return depthwise_space(self.validate(task))

    def preferred(self, task, space, target):
        return depthwise_preferred(self.validate(task), target)

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, task.op)
        cb, c = cfg["tile_c"][1], p["c"]
        data = te.placeholder((p["n"], c // cb, p["h"], p["w"], cb), "uint8", "data")
        weight = te.placeholder((c // cb, p["kh"], p["kw"], cb), "int32", "weight")
        conv = depthwise_nchwc_int8(
            data, weight, p["strides"], p["padding"], p["dilation"], p["za"]
        )
        extra = self.epilogue_inputs(p, cb)
        out = conv_int8_epilogue(
            conv,
            None,
            0,
            dict(extra),
            p["out_dtype"],
            p["zo"],
            p["residual"],
            p["relu"],
            out_max=p["out_max"],
            activation=p["act"],
        )
        steps = []
        if any(p["padding"]):
            steps += pad_steps("conv_pad", ("n", "cc", "h", "w", "cb"), cfg["pad"])
        unroll = ("kh", "kw") if cfg["unroll_kw"] else ()
        tile = {"tile_ow": cfg["tile_ow"], "oc_inner": 1}
        steps += register_tile_steps(
            out.name, "conv", ("n", "cc", "oh", "ow", "cb"), tile, ("kh", "kw"), unroll
        )
        out_layout = f"NCHW{cb}c"

        def pack_out(x):
            return L.transform(x, "NCHW", out_layout)

        def pack_weight(w):
            blocked = w.reshape(c // cb, cb, p["kh"], p["kw"]).transpose(0, 2, 3, 1)
            return np.ascontiguousarray(blocked, dtype=np.int32)

        packers = [lambda x: L.transform(x, "NCHW", out_layout), pack_weight]
        for kind, _ in extra:
            packers.append(pack_out if kind == "residual" else (lambda x: x.reshape(-1, cb).copy()))
        return KernelDef(
            [data, weight, *(t for _, t in extra)],
            [out],
            steps,
            packers,
            pack_out,
            io_key(task, cb=cb),
            {"data_layout": out_layout, "out_layout": out_layout},
        )
