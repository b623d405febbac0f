"""int8 convolution in packed channel blocks, with the four-way dot product as its unit.

Activations are uint8 and weights int8, as x86 VNNI (`vpdpbusd`) wants them. Both are
stored four channels to a 32-bit word, so the kernels read int32 words:

- data   [N, C/ib, H, W, ib/4]          each word: 4 consecutive input channels (uint8)
- weight [O/ob, C/ib, KH, KW, ib/4, ob]  each word: 4 consecutive input channels (int8) of
  one output channel, i.e. the weight layout OIHW[ib/4]i[ob]o[4]i

and the reduction's innermost step is `dot4(data word, weight word)` (see
`tunefarm.ir.expr.INT_FUNCS`), which a backend maps to one instruction where it has one.

A data zero point `za` is handled as real zero: padding is filled with `za`, and the
epilogue subtracts `za * sum(weights of the output channel)` (stage `wsum`, computed from the
packed weights with dot4 against a word of ones).
"""

from __future__ import annotations

from collections.abc import Sequence

from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Const, Expr, cast, dot4, max_
from tunefarm.ir.ops.conv import _conv_attrs, _out_hw, _window, pad
from tunefarm.ir.ops.quantize import activation_value, add_float_value, add_value, requant_value
from tunefarm.ir.tensor import Tensor

ONES = 0x01010101  # a word of four uint8 ones: dot4(ONES, w) sums w's four int8 lanes


def splat_word(byte: int) -> int:
    """The int32 word holding `byte` (0..255) in all four lanes, as a signed value."""
    word = (byte & 0xFF) * ONES
    return word - (1 << 32) if word >= 1 << 31 else word


def conv2d_nchwc_int8(
    data: Tensor,
    weight: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    data_zero_point: int = 0,
    name: str = "conv",
) -> Tensor:
    """Packed int8 conv: int32 output [N, O/ob, OH, OW, ob] = sum of dot4 over (icc, kh,
    kw, icb), without the zero-point correction (see `weight_sums`)."""
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, icc_n, h, w, iq = data.shape
    occ_n, k_icc, kh, kw, k_iq, ob = weight.shape
    if data.dtype != "int32" or weight.dtype != "int32":
        raise ValueError("data and weight must be packed int32 words (four 8-bit lanes each)")
    if (k_icc, k_iq) != (icc_n, iq):
        raise ValueError(
            f"weight shape {weight.shape}: dims 1 and 4 must match the data's blocks "
            f"({icc_n}, {iq}) of data {data.shape}"
        )
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = data
    if any(p):
        padded = pad(
            data,
            (0, 0, p[0], p[1], 0),
            (0, 0, p[2], p[3], 0),
            splat_word(data_zero_point),
            name=f"{name}_pad",
            axis_names=("n", "icc", "h", "w", "icb"),
        )
    icc, rkh = te.reduce_axis(icc_n, "icc"), te.reduce_axis(kh, "kh")
    rkw, icb = te.reduce_axis(kw, "kw"), te.reduce_axis(iq, "icb")

    def body(n: Expr, occ: Expr, oh: Expr, ow: Expr, ocb: Expr) -> Expr:
        src = padded[n, icc, _window(oh, s[0], rkh, d[0]), _window(ow, s[1], rkw, d[1]), icb]
        return te.sum(dot4(src, weight[occ, icc, rkh, rkw, icb, ocb]), axis=[icc, rkh, rkw, icb])

    attrs = {"strides": s, "padding": p, "dilation": d, "layout": f"NCHW{iq * 4}c"}
    shape = (n, occ_n, oh, ow, ob)
    return te.compute(shape, body, name=name, tag="conv2d_nchwc_int8", attrs=attrs)


def weight_sums(weight: Tensor, name: str = "wsum") -> Tensor:
    """[O/ob, ob] int32: the sum of each output channel's int8 weights."""
    occ_n, icc_n, kh, kw, iq, ob = weight.shape
    icc, rkh = te.reduce_axis(icc_n, "wicc"), te.reduce_axis(kh, "wkh")
    rkw, icb = te.reduce_axis(kw, "wkw"), te.reduce_axis(iq, "wicb")

    def body(occ: Expr, ocb: Expr) -> Expr:
        word = weight[occ, icc, rkh, rkw, icb, ocb]
        return te.sum(dot4(Const(ONES, "int32"), word), axis=[icc, rkh, rkw, icb])

    return te.compute((occ_n, ob), body, name=name, tag="weight_sums")


def conv_int8_epilogue(
    acc: Tensor,
    wsum: Tensor | None,
    data_zero_point: int,
    extra: dict[str, Tensor],
    out_dtype: str,
    out_zero_point: int = 0,
    residual: tuple[tuple[int, int, int], tuple[int, int]] | None = None,
    relu: bool = False,
    name: str = "out",
    out_max: int | None = None,
    activation: tuple | None = None,
) -> Tensor:
    """The int8 conv's epilogue as one elementwise stage on the int32 accumulator:

    x = acc - za * wsum[c] + bias[c]                  (int32)
    q = saturate(rint(float32(x) * scale[c]) + zo)    (requantize, unless out_dtype int32)
    q = qadd(q, residual) with (mults, (zr, zf))      (residual add, rescaled in fixed point)
    q = max(q, z_final)                               (ReLU: real zero is the zero point)

    activation (spec, s_mid, z_mid, s_out, z_out) replaces the requantize with a
    requantizing LeakyRelu / Sigmoid / HardSwish (`quantize.activation_value`); a residual
    ("float", (ra, rb, c), residual_first) adds with QLinearAdd's float rule
    (`quantize.add_float_value`, the operands in the model's order).

    extra holds the optional "bias" (int32 [O/ob, ob]), "scale" (float32 [O/ob, ob]) and
    "residual" (out_dtype, the output's shape) tensors.
    """
    bias, scale, res = extra.get("bias"), extra.get("scale"), extra.get("residual")
    names = [ax.name for ax in acc.op.axes]

    def body(*idx: Expr) -> Expr:
        ch = (idx[1], idx[4])
        x: Expr = acc[idx]
        if wsum is not None and data_zero_point:
            x = x - wsum[ch] * data_zero_point
        if bias is not None:
            x = x + bias[ch]
        if out_dtype == "int32":
            return max_(x, Const(0, "int32")) if relu else x
        # ReLU (at the final zero point) and the upper clip are folded into the last
        # saturation's bounds; a requantized value feeding the residual add stays int32
        # (it is in the dtype's range already), so no narrowing and widening in between
        fixed = residual is not None and res is not None and residual[0] != "float"
        z_final = residual[1][1] if fixed else out_zero_point  # type: ignore[index]
        bounds = {"floor": z_final if relu else None, "ceil": out_max}
        zo = Const(out_zero_point, "int32")
        fused = residual is not None and res is not None
        if activation is not None:
            kw = {"as_int32": True} if fused else bounds
            q = activation_value(x, scale[ch], activation, out_dtype, **kw)  # type: ignore[index]
        elif not fused:
            return requant_value(x, scale[ch], zo, out_dtype, **bounds)  # type: ignore[index]
        else:
            q = requant_value(x, scale[ch], zo, out_dtype, as_int32=True)  # type: ignore[index]
        if not fused:
            return q
        if residual[0] == "float":  # type: ignore[index]
            _, ratios, first = residual  # type: ignore[misc]
            pair = (res[idx], q) if first else (q, res[idx])  # type: ignore[index]
            return add_float_value(*pair, ratios, out_dtype, **bounds)
        mults, (z_res, _) = residual
        return add_value(q, res[idx], (out_zero_point, z_res, z_final), mults, out_dtype, **bounds)

    return te.compute(acc.shape, body, name=name, tag="epilogue", axis_names=names)


def depthwise_nchwc_int8(
    data: Tensor,
    weight: Tensor,
    strides: Sequence[int] = (1, 1),
    padding: Sequence[int] = (0, 0, 0, 0),
    dilation: Sequence[int] = (1, 1),
    data_zero_point: int = 0,
    name: str = "conv",
) -> Tensor:
    """Depthwise int8 conv: uint8 data [N, C/cb, H, W, cb], weight [C/cb, KH, KW, cb] (int8
    values, stored widened to int32 since weights are packed once); int32 output
    sum((data - za) * weight) over the window. Padding holds za (real zero)."""
    s, p, d = _conv_attrs(strides, padding, dilation)
    n, cc_n, h, w, cb_n = data.shape
    if weight.shape[0] != cc_n or weight.shape[3] != cb_n:
        raise ValueError(f"weight {weight.shape} must be ({cc_n}, KH, KW, {cb_n}) for {data.shape}")
    _, kh, kw, _ = weight.shape
    oh, ow = _out_hw(h, w, kh, kw, s, p, d)
    padded = data
    if any(p):
        padded = pad(
            data,
            (0, 0, p[0], p[1], 0),
            (0, 0, p[2], p[3], 0),
            data_zero_point,
            name=f"{name}_pad",
            axis_names=("n", "cc", "h", "w", "cb"),
        )
    rkh, rkw = te.reduce_axis(kh, "kh"), te.reduce_axis(kw, "kw")

    def body(n: Expr, cc: Expr, oh: Expr, ow: Expr, cb: Expr) -> Expr:
        src = padded[n, cc, _window(oh, s[0], rkh, d[0]), _window(ow, s[1], rkw, d[1]), cb]
        x = cast(src, "int32") - data_zero_point if data_zero_point else cast(src, "int32")
        return te.sum(x * weight[cc, rkh, rkw, cb], axis=[rkh, rkw])

    attrs = {"strides": s, "padding": p, "dilation": d, "layout": f"NCHW{cb_n}c"}
    shape = (n, cc_n, oh, ow, cb_n)
    return te.compute(shape, body, name=name, tag="depthwise_nchwc_int8", attrs=attrs)
