"""A generic template for every op without a specialised one.

Elementwise helper stages are inlined; each remaining stage runs at root with its outer
spatial axes fused and parallelised and its innermost spatial axis moved inside any
reduction and vectorised. Two knobs (parallel, vectorize) give a small space to sweep.
The ops here are defined by a build function (task -> input and output tensors), a numpy
reference, and a FLOP count.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.ir import layouts as L
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import conv2d_nchw, conv2d_nhwc, pad
from tunefarm.ir.ops.dense import batch_matmul, matmul
from tunefarm.ir.ops.elementwise import where
from tunefarm.ir.ops.epilogue import apply_epilogue, epilogue_inputs, reference_epilogue
from tunefarm.ir.ops.layout import layout_transform
from tunefarm.ir.ops.movement import broadcast_to, concat, copy, gather, slice_axis, transpose
from tunefarm.ir.ops.normalization import layer_norm
from tunefarm.ir.ops.reduction import lrn, reduce_mean
from tunefarm.ir.ops.softmax import softmax
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    InputSpec,
    KernelDef,
    Template,
    as_padding,
    as_pair,
    check_config,
    identity,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

Inputs = list[tuple[str, tuple[int, ...]]]


def _shape(task: Task, key: str) -> tuple[int, ...]:
    if key not in task.args:
        raise TaskError(f"{task.op}: missing param {key!r}")
    return _as_shape(task, key, task.args[key])


def _as_shape(task: Task, key: str, value: Any) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: param {key!r} must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{task.op}: param {key!r} must be a non-empty shape of positive ints")
    return shape


def _int_param(task: Task, key: str, default: int | None = None) -> int:
    """A required (or defaulted) int param; bools and floats are refused, not truncated."""
    value = task.args.get(key, default)
    if value is None:
        raise TaskError(f"{task.op}: missing param {key!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise TaskError(f"{task.op}: param {key!r} must be an int, got {value!r}")
    return value


def _num_param(task: Task, key: str, default: float) -> float:
    value = task.args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskError(f"{task.op}: param {key!r} must be a number, got {value!r}")
    return float(value)


def _conv_attrs(task: Task):
    a = task.args
    return (
        as_pair(a.get("strides", 1), "strides"),
        as_padding(a.get("padding", 0)),
        as_pair(a.get("dilation", 1), "dilation"),
        int(a.get("groups", 1)),
    )


@dataclass(frozen=True)
class OpSpec:
    op: str
    inputs: Callable[[Task], Inputs]
    build: Callable[[Task, list[Tensor]], Tensor]
    reference: Callable[[Task, list[np.ndarray]], np.ndarray]
    flops: Callable[[Task, tuple[int, ...]], float]
    # dtype and value range of inputs that are not float32 in [-1, 1) (int indices, masks)
    specs: Callable[[Task], dict[str, InputSpec]] = lambda t: {}


@dataclass(frozen=True)
class MaskSpec(InputSpec):
    """Float tensors holding small integers (0/1 masks, Equal's operands), so that the
    select in where/equal takes both branches when measured."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        ints = rng.integers(int(self.lo), int(self.hi), size=shape, endpoint=True)
        return ints.astype(self.dtype)


def _ew_inputs(task: Task) -> Inputs:
    shapes = task.args.get("shapes")
    if not shapes:
        raise TaskError("elementwise: missing param 'shapes' (a list of input shapes)")
    return [(f"x{i}", tuple(int(v) for v in s)) for i, s in enumerate(shapes)]


UNARY = {"relu", "sigmoid", "silu", "hard_swish", "hard_sigmoid", "leaky_relu", "clip", "cast"}
UNARY |= {"erf", "tanh", "sqrt", "square", "gelu"}
BINARY = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "bias_add", "equal"}
# x * scale + shift (relu=True: then max(., 0)), one pass; with more than one x (k + 2
# shapes) the xs are concatenated along axis 1 first, in the same pass (DenseNet's concat)
TERNARY = {"affine"}


def _ew_fn(task: Task) -> str:
    fn = task.args.get("fn")
    if fn not in UNARY | BINARY | TERNARY:
        known = sorted(UNARY | BINARY | TERNARY)
        raise TaskError(f"elementwise: fn must be one of {known}, got {fn!r}")
    want = 1 if fn in UNARY else 2 if fn in BINARY else 3
    if fn in TERNARY and len(task.args.get("shapes", ())) > want:
        return fn  # an affine of the concat of several xs
    if len(task.args.get("shapes", ())) != want:
        raise TaskError(f"elementwise: fn {fn!r} takes {want} input shape(s) in 'shapes'")
    return fn


def _ew_attrs(task: Task, fn: str) -> dict[str, Any]:
    a = task.args
    return {
        "clip": {"lo": a.get("lo", 0.0), "hi": a.get("hi", 6.0)},
        "leaky_relu": {"alpha": a.get("alpha", 0.01)},
        "hard_sigmoid": {"alpha": a.get("alpha", 0.2), "beta": a.get("beta", 0.5)},
        "cast": {"dtype": a.get("dtype", "float32")},
        "bias_add": {"axis": a.get("axis", 1)},
        "affine": {"relu": bool(a.get("relu", False))},
    }.get(fn, {})


def _ew_specs(task: Task) -> dict[str, InputSpec]:
    """Inputs of `dtypes` (optional, one per input: a cast's int64 source) draw small ints;
    equal's operands draw {0, 1, 2} so that both outcomes occur."""
    dtypes = task.args.get("dtypes") or []
    if not isinstance(dtypes, list | tuple):
        raise TaskError(
            f"elementwise: param 'dtypes' must be a list of dtype names, got {dtypes!r}"
        )
    out: dict[str, InputSpec] = {}
    for i, d in enumerate(dtypes):
        if d not in ("float32", "int64", "int32", "float16", "bool"):
            raise TaskError(
                f"elementwise: dtypes[{i}] must be float32, float16, int32, int64 or bool, "
                f"got {d!r}"
            )
        if d == "float16":  # a float16 Cast's value going back to float32
            out[f"x{i}"] = InputSpec(d, -3.0, 3.0)
        elif d == "bool":  # a bool graph input's cast to a float mask
            out[f"x{i}"] = InputSpec(d, 0, 1)
        elif d != "float32":
            out[f"x{i}"] = InputSpec(d, -3, 3)
    if task.args.get("fn") == "sqrt":
        out.setdefault("x0", InputSpec("float32", 0.0, 4.0))
    if task.args.get("fn") == "equal":
        for i in range(2):
            out.setdefault(f"x{i}", MaskSpec("float32", 0, 2))
    return out


def _ew_build(task: Task, xs: list[Tensor]) -> Tensor:
    fn = _ew_fn(task)
    if fn == "affine" and len(xs) > 3:  # the concat is inlined into the affine's pass
        try:
            xs = [concat(xs[:-2], 1, name="joined"), *xs[-2:]]
        except ValueError as exc:
            raise TaskError(f"elementwise affine: the xs do not concatenate: {exc}") from None
    try:
        return getattr(importlib.import_module("tunefarm.ir.ops.elementwise"), fn)(
            *xs, **_ew_attrs(task, fn), name="out"
        )
    except ValueError as exc:
        raise TaskError(f"elementwise {fn}: {exc}") from None


def _ew_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    fn = _ew_fn(task)
    if fn == "affine" and len(xs) > 3:
        xs = [R.concat(xs[:-2], 1), *xs[-2:]]
    return getattr(R, fn)(*xs, **_ew_attrs(task, fn))


def _conv_inputs(layout: str, fn: Callable) -> Callable[[Task], Inputs]:
    """data, weight, and the epilogue's bias/residual (channel axis of `layout`)."""

    def inputs(t: Task) -> Inputs:
        data, weight = _shape(t, "data"), _shape(t, "weight")
        spec = tuple(t.args.get("epilogue", ()))
        if not spec:
            return [("data", data), ("weight", weight)]
        out = fn(te.placeholder(data), te.placeholder(weight), *_conv_attrs(t))
        channels = out.shape[layout.index("C")]
        return [("data", data), ("weight", weight), *epilogue_inputs(spec, channels, out.shape)]

    return inputs


def _conv_build(fn: Callable, layout: str) -> Callable[[Task, list[Tensor]], Tensor]:
    def build(task: Task, xs: list[Tensor]) -> Tensor:
        spec = tuple(task.args.get("epilogue", ()))
        s, p, d, g = _conv_attrs(task)
        try:
            conv = fn(xs[0], xs[1], s, p, d, g, name="conv" if spec else "out")
        except ValueError as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        kinds = [k for k, _ in epilogue_inputs(spec, 1, conv.shape)]
        axis = layout.index("C")
        return apply_epilogue(
            conv, spec, lambda i: (i[axis],), dict(zip(kinds, xs[2:], strict=True)), "out"
        )

    return build


def _conv_ref(fn: Callable, layout: str) -> Callable[[Task, list[np.ndarray]], np.ndarray]:
    def ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
        s, p, d, g = _conv_attrs(task)
        spec = tuple(task.args.get("epilogue", ()))
        out = fn(xs[0], xs[1], s, p, d, g)
        kinds = [k for k, _ in epilogue_inputs(spec, 1, out.shape)]
        extra = dict(zip(kinds, xs[2:], strict=True))
        return reference_epilogue(out, spec, extra, channel_axis=layout.index("C"))

    return ref


def _conv_flops(out_shape: tuple[int, ...], weight: tuple[int, ...]) -> float:
    return 2.0 * math.prod(out_shape) * math.prod(weight) / weight[0]


def _bmm_inputs(t: Task) -> Inputs:
    return [("a", _shape(t, "a")), ("b", _shape(t, "b"))]


# ---------------------------------------------------------------- graph ops between anchors
# Data movement and small reductions the graph compiler lowers to one kernel each. A bad
# param raises ValueError in the IR op (named after the param) and validate() turns it into
# a TaskError; params the IR op does not see (pads, keepdims) are checked here.


def _one_input(t: Task) -> Inputs:
    return [("x", _shape(t, "shape"))]


def _concat_inputs(task: Task) -> Inputs:
    shapes = task.args.get("shapes")
    if not isinstance(shapes, list | tuple) or not shapes:
        raise TaskError(f"{task.op}: param 'shapes' must be a non-empty list of input shapes")
    return [(f"x{i}", _as_shape(task, f"shapes[{i}]", s)) for i, s in enumerate(shapes)]


def _concat_parts(task: Task, xs: list) -> list:
    """A concat's inputs as logical values: with the optional `layouts` (one per input: a
    blocked layout such as "NCHW16c", or None for a logical input) and `channels` (each
    input's channel count, which a padded blocked input holds rounded up), a blocked input
    is read through its layout transform, which the kernel inlines (tensors) or applied
    (numpy arrays, the reference). So a concat of blocked branch outputs into a logical
    value costs one pass, not a transform per input and then the concat."""
    layouts = task.args.get("layouts")
    if layouts is None:
        return list(xs)
    channels = task.args.get("channels")
    if len(layouts) != len(xs) or channels is None or len(channels) != len(xs):
        raise TaskError(f"{task.op}: 'layouts' and 'channels' need one entry per input")
    parts = []
    for i, (x, layout, c) in enumerate(zip(xs, layouts, channels, strict=True)):
        if layout is None:
            parts.append(x)
        elif isinstance(x, np.ndarray):
            parts.append(L.transform_padded(x, layout, "NCHW", int(c)))
        else:
            parts.append(layout_transform(x, layout, "NCHW", name=f"x{i}_nchw", channels=int(c)))
    return parts


def _shuffle_build(task: Task, xs: list[Tensor]) -> Tensor:
    """ShuffleNet's concat along C then channel shuffle (reshape to [N, g, C/g, H, W],
    transpose the two channel axes, reshape back) as one pass: output channel c is channel
    (c % g) * (C / g) + c // g of the concat, which the kernel inlines (and the concat's
    inputs' layout transforms, see `_concat_parts`)."""
    cat = concat(_concat_parts(task, xs), 1, name="cat")
    groups, channels = _int_param(task, "groups"), cat.shape[1]
    if cat.ndim != 4 or groups < 2 or channels % groups:
        raise TaskError(f"{task.op}: groups {groups} must divide the {channels} channels (4-D)")
    per = channels // groups

    def body(n, c, h, w):
        return cat[n, (c % groups) * per + c // groups, h, w]

    return te.compute(cat.shape, body, name="out", tag="channel_shuffle")


def _shuffle_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    cat = np.concatenate(_concat_parts(task, xs), axis=1)
    n, c, h, w = cat.shape
    g = _int_param(task, "groups")
    return cat.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)


def _pad_params(task: Task, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...], float]:
    """(begins, ends, value) from ONNX-ordered `pads`; negative pads (cropping) are refused
    so the kernel never reads outside its input: crop with slice instead."""
    pads = task.args.get("pads")
    ok = isinstance(pads, list | tuple) and len(pads) == 2 * ndim
    if not ok or not all(isinstance(p, int) and not isinstance(p, bool) for p in pads):
        raise TaskError(
            f"{task.op}: param 'pads' must be {2 * ndim} ints (all begins, then all ends), "
            f"got {pads!r}"
        )
    if min(pads) < 0:
        raise TaskError(f"{task.op}: param 'pads' must be >= 0 (crop with slice), got {pads!r}")
    if task.args.get("mode", "constant") != "constant":
        raise TaskError(f"{task.op}: param 'mode' must be 'constant', got {task.args['mode']!r}")
    return tuple(pads[:ndim]), tuple(pads[ndim:]), _num_param(task, "value", 0.0)


def _pad_build(task: Task, xs: list[Tensor]) -> Tensor:
    before, after, value = _pad_params(task, xs[0].ndim)
    return pad(xs[0], before, after, value, name="out")


def _pad_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    before, after, value = _pad_params(task, xs[0].ndim)
    return R.pad(xs[0], before + after, value)


def _keepdims(task: Task) -> bool:
    value = task.args.get("keepdims", True)
    if value not in (True, False):  # also 1 / 0, as ONNX writes it
        raise TaskError(f"{task.op}: param 'keepdims' must be a bool, got {value!r}")
    return bool(value)


def _lrn_attrs(task: Task) -> dict[str, Any]:
    return {
        "size": _int_param(task, "size"),
        "alpha": _num_param(task, "alpha", 1e-4),
        "beta": _num_param(task, "beta", 0.75),
        "bias": _num_param(task, "bias", 1.0),
    }


def _slice_attrs(task: Task) -> tuple[int, int, int]:
    return _int_param(task, "axis"), _int_param(task, "begin"), _int_param(task, "end")


def _moves(t: Task, o: tuple[int, ...]) -> float:
    return 0.0


def _where_inputs(t: Task) -> Inputs:
    shapes = t.args.get("shapes")
    if not isinstance(shapes, list | tuple) or len(shapes) != 3:
        raise TaskError("where: param 'shapes' must be the 3 shapes of cond, a and b")
    return [
        (n, _as_shape(t, f"shapes[{i}]", s))
        for i, (n, s) in enumerate(zip("cab", shapes, strict=True))
    ]


def _gather_inputs(t: Task) -> Inputs:
    return [("data", _shape(t, "data")), ("indices", _shape(t, "indices"))]


def _gather_specs(t: Task) -> dict[str, InputSpec]:
    """int64 (or `indices_dtype`) indices over the whole axis, negatives (counted from the
    end) included."""
    data = _shape(t, "data")
    dtype = t.args.get("indices_dtype", "int64")
    if dtype not in ("int64", "int32"):
        raise TaskError(f"gather: param 'indices_dtype' must be int64 or int32, got {dtype!r}")
    axis = _int_param(t, "axis", 0)
    if not -len(data) <= axis < len(data):
        raise TaskError(f"gather: param 'axis' {axis} is out of range for data {list(data)}")
    n = data[axis]
    return {"indices": InputSpec(dtype, -n, n - 1)}


def _transform_ref(t: Task, xs: list[np.ndarray]) -> np.ndarray:
    """A layout transform's reference; with `channels`, of an activation held with its
    channels padded to whole blocks (`L.transform_padded`), and with `offset` of the slice
    of x's channels from there."""
    a = t.args
    if a.get("channels") is None:
        return L.transform(xs[0], a["src"], a["dst"])
    return L.transform_padded(
        xs[0], a["src"], a["dst"], int(a["channels"]), int(a.get("offset", 0))
    )


def _ln_inputs(t: Task) -> Inputs:
    shape = _shape(t, "shape")
    axis = _int_param(t, "axis", -1)
    if not -len(shape) <= axis < len(shape):
        raise TaskError(f"layer_norm: param 'axis' {axis} is out of range for {list(shape)}")
    tail = shape[axis % len(shape) :]
    return [("x", shape), ("gamma", tail), ("beta", tail)]


def _ln_args(t: Task) -> tuple[int, float]:
    return _int_param(t, "axis", -1), _num_param(t, "epsilon", 1e-5)


GRAPH_SPECS = [
    OpSpec(
        "concat",
        _concat_inputs,
        lambda t, xs: concat(_concat_parts(t, xs), _int_param(t, "axis"), name="out"),
        lambda t, xs: R.concat(_concat_parts(t, xs), _int_param(t, "axis")),
        _moves,
    ),
    OpSpec("channel_shuffle", _concat_inputs, _shuffle_build, _shuffle_ref, _moves),
    OpSpec(
        "slice",
        _one_input,
        lambda t, xs: slice_axis(xs[0], *_slice_attrs(t), name="out"),
        lambda t, xs: R.slice_axis(xs[0], *_slice_attrs(t)),
        _moves,
    ),
    OpSpec("pad", _one_input, _pad_build, _pad_ref, _moves),
    OpSpec(
        "transpose",
        _one_input,
        lambda t, xs: transpose(xs[0], t.args.get("perm"), name="out"),
        lambda t, xs: R.transpose(xs[0], t.args.get("perm")),
        _moves,
    ),
    OpSpec(
        "reduce_mean",
        _one_input,
        lambda t, xs: reduce_mean(xs[0], t.args.get("axes"), _keepdims(t), name="out"),
        # a full reduction without keepdims is 0-d in numpy; the kernel writes shape (1,)
        lambda t, xs: np.atleast_1d(R.reduce_mean(xs[0], t.args.get("axes"), _keepdims(t))),
        lambda t, o: float(math.prod(_shape(t, "shape"))),
    ),
    OpSpec(
        "lrn",
        _one_input,
        lambda t, xs: lrn(xs[0], **_lrn_attrs(t), name="out"),
        lambda t, xs: R.lrn(xs[0], **_lrn_attrs(t)),
        lambda t, o: (2.0 * _lrn_attrs(t)["size"] + 4.0) * math.prod(o),
    ),
    OpSpec(
        "where",
        _where_inputs,
        lambda t, xs: where(*xs, name="out"),
        lambda t, xs: R.where(*xs),
        lambda t, o: float(math.prod(o)),
        lambda t: {"c": MaskSpec("float32", 0, 1)},
    ),
    OpSpec(
        "gather",
        _gather_inputs,
        lambda t, xs: gather(xs[0], xs[1], _int_param(t, "axis", 0), name="out"),
        lambda t, xs: R.gather(xs[0], xs[1], _int_param(t, "axis", 0)),
        _moves,
        _gather_specs,
    ),
    OpSpec(
        "broadcast_to",
        _one_input,
        lambda t, xs: broadcast_to(xs[0], t.args.get("out"), name="out"),
        lambda t, xs: R.broadcast_to(xs[0], t.args.get("out")),
        _moves,
    ),
    OpSpec(
        "layer_norm",
        _ln_inputs,
        lambda t, xs: layer_norm(*xs, *_ln_args(t), name="out"),
        lambda t, xs: R.layer_norm(*xs, *_ln_args(t)),
        lambda t, o: 8.0 * math.prod(o),
    ),
    OpSpec(
        "copy",
        _one_input,
        lambda t, xs: copy(xs[0], name="out"),
        lambda t, xs: R.copy(xs[0]),
        _moves,
    ),
]


SPECS = [
    OpSpec(
        "elementwise",
        _ew_inputs,
        _ew_build,
        _ew_ref,
        lambda t, o: float(math.prod(o)),
        _ew_specs,
    ),
    OpSpec(
        "group_conv2d",
        _conv_inputs("NCHW", conv2d_nchw),
        _conv_build(conv2d_nchw, "NCHW"),
        _conv_ref(R.conv2d_nchw, "NCHW"),
        lambda t, o: _conv_flops(o, _shape(t, "weight")),
    ),
    OpSpec(
        "conv2d_nhwc",
        _conv_inputs("NHWC", conv2d_nhwc),
        _conv_build(conv2d_nhwc, "NHWC"),
        _conv_ref(R.conv2d_nhwc, "NHWC"),
        lambda t, o: 2.0 * math.prod(o) * math.prod(_shape(t, "weight")[:3]),
    ),
    OpSpec(
        "matmul",
        _bmm_inputs,
        lambda t, xs: matmul(xs[0], xs[1], name="out"),
        lambda t, xs: R.matmul(xs[0], xs[1]),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    OpSpec(
        "batch_matmul",
        _bmm_inputs,
        lambda t, xs: batch_matmul(
            xs[0], xs[1], bool(t.args.get("transpose_b", False)), name="out"
        ),
        lambda t, xs: R.batch_matmul(xs[0], xs[1], bool(t.args.get("transpose_b", False))),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    OpSpec(
        "softmax",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: softmax(xs[0], int(t.args.get("axis", -1)), name="out"),
        lambda t, xs: R.softmax(xs[0], int(t.args.get("axis", -1))),
        lambda t, o: 4.0 * math.prod(o),
    ),
    OpSpec(
        "layout_transform",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: layout_transform(
            xs[0],
            t.args["src"],
            t.args["dst"],
            name="out",
            channels=t.args.get("channels"),
            offset=int(t.args.get("offset", 0)),
        ),
        _transform_ref,
        lambda t, o: 0.0,
    ),
    *GRAPH_SPECS,
]


def generic_steps(out: Tensor, inputs: list[Tensor], cfg: dict[str, Any]) -> list[S.Step]:
    """Inline elementwise helpers; root stages: fuse+parallel outer, vectorize innermost."""
    dag = te.ComputeDAG([out], inputs)
    steps: list[S.Step] = []
    for t in dag.compute_stages:
        op = t.op
        if t is not out and not op.reduce_axes and len(dag.readers(t)) >= 1:
            steps.append(S.ComputeInline(t.name))
            continue
        spatial = [a.name for a in op.axes]
        reduce = [a.name for a in op.reduce_axes]
        inner = spatial[-1]
        if reduce:
            steps.append(S.Reorder(t.name, (*spatial[:-1], *reduce, inner)))
        outer = spatial[:-1]
        if cfg["parallel"] and outer:
            if len(outer) > 1:
                steps.append(S.Fuse(t.name, tuple(outer)))
            steps.append(S.Parallel(t.name, "+".join(outer)))
        if cfg["vectorize"]:
            steps.append(S.Vectorize(t.name, inner))
    return steps


class GenericTemplate(Template):
    generic = True

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.op = spec.op

    def validate(self, task: Task) -> dict[str, Any]:
        shapes, specs = self.spec.inputs(task), self.spec.specs(task)
        xs = [
            te.placeholder(s, specs[n].dtype if n in specs else "float32", name=n)
            for n, s in shapes
        ]
        try:
            out = self.spec.build(task, xs)
        except KeyError as exc:
            raise TaskError(f"{task.op}: missing param {exc.args[0]!r}") from None
        except TaskError:
            raise  # already names the op
        except (ValueError, TypeError) as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        return {"inputs": xs, "out": out}

    def logical_inputs(self, task):
        self.validate(task)
        return self.spec.inputs(task)

    def input_specs(self, task):
        return self.spec.specs(task)

    def reference(self, task, inputs):
        return np.asarray(self.spec.reference(task, list(inputs.values())), dtype=np.float32)

    def flops(self, task):
        return float(self.spec.flops(task, self.validate(task)["out"].shape))

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = ConfigSpace()
        sp.define_knob("parallel", [True, False])
        sp.define_knob("vectorize", [True, False])
        return sp

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        v = self.validate(task)
        steps = generic_steps(v["out"], v["inputs"], cfg)
        return KernelDef(
            v["inputs"], [v["out"]], steps, [identity] * len(v["inputs"]), identity, io_key(task)
        )


TEMPLATES = [GenericTemplate(s) for s in SPECS]
