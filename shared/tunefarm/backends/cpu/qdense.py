"""int8 dense on the CPU: the int8 conv's compute definition and schedule on a 1x1 image.

`dense_int8` with data (M, K) uint8 and weight (N, K) int8 is `conv2d_int8` with data
(M, K, 1, 1) and weight (N, K, 1, 1): the same packed words (weights OI[ib/4]i[ob]o[4]i), the
same dot4 inner product (VNNI or the pmaddwd sequence), the same epilogue and knobs. Params
as `conv2d_int8` (data_zero_point, bias, out_dtype, out_zero_point, relu, blocks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.anchor_ops import dense_shape
from tunefarm.backends.cpu.qconv2d import Conv2dInt8
from tunefarm.schedule.template import KernelDef
from tunefarm.target import Target
from tunefarm.task import Task

CONV_KEYS = ("data_zero_point", "bias", "out_dtype", "out_zero_point", "relu", "blocks")


def as_conv(task: Task) -> Task:
    """The conv2d_int8 task a dense_int8 task runs as (a conv task is returned as it is, so
    the conv template's methods can call back into ours)."""
    if task.op == "conv2d_int8":
        return task
    a = task.args
    m, k, n = dense_shape(task, "dense_int8")
    rest = {key: a[key] for key in CONV_KEYS if key in a}
    return Task.make(
        "conv2d_int8", target=task.target, data=(m, k, 1, 1), weight=(n, k, 1, 1), **rest
    )


def _to4(x: np.ndarray) -> np.ndarray:
    return x.reshape(*x.shape, 1, 1) if x.ndim == 2 else x


class DenseInt8(Conv2dInt8):
    op = "dense_int8"

    def validate(self, task: Task) -> dict[str, Any]:
        return super().validate(as_conv(task))

    def logical_inputs(self, task):
        return [
            (name, shape[:2] if name in ("data", "weight", "residual") else shape)
            for name, shape in super().logical_inputs(as_conv(task))
        ]

    def reference(self, task, inputs):
        wide = {k: _to4(v) if k in ("data", "weight", "residual") else v for k, v in inputs.items()}
        out = super().reference(as_conv(task), wide)
        return out.reshape(out.shape[:2])

    def space(self, task: Task, target: Target):
        return super().space(as_conv(task), target)

    def preferred(self, task, space, target):
        return super().preferred(as_conv(task), space, target)

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        kdef = super().instantiate(as_conv(task), config, target)
        names = [t.name for t in kdef.inputs]
        kdef.packers = [
            (lambda x, f=f: f(_to4(x))) if name in ("data", "weight", "residual") else f
            for name, f in zip(names, kdef.packers, strict=True)
        ]
        pack_out = kdef.output_packer
        kdef.output_packer = lambda x: pack_out(_to4(x))
        return kdef
