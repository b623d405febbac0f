"""Quantized arithmetic in the tensor IR: quantize, dequantize, requantize, int8 add.

Every op states its rounding and saturation, so that a kernel and the numpy oracle
(`tunefarm.ir.quant_reference`) agree bit for bit:

- rounding is to the nearest integer with halves to even (C's `nearbyint` in the default
  rounding mode, numpy's `rint`, ONNX QuantizeLinear's rule);
- saturation clamps to the output dtype's range ([-128, 127] for int8, [0, 255] for uint8)
  *before* the float-to-int conversion, so no conversion overflows;
- scale arithmetic is float32: `float32(x) * scale` or `x / scale`, never fused into an FMA
  (the ops never add two rounded products; `add` rescales in fixed point instead).

A scale or zero point is a Python number (per tensor) or a 1-D tensor along `axis` (per
channel: float32 scales, int32 zero points).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, cast, const, max_, min_, nearbyint
from tunefarm.ir.tensor import Tensor

QRANGE = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-(2**31), 2**31 - 1)}
QUANT_DTYPES = ("int8", "uint8")
ADD_MULT_BITS = 22  # |a - za| <= 255, so two terms of M < 2**22 each stay inside int32
ADD_MAX_SHIFT = 24

Param = float | int | Tensor


def qrange(dtype: str) -> tuple[int, int]:
    if dtype not in QUANT_DTYPES:
        raise ValueError(f"quantized dtype must be one of {QUANT_DTYPES}, got {dtype!r}")
    return QRANGE[dtype]


def _param(value: Param, idx: tuple[Expr, ...], axis: int, dtype: str) -> Expr:
    """A per-tensor constant, or the per-channel tensor's element at the output index."""
    if isinstance(value, Tensor):
        if value.ndim != 1:
            raise ValueError(f"per-channel {value.name!r} must be 1-D, got shape {value.shape}")
        return cast(value[idx[axis]], dtype)
    return const(value, dtype)


def _check_axis(x: Tensor, axis: int, *params: Param) -> int:
    if any(isinstance(p, Tensor) for p in params):
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of range for a {x.ndim}-D tensor")
        axis %= x.ndim
        for p in params:
            if isinstance(p, Tensor) and p.shape != (x.shape[axis],):
                raise ValueError(
                    f"per-channel {p.name!r} has shape {p.shape}; axis {axis} of "
                    f"{x.name!r} has {x.shape[axis]} channels"
                )
    return axis


def saturate(
    value: Expr,
    zero_point: Expr,
    dtype: str,
    floor: int | None = None,
    ceil: int | None = None,
    as_int32: bool = False,
) -> Expr:
    """`value` (a float holding an integer) plus the zero point, clamped to `dtype`: the
    clamp is on the float, so the conversion to int32 never overflows.

    floor / ceil (quantized values) narrow the range: max(q, floor) and then min(q, ceil)
    folded into the one clamp (a ReLU at the zero point, a ReLU6 bound), which is the same
    result. as_int32 keeps the clamped value in int32 (for a consumer that widens it
    again, as the residual add does) instead of converting it to `dtype`."""
    lo, hi = qrange(dtype)
    if floor is not None:
        lo = max(lo, int(floor))
    if ceil is not None:
        hi = min(hi, int(ceil))
    lo_f, hi_f = (
        cast(const(lo, "int32") - zero_point, "float32"),
        cast(const(hi, "int32") - zero_point, "float32"),
    )
    clamped = min_(max_(value, lo_f), hi_f)
    out = cast(clamped, "int32") + zero_point
    return out if as_int32 else cast(out, dtype)


def requant_value(acc: Expr, scale: Expr, zero_point: Expr, dtype: str, **bounds) -> Expr:
    """int32 accumulator -> `dtype`: saturate(rint(float32(acc) * scale) + zero_point);
    `bounds`: saturate's floor / ceil / as_int32."""
    return saturate(nearbyint(cast(acc, "float32") * scale), zero_point, dtype, **bounds)


def quantize(
    x: Tensor,
    scale: Param,
    zero_point: Param = 0,
    dtype: str = "int8",
    axis: int = 1,
    name: str = "quantize",
) -> Tensor:
    """float32 -> dtype: saturate(rint(x / scale) + zero_point)."""
    axis = _check_axis(x, axis, scale, zero_point)
    qrange(dtype)

    def body(*idx: Expr) -> Expr:
        s, z = _param(scale, idx, axis, "float32"), _param(zero_point, idx, axis, "int32")
        return saturate(nearbyint(cast(x[idx], "float32") / s), z, dtype)

    return te.compute(x.shape, body, name=name, tag="quantize")


def dequantize(
    q: Tensor, scale: Param, zero_point: Param = 0, axis: int = 1, name: str = "dequantize"
) -> Tensor:
    """dtype -> float32: float32(int32(q) - zero_point) * scale."""
    axis = _check_axis(q, axis, scale, zero_point)

    def body(*idx: Expr) -> Expr:
        s, z = _param(scale, idx, axis, "float32"), _param(zero_point, idx, axis, "int32")
        return cast(cast(q[idx], "int32") - z, "float32") * s

    return te.compute(q.shape, body, name=name, tag="dequantize")


def requantize(
    acc: Tensor,
    scale: Param,
    zero_point: Param = 0,
    dtype: str = "int8",
    axis: int = 1,
    name: str = "requantize",
) -> Tensor:
    """int32 -> dtype: saturate(rint(float32(acc) * scale) + zero_point), where `scale` is
    input scale x weight scale / output scale (per tensor or per output channel)."""
    axis = _check_axis(acc, axis, scale, zero_point)

    def body(*idx: Expr) -> Expr:
        s, z = _param(scale, idx, axis, "float32"), _param(zero_point, idx, axis, "int32")
        return requant_value(cast(acc[idx], "int32"), s, z, dtype)

    return te.compute(acc.shape, body, name=name, tag="requantize")


def add_multipliers(scale_a: float, scale_b: float, scale_out: float) -> tuple[int, int, int]:
    """Fixed-point multipliers (ma, mb, shift) with m ~= round(scale / scale_out * 2**shift),
    shift as large as keeps both below 2**ADD_MULT_BITS (so the int32 sum cannot overflow)."""
    for s in (scale_a, scale_b, scale_out):
        if not (s > 0 and math.isfinite(s)):
            raise ValueError(f"scales must be positive and finite, got {s!r}")
    ra, rb = scale_a / scale_out, scale_b / scale_out
    shift = ADD_MAX_SHIFT
    while shift > 0 and max(ra, rb) * 2.0**shift >= 2**ADD_MULT_BITS:
        shift -= 1
    ma, mb = round(ra * 2.0**shift), round(rb * 2.0**shift)
    if max(ma, mb) >= 2**ADD_MULT_BITS:
        raise ValueError(f"scale ratio {max(ra, rb):.3g} is too large to rescale in int32")
    return ma, mb, shift


def add_value(
    a: Expr, b: Expr, zps: Sequence[int], mults: tuple[int, int, int], dtype: str, **bounds
) -> Expr:
    """saturate(rint(float32((a - za) * ma + (b - zb) * mb) * 2**-shift) + zo); `bounds`:
    saturate's floor / ceil."""
    za, zb, zo = zps
    ma, mb, shift = mults
    total = (cast(a, "int32") - za) * ma + (cast(b, "int32") - zb) * mb
    value = nearbyint(cast(total, "float32") * const(2.0**-shift))
    return saturate(value, const(zo, "int32"), dtype, **bounds)


def add(
    a: Tensor,
    b: Tensor,
    scales: Sequence[float],
    zero_points: Sequence[int],
    dtype: str = "int8",
    name: str = "qadd",
) -> Tensor:
    """Quantized a + b: both rescaled to the output's scale in fixed point (`add_multipliers`),
    summed in int32 and rounded once. scales / zero_points: (a, b, out)."""
    if a.shape != b.shape:
        raise ValueError(f"qadd: shapes {a.shape} and {b.shape} differ")
    mults = add_multipliers(*scales)
    zps = tuple(int(z) for z in zero_points)

    def body(*idx: Expr) -> Expr:
        return add_value(a[idx], b[idx], zps, mults, dtype)

    return te.compute(a.shape, body, name=name, tag="qadd")


def add_float_params(scales: Sequence[float], zero_points: Sequence[int]) -> tuple[float, ...]:
    """(ra, rb, c) of `add_float`: ra = s_a / s_out and rb = s_b / s_out in float32, and
    c = z_out - (ra * z_a + rb * z_b), each step rounded to float32 (no FMA)."""
    f = np.float32
    sa, sb, so = (f(s) for s in scales)
    for s in (sa, sb, so):
        if not (s > 0 and math.isfinite(s)):
            raise ValueError(f"scales must be positive and finite, got {float(s)!r}")
    za, zb, zo = (f(int(z)) for z in zero_points)
    ra, rb = f(sa / so), f(sb / so)
    c = f(zo - f(f(ra * za) + f(rb * zb)))
    return float(ra), float(rb), float(c)


def add_float(
    a: Tensor,
    b: Tensor,
    scales: Sequence[float],
    zero_points: Sequence[int],
    dtype: str = "uint8",
    name: str = "qadd",
) -> Tensor:
    """Quantized a + b rounded as ONNX Runtime's QLinearAdd does on x86 (its float kernel):
    saturate(rint(fma(a, ra, fma(b, rb, c)))), the zero points folded into c. A QDQ model's
    DequantizeLinear-Add-QuantizeLinear becomes this op so that it matches ONNX Runtime's
    fused output bit for bit; the fixed-point `add` is our own quantization pass's rule."""
    if a.shape != b.shape:
        raise ValueError(f"qadd: shapes {a.shape} and {b.shape} differ")
    ra, rb, c = add_float_params(scales, zero_points)

    def body(*idx: Expr) -> Expr:
        fa = cast(cast(a[idx], "int32"), "float32")
        fb = cast(cast(b[idx], "int32"), "float32")
        value = call("fma", fa, const(ra), call("fma", fb, const(rb), const(c)))
        return saturate(nearbyint(value), const(0, "int32"), dtype)

    return te.compute(a.shape, body, name=name, tag="qadd")


# ---- requantizing activations (the int8 conv's LeakyRelu / Sigmoid / HardSwish epilogue)
QUANT_ACTIVATIONS = ("leaky_relu", "sigmoid", "hard_swish")


def parse_activation(spec: str) -> tuple[str, float]:
    """("leaky_relu", alpha) from "leaky_relu:ALPHA"; ("sigmoid" | "hard_swish", 0.0)."""
    kind, *args = str(spec).split(":")
    if kind not in QUANT_ACTIVATIONS or len(args) != (kind == "leaky_relu"):
        raise ValueError(f"activation {spec!r}: use leaky_relu:ALPHA, sigmoid or hard_swish")
    return kind, float(args[0]) if args else 0.0


def activation_float(kind: str, alpha: float, v: Expr) -> Expr:
    """The activation on a float32 value, as ONNX defines it. HardSwish is
    v * clamp(v / 6 + 1/2, 0, 1) with an explicit fma (the C compiler contracts a multiply
    and an add into one anyway: written out, the numpy oracle computes the same)."""
    if kind == "leaky_relu":  # max(v, 0) + min(v, 0) * alpha: one term is 0, so exact
        # (contracted into an fma or not) and vectorisable, where a select of two loads
        # of the accumulator falls back to a scalar loop in the C emitter
        return max_(v, const(0.0)) + min_(v, const(0.0)) * const(alpha)
    if kind == "sigmoid":
        return const(1.0) / (const(1.0) + call("exp", -v))
    gate = call("fma", v, const(float(np.float32(1.0 / 6.0))), const(0.5))
    return v * min_(max_(gate, const(0.0)), const(1.0))


def activation_value(acc: Expr, scale: Expr, activation: Sequence, dtype: str, **bounds) -> Expr:
    """int32 accumulator -> quantized f(value), activation = (spec, s_mid, z_mid, s_out,
    z_out). With s_mid > 0 (a QDQ model's Conv -> Q -> DQ -> f -> Q) the conv value is
    requantized at (s_mid, z_mid) first, as the model rounds it, then dequantized:
    v = (saturate(rint(acc * scale) + z_mid) - z_mid) * s_mid; with s_mid == 0 (Conv -> f
    -> Q) v = acc * scale, `scale` being the accumulator's own scale s_x * s_w. Then
    saturate(rint(f(v) / s_out) + z_out), QuantizeLinear's rule; `bounds`: saturate's."""
    spec, s_mid, z_mid, s_out, z_out = activation
    kind, alpha = parse_activation(spec)
    if float(s_mid) > 0:
        q = saturate(
            nearbyint(cast(acc, "float32") * scale),
            const(int(z_mid), "int32"),
            dtype,
            as_int32=True,
        )
        v = cast(q - int(z_mid), "float32") * const(float(s_mid))
    else:
        v = cast(acc, "float32") * scale
    f = activation_float(kind, alpha, v)
    return saturate(nearbyint(f / const(float(s_out))), const(int(z_out), "int32"), dtype, **bounds)


def add_float_value(a: Expr, b: Expr, ratios: Sequence[float], dtype: str, **bounds) -> Expr:
    """`add_float`'s value of two quantized expressions (ratios from `add_float_params`):
    saturate(rint(fma(a, ra, fma(b, rb, c)))); `bounds`: saturate's floor / ceil."""
    ra, rb, c = ratios
    fa, fb = cast(cast(a, "int32"), "float32"), cast(cast(b, "int32"), "float32")
    value = call("fma", fa, const(ra), call("fma", fb, const(rb), const(c)))
    return saturate(nearbyint(value), const(0, "int32"), dtype, **bounds)
