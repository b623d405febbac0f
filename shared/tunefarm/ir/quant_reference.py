"""numpy oracles of the quantized ops, written apart from the tensor IR.

They follow the rules stated in `tunefarm.ir.ops.quantize` (round halves to even, clamp
before converting, float32 scale arithmetic, fixed-point rescale for add) and compute
convolutions exactly in int64 before narrowing, so an int8 kernel is checked bit for bit.
"""

from __future__ import annotations

import numpy as np

from tunefarm.ir import reference as R

QRANGE = {"int8": (-128, 127), "uint8": (0, 255)}


def _per_axis(value, ndim: int, axis: int, dtype) -> np.ndarray:
    """A per-tensor scalar, or a 1-D per-channel array shaped to broadcast along `axis`."""
    arr = np.asarray(value, dtype)
    if arr.ndim == 0:
        return arr
    shape = [1] * ndim
    shape[axis % ndim] = -1
    return arr.reshape(shape)


def saturate(value: np.ndarray, zero_point, dtype: str) -> np.ndarray:
    lo, hi = QRANGE[dtype]
    z = np.asarray(zero_point, np.int64)
    clamped = np.clip(value, (lo - z).astype(np.float32), (hi - z).astype(np.float32))
    return (clamped.astype(np.int64) + z).astype(dtype)


def quantize(x, scale, zero_point=0, dtype="int8", axis=1) -> np.ndarray:
    x = np.asarray(x, np.float32)
    s = _per_axis(scale, x.ndim, axis, np.float32)
    z = _per_axis(zero_point, x.ndim, axis, np.int64)
    return saturate(np.rint(x / s), z, dtype)


def dequantize(q, scale, zero_point=0, axis=1) -> np.ndarray:
    q = np.asarray(q)
    s = _per_axis(scale, q.ndim, axis, np.float32)
    z = _per_axis(zero_point, q.ndim, axis, np.int64)
    return (q.astype(np.int64) - z).astype(np.float32) * s


def requantize(acc, scale, zero_point=0, dtype="int8", axis=1) -> np.ndarray:
    acc = np.asarray(acc, np.int32)
    s = _per_axis(scale, acc.ndim, axis, np.float32)
    z = _per_axis(zero_point, acc.ndim, axis, np.int64)
    return saturate(np.rint(acc.astype(np.float32) * s), z, dtype)


def add(a, b, mults, zero_points, dtype="int8") -> np.ndarray:
    """Quantized add with fixed-point multipliers (ma, mb, shift) from `add_multipliers`."""
    ma, mb, shift = mults
    za, zb, zo = zero_points
    total = (np.asarray(a, np.int64) - za) * ma + (np.asarray(b, np.int64) - zb) * mb
    total = total.astype(np.int32)  # the kernel's int32 sum: never overflows by construction
    value = np.rint(total.astype(np.float32) * np.float32(2.0**-shift))
    return saturate(value, zo, dtype)


def add_float(a, b, ratios, dtype="uint8") -> np.ndarray:
    """Quantized add as ONNX Runtime's QLinearAdd rounds it on x86 (see
    `tunefarm.ir.ops.quantize.add_float`): ratios = (ra, rb, c) from `add_float_params`."""
    ra, rb, c = (np.float32(v) for v in ratios)
    fa = np.asarray(a).astype(np.float32)
    fb = np.asarray(b).astype(np.float32)
    value = _fma32(fa, ra, _fma32(fb, rb, np.full(fb.shape, c, np.float32)))
    return saturate(np.rint(value), 0, dtype)


def global_avg_pool(x, scale, zero_in, zero_out, dtype="uint8") -> np.ndarray:
    """Quantized mean over H, W of NCHW x: requantize(sum - zero_in * H*W) with the float32
    `scale` from `tunefarm.ir.ops.pool.global_avg_pool_scale`."""
    x = np.asarray(x, np.int64)
    area = x.shape[2] * x.shape[3]
    acc = (x.sum(axis=(2, 3), keepdims=True) - int(zero_in) * area).astype(np.int32)
    return requantize(acc, np.float32(scale), zero_out, dtype)


def _fma32(a, b, c) -> np.ndarray:
    wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
    return wide.astype(np.float32)


def conv2d_int(data, weight, data_zp, weight_zp, strides, padding, dilation=1, groups=1):
    """int32 conv of (data - data_zp) and (weight - weight_zp): exact in float64 for the
    sizes we test (|sum| < 2**53), narrowed to int32. weight_zp may be per output channel.
    Padding is with the zero point (i.e. real zero)."""
    x = np.asarray(data, np.float64) - float(data_zp)
    wz = np.asarray(weight_zp, np.float64).reshape(-1, 1, 1, 1)
    w = np.asarray(weight, np.float64) - wz
    out = R.conv2d_nchw(x, w, strides, padding, dilation, groups)
    return np.rint(out).astype(np.int64).astype(np.int32)


def dense_int(data, weight, data_zp, weight_zp) -> np.ndarray:
    x = np.asarray(data, np.int64) - int(data_zp)
    w = np.asarray(weight, np.int64) - np.asarray(weight_zp, np.int64).reshape(-1, 1)
    return (x @ w.T).astype(np.int32)


def activation(kind: str, alpha: float, v: np.ndarray) -> np.ndarray:
    """`tunefarm.ir.ops.quantize.activation_float` on float32 values."""
    v = np.asarray(v, np.float32)
    if kind == "leaky_relu":
        return np.where(v >= 0, v, v * np.float32(alpha)).astype(np.float32)
    if kind == "sigmoid":
        with np.errstate(over="ignore"):
            return (np.float32(1.0) / (np.float32(1.0) + np.exp(-v))).astype(np.float32)
    gate = _fma32(v, np.float32(1.0 / 6.0), np.float32(0.5))
    return (v * np.clip(gate, np.float32(0.0), np.float32(1.0))).astype(np.float32)


def activation_requantize(acc, scale, act, dtype="uint8") -> np.ndarray:
    """`tunefarm.ir.ops.quantize.activation_value` on an int32 NCHW accumulator: act =
    (spec, s_mid, z_mid, s_out, z_out); s_mid > 0 rounds the conv value at (s_mid, z_mid)
    first, as a QDQ model's Q -> DQ between the conv and the activation does."""
    spec, s_mid, z_mid, s_out, z_out = act
    kind, *args = str(spec).split(":")
    alpha = float(args[0]) if args else 0.0
    acc = np.asarray(acc, np.int32)
    if float(s_mid) > 0:
        q = requantize(acc, scale, int(z_mid), dtype, axis=1).astype(np.int64)
        v = (q - int(z_mid)).astype(np.float32) * np.float32(s_mid)
    else:
        v = acc.astype(np.float32) * _per_axis(scale, acc.ndim, 1, np.float32)
    f = activation(kind, alpha, v)
    return saturate(np.rint(f / np.float32(s_out)), int(z_out), dtype)


def int8_conv_epilogue(
    x: np.ndarray,
    bias: np.ndarray | None,
    scale: np.ndarray | None,
    out_dtype: str,
    out_zero_point: int,
    residual: np.ndarray | None = None,
    residual_params: tuple | None = None,
    relu: bool = False,
    out_max: int | None = None,
    act: tuple | None = None,
) -> np.ndarray:
    """The int8 conv epilogue on an int32 NCHW accumulator (already zero-point corrected):
    + bias, requantize per channel (or a requantizing activation `act`, see
    `activation_requantize`), residual add, ReLU at the zero point.
    residual_params: (mults, (z_r, z_out)) as `add_multipliers` and the zero points, for
    the fixed-point add; or ("float", ratios, residual_first) for QLinearAdd's float rule
    (`add_float`; ratios in the order of the model's Add operands)."""
    if bias is not None:
        x = (x.astype(np.int64) + np.asarray(bias).reshape(1, -1, 1, 1)).astype(np.int32)
    if out_dtype == "int32":
        return np.maximum(x, 0) if relu else x
    if act is not None:
        q = activation_requantize(x, scale, act, out_dtype)
    else:
        q = requantize(x, scale, out_zero_point, out_dtype, axis=1)
    z_final = out_zero_point
    if residual_params is not None and residual_params[0] == "float":
        _, ratios, first = residual_params
        pair = (residual, q) if first else (q, residual)
        q, z_final = add_float(*pair, ratios, out_dtype), 0
    elif residual_params is not None:
        mults, (z_r, z_final) = residual_params
        q = add(q, residual, mults, (out_zero_point, z_r, z_final), out_dtype)
    if relu:
        q = np.maximum(q, np.array(z_final, q.dtype))
    if out_max is not None:
        q = np.minimum(q, np.array(out_max, q.dtype))
    return q
