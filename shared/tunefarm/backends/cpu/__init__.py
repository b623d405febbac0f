"""The `cpu` backend: x86 CPUs, C code compiled by gcc, OpenMP threads, vector types.

What it owns (see `tunefarm.backends.base.Backend`):
- target options `-isa` and `-cores` (`target.py`);
- templates: conv2d in NCHW[x]c (`conv2d.py`), Winograd (`winograd.py`), depthwise
  (`depthwise.py`), grouped conv2d in NCHW[x]c (`group_conv2d.py`), packed dense
  (`dense.py`), batch matmul (`batch_matmul.py`), fused attention (`attention.py`),
  pooling (`pool.py`), and a generic template for every other op (`generic.py`);
- the layout policy for network tasks (`layout.py`: channel blocks, Winograd alternatives);
- sketch rules for template-free schedules (`sketch_rules.py`);
- the C emitter (`c_emitter.py`) and gcc's command line (`target.toolchain`);
- measurement through the host kernel ABI (`tunefarm.measure.host`: 64-byte aligned host
  buffers, timed inside the library by `tf_time`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

from tunefarm.backends.cpu import (
    attention,
    batch_matmul,
    conv2d,
    dense,
    depthwise,
    generic,
    group_conv2d,
    layout,
    pool,
    qconv2d,
    qdense,
    qdepthwise,
    quant,
    sketch_rules,
    winograd,
)
from tunefarm.backends.cpu import target as cpu_target
from tunefarm.backends.cpu.c_emitter import emit_c, kernel_clock
from tunefarm.codegen.loops import LoweredFunc
from tunefarm.measure.host import load_host_kernel
from tunefarm.measure.types import Toolchain
from tunefarm.schedule.sketch import SketchRule
from tunefarm.schedule.sketch_state import SketchParams
from tunefarm.schedule.template import Template
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


class CpuBackend:
    kind = "cpu"
    usage = cpu_target.USAGE
    kernel_loader = staticmethod(load_host_kernel)
    # one long-lived measurer that dlopens, times and dlcloses candidate after candidate, and
    # is replaced after one that crashes, hangs or fails (measure.measurer)
    persistent_measurer = True
    kernels_in_process = True

    @staticmethod
    def kernel_clock(target: Target) -> str:
        """The clock this target's kernels time themselves by (`c_emitter.kernel_clock`)."""
        return kernel_clock(target)

    def check_options(self, options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
        return cpu_target.check_options(options)

    @functools.cached_property
    def _templates(self) -> dict[str, Template]:
        found: list[Template] = [
            conv2d.Conv2dNCHWc(),
            winograd.Conv2dWinograd(),
            depthwise.DepthwiseNCHWc(),
            group_conv2d.GroupConvNCHWc(),
            dense.DensePack(),
            pool.Pool2dNCHWc(),
            pool.GlobalPool2dNCHWc(),
            *generic.TEMPLATES,
            batch_matmul.BatchMatmul(),  # replaces the generic one
            attention.Attention(),
            *quant.TEMPLATES,
            qconv2d.Conv2dInt8(),
            qdense.DenseInt8(),
            qdepthwise.DepthwiseInt8(),
        ]
        return {t.op: t for t in found}

    def ops(self) -> list[str]:
        return sorted(self._templates)

    def template(self, task: Task) -> Template:
        """conv2d with groups goes to the matching specialised template: depthwise, grouped
        in the blocked layout where its blocks keep the groups packed, else the generic
        NCHW one."""
        table = self._templates
        if task.op == "conv2d":
            p = conv2d.conv_params(task)
            if p["groups"] == p["c"] == p["o"] and p["groups"] > 1:
                return table["depthwise_conv2d"]
            if p["groups"] > 1:
                lanes = cpu_target.vector_lanes(cpu_target.parse(task.target))
                blocks = p["blocks"] or group_conv2d.group_blocks(
                    p["c"], p["o"], p["groups"], lanes
                )
                fits = blocks and not group_conv2d.blocks_fit(p["c"], p["o"], p["groups"], *blocks)
                return table["group_conv2d_nchwc" if fits else "group_conv2d"]
        found = table.get(task.op)
        if found is None:
            raise TaskError(f"unknown op {task.op!r}; cpu ops: {', '.join(self.ops())}")
        return found

    def generic_reason(self, task: Task) -> str | None:
        """Why a grouped conv runs the generic NCHW template (None for other ops)."""
        if task.op != "conv2d":
            return None
        p = conv2d.conv_params(task)
        if not group_conv2d.is_grouped(p):
            return None
        lanes = cpu_target.vector_lanes(cpu_target.parse(task.target))
        ib, ob = p["blocks"] or (conv2d.best_block(p["c"], lanes), conv2d.best_block(p["o"], lanes))
        why = group_conv2d.blocks_fit(p["c"], p["o"], p["groups"], ib, ob)
        g = p["groups"]
        return f"grouped conv ({p['c'] // g} in / {p['o'] // g} out per group) in NCHW: {why}"

    def anchor_variants(self, task: Task) -> list[Task]:
        return layout.anchor_variants(task)

    def untuned_variant(self, variants: list[Task]) -> Task:
        return layout.untuned_variant(variants)

    def emit(self, func: LoweredFunc, target: Target) -> str:
        return emit_c(func, target)

    def toolchain(self, target: Target) -> Toolchain:
        return cpu_target.toolchain(target)

    def sketch_rules(self, target: Target) -> tuple[tuple[SketchRule, ...], SketchParams]:
        """The derivation rules and sampling numbers of template-free schedules."""
        return sketch_rules.RULES, sketch_rules.sketch_params(target)


BACKEND = CpuBackend()
