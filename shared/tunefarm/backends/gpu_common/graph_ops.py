"""GPU templates for the light ops between a network's anchors: data movement (copy, concat,
slice, pad, transpose) and LRN; softmax and reduce_mean are in `generic.py`.

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

from tunefarm.backends.gpu_common.generic import Spec, ThreadPerOutput
from tunefarm.ir import reference as R
from tunefarm.ir.ops.conv import pad
from tunefarm.ir.ops.movement import concat, copy, slice_axis, transpose
from tunefarm.ir.ops.reduction import lrn
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
]  # fmt: skip

TEMPLATES = [ThreadPerOutput(s) for s in SPECS]
