"""The ops without a specialised template, defined once for every backend: each is an `OpSpec`
(a build function from params to input and output tensors, a numpy reference, a FLOP count),
and the CPU's generic template and the GPUs' thread-per-output template schedule the same
specs their own way. The network compiler builds the same tasks for either target, so the
params (and their one-line errors) are checked here, once.

This module is a backend's shared helper, not part of the backends' interface: only backend
packages import it (the import contracts in pyproject.toml).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.ir import layouts as L
from tunefarm.ir import reference as R
from tunefarm.ir.ops import elementwise as E
from tunefarm.ir.ops.conv import pad
from tunefarm.ir.ops.dense import batch_matmul, matmul
from tunefarm.ir.ops.layout import layout_transform
from tunefarm.ir.ops.movement import broadcast_to, concat, copy, gather, slice_axis, transpose
from tunefarm.ir.ops.normalization import layer_norm
from tunefarm.ir.ops.reduction import lrn, reduce_mean
from tunefarm.ir.ops.softmax import softmax
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule.template import InputSpec
from tunefarm.task import Task, TaskError

Inputs = list[tuple[str, tuple[int, ...]]]


@dataclass(frozen=True)
class OpSpec:
    op: str
    inputs: Callable[[Task], Inputs]
    build: Callable[[Task, list[Tensor]], Tensor]
    reference: Callable[[Task, list[np.ndarray]], np.ndarray]
    flops: Callable[[Task, tuple[int, ...]], float]
    # dtype and value range of inputs that are not float32 in [-1, 1) (int indices, masks)
    specs: Callable[[Task], dict[str, InputSpec]] = lambda t: {}
    # ops with per-row statistics (softmax, layer_norm): how many leading output axes index
    # a row; a GPU gives them a `rows` knob (one thread per row, statistics computed once)
    rows: Callable[[Task], int] | None = None


@dataclass(frozen=True)
class SmallInts(InputSpec):
    """Float tensors holding small integers (0/1 masks, equal's operands), so that a select
    takes both branches when checked."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        ints = rng.integers(int(self.lo), int(self.hi), size=shape, endpoint=True)
        return ints.astype(self.dtype)


# ---------------------------------------------------------------- params
def shape_param(task: Task, key: str) -> tuple[int, ...]:
    if key not in task.args:
        raise TaskError(f"{task.op}: missing param {key!r}")
    return as_shape(task, key, task.args[key])


def as_shape(task: Task, key: str, value: Any) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: param {key!r} must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{task.op}: param {key!r} must be a non-empty shape of positive ints")
    return shape


def int_param(task: Task, key: str, default: int | None = None) -> int:
    """A required (or defaulted) int param; bools and floats are refused, not truncated."""
    value = task.args.get(key, default)
    if value is None:
        raise TaskError(f"{task.op}: missing param {key!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise TaskError(f"{task.op}: param {key!r} must be an int, got {value!r}")
    return value


def num_param(task: Task, key: str, default: float, what: str = "") -> float:
    """A number param as a float; `what` names the op in the error (default: task.op)."""
    value = task.args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskError(f"{what or task.op}: param {key!r} must be a number, got {value!r}")
    return float(value)


def keepdims(task: Task) -> bool:
    value = task.args.get("keepdims", True)
    if value not in (True, False):  # also 1 / 0, as ONNX writes it
        raise TaskError(f"{task.op}: param 'keepdims' must be a bool, got {value!r}")
    return bool(value)


def one_input(t: Task) -> Inputs:
    return [("x", shape_param(t, "shape"))]


def two_matrices(t: Task) -> Inputs:
    return [("a", shape_param(t, "a")), ("b", shape_param(t, "b"))]


def concat_inputs(task: Task) -> Inputs:
    shapes = task.args.get("shapes")
    if not isinstance(shapes, list | tuple) or not shapes:
        raise TaskError(f"{task.op}: param 'shapes' must be a non-empty list of input shapes")
    return [(f"x{i}", as_shape(task, f"shapes[{i}]", s)) for i, s in enumerate(shapes)]


def concat_parts(task: Task, xs: list) -> list:
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


# ---------------------------------------------------------------- elementwise
UNARY = {"relu", "sigmoid", "silu", "hard_swish", "hard_sigmoid", "leaky_relu", "clip", "cast"}
UNARY |= {"erf", "tanh", "sqrt", "square", "gelu"}
BINARY = {"add", "subtract", "multiply", "divide", "maximum", "minimum", "bias_add", "equal"}
# x * scale + shift (relu=True: then max(., 0)), one pass; with more than one x (k + 2
# shapes) the xs are concatenated along axis 1 first, in the same pass (DenseNet's concat)
TERNARY = {"affine"}
# the float attrs of a fn and their defaults (the network compiler passes them)
FLOAT_ATTRS = {"clip": {"lo": 0.0, "hi": 6.0}, "leaky_relu": {"alpha": 0.01},
               "hard_sigmoid": {"alpha": 0.2, "beta": 0.5}}  # fmt: skip


@dataclass(frozen=True)
class Elementwise:
    """The `elementwise` op as one family of targets takes it: which fns, which dtypes a
    cast may produce (None: any the IR accepts) and which its inputs may hold. `where` is
    said in the unknown-fn error ("" or " on a GPU")."""

    fns: frozenset[str]
    input_dtypes: tuple[str, ...]
    cast_dtypes: tuple[str, ...] | None = None
    where: str = ""

    def fn(self, task: Task) -> str:
        fn = task.args.get("fn")
        if fn not in self.fns:
            known = sorted(self.fns)
            raise TaskError(f"elementwise{self.where}: fn must be one of {known}, got {fn!r}")
        want = 1 if fn in UNARY else 2 if fn in BINARY else 3
        if fn in TERNARY and len(task.args.get("shapes", ())) > want:
            return fn  # an affine of the concat of several xs
        if len(task.args.get("shapes") or ()) != want:
            raise TaskError(f"elementwise: fn {fn!r} takes {want} input shape(s) in 'shapes'")
        return fn

    def inputs(self, task: Task) -> Inputs:
        shapes = task.args.get("shapes")
        if not shapes:
            raise TaskError("elementwise: missing param 'shapes' (a list of input shapes)")
        self.fn(task)
        return [(f"x{i}", tuple(int(v) for v in s)) for i, s in enumerate(shapes)]

    def attrs(self, task: Task, fn: str) -> dict[str, Any]:
        a = task.args
        if fn == "cast":
            dtype = a.get("dtype", "float32")
            if self.cast_dtypes is not None and dtype not in self.cast_dtypes:
                raise TaskError(
                    f"elementwise cast: param 'dtype' must be one of {self.cast_dtypes}, "
                    f"got {dtype!r}"
                )
            return {"dtype": dtype}
        if fn == "bias_add":
            return {"axis": a.get("axis", 1)}
        if fn == "affine":
            return {"relu": bool(a.get("relu", False))}
        where = f"elementwise {fn}"
        return {k: num_param(task, k, d, where) for k, d in FLOAT_ATTRS.get(fn, {}).items()}

    def specs(self, task: Task) -> dict[str, InputSpec]:
        """Inputs of `dtypes` (one per input, optional: a cast's int64 source) draw small
        ints; equal's operands draw {0, 1, 2} so that both outcomes occur; sqrt's are >= 0."""
        dtypes = task.args.get("dtypes") or []
        if not isinstance(dtypes, list | tuple):
            raise TaskError(
                f"elementwise: param 'dtypes' must be a list of dtype names, got {dtypes!r}"
            )
        out: dict[str, InputSpec] = {}
        for i, d in enumerate(dtypes):
            if d not in self.input_dtypes:
                raise TaskError(
                    f"elementwise: dtypes[{i}] must be one of {self.input_dtypes}, got {d!r}"
                )
            if d == "float16":  # a float16 Cast's value going back to float32
                out[f"x{i}"] = InputSpec(d, -3.0, 3.0)
            elif d == "bool":  # a bool graph input's cast to a float mask
                out[f"x{i}"] = InputSpec(d, 0, 1)
            elif d != "float32":
                out[f"x{i}"] = InputSpec(d, -3, 3)
        fn = task.args.get("fn")
        if fn == "sqrt":
            out.setdefault("x0", InputSpec("float32", 0.0, 4.0))
        if fn == "equal":
            for i in range(2):
                out.setdefault(f"x{i}", SmallInts("float32", 0, 2))
        return out

    def build(self, task: Task, xs: list[Tensor]) -> Tensor:
        fn = self.fn(task)
        if fn == "affine" and len(xs) > 3:  # the concat is inlined into the affine's pass
            try:
                xs = [concat(xs[:-2], 1, name="joined"), *xs[-2:]]
            except ValueError as exc:
                raise TaskError(f"elementwise affine: the xs do not concatenate: {exc}") from None
        try:
            return getattr(E, fn)(*xs, **self.attrs(task, fn), name="out")
        except ValueError as exc:
            raise TaskError(f"elementwise {fn}: {exc}") from None

    def reference(self, task: Task, xs: list[np.ndarray]) -> np.ndarray:
        fn = self.fn(task)
        if fn == "affine" and len(xs) > 3:
            xs = [R.concat(xs[:-2], 1), *xs[-2:]]
        attrs = self.attrs(task, fn)
        return np.asarray(getattr(R, fn)(*xs, **attrs), dtype=attrs.get("dtype", np.float32))

    def spec(self) -> OpSpec:
        flops = lambda t, o: float(math.prod(o))
        return OpSpec("elementwise", self.inputs, self.build, self.reference, flops, self.specs)


# ---------------------------------------------------------------- graph ops between anchors
# Data movement and small reductions the graph compiler lowers to one kernel each. A bad
# param raises ValueError in the IR op (named after the param) and the template turns it into
# a TaskError; params the IR op does not see (pads, keepdims) are checked here.


def pad_params(task: Task, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...], float]:
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
    return tuple(pads[:ndim]), tuple(pads[ndim:]), num_param(task, "value", 0.0)


def _pad_build(task: Task, xs: list[Tensor]) -> Tensor:
    before, after, value = pad_params(task, xs[0].ndim)
    return pad(xs[0], before, after, value, name="out")


def _pad_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    before, after, value = pad_params(task, xs[0].ndim)
    return R.pad(xs[0], before + after, value)


def _lrn_attrs(task: Task) -> dict[str, Any]:
    return {
        "size": int_param(task, "size"),
        "alpha": num_param(task, "alpha", 1e-4),
        "beta": num_param(task, "beta", 0.75),
        "bias": num_param(task, "bias", 1.0),
    }


def _slice_attrs(task: Task) -> tuple[int, int, int]:
    return int_param(task, "axis"), int_param(task, "begin"), int_param(task, "end")


def moves(t: Task, o: tuple[int, ...]) -> float:
    """The FLOP count of an op that only moves data."""
    return 0.0


def _where_inputs(t: Task) -> Inputs:
    shapes = t.args.get("shapes")
    if not isinstance(shapes, list | tuple) or len(shapes) != 3:
        raise TaskError("where: param 'shapes' must be the 3 shapes of cond, a and b")
    names = zip("cab", shapes, strict=True)
    return [(n, as_shape(t, f"shapes[{i}]", s)) for i, (n, s) in enumerate(names)]


def _gather_inputs(t: Task) -> Inputs:
    return [("data", shape_param(t, "data")), ("indices", shape_param(t, "indices"))]


def _gather_specs(t: Task) -> dict[str, InputSpec]:
    """int64 (or `indices_dtype`) indices over the whole axis, negatives (counted from the
    end) included: the kernel wraps them as ONNX Gather does."""
    data = shape_param(t, "data")
    dtype = t.args.get("indices_dtype", "int64")
    if dtype not in ("int64", "int32"):
        raise TaskError(f"gather: param 'indices_dtype' must be int64 or int32, got {dtype!r}")
    axis = int_param(t, "axis", 0)
    if not -len(data) <= axis < len(data):
        raise TaskError(f"gather: param 'axis' {axis} is out of range for data {list(data)}")
    return {"indices": InputSpec(dtype, -data[axis], data[axis] - 1)}


def _ln_inputs(t: Task) -> Inputs:
    shape = shape_param(t, "shape")
    axis = int_param(t, "axis", -1)
    if not -len(shape) <= axis < len(shape):
        raise TaskError(f"layer_norm: param 'axis' {axis} is out of range for {list(shape)}")
    tail = shape[axis % len(shape) :]
    return [("x", shape), ("gamma", tail), ("beta", tail)]


def _ln_args(t: Task) -> tuple[int, float]:
    return int_param(t, "axis", -1), num_param(t, "epsilon", 1e-5)


def _transpose_b(t: Task) -> bool:
    return bool(t.args.get("transpose_b", False))


def _softmax_axis(t: Task) -> int:
    return int(t.args.get("axis", -1))


_SPECS = [
    OpSpec(
        "matmul",
        two_matrices,
        lambda t, xs: matmul(xs[0], xs[1], name="out"),
        lambda t, xs: R.matmul(xs[0], xs[1]),
        lambda t, o: 2.0 * math.prod(o) * shape_param(t, "a")[-1],
    ),
    OpSpec(
        "batch_matmul",
        two_matrices,
        lambda t, xs: batch_matmul(xs[0], xs[1], _transpose_b(t), name="out"),
        lambda t, xs: R.batch_matmul(xs[0], xs[1], _transpose_b(t)),
        lambda t, o: 2.0 * math.prod(o) * shape_param(t, "a")[-1],
    ),
    OpSpec(
        "softmax",
        one_input,
        lambda t, xs: softmax(xs[0], _softmax_axis(t), name="out"),
        lambda t, xs: R.softmax(xs[0], _softmax_axis(t)),
        lambda t, o: 4.0 * math.prod(o),
        rows=lambda t: _softmax_axis(t) % len(shape_param(t, "shape")),
    ),
    OpSpec(
        "concat",
        concat_inputs,
        lambda t, xs: concat(concat_parts(t, xs), int_param(t, "axis"), name="out"),
        lambda t, xs: R.concat(concat_parts(t, xs), int_param(t, "axis")),
        moves,
    ),
    OpSpec(
        "slice",
        one_input,
        lambda t, xs: slice_axis(xs[0], *_slice_attrs(t), name="out"),
        lambda t, xs: R.slice_axis(xs[0], *_slice_attrs(t)),
        moves,
    ),
    OpSpec("pad", one_input, _pad_build, _pad_ref, moves),
    OpSpec(
        "transpose",
        one_input,
        lambda t, xs: transpose(xs[0], t.args.get("perm"), name="out"),
        lambda t, xs: R.transpose(xs[0], t.args.get("perm")),
        moves,
    ),
    OpSpec(
        "reduce_mean",
        one_input,
        lambda t, xs: reduce_mean(xs[0], t.args.get("axes"), keepdims(t), name="out"),
        # a full reduction without keepdims is 0-d in numpy; the kernel writes shape (1,)
        lambda t, xs: np.atleast_1d(R.reduce_mean(xs[0], t.args.get("axes"), keepdims(t))),
        lambda t, o: float(math.prod(shape_param(t, "shape"))),
    ),
    OpSpec(
        "lrn",
        one_input,
        lambda t, xs: lrn(xs[0], **_lrn_attrs(t), name="out"),
        lambda t, xs: R.lrn(xs[0], **_lrn_attrs(t)),
        lambda t, o: (2.0 * _lrn_attrs(t)["size"] + 4.0) * math.prod(o),
    ),
    OpSpec(
        "where",
        _where_inputs,
        lambda t, xs: E.where(*xs, name="out"),
        lambda t, xs: R.where(*xs),
        lambda t, o: float(math.prod(o)),
        lambda t: {"c": SmallInts("float32", 0, 1)},
    ),
    OpSpec(
        "gather",
        _gather_inputs,
        lambda t, xs: gather(xs[0], xs[1], int_param(t, "axis", 0), name="out"),
        lambda t, xs: R.gather(xs[0], xs[1], int_param(t, "axis", 0)),
        moves,
        _gather_specs,
    ),
    OpSpec(
        "broadcast_to",
        one_input,
        lambda t, xs: broadcast_to(xs[0], t.args.get("out"), name="out"),
        lambda t, xs: R.broadcast_to(xs[0], t.args.get("out")),
        moves,
    ),
    OpSpec(
        "layer_norm",
        _ln_inputs,
        lambda t, xs: layer_norm(*xs, *_ln_args(t), name="out"),
        lambda t, xs: R.layer_norm(*xs, *_ln_args(t)),
        lambda t, o: 8.0 * math.prod(o),
        rows=lambda t: _ln_args(t)[0] % len(shape_param(t, "shape")),
    ),
    OpSpec(
        "copy",
        one_input,
        lambda t, xs: copy(xs[0], name="out"),
        lambda t, xs: R.copy(xs[0]),
        moves,
    ),
]
# by op name: each backend lists the ones it templates, in its own order
SPECS: dict[str, OpSpec] = {s.op: s for s in _SPECS}
