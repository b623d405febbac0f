"""The quantized graph ops: shape rules and numpy kernels (registered by `graph.shapes` and
`graph.interpret`), so quantized graphs check, infer and interpret like any other.

  quantize    [x (float32)]            scale zero_point dtype(uint8|int8)  -> dtype
  dequantize  [q]                      scale zero_point                    -> float32
  qconv2d     [data (uint8), weight (int8 OIHW), bias (int32 [O]), scale (float32 [O]),
               (residual)]  strides padding dilation data_zero_point out_dtype
               out_zero_point relu residual([s_y, s_r, s_out, z_r, z_out] or null)
               residual_rule (fixed|float) residual_first activation([spec, s_mid,
               z_mid, s_out] or null: a requantizing LeakyRelu / Sigmoid / HardSwish)
               -> out_dtype NCHW: the int8 conv with its whole epilogue (see
               `tunefarm.ir.ops.qconv.conv_int8_epilogue`)
  qadd        [a, b (same shape and dtype)] scales [a, b, out] zero_points [a, b, out]
               rule (fixed|float)     -> dtype: see `tunefarm.ir.ops.quantize.add[_float]`

Rounding, saturation and the fixed-point residual rescale are those of
`tunefarm.ir.ops.quantize`; the kernels here use the same numpy oracles as the op tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.graph.ir import GraphError, Node, Value
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import reference as R
from tunefarm.ir.ops.pool import global_avg_pool_scale
from tunefarm.ir.ops.quantize import QRANGE, add_float_params, add_multipliers
from tunefarm.task import Task

QUANT_OPS = ("quantize", "dequantize", "qconv2d", "qadd")


def _fail(node: Node, msg: str) -> GraphError:
    return GraphError(f"{node.where()}: {msg}")


def check_qparams(node: Node, scale: Any, zero_point: Any, dtype: str) -> None:
    """Zero or negative scales and zero points outside the dtype are errors naming the node."""
    scales = np.atleast_1d(np.asarray(scale, np.float64))
    if scales.size == 0 or not np.all(np.isfinite(scales)) or np.any(scales <= 0):
        raise _fail(node, f"scale must be positive and finite, got {scale!r}")
    lo, hi = QRANGE.get(dtype, (None, None))
    if lo is None:
        raise _fail(node, f"quantized dtype must be uint8 or int8, got {dtype!r}")
    zps = np.atleast_1d(np.asarray(zero_point))
    if not np.issubdtype(zps.dtype, np.integer) or np.any(zps < lo) or np.any(zps > hi):
        raise _fail(node, f"zero point {zero_point!r} is outside [{lo}, {hi}] for {dtype}")


def _residual_params(node: Node) -> tuple | None:
    res = node.attrs.get("residual")
    if res is None:
        return None
    if node.attrs.get("residual_rule", "fixed") == "float":
        first = bool(node.attrs.get("residual_first", False))
        scales = [float(res[0]), float(res[1])]
        zps = [int(node.attrs.get("out_zero_point", 0)), int(res[3])]
        if first:
            scales, zps = scales[::-1], zps[::-1]
        ratios = add_float_params([*scales, float(res[2])], [*zps, int(res[4])])
        return "float", ratios, first
    mults = add_multipliers(float(res[0]), float(res[1]), float(res[2]))
    return mults, (int(res[3]), int(res[4]))


# ---- shape rules
def shape_rule(node: Node, ins: list[Value]) -> list[Value]:
    if node.op == "quantize":
        dtype = node.attrs.get("dtype", "uint8")
        check_qparams(node, node.attrs.get("scale"), node.attrs.get("zero_point", 0), dtype)
        return [Value(node.outputs[0], ins[0].shape, dtype)]
    if node.op == "dequantize":
        check_qparams(node, node.attrs.get("scale"), node.attrs.get("zero_point", 0), ins[0].dtype)
        return [Value(node.outputs[0], ins[0].shape, "float32")]
    if node.op == "qadd":
        return [_qadd_shape(node, ins)]
    return [_qconv_shape(node, ins)]


def _qadd_shape(node: Node, ins: list[Value]) -> Value:
    if len(ins) != 2 or ins[0].shape != ins[1].shape or ins[0].dtype != ins[1].dtype:
        raise _fail(node, "expects two inputs of the same shape and dtype")
    a = node.attrs
    scales, zps = a.get("scales"), a.get("zero_points")
    if not isinstance(scales, list | tuple) or not isinstance(zps, list | tuple):
        raise _fail(node, "attrs 'scales' and 'zero_points' must be [a, b, out] lists")
    if len(scales) != 3 or len(zps) != 3:
        raise _fail(node, "attrs 'scales' and 'zero_points' must have 3 values (a, b, out)")
    for s, z in zip(scales, zps, strict=True):
        check_qparams(node, s, z, ins[0].dtype)
    if a.get("rule", "fixed") not in ("fixed", "float"):
        raise _fail(node, f"attr 'rule' must be 'fixed' or 'float', got {a.get('rule')!r}")
    return Value(node.outputs[0], ins[0].shape, ins[0].dtype)


def _qconv_shape(node: Node, ins: list[Value]) -> Value:
    if len(ins) not in (4, 5):
        raise _fail(node, f"expects data, weight, bias, scale (and residual), got {len(ins)}")
    data, weight = ins[0], ins[1]
    if data.dtype != "uint8" or weight.dtype != "int8":
        raise _fail(node, f"data must be uint8 and weight int8, got {data.dtype}, {weight.dtype}")
    n, c, h, w = data.shape
    o, i, kh, kw = weight.shape
    groups = int(node.attrs.get("groups", 1))
    if groups not in (1, c) or i * groups != c or (groups > 1 and o != c):
        raise _fail(
            node,
            f"weight {list(weight.shape)} does not match {c} data channels "
            f"with groups={groups} (dense or depthwise only)",
        )
    a = node.attrs
    s, p, d = a.get("strides", [1, 1]), a.get("padding", [0, 0, 0, 0]), a.get("dilation", [1, 1])
    try:
        oh = R.pool_output_size(h, kh, s[0], p[0], p[2], d[0])
        ow = R.pool_output_size(w, kw, s[1], p[1], p[3], d[1])
    except ValueError as err:
        raise _fail(node, str(err)) from None
    dtype = a.get("out_dtype", "uint8")
    check_qparams(node, 1.0, a.get("out_zero_point", 0), dtype)
    return Value(node.outputs[0], (n, o, oh, ow), dtype)


# ---- numpy kernels
def kernel(node: Node, args: list[np.ndarray]) -> list[np.ndarray]:
    a = node.attrs
    axis = int(a.get("axis", 1))  # used only by per-channel (list) scales and zero points
    if node.op == "quantize":
        dtype = a.get("dtype", "uint8")
        return [QR.quantize(args[0], a["scale"], a.get("zero_point", 0), dtype, axis)]
    if node.op == "dequantize":
        return [QR.dequantize(args[0], a["scale"], a.get("zero_point", 0), axis)]
    if node.op == "qadd":
        dtype = str(args[0].dtype)
        if a.get("rule", "fixed") == "float":
            return [QR.add_float(args[0], args[1], add_float_params(a["scales"], a["zero_points"]))]
        mults = add_multipliers(*(float(s) for s in a["scales"]))
        return [QR.add(args[0], args[1], mults, a["zero_points"], dtype)]
    x = QR.conv2d_int(
        args[0],
        args[1],
        int(a.get("data_zero_point", 0)),
        0,
        a.get("strides", [1, 1]),
        a.get("padding", [0, 0, 0, 0]),
        a.get("dilation", [1, 1]),
        int(a.get("groups", 1)),
    )
    residual = args[4] if len(args) > 4 else None
    out = QR.int8_conv_epilogue(
        x,
        args[2],
        args[3],
        a.get("out_dtype", "uint8"),
        int(a.get("out_zero_point", 0)),
        residual,
        _residual_params(node),
        bool(a.get("relu", False)),
        a.get("out_max"),
        _activation(a),
    )
    return [out]


def _activation(a: dict) -> tuple | None:
    """The epilogue's (spec, s_mid, z_mid, s_out, z_out) of a qconv2d's `activation` attr."""
    act = a.get("activation")
    if act is None:
        return None
    return (str(act[0]), float(act[1]), int(act[2]), float(act[3]), int(a.get("out_zero_point", 0)))


def global_avg_pool_q(node: Node, x: np.ndarray) -> np.ndarray:
    """A global_pool2d node with `qparams` [s_in, z_in, s_out, z_out] on int8 values: the
    int32 sum requantized as ONNX Runtime's QLinearGlobalAveragePool does."""
    s_in, z_in, s_out, z_out = node.attrs["qparams"]
    scale = global_avg_pool_scale(s_in, s_out, x.shape[2] * x.shape[3])
    return QR.global_avg_pool(x, scale, z_in, z_out, str(x.dtype))


def qconv_task(shape_of, node: Node, target: str) -> Task:
    """The logical `conv2d_int8` task of a qconv2d node (`shape_of`: value name -> shape);
    the backend pins its channel blocks (`registry.anchor_variants`)."""
    a = node.attrs
    params: dict[str, Any] = {
        "data": tuple(shape_of(node.inputs[0])),
        "weight": tuple(shape_of(node.inputs[1])),
        "strides": [int(v) for v in a.get("strides", [1, 1])],
        "padding": [int(v) for v in a.get("padding", [0, 0, 0, 0])],
        "dilation": [int(v) for v in a.get("dilation", [1, 1])],
        "data_zero_point": int(a.get("data_zero_point", 0)),
        "bias": True,
        "out_dtype": a.get("out_dtype", "uint8"),
        "out_zero_point": int(a.get("out_zero_point", 0)),
        "relu": bool(a.get("relu", False)),
    }
    if a.get("out_max") is not None:
        params["out_max"] = int(a["out_max"])
    if a.get("residual") is not None:
        params["residual"] = [float(v) for v in a["residual"][:3]] + [
            int(v) for v in a["residual"][3:]
        ]
        if a.get("residual_rule", "fixed") != "fixed":
            params["residual_rule"] = str(a["residual_rule"])
            params["residual_first"] = bool(a.get("residual_first", False))
    if a.get("activation") is not None:
        act = a["activation"]
        params["activation"] = [str(act[0]), float(act[1]), int(act[2]), float(act[3])]
    if int(a.get("groups", 1)) > 1:
        return Task.make("depthwise_conv2d_int8", target=target, **params)
    return Task.make("conv2d_int8", target=target, **params)
