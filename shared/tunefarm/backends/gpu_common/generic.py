"""GPU templates of one output element per thread, for ops without a tiled template:
batch_matmul, matmul, elementwise (unary and broadcasting binary), softmax and reduce_mean
(the sketch policy finds their cross-thread schedules); `graph_ops` adds the light ops
between a network's anchors with the same schedule.

The schedule is `pool.thread_steps`: the output's axes fused and split over blocks of
`threads`, elementwise intermediates inlined, reductions in registers per thread. Correct on
any shape; the fast tiled schedules are conv2d's and dense's.

Knobs: threads, auto_unroll_max_step.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.pool import at_thread, thread_space, thread_steps
from tunefarm.backends.op_specs import BINARY, SPECS, UNARY, Elementwise, OpSpec
from tunefarm.ir import tensor as te
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

# dtypes a GPU tensor may hold: int64 are bert's ids and the casts of its masks
DTYPES = ("float32", "int32", "int64")
# the elementwise fns and dtypes a GPU kernel takes: not bias_add, affine or float16; a
# bool graph input is cast to a float mask
ELEMENTWISE = Elementwise(
    frozenset((UNARY | BINARY) - {"bias_add"}), (*DTYPES, "bool"), DTYPES, " on a GPU"
)


def row_steps(dag: te.ComputeDAG, lead: int, threads: int, unroll: int) -> list[S.Step]:
    """`pool.thread_steps` with only the `lead` row axes fused over threads: each thread
    loops over its row and computes the row's reductions once, at the thread loop."""
    out = dag.outputs[0]
    names = tuple(a.name for a in out.op.axes)[:lead]  # type: ignore[union-attr]
    fused = "+".join(names)
    steps: list[S.Step] = [S.Fuse(out.name, names)] if len(names) > 1 else []
    steps.append(S.Split(out.name, fused, (threads,)))
    steps += [S.Bind(out.name, f"{fused}.0", "blockIdx.x")]
    steps += [S.Bind(out.name, f"{fused}.1", "threadIdx.x")]
    return steps + at_thread(dag, f"{fused}.1", None, unroll)


class ThreadPerOutput(Template):
    """One op of `op_specs` with the thread-per-output schedule."""

    generic = True  # the fallback: `--policy auto` searches sketches for these ops

    def __init__(self, spec: OpSpec) -> None:
        self.spec, self.op = spec, spec.op

    def _dag(self, task: Task) -> te.ComputeDAG:
        specs = self.spec.specs(task)
        xs = [
            te.placeholder(shape, specs[name].dtype if name in specs else "float32", name=name)
            for name, shape in self.spec.inputs(task)
        ]
        try:
            out = self.spec.build(task, xs)
        except ValueError as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        return te.ComputeDAG([out], xs)

    def validate(self, task: Task) -> dict[str, Any]:
        return {"out": self._dag(task).outputs[0].shape}

    def logical_inputs(self, task):
        return self.spec.inputs(task)

    def input_specs(self, task):
        return self.spec.specs(task)

    def reference(self, task, inputs):
        return self.spec.reference(task, list(inputs.values()))

    def flops(self, task):
        return self.spec.flops(task, self.validate(task)["out"])

    def _lead(self, task: Task) -> int:
        """Leading output axes that index a row (0: the op has no `rows` knob)."""
        return self.spec.rows(task) if self.spec.rows is not None else 0

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = thread_space(math.prod(self.validate(task)["out"]))
        if self._lead(task):
            sp.define_knob("rows", [False, True])
        return sp

    def preferred(self, task, space, target):
        threads = space.knobs["threads"].entities
        cfg = {"threads": max(threads), "auto_unroll_max_step": 0}
        if "rows" in space.knobs and target.kind == "opencl":
            # pocl runs work-items as CPU loop iterations: a row's statistics recomputed
            # per element cost the row's length over again (softmax was 63% of bert-tiny);
            # >= 4 work-groups keep pocl's cores busy. CUDA keeps one thread per output
            # until a GPU measures the two.
            n = math.prod(self.validate(task)["out"][: self._lead(task)])
            fits = [t for t in threads if n >= 4 * t]
            cfg.update(rows=True, threads=max(fits) if fits else min(threads))
        return cfg

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        dag = self._dag(task)
        if cfg.get("rows"):
            steps = row_steps(dag, self._lead(task), cfg["threads"], cfg["auto_unroll_max_step"])
        else:
            steps = thread_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"])
        n = len(dag.inputs)
        return KernelDef(
            dag.inputs, dag.outputs, steps, [np.ascontiguousarray] * n, np.ascontiguousarray,
            io_key(task, layout="logical"),
        )  # fmt: skip


TEMPLATES = [
    ThreadPerOutput(SPECS["batch_matmul"]),
    ThreadPerOutput(SPECS["matmul"]),
    ThreadPerOutput(ELEMENTWISE.spec()),
    ThreadPerOutput(SPECS["softmax"]),
    ThreadPerOutput(SPECS["reduce_mean"]),
]
