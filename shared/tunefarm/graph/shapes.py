"""Shape and dtype inference for the graph IR.

Why a separate pass: every pass that rewrites nodes (import, fusion, layout) must leave each
value with a known static shape and dtype, and must fail early, naming the node, when a
rewrite produced something inconsistent. `infer_node` computes one node's output Values from
its inputs and attrs and checks that the attrs and inputs fit together; `infer_shapes`
recomputes the whole value table in node order.

Errors are GraphError with `node.where()`, what was expected and what was found.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tunefarm.graph import packed_ops, quant_ops
from tunefarm.graph.ir import OPS, Graph, GraphError, Node, Value
from tunefarm.ir import layouts
from tunefarm.ir import reference as R
from tunefarm.ir.ops.attention import LAYOUTS, attention_dims
from tunefarm.ir.ops.epilogue import epilogue_inputs, parse_epilogue
from tunefarm.task import TaskError

__all__ = ["infer_node", "infer_shapes"]

Shape = tuple[int, ...]
Rule = Callable[[Node, list[Value]], list[Value]]


# ---- helpers
def _fail(node: Node, msg: str) -> GraphError:
    return GraphError(f"{node.where()}: {msg}")


def _attr(node: Node, key: str, default: Any = None) -> Any:
    if key in node.attrs:
        return node.attrs[key]
    if default is None:
        raise _fail(node, f"missing attr {key!r}")
    return default


def _ints(node: Node, key: str, n: int, minimum: int, default: Any = None) -> list[int]:
    value = _attr(node, key, default)
    ok = isinstance(value, list | tuple) and len(value) == n
    ok = ok and all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in value)
    if not ok or any(v < minimum for v in value):
        raise _fail(node, f"attr {key!r} must be {n} ints >= {minimum}, got {value!r}")
    return [int(v) for v in value]


def _n_inputs(node: Node, ins: list[Value], want: int | tuple[int, ...]) -> None:
    wants = (want,) if isinstance(want, int) else want
    if len(ins) not in wants:
        expected = " or ".join(str(w) for w in wants)
        raise _fail(node, f"expected {expected} inputs, got {len(ins)}")


def _rank(node: Node, v: Value, rank: int, what: str) -> None:
    if len(v.shape) != rank:
        raise _fail(node, f"{what} {v.name!r} must be {rank}-D, got shape {list(v.shape)}")


def _axis(node: Node, axis: Any, rank: int, key: str = "axis") -> int:
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise _fail(node, f"attr {key!r} must be an int, got {axis!r}")
    if not -rank <= axis < rank:
        raise _fail(node, f"attr {key!r}={axis} is out of range for rank {rank}")
    return int(axis) % rank


def _out(node: Node, shapes: Sequence[Shape], dtype: str) -> list[Value]:
    if len(node.outputs) != len(shapes):
        raise _fail(node, f"expected {len(shapes)} outputs, got {len(node.outputs)}")
    return [
        Value(o, tuple(int(d) for d in s), dtype) for o, s in zip(node.outputs, shapes, strict=True)
    ]


def _same(node: Node, ins: list[Value]) -> list[Value]:
    return _out(node, [ins[0].shape], ins[0].dtype)


def _epilogue(node: Node, ins: list[Value], n_main: int, channels: int, out: Shape) -> str:
    """Check the epilogue inputs after the `n_main` main inputs; return the output dtype."""
    spec = _attr(node, "epilogue", [])
    if not isinstance(spec, list | tuple):
        raise _fail(node, f"attr 'epilogue' must be a list of strings, got {spec!r}")
    try:
        steps = parse_epilogue(spec)
    except TaskError as err:
        raise _fail(node, str(err)) from None
    extra = epilogue_inputs(spec, channels, out)
    want_names = [k for k, _ in extra]
    if len(ins) != n_main + len(extra):
        raise _fail(
            node,
            f"epilogue {list(spec)} needs {n_main + len(extra)} inputs "
            f"({n_main} + {want_names}), got {len(ins)}",
        )
    for (kind, shape), v in zip(extra, ins[n_main:], strict=True):
        if tuple(v.shape) != tuple(shape):
            raise _fail(
                node,
                f"epilogue {kind} input {v.name!r} must have shape {list(shape)}, "
                f"got {list(v.shape)}",
            )
    casts = [args[0] for kind, args in steps if kind == "cast"]
    return str(casts[-1]) if casts else ins[0].dtype


# ---- rules, one per op
def _conv2d(node: Node, ins: list[Value]) -> list[Value]:
    if len(ins) < 2:
        raise _fail(node, f"expected data and weight inputs, got {len(ins)} inputs")
    data, weight = ins[0], ins[1]
    _rank(node, data, 4, "data (NCHW)")
    _rank(node, weight, 4, "weight (OIHW)")
    strides = _ints(node, "strides", 2, 1, [1, 1])
    pads = _ints(node, "padding", 4, 0, [0, 0, 0, 0])
    dilation = _ints(node, "dilation", 2, 1, [1, 1])
    groups = _attr(node, "groups", 1)
    n, c, h, w = data.shape
    o, i, kh, kw = weight.shape
    if not isinstance(groups, int) or groups < 1 or c % groups or o % groups:
        raise _fail(
            node,
            f"groups={groups!r} must be an int >= 1 dividing data channels {c} and "
            f"weight output channels {o}",
        )
    if i * groups != c:
        raise _fail(
            node,
            f"weight {weight.name!r} {list(weight.shape)} has {i} input channels; "
            f"data {data.name!r} {list(data.shape)} with groups={groups} needs {c // groups}",
        )
    sizes = []
    for axis, (size, k) in enumerate(((h, kh), (w, kw))):
        p0, p1 = pads[axis], pads[axis + 2]
        try:
            sizes.append(R.pool_output_size(size, k, strides[axis], p0, p1, dilation[axis]))
        except ValueError as err:
            raise _fail(node, f"{('height', 'width')[axis]}: {err}") from None
    out = (n, o, *sizes)
    return _out(node, [out], _epilogue(node, ins, 2, o, out))


def _dense(node: Node, ins: list[Value]) -> list[Value]:
    if len(ins) < 2:
        raise _fail(node, f"expected data and weight inputs, got {len(ins)} inputs")
    data, weight = ins[0], ins[1]
    _rank(node, data, 2, "data (N,K)")
    _rank(node, weight, 2, "weight (O,K)")
    if data.shape[1] != weight.shape[1]:
        raise _fail(
            node,
            f"data {data.name!r} {list(data.shape)} and weight {weight.name!r} "
            f"{list(weight.shape)} must share K (last dim)",
        )
    out = (data.shape[0], weight.shape[0])
    return _out(node, [out], _epilogue(node, ins, 2, weight.shape[0], out))


def _matmul(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 2)
    a, b = ins[0].shape, ins[1].shape
    if not a or not b:
        raise _fail(node, f"matmul inputs must be at least 1-D, got {list(a)} and {list(b)}")
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise _fail(node, f"inner dims differ: a {list(a)} and b {list(b)}")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise _fail(node, f"batch dims of a {list(a)} and b {list(b)} do not broadcast") from None
    out = (*batch, *([a2[-2]] if len(a) > 1 else []), *([b2[-1]] if len(b) > 1 else []))
    return _out(node, [out], str(np.result_type(ins[0].dtype, ins[1].dtype)))


def _batch_norm(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 5)
    if len(ins[0].shape) < 2:
        raise _fail(node, f"data must be at least 2-D (N,C,...), got {list(ins[0].shape)}")
    c = ins[0].shape[1]
    for what, v in zip(("scale", "bias", "mean", "var"), ins[1:], strict=True):
        if v.shape != (c,):
            raise _fail(node, f"{what} {v.name!r} must have shape [{c}], got {list(v.shape)}")
    _attr(node, "epsilon")
    return _same(node, ins)


def _unary(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    return _same(node, ins)


def _clip(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    lo, hi = _attr(node, "lo"), _attr(node, "hi")
    if not lo <= hi:
        raise _fail(node, f"clip needs lo <= hi, got lo={lo!r}, hi={hi!r}")
    return _same(node, ins)


def _binary(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 2)
    a, b = ins
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise _fail(
            node,
            f"shapes of {a.name!r} {list(a.shape)} and {b.name!r} {list(b.shape)} do not broadcast",
        ) from None
    return _out(node, [shape], str(np.result_type(a.dtype, b.dtype)))


def _lrn(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    if len(ins[0].shape) < 3:
        raise _fail(node, f"data must be at least 3-D (N,C,...), got {list(ins[0].shape)}")
    size = _attr(node, "size")
    if not isinstance(size, int) or size < 1:
        raise _fail(node, f"attr 'size' must be an int >= 1, got {size!r}")
    for key in ("alpha", "beta", "bias"):
        _attr(node, key)
    return _same(node, ins)


def _pool2d(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    _rank(node, ins[0], 4, "data (NCHW)")
    kind = _attr(node, "kind")
    if kind not in ("max", "avg"):
        raise _fail(node, f"attr 'kind' must be 'max' or 'avg', got {kind!r}")
    kernel = _ints(node, "kernel", 2, 1)
    strides = _ints(node, "strides", 2, 1, [1, 1])
    pads = _ints(node, "padding", 4, 0, [0, 0, 0, 0])
    dilation = _ints(node, "dilation", 2, 1, [1, 1])
    ceil_mode = bool(_attr(node, "ceil_mode", False))
    if kind == "avg" and dilation != [1, 1]:
        raise _fail(node, f"avg pooling supports only dilation [1, 1], got {dilation}")
    sizes = []
    for axis, size in enumerate(ins[0].shape[2:]):
        p0, p1 = pads[axis], pads[axis + 2]
        span = dilation[axis] * (kernel[axis] - 1) + 1
        if max(p0, p1) >= span:
            raise _fail(node, f"padding {pads} must be smaller than the kernel extent {span}")
        try:
            sizes.append(
                R.pool_output_size(
                    size, kernel[axis], strides[axis], p0, p1, dilation[axis], ceil_mode
                )
            )
        except ValueError as err:
            raise _fail(node, f"{('height', 'width')[axis]}: {err}") from None
    return _out(node, [ins[0].shape[:2] + tuple(sizes)], ins[0].dtype)


def _global_pool2d(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    _rank(node, ins[0], 4, "data (NCHW)")
    if _attr(node, "kind") not in ("max", "avg"):
        raise _fail(node, f"attr 'kind' must be 'max' or 'avg', got {node.attrs['kind']!r}")
    return _out(node, [ins[0].shape[:2] + (1, 1)], ins[0].dtype)


def _reshape(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    shape = _attr(node, "shape")
    ok = isinstance(shape, list | tuple)
    if not ok or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise _fail(node, f"attr 'shape' must be a list of ints >= 0 (resolved), got {shape!r}")
    if math.prod(shape) != math.prod(ins[0].shape):
        raise _fail(
            node,
            f"cannot reshape {ins[0].name!r} {list(ins[0].shape)} "
            f"({math.prod(ins[0].shape)} elements) to {list(shape)} "
            f"({math.prod(shape)} elements)",
        )
    return _out(node, [tuple(shape)], ins[0].dtype)


def _transpose(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    perm = _attr(node, "perm")
    shape = ins[0].shape
    if not isinstance(perm, list | tuple) or sorted(perm) != list(range(len(shape))):
        raise _fail(node, f"attr 'perm' must be a permutation of 0..{len(shape) - 1}, got {perm!r}")
    return _out(node, [tuple(shape[p] for p in perm)], ins[0].dtype)


def _concat(node: Node, ins: list[Value]) -> list[Value]:
    if not ins:
        raise _fail(node, "expected at least 1 input, got 0")
    first = ins[0]
    axis = _axis(node, _attr(node, "axis"), max(1, len(first.shape)))
    total = 0
    for v in ins:
        off = [d for i, d in enumerate(v.shape) if i != axis]
        want = [d for i, d in enumerate(first.shape) if i != axis]
        if len(v.shape) != len(first.shape) or off != want:
            raise _fail(
                node,
                f"input {v.name!r} {list(v.shape)} differs from {first.name!r} "
                f"{list(first.shape)} off the concat axis {axis}",
            )
        if v.dtype != first.dtype:
            raise _fail(node, f"input {v.name!r} is {v.dtype}, {first.name!r} is {first.dtype}")
        total += v.shape[axis]
    shape = list(first.shape)
    shape[axis] = total
    return _out(node, [tuple(shape)], first.dtype)


def _split(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    shape = ins[0].shape
    axis = _axis(node, _attr(node, "axis"), len(shape))
    sizes = _attr(node, "sizes")
    if not isinstance(sizes, list | tuple) or not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise _fail(node, f"attr 'sizes' must be a list of ints >= 0, got {sizes!r}")
    if sum(sizes) != shape[axis]:
        raise _fail(
            node,
            f"sizes {list(sizes)} sum to {sum(sizes)}, but axis {axis} of "
            f"{ins[0].name!r} {list(shape)} has {shape[axis]}",
        )
    outs = [shape[:axis] + (s,) + shape[axis + 1 :] for s in sizes]
    return _out(node, outs, ins[0].dtype)


def _pad(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    shape = ins[0].shape
    pads = _attr(node, "pads")
    if not isinstance(pads, list | tuple) or len(pads) != 2 * len(shape):
        raise _fail(node, f"attr 'pads' must be {2 * len(shape)} ints, got {pads!r}")
    _attr(node, "value", 0.0)
    out = tuple(d + pads[i] + pads[i + len(shape)] for i, d in enumerate(shape))
    if min(out, default=0) < 0:
        raise _fail(node, f"pads {list(pads)} crop {list(shape)} below zero: {list(out)}")
    return _out(node, [out], ins[0].dtype)


def _softmax(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    _axis(node, _attr(node, "axis"), len(ins[0].shape))
    return _same(node, ins)


def _reduce_mean(node: Node, ins: list[Value]) -> list[Value]:
    """Empty `axes` reduces every axis (the ONNX default)."""
    _n_inputs(node, ins, 1)
    shape = ins[0].shape
    axes_attr = _attr(node, "axes")
    if not isinstance(axes_attr, list | tuple):
        raise _fail(node, f"attr 'axes' must be a list of ints, got {axes_attr!r}")
    axes = {_axis(node, a, len(shape), "axes") for a in axes_attr} or set(range(len(shape)))
    if len(axes) != len(axes_attr) and axes_attr:
        raise _fail(node, f"attr 'axes' repeats an axis: {list(axes_attr)}")
    keep = bool(_attr(node, "keepdims", True))
    out = [1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes]
    return _out(node, [tuple(out)], ins[0].dtype)


def _layout_transform(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    src, dst = _attr(node, "src"), _attr(node, "dst")
    try:
        shape = layouts.layout_shape(ins[0].shape, src, dst)
    except ValueError as err:
        raise _fail(
            node, f"{src} -> {dst} of {ins[0].name!r} {list(ins[0].shape)}: {err}"
        ) from None
    return _out(node, [shape], ins[0].dtype)


def _float(node: Node, ins: list[Value]) -> None:
    for v in ins:
        if v.dtype != "float32":
            raise _fail(node, f"input {v.name!r} must be float32, got {v.dtype}")


def _float_unary(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    _float(node, ins)
    return _same(node, ins)


def _equal(node: Node, ins: list[Value]) -> list[Value]:
    _float(node, ins)
    return _binary(node, ins)


def _channel_affine(node: Node, ins: list[Value]) -> list[Value]:
    """x (rank >= 2, float32; several xs: their concat along axis 1) with a scale and shift
    of shape [1, C, 1, ...]: x's shape."""
    if len(ins) < 3:
        raise _fail(node, f"expected x (one or more) then scale and shift, got {len(ins)} inputs")
    _float(node, ins)
    xs = ins[:-2]
    shape = list(xs[0].shape)
    if len(shape) < 2:
        raise _fail(node, f"x {xs[0].name!r} needs a channel axis (rank >= 2), got {shape}")
    for v in xs[1:]:
        if len(v.shape) != len(shape) or [*v.shape[:1], *v.shape[2:]] != shape[:1] + shape[2:]:
            raise _fail(node, f"x {v.name!r} {list(v.shape)} does not join {shape} on axis 1")
    shape[1] = sum(v.shape[1] for v in xs)
    want = [1, shape[1]] + [1] * (len(shape) - 2)
    for what, v in zip(("scale", "shift"), ins[-2:], strict=True):
        if list(v.shape) != want:
            got = list(v.shape)
            raise _fail(node, f"{what} {v.name!r} must have shape {want}, got {got}")
    return _out(node, [shape], "float32")


def _where(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 3)
    _float(node, ins)
    try:
        shape = np.broadcast_shapes(*(v.shape for v in ins))
    except ValueError:
        shapes = [list(v.shape) for v in ins]
        raise _fail(node, f"shapes {shapes} of cond, a and b do not broadcast") from None
    return _out(node, [shape], "float32")


def _cast(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    dtype = _attr(node, "dtype")
    src = np.dtype(ins[0].dtype)
    # numbers and bools to float32, and float32 to int32/int64 (truncating run-time integers)
    to_float = dtype == "float32" and src.kind in "biuf"
    to_int = dtype in ("int32", "int64") and src == np.float32
    to_half = dtype == "float16" and src == np.float32  # a float16 Cast's rounding
    if not (to_float or to_int or to_half):
        raise _fail(
            node,
            "only casts of numbers to float32 and of float32 to int32/int64 are supported, "
            f"got {ins[0].dtype} to {dtype!r}",
        )
    return _out(node, [ins[0].shape], dtype)


def _gather(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 2)
    data, idx = ins
    axis = _axis(node, _attr(node, "axis"), len(data.shape))
    if np.dtype(idx.dtype).kind not in "iu":
        raise _fail(node, f"indices {idx.name!r} must be integers, got {idx.dtype}")
    if not idx.shape:
        raise _fail(node, f"indices {idx.name!r} must be at least 1-D (reshape scalars)")
    shape = (*data.shape[:axis], *idx.shape, *data.shape[axis + 1 :])
    return _out(node, [shape], data.dtype)


def _expand(node: Node, ins: list[Value]) -> list[Value]:
    """The shape attr is the result (the importer resolves ONNX Expand's two-way broadcast)."""
    _n_inputs(node, ins, 1)
    shape = _attr(node, "shape")
    ok = isinstance(shape, list | tuple) and all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in shape
    )
    try:
        ok = ok and tuple(np.broadcast_shapes(ins[0].shape, tuple(shape))) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise _fail(node, f"cannot expand {ins[0].name!r} {list(ins[0].shape)} to shape {shape!r}")
    return _out(node, [tuple(shape)], ins[0].dtype)


def _slice(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, 1)
    shape = list(ins[0].shape)
    axis = _axis(node, _attr(node, "axis"), len(shape))
    begin, end = _attr(node, "begin"), _attr(node, "end")
    ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (begin, end))
    if not ok or not 0 <= begin < end <= shape[axis]:
        raise _fail(
            node,
            f"attrs begin={begin!r}, end={end!r} must satisfy 0 <= begin < end <= "
            f"{shape[axis]} (axis {axis} of {list(ins[0].shape)})",
        )
    shape[axis] = end - begin
    return _out(node, [tuple(shape)], ins[0].dtype)


def _layer_norm(node: Node, ins: list[Value]) -> list[Value]:
    _n_inputs(node, ins, (2, 3))
    _float(node, ins)
    x = ins[0]
    axis = _axis(node, _attr(node, "axis"), len(x.shape))
    eps = _attr(node, "epsilon")
    if isinstance(eps, bool) or not isinstance(eps, int | float) or eps < 0:
        raise _fail(node, f"attr 'epsilon' must be a number >= 0, got {eps!r}")
    for what, v in zip(("gamma", "beta"), ins[1:], strict=False):
        if v.shape != x.shape[axis:]:
            raise _fail(
                node,
                f"{what} {v.name!r} must have shape {list(x.shape[axis:])} (axes {axis}.. of "
                f"x), got {list(v.shape)}",
            )
    return _same(node, ins)


def _attention(node: Node, ins: list[Value]) -> list[Value]:
    """q, k, v in the layouts the attrs name (`tunefarm.ir.ops.attention.LAYOUTS`), an
    optional mask broadcastable to [B, H, Sq, Sk]: output [B, H, Sq, D] or [B, Sq, H, D]."""
    _n_inputs(node, ins, (3, 4))
    _float(node, ins)
    scale = _attr(node, "scale")
    if isinstance(scale, bool) or not isinstance(scale, int | float) or not math.isfinite(scale):
        raise _fail(node, f"attr 'scale' must be a finite number, got {scale!r}")
    mask = ins[3].shape if len(ins) == 4 else None
    layouts = {w: str(_attr(node, f"{w}_layout", LAYOUTS[w][0])) for w in LAYOUTS}
    try:
        b, h, sq, _, d = attention_dims(ins[0].shape, ins[1].shape, ins[2].shape, mask, layouts)
    except ValueError as exc:
        raise _fail(node, str(exc)) from None
    out = (b, h, sq, d) if layouts["out"] == "BHSD" else (b, sq, h, d)
    return _out(node, [out], ins[0].dtype)


RULES: dict[str, Rule] = {
    "conv2d": _conv2d,
    "dense": _dense,
    "matmul": _matmul,
    "batch_norm": _batch_norm,
    "relu": _unary,
    "sigmoid": _unary,
    "hard_swish": _unary,
    "silu": _unary,
    "leaky_relu": _unary,
    "clip": _clip,
    "hard_sigmoid": _unary,
    "add": _binary,
    "sub": _binary,
    "mul": _binary,
    "div": _binary,
    "channel_affine": _channel_affine,
    "lrn": _lrn,
    "pool2d": _pool2d,
    "global_pool2d": _global_pool2d,
    "reshape": _reshape,
    "transpose": _transpose,
    "concat": _concat,
    "split": _split,
    "pad": _pad,
    "softmax": _softmax,
    "reduce_mean": _reduce_mean,
    "layout_transform": _layout_transform,
    "erf": _float_unary,
    "tanh": _float_unary,
    "sqrt": _float_unary,
    "square": _float_unary,
    "gelu": _float_unary,
    "equal": _equal,
    "where": _where,
    "cast": _cast,
    "gather": _gather,
    "expand": _expand,
    "slice": _slice,
    "layer_norm": _layer_norm,
    "attention": _attention,
    **{op: quant_ops.shape_rule for op in quant_ops.QUANT_OPS},
    **{op: packed_ops.shape_rule for op in packed_ops.PACKED_OPS},
}
assert set(RULES) == set(OPS), "every graph op needs a shape rule"


# ---- entry points
def infer_node(graph: Graph, node: Node) -> list[Value]:
    """Output Values of `node` (named after node.outputs) from its inputs' Values in `graph`
    and its attrs. Raises GraphError naming the node for unknown ops, undefined inputs and
    inputs or attrs that do not fit together."""
    rule = RULES.get(node.op)
    if rule is None:
        raise _fail(node, f"unknown op; graph ops are {', '.join(OPS)}")
    ins = []
    for name in node.inputs:
        if name not in graph.values:
            raise _fail(node, f"input {name!r} has no shape/dtype (not defined)")
        ins.append(graph.values[name])
    return rule(node, ins)


def infer_shapes(graph: Graph) -> Graph:
    """The shape and dtype inference pass: a copy of `graph` whose value table holds the
    inputs, the params (from their arrays) and every node output recomputed in node order.
    Stale entries for values nothing defines any more are dropped."""
    g = graph.copy()
    g.values = {v.name: v for v in g.inputs}
    for name, array in g.params.items():
        g.values[name] = Value(name, tuple(array.shape), str(array.dtype))
    for node in g.nodes:
        for v in infer_node(g, node):
            g.values[v.name] = v
    return g
