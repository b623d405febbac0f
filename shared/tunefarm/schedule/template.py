"""What a schedule template is: a config space for a task, and a mapping from a config
to (compute definition in the kernel's layouts, schedule steps, argument packing).

A task's params are in the op's *logical* layout (NCHW, OIHW, ...). A template may choose a
different kernel layout per config (e.g. NCHW16c); it then says how to pack each logical
input into the kernel layout and how to pack the reference output, so the runner compares
like with like and the graph compiler can insert the same transforms.

Templates belong to a backend (`tunefarm.backends.<kind>`): the same op has one template per
kind of machine. Every method gets the parsed target, from which a backend's templates read
what they need (a CPU template its vector width, a GPU template its architecture).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tunefarm.ir.ops.conv import conv_output_size
from tunefarm.ir.ops.epilogue import parse_epilogue
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace, SpaceError
from tunefarm.schedule.steps import Step
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

Packer = Callable[[np.ndarray], np.ndarray]

__all__ = ["InputSpec", "KernelDef", "Packer", "TaskError", "Template"]


@dataclass
class KernelDef:
    """One instantiated candidate: kernel-layout tensors, steps and how to pack data."""

    inputs: list[Tensor]
    outputs: list[Tensor]
    steps: list[Step]
    packers: list[Packer]  # per input: logical array -> kernel-layout array
    output_packer: Packer  # logical reference output -> kernel layout
    io_key: str  # identifies the argument layouts
    notes: dict[str, Any] = field(default_factory=dict)
    # The kernel's code when the template makes it itself (an accelerator's instruction
    # stream, not a loop nest): the registry then skips lowering and the backend's emitter.
    code: str | None = None


@dataclass(frozen=True)
class InputSpec:
    """How the measure layer draws a logical input: dtype, and values uniform in [lo, hi]
    (integers inclusive of hi; floats in [lo, hi))."""

    dtype: str
    lo: float
    hi: float

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        if np.dtype(self.dtype).kind in "biu":  # integers and bools: whole values lo..hi
            return rng.integers(int(self.lo), int(self.hi), size=shape, endpoint=True).astype(
                self.dtype
            )
        return rng.uniform(self.lo, self.hi, size=shape).astype(self.dtype)


INT8 = InputSpec("int8", -128, 127)
UINT8 = InputSpec("uint8", 0, 255)


def identity(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x)


class Template:
    """Base class; subclasses set `op` and implement the methods below."""

    op = ""
    generic = False  # a backend's fallback for ops without a schedule of their own

    def validate(self, task: Task) -> dict[str, Any]:
        """Check the task's params; return them normalised. Raise TaskError naming the param."""
        raise NotImplementedError

    def logical_inputs(self, task: Task) -> list[tuple[str, tuple[int, ...]]]:
        raise NotImplementedError

    def input_specs(self, task: Task) -> dict[str, InputSpec]:
        """dtype and value range of logical inputs that are not float32 in [-1, 1) (integer
        tensors, positive scales); inputs not named here are float32 in [-1, 1)."""
        return {}

    def exact_output(self, task: Task) -> bool:
        """True where the kernel's output is bit-exact (integer kernels): the runner then
        compares it for equality with the reference."""
        return False

    def reference(self, task: Task, inputs: dict[str, np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def flops(self, task: Task) -> float:
        raise NotImplementedError

    def space(self, task: Task, target: Target) -> ConfigSpace:
        raise NotImplementedError

    def preferred(self, task: Task, space: ConfigSpace, target: Target) -> dict[str, Any]:
        """Knob values of the untuned default config (others: entity 0)."""
        return {}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        raise NotImplementedError

    # -- shared helpers --------------------------------------------------------------------
    def default_config(self, task: Task, target: Target) -> dict[str, Any]:
        space = self.space(task, target)
        return space.default(self.preferred(task, space, target))


def accumulator(anchor: Tensor, out: Tensor) -> tuple[list[S.Step], str]:
    """The stage that accumulates in registers: the anchor itself when an epilogue stage
    stores the result, else a local cache of the anchor (cache_write)."""
    if out is anchor:
        return [S.CacheWrite(anchor.name)], f"{anchor.name}.local"
    return [], anchor.name


CONV_DATA, CONV_WEIGHT = "N, C, H, W", "O, I, KH, KW"  # the layouts of a conv's operands


def io_key(task: Task, **layout: Any) -> str:
    return json.dumps([task.workload_key, layout], sort_keys=True)


def as_pair(value: Any, what: str) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    try:
        a, b = (int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(f"{what} must be an int or a pair of ints, got {value!r}") from None
    return (a, b)


def as_padding(value: Any) -> tuple[int, int, int, int]:
    if isinstance(value, int):
        return (value,) * 4  # type: ignore[return-value]
    vals = tuple(int(v) for v in value)
    if len(vals) == 2:
        return (vals[0], vals[1], vals[0], vals[1])
    if len(vals) == 4:
        return vals  # type: ignore[return-value]
    raise TaskError(f"padding must be an int, (h, w) or (top, left, bottom, right), got {value!r}")


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def check_config(space: ConfigSpace, config: dict[str, Any], op: str) -> dict[str, Any]:
    try:
        return space.validate(config)
    except SpaceError as exc:
        raise SpaceError(f"{op}: {exc}") from None


def operand_shapes(
    task: Task, data: str, weight: str, op: str | None = None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The task's `data` and `weight` params as int shapes of the ranks their layouts name
    (e.g. "N, C, H, W"); a TaskError naming the missing param or the layouts expected. The
    first check of every op with a data and a weight operand (conv, dense, their int8 and
    VTA forms), so that each says the same thing about the same mistake. op: the name in the
    message (default: the task's op)."""
    op = op or task.op
    try:
        d = tuple(int(v) for v in task.args["data"])
        w = tuple(int(v) for v in task.args["weight"])
    except KeyError as exc:
        raise TaskError(f"{op}: missing param {exc.args[0]!r} (need data, weight)") from None
    except (TypeError, ValueError):
        d = w = ()
    if len(d) != len(data.split(",")) or len(w) != len(weight.split(",")):
        raise TaskError(f"{op}: data must be ({data}) and weight ({weight})")
    return d, w


def conv_window(
    task: Task, h: int, w: int, kh: int, kw: int
) -> tuple[tuple[int, int], tuple[int, int, int, int], tuple[int, int], int, int]:
    """A conv task's strides, padding (top, left, bottom, right), dilation and output size
    (oh, ow) for an h x w input and a kh x kw kernel; a TaskError naming what is wrong."""
    a = task.args
    strides = as_pair(a.get("strides", 1), "strides")
    dilation = as_pair(a.get("dilation", 1), "dilation")
    padding = as_padding(a.get("padding", 0))
    if min(strides) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise TaskError(f"{task.op}: strides and dilation must be >= 1 and padding >= 0")
    try:  # each is >= 1 once it returns: the dilated kernel fits the padded input
        oh = conv_output_size(h, kh, strides[0], padding[0] + padding[2], dilation[0])
        ow = conv_output_size(w, kw, strides[1], padding[1] + padding[3], dilation[1])
    except ValueError as exc:
        raise TaskError(f"{task.op}: {exc}") from None
    return strides, padding, dilation, oh, ow


def conv_params(task: Task) -> dict[str, Any]:
    """Normalised conv params of any backend's conv task: data (N,C,H,W), weight
    (O,C/g,KH,KW), attrs, output size; TaskError naming what is wrong."""
    a = task.args
    (n, c, h, w), (o, ci, kh, kw) = operand_shapes(task, CONV_DATA, CONV_WEIGHT)
    groups = int(a.get("groups", 1))
    if groups < 1 or c % groups or o % groups or ci * groups != c:
        raise TaskError(
            f"{task.op}: weight {a['weight']} does not match data channels {c} with groups="
            f"{groups} (need weight I = C/groups and O divisible by groups)"
        )
    strides, padding, dilation, oh, ow = conv_window(task, h, w, kh, kw)
    epilogue = tuple(a.get("epilogue", ()))
    parse_epilogue(epilogue)
    return dict(
        n=n, c=c, h=h, w=w, o=o, kh=kh, kw=kw, groups=groups, strides=strides,
        padding=padding, dilation=dilation, oh=oh, ow=ow, epilogue=epilogue,
    )  # fmt: skip
