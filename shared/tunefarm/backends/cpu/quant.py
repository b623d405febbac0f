"""Elementwise quantized ops on the CPU: quantize, dequantize, requantize and int8 add.

Each is a compute definition from `tunefarm.ir.ops.quantize` under the generic schedule
(outer axes fused and parallel, innermost vectorised; knobs parallel, vectorize), checked
bit for bit against `tunefarm.ir.quant_reference`. Params (logical layout):

- quantize:   shape, dtype (int8|uint8), scale, zero_point     float32 x -> q
- dequantize: shape, dtype (of q), scale, zero_point           q -> float32
              (dtype int32, an accumulator: one scale, zero_point 0)
- requantize: shape, dtype (out), scale, zero_point            int32 x -> q
- qadd:       shape, dtype, scales [a, b, out], zero_points [a, b, out], rule: "fixed"
              (our fixed-point rescale, the default) or "float" (ONNX Runtime's
              QLinearAdd rounding, for imported QDQ adds)

quantize, dequantize and requantize take `axis: K` for per-channel parameters: then scale
and zero_point are kernel inputs of shape [shape[K]] (float32, int32) instead of params.
"""

from __future__ import annotations

import math
from typing import Any

from tunefarm.backends.cpu.generic import generic_steps
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import tensor as te
from tunefarm.ir.ops import quantize as Q
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    INT8,
    UINT8,
    InputSpec,
    KernelDef,
    Template,
    check_config,
    identity,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

ACC = InputSpec("int32", -(2**17), 2**17)  # wide enough to saturate both ends
SCALE = InputSpec("float32", 2.0**-12, 2.0**-8)
FLOAT_IN = InputSpec("float32", -4.0, 4.0)
ZP_RANGE = {"int8": (-20, 20), "uint8": (100, 150)}
IN_DTYPE = {"quantize": "float32", "dequantize": None, "requantize": "int32", "qadd": None}


def check_scale(op: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskError(f"{op}: param {key!r} must be a number, got {value!r}")
    if not (value > 0 and math.isfinite(value)):
        raise TaskError(f"{op}: param {key!r} must be positive and finite, got {value!r}")
    return float(value)


def check_zero_point(op: str, key: str, value: Any, dtype: str) -> int:
    lo, hi = Q.qrange(dtype)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise TaskError(
            f"{op}: param {key!r} must be an int in [{lo}, {hi}] for {dtype}, got {value!r}"
        )
    return value


def _params(task: Task) -> dict[str, Any]:
    """Checked params; TaskError naming the bad one."""
    a, op = task.args, task.op
    try:
        shape = tuple(int(v) for v in a["shape"])
    except KeyError:
        raise TaskError(f"{op}: missing param 'shape'") from None
    except (TypeError, ValueError):
        raise TaskError(f"{op}: param 'shape' must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{op}: param 'shape' must be a non-empty shape of positive ints")
    dtype = a.get("dtype", "int8")
    if op == "dequantize" and dtype == "int32":  # an accumulator to float: scale only
        p = {"shape": shape, "dtype": dtype, "axis": None, "zero_point": 0}
        p["scale"] = check_scale(op, "scale", a.get("scale", 1.0))
        if a.get("zero_point", 0) != 0 or "axis" in a:
            raise TaskError("dequantize: an int32 input takes one scale and zero_point 0")
        return p
    if dtype not in Q.QUANT_DTYPES:
        raise TaskError(f"{op}: param 'dtype' must be one of {Q.QUANT_DTYPES}, got {dtype!r}")
    p: dict[str, Any] = {"shape": shape, "dtype": dtype, "axis": None}
    if op == "qadd":
        scales, zps = a.get("scales"), a.get("zero_points")
        if not isinstance(scales, tuple | list) or len(scales) != 3:
            raise TaskError(f"qadd: param 'scales' must be [a, b, out], got {scales!r}")
        if not isinstance(zps, tuple | list) or len(zps) != 3:
            raise TaskError(f"qadd: param 'zero_points' must be [a, b, out], got {zps!r}")
        p["scales"] = tuple(check_scale(op, f"scales[{i}]", s) for i, s in enumerate(scales))
        p["zero_points"] = tuple(
            check_zero_point(op, f"zero_points[{i}]", z, dtype) for i, z in enumerate(zps)
        )
        p["rule"] = a.get("rule", "fixed")
        if p["rule"] not in ("fixed", "float"):
            raise TaskError(f"qadd: param 'rule' must be 'fixed' or 'float', got {p['rule']!r}")
        try:
            if p["rule"] == "float":
                p["ratios"] = Q.add_float_params(p["scales"], p["zero_points"])
            else:
                p["mults"] = Q.add_multipliers(*p["scales"])
        except ValueError as exc:
            raise TaskError(f"qadd: {exc}") from None
        return p
    if "axis" in a:
        axis = a["axis"]
        if (
            isinstance(axis, bool)
            or not isinstance(axis, int)
            or not -len(shape) <= axis < len(shape)
        ):
            raise TaskError(
                f"{op}: param 'axis' must be an int in [{-len(shape)}, "
                f"{len(shape) - 1}] for shape {list(shape)}, got {axis!r}"
            )
        p["axis"] = axis % len(shape)
        return p
    p["scale"] = check_scale(op, "scale", a.get("scale", 1.0))
    p["zero_point"] = check_zero_point(op, "zero_point", a.get("zero_point", 0), dtype)
    return p


class QuantTemplate(Template):
    """One of the elementwise quantized ops (`op` picks which)."""

    def __init__(self, op: str):
        self.op = op

    def validate(self, task: Task) -> dict[str, Any]:
        return _params(task)

    def _in_dtype(self, p: dict[str, Any]) -> str:
        return IN_DTYPE[self.op] or p["dtype"]

    def logical_inputs(self, task):
        p = self.validate(task)
        if self.op == "qadd":
            return [("a", p["shape"]), ("b", p["shape"])]
        out = [("x", p["shape"])]
        if p["axis"] is not None:
            channels = (p["shape"][p["axis"]],)
            out += [("scale", channels), ("zero_point", channels)]
        return out

    def input_specs(self, task):
        p = self.validate(task)
        q = {"int8": INT8, "uint8": UINT8, "int32": ACC}[p["dtype"]]
        x = {"quantize": FLOAT_IN, "requantize": ACC}.get(self.op, q)
        lo, hi = ZP_RANGE.get(p["dtype"], (0, 0))
        return {"x": x, "a": q, "b": q, "scale": SCALE, "zero_point": InputSpec("int32", lo, hi)}

    def exact_output(self, task):
        return True

    def reference(self, task, inputs):
        p, xs = self.validate(task), list(inputs.values())
        if self.op == "qadd" and p["rule"] == "float":
            return QR.add_float(xs[0], xs[1], p["ratios"], p["dtype"])
        if self.op == "qadd":
            return QR.add(xs[0], xs[1], p["mults"], p["zero_points"], p["dtype"])
        s, z = (xs[1], xs[2]) if p["axis"] is not None else (p["scale"], p["zero_point"])
        axis = p["axis"] or 0
        if self.op == "dequantize":
            return QR.dequantize(xs[0], s, z, axis)
        fn = QR.quantize if self.op == "quantize" else QR.requantize
        return fn(xs[0], s, z, p["dtype"], axis)

    def flops(self, task):
        return float(math.prod(self.validate(task)["shape"]))

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = ConfigSpace()
        sp.define_knob("parallel", [True, False])
        sp.define_knob("vectorize", [True, False])
        return sp

    def build(self, p: dict[str, Any]) -> tuple[list[te.Tensor], te.Tensor]:
        if self.op == "qadd":
            a = te.placeholder(p["shape"], p["dtype"], "a")
            b = te.placeholder(p["shape"], p["dtype"], "b")
            if p["rule"] == "float":
                out = Q.add_float(a, b, p["scales"], p["zero_points"], p["dtype"], name="out")
                return [a, b], out
            return [a, b], Q.add(a, b, p["scales"], p["zero_points"], p["dtype"], name="out")
        x = te.placeholder(p["shape"], self._in_dtype(p), "x")
        inputs = [x]
        if p["axis"] is not None:
            channels = (p["shape"][p["axis"]],)
            s = te.placeholder(channels, "float32", "scale")
            z = te.placeholder(channels, "int32", "zero_point")
            inputs += [s, z]
        else:
            s, z = p["scale"], p["zero_point"]
        axis = p["axis"] or 0
        if self.op == "dequantize":
            return inputs, Q.dequantize(x, s, z, axis, name="out")
        fn = Q.quantize if self.op == "quantize" else Q.requantize
        return inputs, fn(x, s, z, p["dtype"], axis, name="out")

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        inputs, out = self.build(self.validate(task))
        steps = generic_steps(out, inputs, cfg)
        return KernelDef(inputs, [out], steps, [identity] * len(inputs), identity, io_key(task))


TEMPLATES = [QuantTemplate(op) for op in ("quantize", "dequantize", "requantize", "qadd")]

__all__ = ["TEMPLATES", "QuantTemplate", "check_scale", "check_zero_point"]
