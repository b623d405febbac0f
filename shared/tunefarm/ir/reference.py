"""Plain-numpy reference implementations of the operators tunefarm compiles.

This is the correctness oracle: every generated kernel is checked against these functions, so
they are written independently of the compiler IR, in the most obvious vectorised numpy
(windows as strided views, im2col + BLAS for convolution) and validated against
onnxruntime in the tests. Functions never modify their inputs and raise ValueError naming
the offending argument. Products are accumulated in float64 and cast back to the input
dtype, so the oracle is more accurate than the kernels it judges.

Padding is (top, left, bottom, right); an int or a (pad_h, pad_w) pair means symmetric.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tunefarm.ir import layouts

Pair = int | Sequence[int]
Pads = int | Sequence[int]


# ---- argument checking
def _arr(x: Any, name: str, ndim: int | None = None) -> np.ndarray:
    """`x` as a numeric ndarray with `ndim` dims, or ValueError naming `name`."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be a numeric array, got dtype {a.dtype}")
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dims, got shape {a.shape}")
    return a


def _ints(value: Any, n: int, name: str, minimum: int) -> tuple[int, ...]:
    """`value` (int or length-n sequence) as an n-tuple of ints >= minimum."""
    if isinstance(value, int | np.integer):
        seq: tuple[Any, ...] = (value,) * n
    else:
        try:
            seq = tuple(value)
        except TypeError:
            raise ValueError(f"{name} must be an int or {n} ints, got {value!r}") from None
    ok = all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in seq)
    if len(seq) != n or not ok or isinstance(value, bool):
        raise ValueError(f"{name} must be an int or {n} ints, got {value!r}")
    if any(v < minimum for v in seq):
        raise ValueError(f"{name} values must be >= {minimum}, got {value!r}")
    return tuple(int(v) for v in seq)


def _pads(padding: Pads) -> tuple[int, int, int, int]:
    """Normalise padding (int, (pad_h, pad_w) or (top, left, bottom, right)) to 4 ints."""
    if not isinstance(padding, int | np.integer) and len(np.atleast_1d(padding)) == 2:
        ph, pw = _ints(padding, 2, "padding", 0)
        return ph, pw, ph, pw
    try:
        pt, pl, pb, pr = _ints(padding, 4, "padding", 0)
    except ValueError:
        raise ValueError(
            "padding must be an int >= 0, (pad_h, pad_w) or (top, left, bottom, right), "
            f"got {padding!r}"
        ) from None
    return pt, pl, pb, pr


def _axis(axis: int, ndim: int, name: str = "axis") -> int:
    if not isinstance(axis, int | np.integer) or not -ndim <= axis < ndim:
        raise ValueError(f"{name} must be an int in [{-ndim}, {ndim}), got {axis!r}")
    return int(axis) % ndim


def _acc(*arrays: np.ndarray) -> tuple[np.dtype, list[np.ndarray]]:
    """Result dtype of `arrays` and the arrays converted to float64 for accumulation."""
    return np.result_type(*arrays), [a.astype(np.float64) for a in arrays]


# ---- convolution
def pad_nchw(x: np.ndarray, padding: Pads, value: float = 0.0) -> np.ndarray:
    """Pad the H and W axes of NCHW `x` with `value`; padding is (top, left, bottom, right)."""
    x = _arr(x, "x", 4)
    pt, pl, pb, pr = _pads(padding)
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), mode="constant", constant_values=value)


def pool_output_size(
    size: int,
    kernel: int,
    stride: int,
    pad_begin: int,
    pad_end: int,
    dilation: int = 1,
    ceil_mode: bool = False,
) -> int:
    """Number of windows along one axis, counted as ONNX Conv/MaxPool/AveragePool count them.

    floor((size + pads - span) / stride) + 1 with span = dilation * (kernel - 1) + 1. ceil_mode
    rounds up instead, but drops a last window that would start in the end padding: such a
    window holds no input. Raises ValueError naming a bad argument or a window that does not fit.
    """
    (size,), (kernel,) = _ints(size, 1, "size", 1), _ints(kernel, 1, "kernel", 1)
    (stride,), (dilation,) = _ints(stride, 1, "stride", 1), _ints(dilation, 1, "dilation", 1)
    (pad_begin,), (pad_end,) = _ints(pad_begin, 1, "pad_begin", 0), _ints(pad_end, 1, "pad_end", 0)
    span = dilation * (kernel - 1) + 1
    num = size + pad_begin + pad_end - span
    if num < 0:
        raise ValueError(
            f"kernel {kernel} (dilation {dilation}) does not fit size {size} padded by "
            f"({pad_begin}, {pad_end})"
        )
    out = (-(-num // stride) if ceil_mode else num // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad_begin:
        out -= 1
    return out


def _windows(
    x: np.ndarray,
    kernel: Pair,
    strides: Pair,
    padding: Pads,
    dilation: Pair,
    ceil_mode: bool,
    value: float,
    pool: bool = True,
) -> np.ndarray:
    """Validate window args; returns the view win[n, c, y, x, i, j] over `x` padded with
    `value`. Pools also refuse padding as wide as the kernel: such windows hold no input.

    Output size follows ONNX: with ceil_mode the last window must start inside the input or
    the top/left padding, otherwise it is dropped. Windows that run past the bottom/right
    padding (ceil mode) also see `value` there.
    """
    k, s = _ints(kernel, 2, "kernel", 1), _ints(strides, 2, "strides", 1)
    d, pads = _ints(dilation, 2, "dilation", 1), _pads(padding)
    out, widths = [], [(0, 0), (0, 0)]
    for axis, size in enumerate(x.shape[2:]):
        p0, p1, span = pads[axis], pads[axis + 2], d[axis] * (k[axis] - 1) + 1
        if pool and max(p0, p1) >= span:
            raise ValueError(f"padding {padding!r} must be smaller than the kernel extent {span}")
        try:
            o = pool_output_size(size, k[axis], s[axis], p0, p1, d[axis], ceil_mode)
        except ValueError as err:
            raise ValueError(f"{('height', 'width')[axis]} of x {x.shape}: {err}") from None
        out.append(o)
        widths.append((p0, p1 + max(0, (o - 1) * s[axis] + span - (size + p0 + p1))))
    xp = np.pad(x, widths, constant_values=value)
    s_n, s_c, s_h, s_w = xp.strides  # win[.., y, x, i, j] = xp[.., y*s0 + i*d0, x*s1 + j*d1]
    strides = (s_n, s_c, s_h * s[0], s_w * s[1], s_h * d[0], s_w * d[1])
    return as_strided(xp, xp.shape[:2] + tuple(out) + k, strides, writeable=False)


def conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    strides: Pair = (1, 1),
    padding: Pads = (0, 0, 0, 0),
    dilation: Pair = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """2-D convolution (cross-correlation), x NCHW, w OIHW with I = C / groups -> NCHW."""
    x, w = _arr(x, "x", 4), _arr(w, "w", 4)
    (g,) = _ints(groups, 1, "groups", 1)
    n, c = x.shape[:2]
    o, i, kh, kw = w.shape
    if c % g or o % g:
        raise ValueError(f"groups={g} must divide input channels {c} and output channels {o}")
    if i != c // g:
        raise ValueError(f"w shape {w.shape}: input channels must be C/groups = {c // g}, got {i}")
    dtype, (xf, wf) = _acc(x, w)
    win = _windows(xf, (kh, kw), strides, padding, dilation, False, 0.0, pool=False)
    oh, ow = win.shape[2:4]
    if g == 1:  # tensordot copies the windows once into an im2col matrix and calls BLAS
        out = np.tensordot(win, wf, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    else:
        wins = win.reshape(n, g, c // g, oh, ow, kh, kw)
        out = np.einsum("ngchwyx,gocyx->ngohw", wins, wf.reshape(g, o // g, i, kh, kw))
        out = out.reshape(n, o, oh, ow)
    return np.ascontiguousarray(out, dtype=dtype)


def conv2d_nhwc(
    x: np.ndarray,
    w: np.ndarray,
    strides: Pair = (1, 1),
    padding: Pads = (0, 0, 0, 0),
    dilation: Pair = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """2-D convolution, x NHWC, w HWIO with I = C / groups -> NHWC."""
    x, w = _arr(x, "x", 4), _arr(w, "w", 4)
    if isinstance(groups, int) and groups > 0 and w.shape[2] * groups != x.shape[3]:
        want = f"C/groups = {x.shape[3] / groups:g}"
        raise ValueError(f"w (HWIO) shape {w.shape}: I must be {want}, got {w.shape[2]}")
    out = conv2d_nchw(
        x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), strides, padding, dilation, groups
    )
    return np.ascontiguousarray(out.transpose(0, 2, 3, 1))


def conv2d_nchwc(
    x: np.ndarray,
    w: np.ndarray,
    strides: Pair = (1, 1),
    padding: Pads = (0, 0, 0, 0),
    dilation: Pair = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """Blocked 2-D convolution: x N,C//cb,H,W,cb; w O//ob,I//ib,KH,KW,ib,ob -> N,O//ob,OH,OW,ob.

    Unpacks to NCHW/OIHW, convolves, repacks: the oracle must not share the blocked indexing
    logic of the kernels it checks. Only groups=1 is supported.
    """
    x, w = _arr(x, "x", 5), _arr(w, "w", 6)
    if groups != 1:
        raise ValueError(f"conv2d_nchwc supports only groups=1, got groups={groups!r}")
    cb, ib, ob = x.shape[4], w.shape[4], w.shape[5]
    if x.shape[1] * cb != w.shape[1] * ib:
        raise ValueError(
            f"input channels differ: x {x.shape} has {x.shape[1] * cb}, w {w.shape} has "
            f"{w.shape[1] * ib}"
        )
    xu = layouts.transform(x, f"NCHW{cb}c", "NCHW")
    wu = layouts.transform(w, f"OIHW{ib}i{ob}o", "OIHW")
    out = conv2d_nchw(xu, wu, strides, padding, dilation, 1)
    return layouts.transform(out, "NCHW", f"NCHW{ob}c")


def depthwise_conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    strides: Pair = (1, 1),
    padding: Pads = (0, 0, 0, 0),
    dilation: Pair = (1, 1),
) -> np.ndarray:
    """Depthwise convolution: w (C*m, 1, KH, KW), channel multiplier m = w.shape[0] // C."""
    x, w = _arr(x, "x", 4), _arr(w, "w", 4)
    c = x.shape[1]
    if w.shape[1] != 1 or c == 0 or w.shape[0] % c:
        raise ValueError(f"w must have shape (C*m, 1, KH, KW) with C={c}, got {w.shape}")
    return conv2d_nchw(x, w, strides, padding, dilation, groups=c)


# ---- matrix products
def dense(x: np.ndarray, w: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """Fully connected layer: x (N,K), w (O,K) -> x @ w.T (+ bias of shape (O,))."""
    x, w = _arr(x, "x", 2), _arr(w, "w", 2)
    if x.shape[1] != w.shape[1]:
        raise ValueError(f"x {x.shape} and w {w.shape} must share K (last dim)")
    arrays = [x, w]
    if bias is not None:
        bias = _arr(bias, "bias", 1)
        if bias.shape[0] != w.shape[0]:
            raise ValueError(f"bias must have shape ({w.shape[0]},), got {bias.shape}")
        arrays.append(bias)
    dtype, acc = _acc(*arrays)
    out = acc[0] @ acc[1].T
    if bias is not None:
        out += acc[2]
    return out.astype(dtype)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(M,K) @ (K,N) -> (M,N)."""
    a, b = _arr(a, "a", 2), _arr(b, "b", 2)
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a {a.shape} columns must equal b {b.shape} rows")
    dtype, (af, bf) = _acc(a, b)
    return (af @ bf).astype(dtype)


def batch_matmul(a: np.ndarray, b: np.ndarray, transpose_b: bool = False) -> np.ndarray:
    """(B,M,K) x (B,K,N) -> (B,M,N); b is (B,N,K) when transpose_b. A batch of 1 broadcasts."""
    a, b = _arr(a, "a", 3), _arr(b, "b", 3)
    if a.shape[0] != b.shape[0] and 1 not in (a.shape[0], b.shape[0]):
        raise ValueError(f"batch sizes of a {a.shape} and b {b.shape} must match or be 1")
    k_b = b.shape[2] if transpose_b else b.shape[1]
    if a.shape[2] != k_b:
        raise ValueError(f"K differs: a {a.shape}, b {b.shape} (transpose_b={transpose_b})")
    dtype, (af, bf) = _acc(a, b)
    if transpose_b:
        bf = bf.transpose(0, 2, 1)
    return np.matmul(af, bf).astype(dtype)


# ---- pooling
def _avg_counts(size: int, k: int, s: int, p0: int, p1: int, n_out: int, pad: bool) -> np.ndarray:
    """Divisor per output position along one axis: window elements in the input (or, with
    `pad`, in the explicitly padded input; the ceil-mode overhang never counts)."""
    start = np.arange(n_out) * s - p0
    end = np.minimum(start + k, size + p1)
    if not pad:
        start, end = np.maximum(start, 0), np.minimum(end, size)
    return end - start


def max_pool2d_nchw(
    x: np.ndarray,
    kernel: Pair,
    strides: Pair,
    padding: Pads,
    dilation: Pair = (1, 1),
    ceil_mode: bool = False,
) -> np.ndarray:
    """Max pooling over H, W of NCHW `x`; padding never wins (it counts as -inf)."""
    x = _arr(x, "x", 4)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(x, kernel, strides, padding, dilation, ceil_mode, low)
    return win.max(axis=(4, 5))


def avg_pool2d_nchw(
    x: np.ndarray,
    kernel: Pair,
    strides: Pair,
    padding: Pads,
    ceil_mode: bool = False,
    count_include_pad: bool = False,
) -> np.ndarray:
    """Average pooling over H, W of NCHW `x`.

    The divisor counts the window's elements inside the input, or with count_include_pad
    inside the explicitly padded input; the ceil-mode overhang never counts (as ONNX).
    """
    x = _arr(x, "x", 4)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    win = _windows(x.astype(np.float64), kernel, strides, padding, 1, ceil_mode, 0.0)
    (kh, kw), (sh, sw), pads = _ints(kernel, 2, "", 1), _ints(strides, 2, "", 1), _pads(padding)
    count_h = _avg_counts(x.shape[2], kh, sh, pads[0], pads[2], win.shape[2], count_include_pad)
    count_w = _avg_counts(x.shape[3], kw, sw, pads[1], pads[3], win.shape[3], count_include_pad)
    return (win.sum(axis=(4, 5)) / np.outer(count_h, count_w)).astype(dtype)


def global_avg_pool2d_nchw(x: np.ndarray) -> np.ndarray:
    """Mean over H and W, keeping dims: N,C,1,1."""
    x = _arr(x, "x", 4)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    return x.mean(axis=(2, 3), keepdims=True, dtype=np.float64).astype(dtype)


def global_max_pool2d_nchw(x: np.ndarray) -> np.ndarray:
    """Max over H and W, keeping dims: N,C,1,1."""
    return _arr(x, "x", 4).max(axis=(2, 3), keepdims=True)


# ---- elementwise
def _binary(name: str, fn: np.ufunc) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Elementwise op `name` computing `fn(a, b)` with numpy broadcasting."""

    def op(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = _arr(a, "a"), _arr(b, "b")
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ValueError(
                f"{name}: shapes of a {a.shape} and b {b.shape} do not broadcast"
            ) from None
        return np.asarray(fn(a, b))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise numpy.{fn.__name__}(a, b) with numpy broadcasting."
    return op


add = _binary("add", np.add)
subtract = _binary("subtract", np.subtract)
multiply = _binary("multiply", np.multiply)
divide = _binary("divide", np.divide)
maximum = _binary("maximum", np.maximum)
minimum = _binary("minimum", np.minimum)


def bias_add(x: np.ndarray, b: np.ndarray, axis: int = 1) -> np.ndarray:
    """Add 1-D `b` along `axis` of `x` (axis 1 = channels of NCHW)."""
    x, b = _arr(x, "x"), _arr(b, "b", 1)
    ax = _axis(axis, x.ndim)
    if b.shape[0] != x.shape[ax]:
        raise ValueError(f"b must have shape ({x.shape[ax]},) to match axis {axis} of {x.shape}")
    shape = [1] * x.ndim
    shape[ax] = b.shape[0]
    return x + b.reshape(shape)


def affine(x: np.ndarray, scale: np.ndarray, shift: np.ndarray, relu: bool = False) -> np.ndarray:
    """x * scale + shift, then max(., 0) when `relu` (scale, shift broadcast to x)."""
    x, scale, shift = _arr(x, "x"), _arr(scale, "scale"), _arr(shift, "shift")
    y = (x * scale + shift).astype(x.dtype, copy=False)
    return np.maximum(y, np.zeros((), x.dtype)) if relu else y


def relu(x: np.ndarray) -> np.ndarray:
    x = _arr(x, "x")
    return np.maximum(x, np.zeros((), x.dtype))


def clip(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Clamp to [lo, hi]."""
    x = _arr(x, "x")
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise ValueError(f"clip bound {name} must be a real number, got {v!r}")
    if not lo <= hi:
        raise ValueError(f"clip needs lo <= hi, got lo={lo!r}, hi={hi!r}")
    return np.clip(x, np.asarray(lo).astype(x.dtype), np.asarray(hi).astype(x.dtype))


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)) without overflow: exp is only taken of -|x|."""
    x = _arr(x, "x")
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype, copy=False)


def silu(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x) (SiLU, swish: EfficientNet's activation)."""
    x = _arr(x, "x")
    return (x * sigmoid(x)).astype(x.dtype, copy=False)


def hard_sigmoid(x: np.ndarray, alpha: float = 0.2, beta: float = 0.5) -> np.ndarray:
    """max(0, min(1, alpha * x + beta))."""
    x = _arr(x, "x")
    return np.clip(alpha * x + beta, 0.0, 1.0).astype(x.dtype, copy=False)


def hard_swish(x: np.ndarray) -> np.ndarray:
    """x * relu6(x + 3) / 6."""
    x = _arr(x, "x")
    return (x * np.clip(x + 3.0, 0.0, 6.0) / 6.0).astype(x.dtype, copy=False)


def leaky_relu(x: np.ndarray, alpha: float = 0.01) -> np.ndarray:
    x = _arr(x, "x")
    return np.where(x >= 0, x, alpha * x).astype(x.dtype, copy=False)


def cast(x: np.ndarray, dtype: Any) -> np.ndarray:
    """Copy of `x` converted to `dtype` (a numpy dtype or its name, e.g. "float16")."""
    x = _arr(x, "x")
    try:
        target = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be a numpy dtype or its name, got {dtype!r}") from None
    return x.astype(target)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(x) / sum(exp(x)) along `axis`, shifted by the max so exp never overflows."""
    x = _arr(x, "x")
    ax = _axis(axis, x.ndim)
    e = np.exp(x - x.max(axis=ax, keepdims=True))
    return e / e.sum(axis=ax, keepdims=True)


def attention(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    scale: float = 1.0,
    layouts: dict[str, str] | None = None,
) -> np.ndarray:
    """softmax(q K^T * scale + mask) v in float64; q, v and the output [B,H,S,D] ("BHSD")
    or [B,S,H,D] ("BSHD"), k as K^T [B,H,D,Sk] ("BHDS", the default), K [B,H,Sk,D] or
    [B,Sk,H,D] (`layouts` by operand: q, k, v, out); the mask broadcast. A row whose every
    key is masked by -inf gives 0 (the exporters' IsNaN/Where guard)."""
    lay = {"q": "BHSD", "k": "BHDS", "v": "BHSD", "out": "BHSD", **(layouts or {})}

    def logical(x: np.ndarray, what: str) -> np.ndarray:
        x = _arr(x, what, 4).astype(np.float64)
        return x.transpose([lay[what].index(c) for c in "BHSD"])

    q, kk, v = logical(q, "q"), logical(k, "k"), logical(v, "v")
    s = np.matmul(q, kk.transpose(0, 1, 3, 2)) * scale
    if mask is not None:
        s = s + _arr(mask, "mask", 4).astype(np.float64)
    mx = s.max(axis=-1, keepdims=True)
    live = mx > -np.inf
    with np.errstate(invalid="ignore"):
        e = np.exp(s - np.where(live, mx, 0.0))
        p = np.where(live, e / e.sum(axis=-1, keepdims=True), 0.0)
    out = np.matmul(p, v)
    if lay["out"] == "BSHD":
        out = out.transpose(0, 2, 1, 3)
    return np.ascontiguousarray(out).astype(np.float32)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """x - logsumexp(x) along `axis`, computed stably."""
    x = _arr(x, "x")
    ax = _axis(axis, x.ndim)
    shifted = x - x.max(axis=ax, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=ax, keepdims=True))


def layout_transform(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Convert `x` between layouts; see `tunefarm.ir.layouts.transform`."""
    return layouts.transform(_arr(x, "x"), src, dst)


# ---- graph ops between the anchors: data movement and reductions
def concat(xs: Sequence[np.ndarray], axis: int) -> np.ndarray:
    """Join along `axis` (may be negative); shapes must agree everywhere else."""
    arrays = [_arr(x, f"xs[{k}]") for k, x in enumerate(xs)]
    if not arrays:
        raise ValueError("xs must hold at least one array")
    ax = _axis(axis, arrays[0].ndim)
    first = arrays[0].shape
    for k, a in enumerate(arrays[1:], start=1):
        if a.ndim != len(first) or np.delete(a.shape, ax).tolist() != np.delete(first, ax).tolist():
            raise ValueError(f"shapes must agree off axis {ax}: xs[0] {first}, xs[{k}] {a.shape}")
    return np.concatenate(arrays, axis=ax)


def slice_axis(x: np.ndarray, axis: int, begin: int, end: int) -> np.ndarray:
    """x[..., begin:end, ...] on `axis` with Python slice bounds (which are ONNX Slice's for
    step 1: negatives count from the end, out-of-range bounds clamp); empty is an error."""
    x = _arr(x, "x")
    ax = _axis(axis, x.ndim)
    for name, v in (("begin", begin), ("end", end)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer):
            raise ValueError(f"{name} must be an int, got {v!r}")
    index = [slice(None)] * x.ndim
    index[ax] = slice(int(begin), int(end))
    out = x[tuple(index)]
    if out.shape[ax] == 0:
        raise ValueError(f"begin {begin} must come before end {end} on an axis of {x.shape[ax]}")
    return out.copy()


def pad(x: np.ndarray, pads: Sequence[int], value: float = 0.0) -> np.ndarray:
    """Constant padding; `pads` as ONNX: all begins (one per dim), then all ends, >= 0."""
    x = _arr(x, "x")
    p = _ints(pads, 2 * x.ndim, "pads", 0)
    width = list(zip(p[: x.ndim], p[x.ndim :], strict=True))
    return np.pad(x, width, mode="constant", constant_values=np.asarray(value, x.dtype))


def transpose(x: np.ndarray, perm: Sequence[int] | None = None) -> np.ndarray:
    """Permute the axes: out.shape[d] = x.shape[perm[d]]; no perm reverses them (ONNX)."""
    x = _arr(x, "x")
    if perm is not None and sorted(_ints(perm, x.ndim, "perm", 0)) != list(range(x.ndim)):
        raise ValueError(f"perm must be a permutation of 0..{x.ndim - 1}, got {perm!r}")
    return np.ascontiguousarray(np.transpose(x, None if perm is None else tuple(perm)))


def reduce_mean(
    x: np.ndarray, axes: Sequence[int] | None = None, keepdims: bool = True
) -> np.ndarray:
    """Mean over `axes` (negative allowed; None or empty = all, as ONNX), in float64.

    Reducing everything without keepdims gives a 0-d array, as numpy and ONNX do.
    """
    x = _arr(x, "x")
    ax = tuple(range(x.ndim)) if not axes else tuple(_axis(a, x.ndim, "axes") for a in axes)
    if len(set(ax)) != len(ax):
        raise ValueError(f"axes must not repeat an axis, got {axes!r}")
    return np.asarray(x.astype(np.float64).mean(axis=ax, keepdims=bool(keepdims))).astype(x.dtype)


def lrn(
    x: np.ndarray, size: int, alpha: float = 1e-4, beta: float = 0.75, bias: float = 1.0
) -> np.ndarray:
    """ONNX LRN: y = x / (bias + alpha / size * s) ** beta, s[n, c] the sum of x[n, c']**2
    over c' in [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] within the channels."""
    x = _arr(x, "x")
    if x.ndim < 3:
        raise ValueError(f"x must be (N, C, D1, ...) with at least 3 dims, got {x.shape}")
    (n,) = _ints(size, 1, "size", 1)
    sq = x.astype(np.float64) ** 2
    lo = (n - 1) // 2
    padded = np.pad(sq, [(0, 0), (lo, n - 1 - lo)] + [(0, 0)] * (x.ndim - 2))
    channels = x.shape[1]
    total = sum(padded[:, k : k + channels] for k in range(n))
    return (x / (bias + alpha / n * total) ** beta).astype(x.dtype)


def copy(x: np.ndarray) -> np.ndarray:
    """A fresh copy (the identity op that materialises a value)."""
    return _arr(x, "x").copy()


# ---- transformer ops
_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, in float64 (math.erf elementwise: numpy has none)."""
    x = _arr(x, "x")
    return _ERF(x.astype(np.float64)).astype(np.float64).astype(x.dtype)


def tanh(x: np.ndarray) -> np.ndarray:
    x = _arr(x, "x")
    return np.tanh(x.astype(np.float64)).astype(x.dtype)


def sqrt(x: np.ndarray) -> np.ndarray:
    x = _arr(x, "x")
    return np.sqrt(x.astype(np.float64)).astype(x.dtype)


def square(x: np.ndarray) -> np.ndarray:
    x = _arr(x, "x")
    return (x.astype(np.float64) ** 2).astype(x.dtype)


def gelu(x: np.ndarray) -> np.ndarray:
    """x * 0.5 * (1 + erf(x / sqrt(2))), the exact GELU BERT uses."""
    x = _arr(x, "x")
    xf = x.astype(np.float64)
    return (xf * 0.5 * (1.0 + erf(xf / math.sqrt(2.0)))).astype(x.dtype)


def equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1.0 where a == b else 0.0 (booleans are float 0/1 at run time)."""
    a, b = _arr(a, "a"), _arr(b, "b")
    return (a == b).astype(np.result_type(a, b))


def where(cond: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a where cond != 0 else b, broadcasting all three."""
    cond, a, b = _arr(cond, "cond"), _arr(a, "a"), _arr(b, "b")
    return np.where(cond != 0, a, b).astype(np.result_type(a, b))


def gather(data: np.ndarray, indices: np.ndarray, axis: int = 0) -> np.ndarray:
    """ONNX Gather (negative indices count from the end; out-of-range ones are clamped, as
    the kernels do)."""
    data, indices = _arr(data, "data"), _arr(indices, "indices")
    ax = _axis(axis, data.ndim)
    n = data.shape[ax]
    idx = indices.astype(np.int64)
    idx = np.clip(np.where(idx < 0, idx + n, idx), 0, n - 1)
    return np.take(data, idx, axis=ax)


def broadcast_to(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(np.broadcast_to(_arr(x, "x"), tuple(shape)))


def layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray | None, axis: int = -1, epsilon: float = 1e-5
) -> np.ndarray:
    """(x - mean) / sqrt(var + epsilon) * gamma + beta over axes axis..end, in float64."""
    x = _arr(x, "x")
    ax = _axis(axis, x.ndim)
    xf = x.astype(np.float64)
    axes = tuple(range(ax, x.ndim))
    mean = xf.mean(axis=axes, keepdims=True)
    var = ((xf - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (xf - mean) / np.sqrt(var + epsilon) * gamma.astype(np.float64)
    if beta is not None:
        y = y + beta.astype(np.float64)
    return y.astype(x.dtype)


OPS: dict[str, Callable[..., np.ndarray]] = {
    fn.__name__: fn
    for fn in (
        pad_nchw, conv2d_nchw, conv2d_nhwc, conv2d_nchwc, depthwise_conv2d_nchw,
        dense, matmul, batch_matmul,
        max_pool2d_nchw, avg_pool2d_nchw, global_avg_pool2d_nchw, global_max_pool2d_nchw,
        add, subtract, multiply, divide, maximum, minimum, bias_add, affine,
        relu, clip, sigmoid, silu, hard_sigmoid, hard_swish, leaky_relu, cast,
        softmax, log_softmax, layout_transform,
        erf, tanh, sqrt, square, gelu, equal, where, gather, broadcast_to, layer_norm,
    )
}  # fmt: skip
