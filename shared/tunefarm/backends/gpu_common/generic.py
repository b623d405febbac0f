"""GPU templates of one output element per thread, for ops without a tiled template:
batch_matmul, matmul, elementwise (unary and broadcasting binary), softmax and reduce_mean
(the sketch policy finds their cross-thread schedules).

The schedule is `pool.thread_steps`: the output's axes fused and split over blocks of
`threads`, elementwise intermediates inlined, reductions in registers per thread. Correct on
any shape; the fast tiled schedules are conv2d's and dense's.

Knobs: threads, auto_unroll_max_step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.pool import _space, thread_steps
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops import elementwise as E
from tunefarm.ir.ops.dense import batch_matmul, matmul
from tunefarm.ir.ops.reduction import reduce_mean
from tunefarm.ir.ops.softmax import softmax
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

UNARY = {"relu": R.relu, "sigmoid": R.sigmoid}
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "maximum": np.maximum, "minimum": np.minimum}  # fmt: skip


def _shape(task: Task, key: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in task.args[key])
    except KeyError:
        raise TaskError(f"{task.op}: missing param {key!r}") from None
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: param {key!r} must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{task.op}: param {key!r} must be a non-empty shape of positive ints")
    return shape


def _ew_fn(task: Task) -> str:
    fn = task.args.get("fn")
    if fn not in UNARY | BINARY:
        known = sorted(UNARY | BINARY)
        raise TaskError(f"elementwise on a GPU: fn must be one of {known}, got {fn!r}")
    shapes = task.args.get("shapes") or ()
    if len(shapes) != (1 if fn in UNARY else 2):
        raise TaskError(f"elementwise: fn {fn!r} takes {1 if fn in UNARY else 2} shape(s)")
    return fn


def _ew_inputs(task: Task) -> list[tuple[str, tuple[int, ...]]]:
    _ew_fn(task)
    return [(f"x{i}", tuple(int(v) for v in s)) for i, s in enumerate(task.args["shapes"])]


def _ew_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    fn = _ew_fn(task)
    out = UNARY[fn](xs[0]) if fn in UNARY else BINARY[fn](xs[0], xs[1])
    return np.asarray(out, dtype=np.float32)


@dataclass(frozen=True)
class Spec:
    op: str
    inputs: Callable[[Task], list[tuple[str, tuple[int, ...]]]]
    build: Callable[[Task, list[Tensor]], Tensor]
    reference: Callable[[Task, list[np.ndarray]], np.ndarray]
    flops: Callable[[Task, tuple[int, ...]], float]


def _keepdims(task: Task) -> bool:
    value = task.args.get("keepdims", True)
    if value not in (True, False):  # also 1 / 0, as ONNX writes it
        raise TaskError(f"{task.op}: param 'keepdims' must be a bool, got {value!r}")
    return bool(value)


def _transpose_b(task: Task) -> bool:
    return bool(task.args.get("transpose_b", False))


SPECS = [
    Spec(
        "batch_matmul",
        lambda t: [("a", _shape(t, "a")), ("b", _shape(t, "b"))],
        lambda t, xs: batch_matmul(xs[0], xs[1], _transpose_b(t), name="out"),
        lambda t, xs: R.batch_matmul(xs[0], xs[1], _transpose_b(t)),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    Spec(
        "matmul",
        lambda t: [("a", _shape(t, "a")), ("b", _shape(t, "b"))],
        lambda t, xs: matmul(xs[0], xs[1], name="out"),
        lambda t, xs: R.matmul(xs[0], xs[1]),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    Spec(
        "elementwise",
        _ew_inputs,
        lambda t, xs: getattr(E, _ew_fn(t))(*xs, name="out"),
        _ew_ref,
        lambda t, o: float(math.prod(o)),
    ),
    Spec(
        "softmax",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: softmax(xs[0], int(t.args.get("axis", -1)), name="out"),
        lambda t, xs: R.softmax(xs[0], int(t.args.get("axis", -1))),
        lambda t, o: 4.0 * math.prod(o),
    ),
    Spec(
        "reduce_mean",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: reduce_mean(xs[0], t.args.get("axes"), _keepdims(t), name="out"),
        # a full reduction without keepdims is 0-d in numpy; the kernel writes shape (1,)
        lambda t, xs: np.atleast_1d(R.reduce_mean(xs[0], t.args.get("axes"), _keepdims(t))),
        lambda t, o: float(math.prod(_shape(t, "shape"))),
    ),
]


class ThreadPerOutput(Template):
    """One op of `SPECS` with the thread-per-output schedule."""

    generic = True  # the fallback: `--policy auto` searches sketches for these ops

    def __init__(self, spec: Spec) -> None:
        self.spec, self.op = spec, spec.op

    def _dag(self, task: Task) -> te.ComputeDAG:
        xs = [te.placeholder(shape, name=name) for name, shape in self.spec.inputs(task)]
        try:
            out = self.spec.build(task, xs)
        except ValueError as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        return te.ComputeDAG([out], xs)

    def validate(self, task: Task) -> dict[str, Any]:
        return {"out": self._dag(task).outputs[0].shape}

    def logical_inputs(self, task):
        return self.spec.inputs(task)

    def reference(self, task, inputs):
        return self.spec.reference(task, list(inputs.values()))

    def flops(self, task):
        return self.spec.flops(task, self.validate(task)["out"])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        return _space(math.prod(self.validate(task)["out"]))

    def preferred(self, task, space, target):
        return {"threads": max(space.knobs["threads"].entities), "auto_unroll_max_step": 0}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        dag = self._dag(task)
        steps = thread_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"])
        n = len(dag.inputs)
        return KernelDef(
            dag.inputs, dag.outputs, steps, [np.ascontiguousarray] * n, np.ascontiguousarray,
            io_key(task, layout="logical"),
        )  # fmt: skip


TEMPLATES = [ThreadPerOutput(s) for s in SPECS]
