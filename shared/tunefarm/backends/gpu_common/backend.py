"""What the `cuda` and `opencl` backends share: the GPU templates, the layout policy, and
emission (GPU lowering, then the renderer in the backend's dialect). Each backend adds its
target options, device limits, toolchain and kernel loader."""

from __future__ import annotations

import functools

from tunefarm.backends.gpu_common import conv2d, dense, depthwise, generic, pool, sketch_rules
from tunefarm.backends.gpu_common.kernel import DeviceLimits, to_kernel
from tunefarm.backends.gpu_common.render import Dialect, render
from tunefarm.codegen.loops import LoweredFunc
from tunefarm.schedule.sketch import SketchRule
from tunefarm.schedule.sketch_state import SketchParams
from tunefarm.schedule.template import Template
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


class GpuBackend:
    """Base of the GPU backends; subclasses set kind, usage, kernel_loader, dialect and
    implement check_options, limits and toolchain."""

    kind = ""
    dialect: Dialect

    @property
    def network_note(self) -> str:
        """No GPU graph runtime yet: single ops only."""
        return (
            f"whole networks cannot be compiled for {self.kind} yet (its ops can: "
            "tunefarm op, tune-tasks)"
        )

    @functools.cached_property
    def _templates(self) -> dict[str, Template]:
        found: list[Template] = [
            conv2d.Conv2dDirect(),
            depthwise.DepthwiseDirect(),
            dense.DenseShared(),
            pool.Pool2d(),
            pool.GlobalPool2d(),
            *generic.TEMPLATES,
        ]
        return {t.op: t for t in found}

    def ops(self) -> list[str]:
        return sorted(self._templates)

    def template(self, task: Task) -> Template:
        """conv2d with groups == channels goes to the depthwise template."""
        table = self._templates
        if task.op == "conv2d":
            groups = int(task.args.get("groups", 1))
            if groups > 1:
                return table["depthwise_conv2d"]
        found = table.get(task.op)
        if found is None:
            raise TaskError(f"unknown op {task.op!r}; {self.kind} ops: {', '.join(self.ops())}")
        return found

    def anchor_variants(self, task: Task) -> list[Task]:
        """GPU kernels keep the logical NCHW/OIHW layouts: the task itself."""
        return [task]

    def limits(self, target: Target) -> DeviceLimits:
        raise NotImplementedError

    def emit(self, func: LoweredFunc, target: Target) -> str:
        return render(to_kernel(func, self.limits(target)), self.dialect)

    def sketch_rules(self, target: Target) -> tuple[tuple[SketchRule, ...], SketchParams]:
        """The GPU derivation rules, sampling within this target's launch limits."""
        return sketch_rules.RULES, sketch_rules.sketch_params(self.limits(target))
