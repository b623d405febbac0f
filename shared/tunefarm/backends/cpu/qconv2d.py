"""x86 int8 conv2d in NCHW[x]c: uint8 activations, int8 weights packed OIHW[ib/4]i[ob]o[4]i.

The compute definition is `tunefarm.ir.ops.qconv` (a sum of `dot4` over packed words); the
schedule is the float conv's register-tiled recipe (`conv2d.register_tile_steps`): an
accumulator tile of `reg_n` columns x `oc_inner` int32 vectors, the reduction over input
blocks, kernel rows and columns, and the epilogue (zero-point correction, bias,
requantize, residual add, ReLU) applied as the tile is stored. The C emitter turns each
vector dot4 into `vpdpbusd` on VNNI targets and into an exact pmaddwd sequence elsewhere.

Params (logical NCHW / OIHW): data, weight, strides, padding, dilation, data_zero_point
(uint8), bias (bool: an int32 [O] input), out_dtype (int32|int8|uint8; not int32 needs a
per-channel float32 `scale` input), out_zero_point, relu (bool), residual
([s_y, s_r, s_out, z_r, z_out]: add a residual tensor of out_dtype, rescaled), blocks.
Knobs: tile_ic (ib a multiple of 4), tile_oc, tile_ow, unroll_kw, order, pad.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tunefarm.backends.cpu.conv2d import (
    ORDERS,
    best_block,
    define_pad_knob,
    pad_steps,
    register_tile_steps,
    with_pad,
)
from tunefarm.backends.cpu.quant import check_zero_point
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import layouts as L
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.qconv import conv2d_nchwc_int8, conv_int8_epilogue, weight_sums
from tunefarm.ir.ops.quantize import add_float_params, add_multipliers, parse_activation
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    CONV_DATA,
    CONV_WEIGHT,
    INT8,
    UINT8,
    InputSpec,
    KernelDef,
    Template,
    check_config,
    conv_window,
    divisors,
    io_key,
    operand_shapes,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

OUT_DTYPES = ("int32", "int8", "uint8")
BIAS = InputSpec("int32", -5000, 5000)


def _flag(task: Task, key: str) -> bool:
    value = task.args.get(key, False)
    if value not in (True, False):
        raise TaskError(f"{task.op}: param {key!r} must be a bool, got {value!r}")
    return bool(value)


def qconv_params(task: Task) -> dict[str, Any]:
    """Checked params of an int8 conv task; TaskError naming the bad one."""
    a, op = task.args, task.op
    (n, c, h, w), (o, ci, kh, kw) = operand_shapes(task, CONV_DATA, CONV_WEIGHT)
    if ci != c:
        raise TaskError(f"{op}: weight {list(a['weight'])} must have I = C = {c}")
    strides, padding, dilation, oh, ow = conv_window(task, h, w, kh, kw)
    out_dtype = a.get("out_dtype", "int8")
    if out_dtype not in OUT_DTYPES:
        raise TaskError(f"{op}: param 'out_dtype' must be one of {OUT_DTYPES}, got {out_dtype!r}")
    p = dict(n=n, c=c, cp=-(-c // 4) * 4, h=h, w=w, o=o, kh=kh, kw=kw, oh=oh, ow=ow)
    p.update(strides=strides, padding=padding, dilation=dilation, out_dtype=out_dtype)
    p["za"] = check_zero_point(op, "data_zero_point", a.get("data_zero_point", 0), "uint8")
    p["zo"] = 0
    if out_dtype != "int32":
        p["zo"] = check_zero_point(op, "out_zero_point", a.get("out_zero_point", 0), out_dtype)
    p["bias"], p["relu"] = _flag(task, "bias"), _flag(task, "relu")
    p["out_max"] = None
    if "out_max" in a and out_dtype != "int32":
        p["out_max"] = check_zero_point(op, "out_max", a["out_max"], out_dtype)
    p["act"] = _activation(task, p)
    p["residual"] = _residual(task, out_dtype, p["zo"])
    p["blocks"] = _blocks(task, p["cp"], o)
    return p


def _activation(task: Task, p: dict[str, Any]) -> tuple | None:
    """activation [spec, s_mid, z_mid, s_out] -> the epilogue's (spec, s_mid, z_mid, s_out,
    out_zero_point): a requantizing LeakyRelu / Sigmoid / HardSwish (s_mid 0: applied to
    the accumulator's own scale, the `scale` input, without rounding first)."""
    value = task.args.get("activation")
    if value is None:
        return None
    form = "[spec, s_mid, z_mid, s_out]"
    if p["out_dtype"] != "uint8" or not isinstance(value, tuple | list) or len(value) != 4:
        raise TaskError(
            f"{task.op}: param 'activation' must be {form} with out_dtype uint8, got {value!r}"
        )
    try:
        parse_activation(str(value[0]))
        s_mid, z_mid, s_out = float(value[1]), int(value[2]), float(value[3])
    except (TypeError, ValueError) as exc:
        raise TaskError(f"{task.op}: param 'activation' {value!r}: {exc}") from None
    if not (s_mid >= 0 and s_out > 0 and math.isfinite(s_mid) and math.isfinite(s_out)):
        raise TaskError(f"{task.op}: param 'activation': scales must be finite, s_out > 0")
    check_zero_point(task.op, "activation[2]", z_mid, "uint8")
    if p["relu"] or p["out_max"] is not None:
        raise TaskError(f"{task.op}: param 'activation' takes no relu or out_max")
    return (str(value[0]), s_mid, z_mid, s_out, p["zo"])


def _residual(task: Task, out_dtype: str, zo: int):
    value = task.args.get("residual")
    if value is None:
        return None
    rule = task.args.get("residual_rule", "fixed")
    if rule not in ("fixed", "float"):
        raise TaskError(f"{task.op}: param 'residual_rule' must be fixed or float, got {rule!r}")
    if out_dtype == "int32" or not isinstance(value, tuple | list) or len(value) != 5:
        raise TaskError(
            f"{task.op}: param 'residual' must be [s_y, s_r, s_out, z_r, z_out] with an 8-bit "
            f"out_dtype, got {value!r}"
        )
    z_r = check_zero_point(task.op, "residual[3]", value[3], out_dtype)
    z_out = check_zero_point(task.op, "residual[4]", value[4], out_dtype)
    try:
        if rule == "float":  # QLinearAdd's rounding, the operands in the model's order
            first = _flag(task, "residual_first")
            scales, zps = [float(value[0]), float(value[1])], [zo, z_r]
            if first:
                scales, zps = scales[::-1], zps[::-1]
            ratios = add_float_params([*scales, float(value[2])], [*zps, z_out])
            if task.args.get("relu") or task.args.get("out_max") is not None:
                raise ValueError("the float rule takes no relu or out_max")
            return "float", ratios, first
        mults = add_multipliers(*(float(s) for s in value[:3]))
    except (TypeError, ValueError) as exc:
        raise TaskError(f"{task.op}: param 'residual': {exc}") from None
    return mults, (z_r, z_out)


def _blocks(task: Task, cp: int, o: int) -> tuple[int, int] | None:
    value = task.args.get("blocks")
    if value is None:
        return None
    try:
        ib, ob = (int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: blocks must be [ib, ob], got {value!r}") from None
    if ib < 4 or ib % 4 or cp % ib or ob < 1 or o % ob:
        raise TaskError(
            f"{task.op}: blocks {[ib, ob]}: ib must be a multiple of 4 dividing the channels "
            f"rounded up to 4 ({cp}) and ob must divide O={o}"
        )
    return ib, ob


def _scale_range(p: dict[str, Any]) -> InputSpec:
    """Requantize scales that put the typical accumulator near the int8 range, so random
    data saturates at both ends and still fills the middle."""
    typical = math.sqrt(p["c"] * p["kh"] * p["kw"]) * 127 * 74
    if p["act"] is not None and p["act"][1] == 0:  # the activation's float input: |v| ~ 4-16
        return InputSpec("float32", 2 / typical, 8 / typical)
    return InputSpec("float32", 64 / typical, 256 / typical)


def pack_data(x: np.ndarray, cp: int, ib: int, fill: int) -> np.ndarray:
    """uint8 NCHW -> int32 words [N, Cp/ib, H, W, ib/4] (channels padded to Cp)."""
    n, c, h, w = x.shape
    full = np.full((n, cp, h, w), fill, np.uint8)
    full[:, :c] = x
    return np.ascontiguousarray(L.transform(full, "NCHW", f"NCHW{ib}c")).view(np.int32)


def pack_weight(wt: np.ndarray, cp: int, ib: int, ob: int) -> np.ndarray:
    """int8 OIHW -> int32 words [O/ob, Cp/ib, KH, KW, ib/4, ob]: OIHW[ib/4]i[ob]o[4]i."""
    o, c, kh, kw = wt.shape
    full = np.zeros((o, cp, kh, kw), np.int8)
    full[:, :c] = wt
    blocked = full.reshape(o // ob, ob, cp // ib, ib // 4, 4, kh, kw)
    packed = np.ascontiguousarray(blocked.transpose(0, 2, 5, 6, 3, 1, 4))
    return packed.view(np.int32).reshape(o // ob, cp // ib, kh, kw, ib // 4, ob)


class Conv2dInt8(Template):
    op = "conv2d_int8"

    def validate(self, task: Task) -> dict[str, Any]:
        return qconv_params(task)

    def logical_inputs(self, task):
        p = self.validate(task)
        out = [
            ("data", (p["n"], p["c"], p["h"], p["w"])),
            ("weight", (p["o"], p["c"], p["kh"], p["kw"])),
        ]
        if p["bias"]:
            out.append(("bias", (p["o"],)))
        if p["out_dtype"] != "int32":
            out.append(("scale", (p["o"],)))
        if p["residual"]:
            out.append(("residual", (p["n"], p["o"], p["oh"], p["ow"])))
        return out

    def input_specs(self, task):
        p = self.validate(task)
        res = INT8 if p["out_dtype"] == "int8" else UINT8
        return {
            "data": UINT8,
            "weight": INT8,
            "bias": BIAS,
            "scale": _scale_range(p),
            "residual": res,
        }

    def exact_output(self, task):
        """Bit-exact, except a Sigmoid epilogue: the kernel's vector exp is a polynomial
        (2 ulp), so a value at a rounding boundary can land one step off numpy's."""
        act = task.args.get("activation")
        return act is None or not str(act[0]).startswith("sigmoid")

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
        )
        return self.finish_reference(p, x, inputs)

    @staticmethod
    def finish_reference(p: dict[str, Any], x: np.ndarray, inputs) -> np.ndarray:
        """The epilogue's oracle on the int32 accumulator (see `conv_int8_epilogue`)."""
        return QR.int8_conv_epilogue(
            x,
            inputs.get("bias") if p["bias"] else None,
            inputs.get("scale"),
            p["out_dtype"],
            p["zo"],
            inputs.get("residual"),
            p["residual"],
            p["relu"],
            p["out_max"],
            p["act"],
        )

    @staticmethod
    def epilogue_inputs(p: dict[str, Any], ob: int) -> list[tuple[str, te.Tensor]]:
        """Kernel-layout bias, scale and residual placeholders the epilogue reads."""
        o = p["o"]
        extra: list[tuple[str, te.Tensor]] = []
        if p["bias"]:
            extra.append(("bias", te.placeholder((o // ob, ob), "int32", "bias")))
        if p["out_dtype"] != "int32":
            extra.append(("scale", te.placeholder((o // ob, ob), "float32", "scale")))
        if p["residual"]:
            shape = (p["n"], o // ob, p["oh"], p["ow"], ob)
            extra.append(("residual", te.placeholder(shape, p["out_dtype"], "residual")))
        return extra

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["o"] * p["oh"] * p["ow"] * p["c"] * p["kh"] * p["kw"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        ib, ob = p["blocks"] or (None, None)
        sp = ConfigSpace()
        sp.define_split(
            "tile_ic",
            p["cp"],
            2,
            max_factor=64,
            filter=lambda f: f[1] % 4 == 0 and ib in (None, f[1]),
        )
        sp.define_split(
            "tile_oc", p["o"], 3, max_factor=64, filter=lambda f: f[1] <= 4 and ob in (None, f[2])
        )
        sp.define_split("tile_ow", p["ow"], 2, max_factor=32)
        sp.define_knob("unroll_kw", [True, False])
        sp.define_knob("order", list(ORDERS))
        define_pad_knob(sp, p["padding"])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        lanes = vector_lanes(target)
        ib, ob = p["blocks"] or (
            next(b for b in (16, 8, 4) if p["cp"] % b == 0),
            best_block(p["o"], lanes),
        )
        reg = max(d for d in divisors(p["ow"]) if d <= 14)
        inner = 2 if reg <= 8 and (p["o"] // ob) % 2 == 0 else 1
        values = {
            "tile_ic": (p["cp"] // ib, ib),
            "tile_oc": (p["o"] // ob // inner, inner, ob),
            "tile_ow": (p["ow"] // reg, reg),
            "unroll_kw": True,
            "order": "kw_outer",
        }
        return with_pad(values, p, "copy")

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, task.op)
        ib, ob = cfg["tile_ic"][1], cfg["tile_oc"][2]
        cfg["oc_inner"] = cfg["tile_oc"][1]
        n, cp, o = p["n"], p["cp"], p["o"]
        data = te.placeholder((n, cp // ib, p["h"], p["w"], ib // 4), "int32", "data")
        weight = te.placeholder(
            (o // ob, cp // ib, p["kh"], p["kw"], ib // 4, ob), "int32", "weight"
        )
        conv = conv2d_nchwc_int8(data, weight, p["strides"], p["padding"], p["dilation"], p["za"])
        wsum = weight_sums(weight) if p["za"] else None
        extra = self.epilogue_inputs(p, ob)
        out = conv_int8_epilogue(
            conv,
            wsum,
            p["za"],
            dict(extra),
            p["out_dtype"],
            p["zo"],
            p["residual"],
            p["relu"],
            out_max=p["out_max"],
            activation=p["act"],
        )
        steps: list[S.Step] = []
        if wsum is not None:
            steps += [
                S.Reorder("wsum", ("occ", "wicc", "wkh", "wkw", "wicb", "ocb")),
                S.Vectorize("wsum", "ocb"),
            ]
        if any(p["padding"]):
            steps += pad_steps("conv_pad", ("n", "icc", "h", "w", "icb"), cfg["pad"])
        order = (
            ("icc", "kh", "kw", "icb") if cfg["order"] == "kw_outer" else ("icc", "kh", "icb", "kw")
        )
        unroll = ("kw",) if cfg["unroll_kw"] else ()
        steps += register_tile_steps(
            out.name, "conv", ("n", "occ", "oh", "ow", "ocb"), cfg, order, unroll
        )
        return self._kernel(task, p, [data, weight], extra, out, steps, ib, ob)

    def _kernel(self, task, p, inputs, extra, out, steps, ib, ob) -> KernelDef:
        out_layout = f"NCHW{ob}c"

        def pack_out(x):
            return L.transform(x, "NCHW", out_layout)

        cp, za = p["cp"], p["za"]
        packers = [lambda x: pack_data(x, cp, ib, za), lambda x: pack_weight(x, cp, ib, ob)]
        for kind, _ in extra:
            packers.append(pack_out if kind == "residual" else (lambda x: x.reshape(-1, ob).copy()))
        return KernelDef(
            inputs=[*inputs, *(t for _, t in extra)],
            outputs=[out],
            steps=steps,
            packers=packers,
            output_packer=pack_out,
            io_key=io_key(task, ib=ib, ob=ob),
            notes={
                "data_layout": f"NCHW{ib}c",
                "out_layout": out_layout,
                "weight_layout": f"OIHW{ib // 4}i{ob}o4i",
            },
        )


__all__ = ["Conv2dInt8", "pack_data", "pack_weight", "qconv_params"]
