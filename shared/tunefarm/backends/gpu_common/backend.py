"""What the `cuda` and `opencl` backends share: the GPU templates, the layout policy, and
emission (GPU lowering, then the renderer in the backend's dialect). Each backend adds its
target options, device limits, toolchain and kernel loader."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common import (
    conv2d,
    dense,
    depthwise,
    generic,
    graph_ops,
    pool,
    sketch_rules,
)
from tunefarm.backends.gpu_common.kernel import DeviceLimits, to_kernel
from tunefarm.backends.gpu_common.network import DEVICE_ALIGN, DeviceNetwork
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

    # a device kernel cannot touch the measuring process's memory: one long-lived measurer
    # per device keeps its context (measure.measurer) instead of a process per candidate
    persistent_measurer = True

    # whole networks: the runtime plans the arena with this alignment and opens an
    # artifact's kernels with `open_network` (gpu_common/network.py)
    network_align = DEVICE_ALIGN

    def open_network(
        self, plan: dict[str, Any], images: dict[str, bytes], params: dict[str, np.ndarray]
    ) -> DeviceNetwork:
        raise NotImplementedError

    @functools.cached_property
    def _templates(self) -> dict[str, Template]:
        found: list[Template] = [
            conv2d.Conv2dDirect(),
            depthwise.DepthwiseDirect(),
            dense.DenseShared(),
            pool.Pool2d(),
            pool.GlobalPool2d(),
            *generic.TEMPLATES,
            *graph_ops.TEMPLATES,
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
