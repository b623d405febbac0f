"""GPU pooling (pool2d, global_pool2d) in NCHW: one output element per thread.

The output's axes are fused and split over blocks of `threads` threads; the window is a
loop in each thread accumulating in a register (an average's sum divided at the store), the
padding folded into the loads.

Knobs: threads, auto_unroll_max_step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.common import UNROLL_STEPS
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.pool import global_pool2d, pool2d
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    KernelDef,
    Template,
    as_padding,
    as_pair,
    check_config,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

THREADS = (32, 64, 128, 256, 512)


def _data(task: Task) -> tuple[int, int, int, int]:
    try:
        n, c, h, w = (int(v) for v in task.args["data"])
    except KeyError:
        raise TaskError(f"{task.op}: missing param 'data' (N, C, H, W)") from None
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: data must be (N, C, H, W)") from None
    kind = task.args.get("kind", "max")
    if kind not in ("max", "avg"):
        raise TaskError(f"{task.op}: kind must be 'max' or 'avg', got {kind!r}")
    return n, c, h, w


def thread_steps(dag: te.ComputeDAG, threads: int, unroll: int) -> list[S.Step]:
    """Inline every elementwise intermediate, attach every reduction to the thread axis of
    the fused, split output."""
    out = dag.outputs[0]
    names = tuple(a.name for a in out.op.axes)  # type: ignore[union-attr]
    fused = "+".join(names)
    steps: list[S.Step] = []
    reducer = None
    if out.op.reduce_axes:  # type: ignore[union-attr]
        # accumulate in a register, store once (not a read-modify-write of global memory)
        reducer = f"{out.name}.local"
        steps.append(S.CacheWrite(out.name))
    steps += [S.Fuse(out.name, names), S.Split(out.name, fused, (threads,))]
    steps += [S.Bind(out.name, f"{fused}.0", "blockIdx.x")]
    steps += [S.Bind(out.name, f"{fused}.1", "threadIdx.x")]
    if reducer is not None:
        steps.append(S.ComputeAt(reducer, out.name, f"{fused}.1"))
    return steps + at_thread(dag, f"{fused}.1", reducer, unroll)


def at_thread(dag: te.ComputeDAG, axis: str, reducer: str | None, unroll: int) -> list[S.Step]:
    """The other stages of `dag` at the output's thread loop `axis`: each reduction computed
    there (in registers, per thread), elementwise intermediates inlined; the last reduction
    (else `reducer`, the output's register copy) unrolled up to `unroll` steps."""
    out = dag.outputs[0]
    steps: list[S.Step] = []
    for t in dag.compute_stages:
        if t is out:
            continue
        if t.op.reduce_axes:  # type: ignore[union-attr]
            steps.append(S.ComputeAt(t.name, out.name, axis))
            reducer = t.name
        else:
            steps.append(S.ComputeInline(t.name))
    if unroll and reducer is not None:
        source = dag.by_name[reducer.removesuffix(".local")]
        first = source.op.reduce_axes[0].name  # type: ignore[union-attr]
        steps.append(S.Pragma(reducer, first, "auto_unroll_max_step", unroll))
    return steps


def thread_space(count: int) -> ConfigSpace:
    """Threads per block (no more than 32 past the `count` outputs) and the unroll step: the
    knobs of a thread-per-output kernel."""
    sp = ConfigSpace()
    sp.define_knob("threads", [t for t in THREADS if t <= max(32, count)])
    sp.define_knob("auto_unroll_max_step", list(UNROLL_STEPS))
    return sp


def _kernel(task: Task, dag: te.ComputeDAG, steps: list[S.Step]) -> KernelDef:
    return KernelDef(
        dag.inputs, dag.outputs, steps, [np.ascontiguousarray], np.ascontiguousarray,
        io_key(task, layout="NCHW"),
    )  # fmt: skip


class Pool2d(Template):
    op = "pool2d"

    def validate(self, task: Task) -> dict[str, Any]:
        n, c, h, w = _data(task)
        a = task.args
        p = dict(
            n=n, c=c, h=h, w=w, kind=a.get("kind", "max"),
            kernel=as_pair(a.get("kernel", 2), "kernel"),
            strides=as_pair(a.get("strides", 1), "strides"),
            padding=as_padding(a.get("padding", 0)),
            dilation=as_pair(a.get("dilation", 1), "dilation"),
            ceil_mode=bool(a.get("ceil_mode", False)),
            count_include_pad=bool(a.get("count_include_pad", False)),
        )  # fmt: skip
        if p["kind"] == "avg" and p["dilation"] != (1, 1):
            raise TaskError("pool2d: avg pooling with dilation is not supported (max only)")
        try:
            p["out"] = self._dag(p).outputs[0].shape
        except ValueError as exc:
            raise TaskError(f"pool2d: {exc}") from None
        return p

    def _dag(self, p: dict[str, Any]) -> te.ComputeDAG:
        data = te.placeholder((p["n"], p["c"], p["h"], p["w"]), name="data")
        out = pool2d(
            data, p["kind"], p["kernel"], p["strides"], p["padding"], p["dilation"],
            p["ceil_mode"], p["count_include_pad"], "NCHW", name="pool",
        )  # fmt: skip
        return te.ComputeDAG([out], [data])

    def logical_inputs(self, task):
        p = self.validate(task)
        return [("data", (p["n"], p["c"], p["h"], p["w"]))]

    def reference(self, task, inputs):
        p = self.validate(task)
        x = inputs["data"]
        if p["kind"] == "max":
            return R.max_pool2d_nchw(
                x, p["kernel"], p["strides"], p["padding"], p["dilation"], p["ceil_mode"]
            )
        return R.avg_pool2d_nchw(
            x, p["kernel"], p["strides"], p["padding"], p["ceil_mode"], p["count_include_pad"]
        )

    def flops(self, task):
        p = self.validate(task)
        n, c, oh, ow = p["out"]
        return float(n * c * oh * ow * p["kernel"][0] * p["kernel"][1])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        n, c, oh, ow = p["out"]
        return thread_space(n * c * oh * ow)

    def preferred(self, task, space, target):
        return {"threads": max(space.knobs["threads"].entities), "auto_unroll_max_step": 512}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "pool2d")
        dag = self._dag(p)
        return _kernel(task, dag, thread_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"]))


class GlobalPool2d(Template):
    op = "global_pool2d"

    def validate(self, task: Task) -> dict[str, Any]:
        n, c, h, w = _data(task)
        return dict(n=n, c=c, h=h, w=w, kind=task.args.get("kind", "max"))

    def logical_inputs(self, task):
        p = self.validate(task)
        return [("data", (p["n"], p["c"], p["h"], p["w"]))]

    def reference(self, task, inputs):
        p = self.validate(task)
        fn = R.global_max_pool2d_nchw if p["kind"] == "max" else R.global_avg_pool2d_nchw
        return fn(inputs["data"])

    def flops(self, task):
        p = self.validate(task)
        return float(p["n"] * p["c"] * p["h"] * p["w"])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        return thread_space(p["n"] * p["c"])

    def preferred(self, task, space, target):
        return {"threads": min(space.knobs["threads"].entities), "auto_unroll_max_step": 0}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "global_pool2d")
        data = te.placeholder((p["n"], p["c"], p["h"], p["w"]), name="data")
        dag = te.ComputeDAG([global_pool2d(data, p["kind"], "NCHW", name="gpool")], [data])
        steps = thread_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"])
        return _kernel(task, dag, steps)
