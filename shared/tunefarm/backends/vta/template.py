"""The `conv2d_packed` template of the vta backend: the op registry's view of the lowering.

A task's params are logical, as for the CPU's conv2d: `data` (N, C, H, W) and `weight`
(O, C, KH, KW), both int8, with `strides`, `padding`, and the requantization `shift` and
`clip` (lo, hi) that the ALU applies before the int8 store (the tutorial's 8 and (0, 127));
`bias: true` adds a third input, an int32 bias per output channel, added before the shift.
The kernel's layouts are the accelerator's: data NCHW{b}n{i}c, weight OIHW{o}o{i}i and output
NCHW{b}n{o}c, blocked by the target's hardware config; the packers here convert.

Its knobs are the tutorial's (`conv2d_space`). A config whose tiles do not fit an on-chip
buffer fails to instantiate with a `FitError` naming the buffer and the bytes, which the
builder records as an instantiation error. Instantiating lowers the conv to its program: the
kernel's code is the program artifact (`program.to_text`), not a loop nest for an emitter.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.vta import program
from tunefarm.backends.vta.config import VTAConfig
from tunefarm.backends.vta.conv2d import conv2d_packed_reference, lower_conv2d_packed
from tunefarm.backends.vta.conv2d_space import Conv2dWorkload, config_space, default_config
from tunefarm.backends.vta.target import hw_config
from tunefarm.ir import tensor as te
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    CONV_DATA,
    CONV_WEIGHT,
    INT8,
    InputSpec,
    KernelDef,
    Template,
    as_padding,
    as_pair,
    io_key,
    operand_shapes,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

OP = "conv2d_packed"
# Random biases for measurements: large enough to move every output, small enough that the
# accumulator never wraps on the shapes tested.
BIAS = InputSpec("int32", -(2**16), 2**16)


def workload(task: Task) -> Conv2dWorkload:
    """The task's workload from its logical params; TaskError naming a bad param."""
    a = task.args
    (n, c, h, w), (o, ci, kh, kw) = operand_shapes(task, CONV_DATA, CONV_WEIGHT, OP)
    if ci != c:
        raise TaskError(f"{OP}: weight {list(a['weight'])} has I={ci}, data has C={c}")
    sh, sw = as_pair(a.get("strides", 1), "strides")
    top, left, bottom, right = as_padding(a.get("padding", 0))
    lo, hi = as_pair(a.get("clip", (0, 127)), "clip")
    if not -128 <= lo <= hi <= 127:
        raise TaskError(f"{OP}: clip {[lo, hi]} must be lo <= hi within int8 [-128, 127]")
    shift = a.get("shift", 8)
    if isinstance(shift, bool) or not isinstance(shift, int):
        raise TaskError(f"{OP}: shift must be an integer, got {shift!r}")
    bias = a.get("bias", False)
    if not isinstance(bias, bool):
        raise TaskError(f"{OP}: bias must be true or false, got {bias!r}")
    return Conv2dWorkload(
        n, c, h, w, o, kh, kw, sh, sw, top, left, bottom, right, shift, lo, hi, bias
    )


def checked_workload(task: Task, hw: VTAConfig) -> Conv2dWorkload:
    """The workload, checked against the hardware (channel blocks, sizes); TaskError naming
    the param otherwise."""
    wl = workload(task)
    try:
        wl.check(hw)
    except ValueError as exc:
        raise TaskError(str(exc)) from None
    return wl


def _blocked(x: np.ndarray, outer: int, inner: int) -> np.ndarray:
    """(A, B, H, W) -> (A/outer, B/inner, H, W, outer, inner): VTA's blocked layouts."""
    a, b, h, w = x.shape
    x = x.reshape(a // outer, outer, b // inner, inner, h, w)
    return np.ascontiguousarray(x.transpose(0, 2, 4, 5, 1, 3))


def pack_data(x: np.ndarray, hw: VTAConfig) -> np.ndarray:
    """NCHW -> NCHW{batch}n{block_in}c."""
    return _blocked(x, hw.batch, hw.block_in)


def pack_weight(k: np.ndarray, hw: VTAConfig) -> np.ndarray:
    """OIHW -> OIHW{block_out}o{block_in}i."""
    return _blocked(k, hw.block_out, hw.block_in)


def pack_output(y: np.ndarray, hw: VTAConfig) -> np.ndarray:
    """NCHW -> NCHW{batch}n{block_out}c."""
    return _blocked(y, hw.batch, hw.block_out)


def pack_bias(b: np.ndarray, hw: VTAConfig) -> np.ndarray:
    """(O,) int32 -> (O/block_out, batch, block_out): one accumulator element per block."""
    blocks = b.astype(np.int32).reshape(-1, 1, hw.block_out)
    return np.ascontiguousarray(np.repeat(blocks, hw.batch, axis=1))


def unpack_output(y: np.ndarray) -> np.ndarray:
    """NCHW{b}n{o}c -> NCHW."""
    nb, ocb, oh, ow, b, bo = y.shape
    return np.ascontiguousarray(y.transpose(0, 4, 1, 5, 2, 3).reshape(nb * b, ocb * bo, oh, ow))


def reference_nchw(
    data: np.ndarray, weight: np.ndarray, wl: Conv2dWorkload, bias: np.ndarray | None = None
) -> np.ndarray:
    """The op in logical layouts: int8 conv, int32 accumulation, + bias, >> shift, clip, int8
    (the packed oracle with one block holding every channel, so no hardware config is
    needed)."""
    packed_data = _blocked(data, 1, data.shape[1])
    packed_weight = _blocked(weight, weight.shape[0], weight.shape[1])
    return unpack_output(conv2d_packed_reference(packed_data, packed_weight, wl, bias))


class Conv2dPacked(Template):
    """int8 conv2d on VTA's GEMM core, tuned by the tutorial's knobs."""

    op = OP

    def validate(self, task: Task) -> dict[str, Any]:
        wl = workload(task)
        return {k: getattr(wl, k) for k in wl.__dataclass_fields__}

    def logical_inputs(self, task: Task) -> list[tuple[str, tuple[int, ...]]]:
        wl = workload(task)
        inputs = [
            ("data", (wl.batch, wl.in_channels, wl.height, wl.width)),
            ("weight", (wl.out_channels, wl.in_channels, wl.kernel_h, wl.kernel_w)),
        ]
        return inputs + ([("bias", (wl.out_channels,))] if wl.bias else [])

    def input_specs(self, task: Task) -> dict[str, InputSpec]:
        """int8 over the whole range: every bit of the accumulation is exercised."""
        return {"data": INT8, "weight": INT8, "bias": BIAS}

    def exact_output(self, task: Task) -> bool:
        """int8 results are compared bit for bit."""
        return True

    def reference(self, task: Task, inputs: dict[str, np.ndarray]) -> np.ndarray:
        return reference_nchw(inputs["data"], inputs["weight"], workload(task), inputs.get("bias"))

    def flops(self, task: Task) -> float:
        """Operations (two per int8 multiply-accumulate), reported as FLOPs."""
        return float(workload(task).ops)

    def space(self, task: Task, target: Target) -> ConfigSpace:
        hw = hw_config(target)
        return config_space(checked_workload(task, hw), hw)

    def preferred(self, task: Task, space: ConfigSpace, target: Target) -> dict[str, Any]:
        """The hand rule of `conv2d_space.default_config` (whole rows, full channel tiles)."""
        hw = hw_config(target)
        return default_config(checked_workload(task, hw), hw)

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        """Lower the conv under `config` (FitError if its tiles overflow a buffer)."""
        hw = hw_config(target)
        wl = checked_workload(task, hw)
        lowered = lower_conv2d_packed(wl, config, hw)
        inputs = [
            te.placeholder(wl.data_shape(hw), "int8", "data"),
            te.placeholder(wl.weight_shape(hw), "int8", "weight"),
        ]
        packers = [lambda x: pack_data(x, hw), lambda k: pack_weight(k, hw)]
        if wl.bias:
            inputs.append(te.placeholder(wl.bias_shape(hw), "int32", "bias"))
            packers.append(lambda b: pack_bias(b, hw))
        names = [t.name for t in inputs] + ["output"]
        return KernelDef(
            inputs=inputs,
            outputs=[te.placeholder(wl.out_shape(hw), "int8", "output")],
            steps=[],
            packers=packers,
            output_packer=lambda y: pack_output(y, hw),
            io_key=io_key(task, vta=[hw.batch, hw.block_in, hw.block_out]),
            notes={"insns": len(lowered.insns)},
            code=program.to_text(lowered, names),
        )
