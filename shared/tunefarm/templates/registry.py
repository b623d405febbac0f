"""The op registry: task op name -> template, and the two hooks the measure layer calls.

`generate_source(inp)` turns a MeasureInput (task + knob values) into C code;
`reference_io(inp, seed)` makes seeded random logical inputs, the numpy reference output,
and packs both into the candidate's kernel layouts. Both are plain functions of JSON-able
data, so they run the same in a local process pool and in a Celery build worker.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tunefarm.codegen.c_emitter import emit_c
from tunefarm.codegen.lower import lower
from tunefarm.codegen.target import Target
from tunefarm.measure.types import ArgSpec, Config, KernelIO, KernelSource, MeasureInput
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task
from tunefarm.templates.base import KernelDef, TaskError, Template


@functools.lru_cache(maxsize=1)
def _templates() -> dict[str, Template]:
    from tunefarm.templates import generic
    from tunefarm.templates.x86 import conv2d, dense, depthwise, pool, winograd

    found: list[Template] = [
        conv2d.Conv2dNCHWc(),
        winograd.Conv2dWinograd(),
        depthwise.DepthwiseNCHWc(),
        dense.DensePack(),
        pool.Pool2dNCHWc(),
        pool.GlobalPool2dNCHWc(),
        *generic.TEMPLATES,
    ]
    return {t.op: t for t in found}


def ops() -> list[str]:
    return sorted(_templates())


def dispatch(task: Task) -> Template:
    """The template for a task; conv2d with groups goes to the matching specialised one."""
    table = _templates()
    if task.op == "conv2d":
        from tunefarm.templates.x86.conv2d import conv_params

        p = conv_params(task)
        if p["groups"] == p["c"] == p["o"] and p["groups"] > 1:
            return table["depthwise_conv2d"]
        if p["groups"] > 1:
            return table["group_conv2d"]
    template = table.get(task.op)
    if template is None:
        raise TaskError(f"unknown op {task.op!r}; known ops: {', '.join(ops())}")
    return template


def lanes_of(task: Task) -> int:
    return Target.parse(task.target).vector_lanes


def config_space(task: Task) -> ConfigSpace:
    return dispatch(task).space(task, lanes_of(task))


def default_config(task: Task) -> Config:
    space = config_space(task)
    values = dispatch(task).default_config(task, lanes_of(task))
    return Config.make(values, index=space.index_of(values))


def flops(task: Task) -> float:
    return float(dispatch(task).flops(task))


def instantiate(task: Task, config: Config | dict[str, Any]) -> KernelDef:
    values = config.as_dict() if isinstance(config, Config) else dict(config)
    return dispatch(task).instantiate(task, values, lanes_of(task))


def generate_source(inp: MeasureInput) -> KernelSource:
    task = inp.task
    kdef = instantiate(task, inp.config)
    sch = Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps)
    func = lower(sch)
    code = emit_c(func, Target.parse(task.target))
    specs = [ArgSpec(t.name, t.shape, t.dtype, False) for t in kdef.inputs]
    specs += [ArgSpec(t.name, t.shape, t.dtype, True) for t in kdef.outputs]
    return KernelSource(code, "tf_entry", tuple(specs), kdef.io_key, flops(task))


def random_inputs(task: Task, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = dispatch(task).logical_inputs(task)
    return {name: rng.uniform(-1.0, 1.0, size=shape).astype(np.float32) for name, shape in shapes}


def reference_io(inp: MeasureInput, seed: int) -> KernelIO:
    task = inp.task
    kdef = instantiate(task, inp.config)
    logical = random_inputs(task, seed)
    expected = dispatch(task).reference(task, logical)
    args = [pack(x) for pack, x in zip(kdef.packers, logical.values(), strict=True)]
    packed_out = kdef.output_packer(expected)
    args.append(np.zeros_like(packed_out))
    return KernelIO(args=args, expected={len(args) - 1: packed_out})
