"""Import of ONNX's integer matmul and conv ops: QLinearMatMul, MatMulInteger, ConvInteger.

All three become the graph's `qconv2d` (uint8 data x int8 weights, accumulated exactly in
int32), so they run on the same int8 conv template as QLinearConv and folded QDQ convs:

- ConvInteger -> qconv2d with an int32 output (no requantize);
- MatMulInteger A[..., K] x B[K, N] -> reshape to [M, K, 1, 1], a 1x1 qconv2d with int32
  output, reshape back to [..., N] (a 1x1 image is the same memory in every channel block,
  so the reshapes cost nothing when compiled);
- QLinearMatMul -> the same, requantized to uint8 / int8 with scale (s_a * s_b) / s_y in
  float32, as ONNX Runtime computes it.

Weight zero points (per tensor, or per output channel / column) are folded into the
constant weights: the kernel multiplies by `w - zw`, which must fit in int8. What is not
taken is an error naming the node: weights computed at run time, int8 activations, a
per-row activation zero point, channel counts that are not multiples of 4 (the kernels read
four channels to a word), batched B.
"""

from __future__ import annotations

import math

import numpy as np

from tunefarm.frontend.onnx_quant import _scalar_q

WEIGHT_DTYPES = (np.dtype(np.int8), np.dtype(np.uint8))


def uint8_input(cx, i: int, what: str) -> str:
    """The graph value of run-time input i, which must be uint8 (our kernels multiply uint8
    activations by int8 weights)."""
    x = cx.imp.graph_value(cx.input(i), cx)
    dtype = cx.imp.graph.value(x).dtype
    if dtype != "uint8":
        raise cx.fail(
            f"input {what} {cx.input(i)!r} is {dtype}; only uint8 activations are taken "
            "(quantize them with a uint8 zero point)"
        )
    return x


def data_zero_point(cx, i: int, what: str) -> int:
    """An optional per-tensor uint8 zero point of the activations (0 when absent)."""
    if not cx.has(i):
        return 0
    z = cx.maybe_const(i)
    if z is None:
        raise cx.fail(f"{what} zero point {cx.input(i)!r} must be a constant initializer")
    z = np.asarray(z)
    if z.dtype != np.uint8:
        raise cx.fail(f"{what} zero point must be uint8 like the data, got {z.dtype}")
    if z.size != 1:
        raise cx.fail(f"{what} zero point must be per tensor (one value), got {z.size} values")
    return int(z.ravel()[0])


def centered_weights(cx, i: int, zi: int, axis: int, what: str) -> np.ndarray:
    """Constant weights at input i minus their zero point at input zi (per tensor, or per
    channel along `axis`), as int8; FrontendError when they are not constant 8-bit values or
    the difference leaves int8."""
    w = cx.maybe_const(i)
    if w is None:
        raise cx.fail(
            f"{what} {cx.input(i)!r} is computed at run time; only constant weights are taken"
        )
    w = np.asarray(w)
    if w.dtype not in WEIGHT_DTYPES:
        raise cx.fail(f"{what} must be int8 or uint8, got {w.dtype}")
    z = cx.maybe_const(zi) if cx.has(zi) else np.zeros((), w.dtype)
    if z is None:
        raise cx.fail(f"{what} zero point {cx.input(zi)!r} must be a constant initializer")
    z = np.asarray(z)
    if z.dtype != w.dtype:
        raise cx.fail(f"{what} zero point is {z.dtype} but the {what} is {w.dtype}")
    if z.size not in (1, w.shape[axis]):
        raise cx.fail(
            f"{what} zero point has {z.size} values; need 1 or {w.shape[axis]} (axis {axis})"
        )
    shape = [1] * w.ndim
    shape[axis] = -1
    centered = w.astype(np.int64) - z.astype(np.int64).reshape(shape if z.size > 1 else ())
    if centered.size and (centered.min() < -128 or centered.max() > 127):
        raise cx.fail(
            f"{what} minus its zero point spans [{centered.min()}, {centered.max()}]; the int8 "
            "kernels take [-128, 127]"
        )
    return centered.astype(np.int8)


def _check_channels(cx, k: int, n: int, what: tuple[str, str]) -> None:
    for count, name in ((k, what[0]), (n, what[1])):
        if count % 4:
            raise cx.fail(
                f"{name} = {count} is not a multiple of 4 (the int8 kernels read four channels "
                "to a word)"
            )


def emit_qconv(cx, x: str, w: np.ndarray, requant: np.ndarray, attrs: dict, out=None) -> str:
    """A qconv2d node with int8 weights `w` (OIHW), zero bias and per-channel `requant`."""
    o = w.shape[0]
    ins = [
        x,
        cx.param(f"{cx.name}.weight_q", w),
        cx.param(f"{cx.name}.bias_q", np.zeros(o, np.int32)),
        cx.param(f"{cx.name}.requant", np.broadcast_to(requant, (o,)).astype(np.float32)),
    ]
    full = {"strides": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1]}
    full.update(relu=False, residual=None, **attrs)
    return cx.emit("qconv2d", ins, full, out)


def conv_integer(cx) -> None:
    """ConvInteger: int32 = conv(x - x_zero_point, w - w_zero_point)."""
    from tunefarm.frontend.onnx_import import _window  # the importer's window attrs

    x = uint8_input(cx, 0, "x")
    shape = cx.imp.graph.shape(x)
    if len(shape) != 4:
        raise cx.fail(f"only 2-D convolution (4-D NCHW x) is taken, got shape {list(shape)}")
    w = centered_weights(cx, 1, 3, 0, "weight")
    if w.ndim != 4:
        raise cx.fail(f"weight must be OIHW, got shape {list(w.shape)}")
    if int(cx.attr("group", 1)) != 1:
        raise cx.fail("grouped ConvInteger is not supported")
    if w.shape[1] != shape[1]:
        raise cx.fail(f"weight {list(w.shape)} does not match {shape[1]} input channels")
    _check_channels(cx, shape[1], w.shape[0], ("input channels", "output channels"))
    za = data_zero_point(cx, 2, "x")
    kernel = cx.ints("kernel_shape", list(w.shape[2:]), 2)
    strides, pads, dilation = _window(cx, kernel, shape[2:])
    attrs = {"strides": strides, "padding": pads, "dilation": dilation, "data_zero_point": za}
    attrs.update(out_dtype="int32", out_zero_point=0)
    emit_qconv(cx, x, w, np.ones(1, np.float32), attrs, cx.outputs[0])


def _matmul(cx, b: np.ndarray, requant, za: int, out_dtype: str, zo: int) -> None:
    """A[..., K] x centered int8 B[K, N] as a 1x1 qconv2d between two reshapes."""
    a = uint8_input(cx, 0, "A")
    shape = cx.imp.graph.shape(a)
    if len(shape) < 2:
        raise cx.fail(f"A must be at least 2-D, got shape {list(shape)}")
    k, n = b.shape
    if shape[-1] != k:
        raise cx.fail(f"A {list(shape)} and B {list(b.shape)} do not multiply (K differs)")
    _check_channels(cx, k, n, ("K", "N"))
    m = math.prod(shape[:-1])
    x4 = cx.emit("reshape", [a], {"shape": [m, k, 1, 1]})
    attrs = {"data_zero_point": za, "out_dtype": out_dtype, "out_zero_point": zo}
    y4 = emit_qconv(cx, x4, np.ascontiguousarray(b.T).reshape(n, k, 1, 1), requant, attrs)
    cx.emit("reshape", [y4], {"shape": [*shape[:-1], n]}, cx.outputs[0])


def _matrix_b(cx, i: int, zi: int, what: str) -> np.ndarray:
    """Constant 2-D B [K, N] minus its zero point (per tensor or per column), as int8."""
    arr = cx.maybe_const(i)
    if arr is not None and np.asarray(arr).ndim != 2:
        raise cx.fail(
            f"{what} must be a 2-D constant [K, N] (no batched {what}), got "
            f"{list(np.asarray(arr).shape)}"
        )
    return centered_weights(cx, i, zi, -1, what)


def matmul_integer(cx) -> None:
    """MatMulInteger: int32 = (A - a_zero_point) x (B - b_zero_point)."""
    uint8_input(cx, 0, "A")
    b = _matrix_b(cx, 1, 3, "B")
    za = data_zero_point(cx, 2, "A")
    _matmul(cx, b, np.ones(1, np.float32), za, "int32", 0)


def qlinear_matmul(cx) -> None:
    """QLinearMatMul: requantize((a - za) x (b - zb)) with scale s_a * s_b / s_y."""
    uint8_input(cx, 0, "a")
    s_a, za = _scalar_q(cx, 1, "a", "uint8")
    b = _matrix_b(cx, 3, 5, "b")
    s_b = cx.maybe_const(4)
    if s_b is None:
        raise cx.fail("b scale must be a constant initializer")
    s_b = np.asarray(s_b, np.float32).reshape(-1)
    n = b.shape[1]
    if s_b.size not in (1, n) or not (np.isfinite(s_b).all() and (s_b > 0).all()):
        raise cx.fail(f"b scale must be 1 or {n} positive finite values")
    y_zero = cx.maybe_const(7)
    y_dtype = str(np.asarray(y_zero).dtype) if y_zero is not None else "uint8"
    if y_dtype not in ("uint8", "int8"):
        raise cx.fail(f"y zero point dtype {y_dtype} is not supported (uint8 or int8)")
    s_y, zy = _scalar_q(cx, 6, "y", y_dtype)
    requant = (np.float32(s_a) * np.broadcast_to(s_b, (n,))).astype(np.float32) / np.float32(s_y)
    _matmul(cx, b, requant, za, y_dtype, zy)


HANDLERS = {
    "ConvInteger": conv_integer,
    "MatMulInteger": matmul_integer,
    "QLinearMatMul": qlinear_matmul,
}
