"""The op registry: (target kind, op) -> template, and what the other layers ask of it.

Every function takes a task (or a MeasureInput) and answers through the backend of the task's
target: its config space, default config, FLOP count, an instantiated kernel, the kernel's
source (`generate_source`) and seeded reference data (`reference_io`). The last two are the
measure layer's source generator and reference-data factory; both are plain module-level
functions of JSON-able data, so they run the same in a local process pool and in a Celery
build worker.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from tunefarm.backends.base import Backend, backend_of, get_backend, parse_target
from tunefarm.codegen.lower import lower
from tunefarm.measure import LocalBuilder, LocalRunner, lowered
from tunefarm.measure.types import (
    ArgSpec,
    Config,
    KernelIO,
    KernelSource,
    MeasureInput,
    MeasureSettings,
)
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.sketch import Sketch, derive_sketches
from tunefarm.schedule.sketch_state import SketchParams
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


@functools.lru_cache(maxsize=256)
def _target(text: str) -> Target:
    return parse_target(text)


def _lookup(task: Task) -> tuple[Backend, Template, Target]:
    backend = backend_of(task)
    return backend, backend.template(task), _target(task.target)


def template(task: Task) -> Template:
    """The template of a task on its target's backend; TaskError naming the op otherwise."""
    return _lookup(task)[1]


def generic_reason(task: Task) -> str:
    """Why the backend runs `task` with its generic template ("" when it has its own): the
    backend's own reason where it gives one (`generic_reason(task)`), else that the op has
    no template there."""
    backend, tpl, _ = _lookup(task)
    if not getattr(tpl, "generic", False):
        return ""
    own = getattr(backend, "generic_reason", None)
    reason = own(task) if own is not None else None
    return reason or (
        f"no template of its own for {task.op!r} on {backend.kind}: one loop nest, outer "
        "axes in parallel, the innermost vectorised, no register tiling"
    )


def ops(kind: str = "cpu") -> list[str]:
    """The ops a backend has templates for."""
    return get_backend(kind).ops()


def config_space(task: Task) -> ConfigSpace:
    _, tpl, target = _lookup(task)
    return tpl.space(task, target)


def default_config(task: Task) -> Config:
    _, tpl, target = _lookup(task)
    space = tpl.space(task, target)
    values = tpl.default_config(task, target)
    return Config.make(values, index=space.index_of(values))


def flops(task: Task) -> float:
    return float(template(task).flops(task))


def instantiate(task: Task, config: Config | Mapping[str, Any]) -> KernelDef:
    """The kernel of a template config, or of a sketch config (a step list applied to the
    template's compute definition at its default layout)."""
    _, tpl, target = _lookup(task)
    values = config.as_dict() if isinstance(config, Config) else dict(config)
    if is_sketch(values):
        steps = [S.step_from_list(s) for s in values[S.SKETCH_KNOB]]
        # a state that asks for an intrinsic (tensor cores) is rendered by the template that
        # writes that code; any other state's steps schedule the compute definition
        tensorize = getattr(tpl, "tensorize", None)
        kdef = tensorize(task, steps, target) if tensorize is not None else None
        if kdef is not None:
            return kdef
        return dataclasses.replace(base_kernel(task), steps=steps, code=None)
    return tpl.instantiate(task, values, target)


# -- template-free schedules ------------------------------------------------------------------
def is_sketch(config: Config | Mapping[str, Any]) -> bool:
    """Whether a config is a sketch state (a step list) rather than template knob values."""
    values = config.as_dict() if isinstance(config, Config) else config
    return S.SKETCH_KNOB in values


def sketch_config(steps: list[S.Step]) -> Config:
    """The config a sketch state is measured and recorded as: its steps and nothing else."""
    return Config.make({S.SKETCH_KNOB: [S.step_to_list(s) for s in steps]})


def base_kernel(task: Task) -> KernelDef:
    """The template's default kernel: the compute definition (and argument layouts) that
    sketches schedule. Its steps are the template's default schedule."""
    _, tpl, target = _lookup(task)
    compute = getattr(tpl, "compute_kernel", None)  # a template that writes its own code
    if compute is not None:
        return compute(task, target)
    return tpl.instantiate(task, tpl.default_config(task, target), target)


def sketches(task: Task) -> tuple[list[Sketch], SketchParams]:
    """The sketches the task's backend derives for its compute definition, and the backend's
    sampling numbers; TaskError when the backend has no sketch rules."""
    backend, tpl, target = _lookup(task)
    rules_of = getattr(backend, "sketch_rules", None)
    if rules_of is None:
        raise TaskError(f"target {task.target!r} has no sketch rules; use --policy template")
    rules, params = rules_of(target)
    # a template that renders an intrinsic (tensor cores) adds the rule that asks for it
    own = getattr(tpl, "sketch_rules", None)
    if own is not None:
        rules = (*own(target), *rules)
    kdef = base_kernel(task)
    return derive_sketches(kdef.outputs, kdef.inputs, rules), params


def generate_source(inp: MeasureInput) -> KernelSource:
    """Source of one candidate: instantiate, schedule, lower, emit with the task's backend
    (or the code the template made itself, `KernelDef.code`). In a build worker the lowering
    may come with the job, done by the search's featuriser (`measure.lowered`)."""
    backend, tpl, target = _lookup(inp.task)
    kdef = instantiate(inp.task, inp.config)
    exact = tpl.exact_output(inp.task)
    specs = [ArgSpec(t.name, t.shape, t.dtype, False) for t in kdef.inputs]
    specs += [ArgSpec(t.name, t.shape, t.dtype, True, exact) for t in kdef.outputs]
    code = kdef.code
    if code is None:
        func = lowered.handed_for(inp)
        if func is None:
            func = lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps))
        code = backend.emit(func, target)
    flop = float(tpl.flops(inp.task))
    # a backend may build its candidates differently from its networks' kernels (OpenCL:
    # compiled in the build worker to warm the driver's cache, `opencl/prebuild.py`)
    candidate_toolchain = getattr(backend, "candidate_toolchain", None)
    tc = candidate_toolchain(target, specs) if candidate_toolchain else backend.toolchain(target)
    return KernelSource(code, "tf_entry", tuple(specs), kdef.io_key, flop, tc)


def random_inputs(task: Task, seed: int) -> dict[str, np.ndarray]:
    """Seeded logical inputs of a task: uniform [-1, 1) float32, except those the template
    draws otherwise (integers over their dtype's range, positive scales: `input_specs`)."""
    rng = np.random.default_rng(seed)
    tpl = template(task)
    shapes, specs = tpl.logical_inputs(task), tpl.input_specs(task)
    out = {}
    for name, shape in shapes:
        spec = specs.get(name)
        out[name] = (
            spec.draw(rng, shape)
            if spec is not None
            else rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
        )
    return out


def reference_io(inp: MeasureInput, seed: int) -> KernelIO:
    """Seeded logical inputs and the numpy reference output, packed into the candidate's
    kernel layouts."""
    task = inp.task
    kdef = instantiate(task, inp.config)
    logical = random_inputs(task, seed)
    expected = template(task).reference(task, logical)
    args = [pack(x) for pack, x in zip(kdef.packers, logical.values(), strict=True)]
    packed_out = kdef.output_packer(expected)
    args.append(np.zeros_like(packed_out))
    return KernelIO(args=args, expected={len(args) - 1: packed_out})


def anchor_variants(task: Task) -> list[Task]:
    """The tasks that can run a network's anchor node (see `Backend.anchor_variants`)."""
    return backend_of(task).anchor_variants(task)


def untuned_variant(variants: list[Task]) -> Task:
    """Of a node's `anchor_variants`, the one a compile without records runs: the backend's
    choice where it makes one (`untuned_variant`), else the default algorithm (the first)."""
    own = getattr(backend_of(variants[0]), "untuned_variant", None)
    return own(variants) if own is not None else variants[0]


def local_builder(**options: Any) -> LocalBuilder:
    """A LocalBuilder generating sources with this registry (options as LocalBuilder's)."""
    return LocalBuilder(generate_source, **options)


def local_runner(settings: MeasureSettings, kind: str = "cpu", seed: int = 0) -> LocalRunner:
    """A LocalRunner for this machine's device of `kind`, checking against this registry's
    reference data. Backends with `persistent_measurer` keep one measurer process; those with
    `kernels_in_process` (host code) retire it after any failed candidate."""
    backend = get_backend(kind)
    persistent = bool(getattr(backend, "persistent_measurer", False))
    in_process = bool(getattr(backend, "kernels_in_process", False))
    loader = backend.kernel_loader
    runner = LocalRunner(settings, reference_io, loader, seed, persistent, in_process)
    clock = getattr(backend, "kernel_clock", None)
    if clock is not None:  # the checked run can stand in for a timed one (`measure.child`)
        runner.clock_of = functools.partial(_kernel_clock, clock)
    return runner


def _kernel_clock(clock: Any, inp: MeasureInput) -> str:
    """The clock of `inp`'s kernel as its backend's `kernel_clock` names it."""
    return str(clock(parse_target(inp.task.target)))
