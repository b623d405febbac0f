"""GPU softmax: one output element per thread, its row's max and sum in registers.

The IR's softmax reads its max from two stages (the exp and the normalisation), which a
thread-per-output schedule cannot place: `compute_at` wants one reader. Here the max is two
stages instead, one for the sum (`exp` fused into the sum's reduction) and one for the
output, so every reduction has one reader and each thread computes its row's max and sum
itself. That costs 3x the row length per output element: fine for the class scores a
network ends with, not tiled.

Knobs: threads, auto_unroll_max_step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.pool import _space
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, exp
from tunefarm.ir.ops.elementwise import _axis_names
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def _params(task: Task) -> tuple[tuple[int, ...], int]:
    try:
        shape = tuple(int(v) for v in task.args["shape"])
    except KeyError:
        raise TaskError("softmax: missing param 'shape'") from None
    except (TypeError, ValueError):
        raise TaskError("softmax: param 'shape' must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError("softmax: param 'shape' must be a non-empty shape of positive ints")
    axis = task.args.get("axis", -1)
    if isinstance(axis, bool) or not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        raise TaskError(
            f"softmax: axis must be an int in [{-len(shape)}, {len(shape)}), got {axis!r}"
        )
    return shape, axis % len(shape)


def _row_reduce(x: Tensor, ax: int, name: str, combiner, body) -> Tensor:
    """out[idx with idx[ax] = 0] = combiner over k of body(x[.., k, ..], idx)."""
    names = _axis_names(x)
    k = te.reduce_axis(x.shape[ax], "k_red")

    def fn(*idx: Expr) -> Expr:
        src = list(idx)
        src[ax] = k.var
        return combiner(body(x[tuple(src)], idx), axis=k)

    shape = tuple(1 if d == ax else s for d, s in enumerate(x.shape))
    return te.compute(shape, fn, name=name, axis_names=names)


def _at(t: Tensor, idx: tuple[Expr, ...], ax: int) -> Expr:
    return t[tuple(0 if d == ax else i for d, i in enumerate(idx))]


def softmax_dag(shape: tuple[int, ...], ax: int) -> te.ComputeDAG:
    x = te.placeholder(shape, name="x")
    mx_sum = _row_reduce(x, ax, "mx_sum", te.max, lambda v, idx: v)
    total = _row_reduce(x, ax, "total", te.sum, lambda v, idx: exp(v - _at(mx_sum, idx, ax)))
    mx_out = _row_reduce(x, ax, "mx_out", te.max, lambda v, idx: v)
    out = te.compute(
        shape,
        lambda *i: exp(x[i] - _at(mx_out, i, ax)) / _at(total, i, ax),
        name="out",
        axis_names=_axis_names(x),
    )
    return te.ComputeDAG([out], [x])


def softmax_steps(dag: te.ComputeDAG, threads: int, unroll: int) -> list[S.Step]:
    out = dag.outputs[0]
    names = tuple(a.name for a in out.op.axes)  # type: ignore[union-attr]
    fused = "+".join(names)
    steps: list[S.Step] = [S.Fuse("out", names), S.Split("out", fused, (threads,))]
    steps += [S.Bind("out", f"{fused}.0", "blockIdx.x"), S.Bind("out", f"{fused}.1", "threadIdx.x")]
    steps += [S.ComputeAt("total", "out", f"{fused}.1"), S.ComputeAt("mx_out", "out", f"{fused}.1")]
    steps.append(S.ComputeAt("mx_sum", "total", names[-1]))
    if unroll:
        steps += [S.Pragma(t, "k_red", "auto_unroll_max_step", unroll) for t in ("total", "mx_out")]
    return steps


class SoftmaxThreadPerOutput(Template):
    op = "softmax"

    def validate(self, task: Task) -> dict[str, Any]:
        shape, ax = _params(task)
        return {"shape": shape, "axis": ax}

    def logical_inputs(self, task):
        return [("x", self.validate(task)["shape"])]

    def reference(self, task, inputs):
        p = self.validate(task)
        return np.asarray(R.softmax(inputs["x"], p["axis"]), dtype=np.float32)

    def flops(self, task):
        return 4.0 * math.prod(self.validate(task)["shape"])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        return _space(math.prod(self.validate(task)["shape"]))

    def preferred(self, task, space, target):
        return {"threads": max(space.knobs["threads"].entities), "auto_unroll_max_step": 0}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "softmax")
        dag = softmax_dag(p["shape"], p["axis"])
        steps = softmax_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"])
        return KernelDef(
            dag.inputs, dag.outputs, steps, [np.ascontiguousarray], np.ascontiguousarray,
            io_key(task, layout="logical"),
        )  # fmt: skip
