"""Import of ONNX's quantization ops: QuantizeLinear and DequantizeLinear, per tensor and per
channel (the QDQ format `onnxruntime.quantization.quantize_static` writes).

A DequantizeLinear of a constant (int8 weights, int32 bias) is folded at import like any
constant node; on run-time values both ops become the graph's `quantize` / `dequantize`
nodes, so a QDQ model computes what its Q/DQ pairs say (each activation rounded and
saturated at the model's scales). Bad parameters are errors naming the node: a scale that
is not a positive finite constant, a zero point outside its dtype, an axis out of range, a
per-channel parameter whose length is not the channel count. QLinearConv becomes a
`qconv2d` (uint8 x int8, weight zero points folded in); QLinearMatMul, ConvInteger and
MatMulInteger are in `frontend.onnx_integer`. The int32 accumulators they make turn float by
a DequantizeLinear or a Cast (a `dequantize` with scale 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.ir import quant_reference as QR

# the integer tensor and scale behind a folded DequantizeLinear of a constant, kept as params
# next to its float value for `graph.passes.qdq` (unused ones are dropped as dead code)
QDQ_INT, QDQ_SCALE = "#qdq_int", "#qdq_scale"
ZERO_DTYPES = {np.dtype(np.uint8): "uint8", np.dtype(np.int8): "int8"}


def _qparams(cx, rank: int, shape: tuple[int, ...]) -> tuple[Any, Any, int, str]:
    """(scale, zero point, axis, dtype) of a Q/DQ node: Python numbers per tensor, lists per
    channel; FrontendError naming the node for bad ones."""
    scale = cx.maybe_const(1)
    if scale is None:
        raise cx.fail(f"scale {cx.input(1)!r} must be a constant initializer")
    scale = np.asarray(scale, np.float64)
    if scale.ndim > 1 or scale.size == 0:
        raise cx.fail(f"scale must be a scalar or 1-D (per channel), got shape {list(scale.shape)}")
    if not np.all(np.isfinite(scale)) or np.any(scale <= 0):
        raise cx.fail(f"scale must be positive and finite, got {scale.ravel()[:4].tolist()}")
    zero = cx.maybe_const(2) if cx.has(2) else np.zeros(scale.shape, np.uint8)
    if zero is None:
        raise cx.fail(f"zero point {cx.input(2)!r} must be a constant initializer")
    zero = np.asarray(zero)
    dtype = ZERO_DTYPES.get(zero.dtype) or {"int32": "int32"}.get(str(zero.dtype))
    if dtype is None:
        raise cx.fail(f"zero point dtype {zero.dtype} is not supported (uint8, int8, int32)")
    if zero.size != scale.size:
        raise cx.fail(
            f"zero point shape {list(zero.shape)} does not match scale's {list(scale.shape)}"
        )
    zero = zero.reshape(scale.shape)
    axis = int(cx.attr("axis", 1))
    if scale.ndim == 1 and scale.size > 1:
        if not -rank <= axis < rank:
            raise cx.fail(f"axis {axis} is out of range for a {rank}-D input")
        axis %= rank
        if shape[axis] != scale.size:
            raise cx.fail(
                f"per-channel scale has {scale.size} values; axis {axis} has {shape[axis]}"
            )
        return scale.astype(np.float32).tolist(), zero.astype(int).tolist(), axis, dtype
    return float(np.float32(scale.ravel()[0])), int(zero.ravel()[0]), axis, dtype


def _fold(cx, fn) -> bool:
    """Evaluate a Q/DQ of a constant here (ONNX's reference evaluator lacks them at some
    opsets): the output becomes a constant, as any folded node's."""
    arr = cx.maybe_const(0)
    if arr is None:
        return False
    arr = np.asarray(arr)
    scale, zero, axis, dtype = _qparams(cx, arr.ndim, arr.shape)
    out = cx.outputs[0]
    cx.imp.consts[out] = fn(arr, scale, zero, axis, dtype)
    if cx.node.op_type == "DequantizeLinear" and arr.dtype in (np.int8, np.int32):
        if not np.any(np.asarray(zero)):  # symmetric: keep the integers for QDQ folding
            cx.imp.add_param(out + QDQ_INT, arr)
            cx.imp.add_param(out + QDQ_SCALE, np.asarray(scale, np.float32).reshape(-1))
    return True


def quantize_linear(cx) -> None:
    if _fold(cx, lambda a, s, z, ax, dt: QR.quantize(a, s, z, dt, ax)):
        return
    x = cx.value(0)
    shape = cx.imp.graph.shape(x)
    scale, zero, axis, dtype = _qparams(cx, len(shape), shape)
    if dtype not in ("uint8", "int8"):
        raise cx.fail(f"zero point dtype {dtype}: a run-time QuantizeLinear makes uint8 or int8")
    attrs = {"scale": scale, "zero_point": zero, "dtype": dtype, "axis": axis}
    cx.emit("quantize", [x], attrs, cx.outputs[0])


def dequantize_linear(cx) -> None:
    if _fold(cx, lambda a, s, z, ax, dt: QR.dequantize(a, s, z, ax)):
        return
    x = cx.imp.graph_value(cx.input(0), cx)
    value = cx.imp.graph.values[x]
    if value.dtype not in ("uint8", "int8", "int32"):
        raise cx.fail(
            f"input {cx.input(0)!r} is {value.dtype}; DequantizeLinear takes uint8/int8/int32"
        )
    scale, zero, axis, dtype = _qparams(cx, len(value.shape), value.shape)
    if value.dtype == "int32" and not cx.has(2):
        dtype = "int32"
    if dtype != value.dtype:
        raise cx.fail(f"zero point is {dtype} but the input is {value.dtype}")
    if dtype == "int32" and (isinstance(scale, list) or zero != 0):
        raise cx.fail("an int32 input takes a per-tensor scale and a zero point of 0")
    cx.emit("dequantize", [x], {"scale": scale, "zero_point": zero, "axis": axis}, cx.outputs[0])


def is_int8_accumulator(cx) -> bool:
    """Whether input 0 is the run-time int32 result of an int8 op (a qconv2d, or the
    reshape after a matmul's), as opposed to an integer graph input."""
    name = cx.imp.resolve(cx.input(0))
    graph = cx.imp.graph
    if cx.imp.const(name) is not None or graph.values.get(name) is None:
        return False
    producers = graph.producers()
    node = producers.get(name)
    if node is not None and node.op == "reshape":
        node = producers.get(node.inputs[0])
    return node is not None and node.op == "qconv2d" and graph.values[name].dtype == "int32"


def int32_to_float(cx) -> None:
    """Cast of a run-time int32 (an int8 op's accumulator) to float32: exact below 2**24,
    rounded to nearest as C's conversion above, which is what ONNX Runtime's Cast does."""
    x = cx.imp.graph_value(cx.input(0), cx)
    cx.emit("dequantize", [x], {"scale": 1.0, "zero_point": 0, "axis": 1}, cx.outputs[0])


def _scalar_q(cx, i: int, what: str, dtype: str) -> tuple[float, int]:
    """A per-tensor (scale, zero point) pair at inputs i, i+1."""
    scale, zero = cx.maybe_const(i), cx.maybe_const(i + 1)
    if scale is None or zero is None:
        raise cx.fail(f"{what} scale and zero point must be constant initializers")
    scale, zero = np.asarray(scale, np.float64), np.asarray(zero)
    if scale.size != 1 or zero.size != 1:
        raise cx.fail(f"{what} scale and zero point must be per tensor")
    if not (np.isfinite(scale).all() and scale.ravel()[0] > 0):
        raise cx.fail(f"{what} scale must be positive and finite, got {scale.ravel()[0]}")
    if str(zero.dtype) != dtype:
        raise cx.fail(f"{what} zero point must be {dtype}, got {zero.dtype}")
    return float(np.float32(scale.ravel()[0])), int(zero.ravel()[0])


def qlinear_conv(cx) -> None:
    """QLinearConv (uint8 x, 8-bit weights per tensor or channel, their zero points folded in
    as `w - zw` when that fits int8, int32 bias, uint8 y) as a `qconv2d` with the model's
    integers; the requantize scale is
    (s_x * s_w) / s_y in float32, as ONNX Runtime computes it."""
    from tunefarm.frontend.onnx_import import _window  # the importer's window attrs

    x = cx.imp.graph_value(cx.input(0), cx)
    if cx.imp.graph.value(x).dtype != "uint8":
        raise cx.fail("input x must be uint8 (from a QuantizeLinear)")
    s_x, z_x = _scalar_q(cx, 1, "x", "uint8")
    from tunefarm.frontend.onnx_integer import centered_weights  # (imports this module)

    w = cx.maybe_const(3)
    if w is None or np.asarray(w).ndim != 4:
        raise cx.fail("weight must be a constant OIHW initializer")
    s_w = cx.maybe_const(4)
    if s_w is None or cx.maybe_const(5) is None:
        raise cx.fail("weight scale and zero point must be constant initializers")
    w = centered_weights(cx, 3, 5, 0, "weight")  # w - zw as int8 (per tensor or channel)
    s_w = np.asarray(s_w, np.float32).reshape(-1)
    if s_w.size not in (1, w.shape[0]) or not (np.isfinite(s_w).all() and (s_w > 0).all()):
        raise cx.fail(f"weight scale must be 1 or {w.shape[0]} positive values")
    s_y, z_y = _scalar_q(cx, 6, "y", "uint8")
    if int(cx.attr("group", 1)) != 1:
        raise cx.fail("grouped QLinearConv is not supported")
    o = w.shape[0]
    bias = cx.maybe_const(8) if cx.has(8) else np.zeros(o, np.int32)
    if bias is None or np.asarray(bias).dtype != np.int32:
        raise cx.fail("bias must be a constant int32 initializer")
    kernel = cx.ints("kernel_shape", list(w.shape[2:]), 2)
    strides, pads, dilation = _window(cx, kernel, cx.imp.graph.shape(x)[2:])
    requant = (np.float32(s_x) * np.broadcast_to(s_w, (o,))).astype(np.float32) / np.float32(s_y)
    ins = [
        x,
        cx.param(f"{cx.name}.weight_q", w),
        cx.param(f"{cx.name}.bias_q", np.asarray(bias).reshape(-1)),
        cx.param(f"{cx.name}.requant", requant.astype(np.float32)),
    ]
    attrs = {"strides": strides, "padding": pads, "dilation": dilation, "data_zero_point": z_x}
    attrs.update(out_dtype="uint8", out_zero_point=z_y, relu=False, residual=None)
    cx.emit("qconv2d", ins, attrs, cx.outputs[0])


HANDLERS = {
    "QuantizeLinear": quantize_linear,
    "DequantizeLinear": dequantize_linear,
    "QLinearConv": qlinear_conv,
}
