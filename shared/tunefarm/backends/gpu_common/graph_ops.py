"""GPU templates for the light ops between a network's anchors: data movement (copy, concat,
slice, pad, transpose, gather, broadcast_to), where, LRN and layer_norm; softmax and
reduce_mean are in `generic.py`.

They exist so that a whole network compiles for a GPU: each is one output element per
thread (`generic.ThreadPerOutput`, the schedule of `pool.thread_steps`), correct on any shape
and not tiled: together these ops take a few percent of a CNN's time. They take the same
params as the CPU's generic templates of the same op, so the network compiler builds the
same tasks for either target.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.generic import SmallInts, Spec, ThreadPerOutput
from tunefarm.ir import reference as R
from tunefarm.ir.ops.conv import pad
from tunefarm.ir.ops.elementwise import where
from tunefarm.ir.ops.movement import broadcast_to, concat, copy, gather, slice_axis, transpose
from tunefarm.ir.ops.normalization import layer_norm
from tunefarm.ir.ops.reduction import lrn
from tunefarm.schedule.template import InputSpec
from tunefarm.task import Task, TaskError

Inputs = list[tuple[str, tuple[int, ...]]]


def _as_shape(task: Task, key: str, value: Any) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: param {key!r} must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{task.op}: param {key!r} must be a non-empty shape of positive ints")
    return shape


def _one_input(task: Task) -> Inputs:
    if "shape" not in task.args:
        raise TaskError(f"{task.op}: missing param 'shape'")
    return [("x", _as_shape(task, "shape", task.args["shape"]))]


def _concat_inputs(task: Task) -> Inputs:
    shapes = task.args.get("shapes")
    if not isinstance(shapes, list | tuple) or not shapes:
        raise TaskError(f"{task.op}: param 'shapes' must be a non-empty list of input shapes")
    return [(f"x{i}", _as_shape(task, f"shapes[{i}]", s)) for i, s in enumerate(shapes)]


def _int(task: Task, key: str, default: int | None = None) -> int:
    value = task.args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TaskError(f"{task.op}: param {key!r} must be an int, got {value!r}")
    return value


def _num(task: Task, key: str, default: float) -> float:
    value = task.args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TaskError(f"{task.op}: param {key!r} must be a number, got {value!r}")
    return float(value)


def _pads(task: Task, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...], float]:
    """(begins, ends, value) of ONNX-ordered `pads`; cropping (negative pads) is slice's."""
    pads = task.args.get("pads")
    ok = isinstance(pads, list | tuple) and len(pads) == 2 * ndim
    if not ok or not all(isinstance(p, int) and not isinstance(p, bool) for p in pads):
        raise TaskError(f"{task.op}: param 'pads' must be {2 * ndim} ints, got {pads!r}")
    if min(pads) < 0:
        raise TaskError(f"{task.op}: param 'pads' must be >= 0 (crop with slice), got {pads!r}")
    return tuple(pads[:ndim]), tuple(pads[ndim:]), _num(task, "value", 0.0)


def _pad_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    begins, ends, value = _pads(task, xs[0].ndim)
    return R.pad(xs[0], begins + ends, value)


def _lrn(task: Task) -> dict[str, Any]:
    return {
        "size": _int(task, "size"),
        "alpha": _num(task, "alpha", 1e-4),
        "beta": _num(task, "beta", 0.75),
        "bias": _num(task, "bias", 1.0),
    }


def _slice(task: Task) -> tuple[int, int, int]:
    return _int(task, "axis"), _int(task, "begin"), _int(task, "end")


def _moves(task: Task, out: tuple[int, ...]) -> float:
    return 0.0


def _where_inputs(task: Task) -> Inputs:
    shapes = task.args.get("shapes")
    if not isinstance(shapes, list | tuple) or len(shapes) != 3:
        raise TaskError("where: param 'shapes' must be the 3 shapes of cond, a and b")
    names = zip("cab", shapes, strict=True)
    return [(n, _as_shape(task, f"shapes[{i}]", s)) for i, (n, s) in enumerate(names)]


def _gather_inputs(task: Task) -> Inputs:
    for key in ("data", "indices"):
        if key not in task.args:
            raise TaskError(f"gather: missing param {key!r}")
    return [
        ("data", _as_shape(task, "data", task.args["data"])),
        ("indices", _as_shape(task, "indices", task.args["indices"])),
    ]


def _gather_specs(task: Task) -> dict[str, InputSpec]:
    """int64 (or `indices_dtype`) indices over the whole axis, negatives (counted from the
    end) included: the kernel wraps them as ONNX Gather does."""
    data = _gather_inputs(task)[0][1]
    dtype = task.args.get("indices_dtype", "int64")
    if dtype not in ("int64", "int32"):
        raise TaskError(f"gather: param 'indices_dtype' must be int64 or int32, got {dtype!r}")
    axis = _int(task, "axis", 0)
    if not -len(data) <= axis < len(data):
        raise TaskError(f"gather: param 'axis' {axis} is out of range for data {list(data)}")
    return {"indices": InputSpec(dtype, -data[axis], data[axis] - 1)}


def _ln_inputs(task: Task) -> Inputs:
    shape = _one_input(task)[0][1]
    axis = _int(task, "axis", -1)
    if not -len(shape) <= axis < len(shape):
        raise TaskError(f"layer_norm: param 'axis' {axis} is out of range for {list(shape)}")
    tail = shape[axis % len(shape) :]
    return [("x", shape), ("gamma", tail), ("beta", tail)]


def _ln_args(task: Task) -> tuple[int, float]:
    return _int(task, "axis", -1), _num(task, "epsilon", 1e-5)


SPECS = [
    Spec(
        "copy", _one_input, lambda t, xs: copy(xs[0], name="out"), lambda t, xs: R.copy(xs[0]),
        _moves,
    ),
    Spec(
        "concat",
        _concat_inputs,
        lambda t, xs: concat(xs, _int(t, "axis"), name="out"),
        lambda t, xs: R.concat(xs, _int(t, "axis")),
        _moves,
    ),
    Spec(
        "slice",
        _one_input,
        lambda t, xs: slice_axis(xs[0], *_slice(t), name="out"),
        lambda t, xs: R.slice_axis(xs[0], *_slice(t)),
        _moves,
    ),
    Spec(
        "pad",
        _one_input,
        lambda t, xs: pad(xs[0], *_pads(t, xs[0].ndim), name="out"),
        _pad_ref,
        _moves,
    ),
    Spec(
        "transpose",
        _one_input,
        lambda t, xs: transpose(xs[0], t.args.get("perm"), name="out"),
        lambda t, xs: R.transpose(xs[0], t.args.get("perm")),
        _moves,
    ),
    Spec(
        "lrn",
        _one_input,
        lambda t, xs: lrn(xs[0], **_lrn(t), name="out"),
        lambda t, xs: R.lrn(xs[0], **_lrn(t)),
        lambda t, o: (2.0 * _lrn(t)["size"] + 4.0) * math.prod(o),
    ),
    Spec(
        "where",
        _where_inputs,
        lambda t, xs: where(*xs, name="out"),
        lambda t, xs: R.where(*xs),
        lambda t, o: float(math.prod(o)),
        lambda t: {"c": SmallInts("float32", 0, 1)},
    ),
    Spec(
        "gather",
        _gather_inputs,
        lambda t, xs: gather(xs[0], xs[1], _int(t, "axis", 0), name="out"),
        lambda t, xs: R.gather(xs[0], xs[1], _int(t, "axis", 0)),
        _moves,
        _gather_specs,
    ),
    Spec(
        "broadcast_to",
        _one_input,
        lambda t, xs: broadcast_to(xs[0], t.args.get("out"), name="out"),
        lambda t, xs: R.broadcast_to(xs[0], t.args.get("out")),
        _moves,
    ),
    Spec(
        "layer_norm",
        _ln_inputs,
        lambda t, xs: layer_norm(*xs, *_ln_args(t), name="out"),
        lambda t, xs: R.layer_norm(*xs, *_ln_args(t)),
        lambda t, o: 8.0 * math.prod(o),
        rows=lambda t: _ln_args(t)[0] % len(_one_input(t)[0][1]),
    ),
]  # fmt: skip

TEMPLATES = [ThreadPerOutput(s) for s in SPECS]
