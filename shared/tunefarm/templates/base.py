"""What a schedule template is: a config space for a task, and a mapping from a config
to (compute definition in the kernel's layouts, schedule steps, argument packing).

A task's params are in the op's *logical* layout (NCHW, OIHW, ...). A template may choose a
different kernel layout per config (e.g. NCHW16c); it then says how to pack each logical
input into the kernel layout and how to pack the reference output, so the runner compares
like with like and the graph compiler can insert the same transforms.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, cast, const, max_, min_, select
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace, SpaceError
from tunefarm.schedule.steps import Step
from tunefarm.task import Task

Packer = Callable[[np.ndarray], np.ndarray]


class TaskError(ValueError):
    """A task whose params do not describe a valid workload for its op."""


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


def identity(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x)


class Template:
    """Base class; subclasses set `op` and implement the five methods."""

    op = ""

    def validate(self, task: Task) -> dict[str, Any]:
        """Check the task's params; return them normalised. Raise TaskError naming the param."""
        raise NotImplementedError

    def logical_inputs(self, task: Task) -> list[tuple[str, tuple[int, ...]]]:
        raise NotImplementedError

    def reference(self, task: Task, inputs: dict[str, np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def flops(self, task: Task) -> float:
        raise NotImplementedError

    def space(self, task: Task, lanes: int) -> ConfigSpace:
        raise NotImplementedError

    def preferred(self, task: Task, space: ConfigSpace, lanes: int) -> dict[str, Any]:
        """Knob values of the untuned default config (others: entity 0)."""
        return {}

    def instantiate(self, task: Task, config: dict[str, Any], lanes: int) -> KernelDef:
        raise NotImplementedError

    # -- shared helpers --------------------------------------------------------------------
    def default_config(self, task: Task, lanes: int) -> dict[str, Any]:
        space = self.space(task, lanes)
        return space.default(self.preferred(task, space, lanes))


def accumulator(anchor: Tensor, out: Tensor) -> tuple[list[S.Step], str]:
    """The stage that accumulates in registers: the anchor itself when an epilogue stage
    stores the result, else a local cache of the anchor (cache_write)."""
    if out is anchor:
        return [S.CacheWrite(anchor.name)], f"{anchor.name}.local"
    return [], anchor.name


# -- epilogues ---------------------------------------------------------------------------
# An epilogue is a tuple of strings applied in order after the anchor op:
#   "bias" (per output channel), "residual" (add a tensor shaped like the output), "relu",
#   "clip:LO:HI", "sigmoid", "hard_swish", "leaky_relu:ALPHA", and last "cast:DTYPE" (float16,
#   float64, int32, int8, uint8; integer casts truncate toward zero as C and numpy do).
EPILOGUE_KINDS = (
    "bias",
    "residual",
    "relu",
    "clip",
    "sigmoid",
    "hard_swish",
    "leaky_relu",
    "cast",
)
CAST_DTYPES = ("float16", "float64", "int32", "int8", "uint8")


def parse_epilogue(spec: Sequence[str]) -> list[tuple[str, tuple[float, ...]]]:
    out = []
    for item in spec:
        kind, *args = str(item).split(":")
        if kind not in EPILOGUE_KINDS:
            raise TaskError(f"epilogue {item!r}: unknown kind; use one of {EPILOGUE_KINDS}")
        if kind == "cast":
            if len(args) != 1 or args[0] not in CAST_DTYPES:
                raise TaskError(f"epilogue {item!r}: cast takes one dtype of {CAST_DTYPES}")
            if item != spec[-1]:
                raise TaskError(f"epilogue {item!r}: cast must be the last epilogue step")
            out.append((kind, (args[0],)))  # type: ignore[arg-type]
            continue
        want = {"clip": 2, "leaky_relu": 1}.get(kind, 0)
        if len(args) != want:
            raise TaskError(f"epilogue {item!r}: {kind} takes {want} ':'-separated numbers")
        try:
            out.append((kind, tuple(float(a) for a in args)))
        except ValueError:
            raise TaskError(f"epilogue {item!r}: arguments must be numbers") from None
    return out


def _activation(kind: str, args: tuple[float, ...], x: Expr) -> Expr:
    if kind == "relu":
        return max_(x, const(0.0))
    if kind == "clip":
        return min_(max_(x, const(args[0])), const(args[1]))
    if kind == "sigmoid":
        return const(1.0) / (const(1.0) + call("exp", -x))
    if kind == "hard_swish":
        return x * min_(max_(x + const(3.0), const(0.0)), const(6.0)) * const(1.0 / 6.0)
    if kind == "leaky_relu":
        return select(x > 0.0, x, x * const(args[0]))
    raise TaskError(f"unknown activation {kind}")


def build_epilogue(
    acc: Tensor,
    spec: Sequence[str],
    channel_index: Callable[[tuple[Expr, ...]], tuple[Expr, ...]],
    bias_shape: tuple[int, ...],
    name: str,
) -> tuple[Tensor, list[tuple[str, Tensor]]]:
    """One elementwise stage `name` computing the whole epilogue on `acc` (so it fuses into
    the producer's store). Returns the output and the extra inputs it reads
    (("bias"|"residual", placeholder))."""
    kinds = {k for k, _ in parse_epilogue(spec)}
    extra: list[tuple[str, Tensor]] = []
    if "bias" in kinds:
        extra.append(("bias", te.placeholder(bias_shape, acc.dtype, "bias")))
    if "residual" in kinds:
        extra.append(("residual", te.placeholder(acc.shape, acc.dtype, "residual")))
    out = apply_epilogue(acc, spec, channel_index, dict(extra), name)
    return out, extra


def apply_epilogue(
    acc: Tensor,
    spec: Sequence[str],
    channel_index: Callable[[tuple[Expr, ...]], tuple[Expr, ...]],
    extra: dict[str, Tensor],
    name: str,
) -> Tensor:
    """The epilogue stage on `acc` reading the given "bias"/"residual" tensors."""
    steps = parse_epilogue(spec)
    if not steps:
        return acc
    bias, residual = extra.get("bias"), extra.get("residual")
    names = [ax.name for ax in acc.op.axes]

    def body(*idx: Expr) -> Expr:
        x: Expr = acc[idx]
        for kind, args in steps:
            if kind == "bias":
                x = x + bias[channel_index(idx)]  # type: ignore[index]
            elif kind == "residual":
                x = x + residual[idx]  # type: ignore[index]
            elif kind == "cast":
                x = cast(x, str(args[0]))
            else:
                x = _activation(kind, args, x)
        return x

    return te.compute(acc.shape, body, name=name, tag="epilogue", axis_names=names)


def reference_epilogue(
    x: np.ndarray, spec: Sequence[str], inputs: dict[str, np.ndarray], channel_axis: int = 1
) -> np.ndarray:
    """The numpy oracle of `build_epilogue` on logical layouts."""
    for kind, args in parse_epilogue(spec):
        if kind == "bias":
            shape = [1] * x.ndim
            shape[channel_axis] = -1
            x = x + inputs["bias"].reshape(shape)
        elif kind == "residual":
            x = x + inputs["residual"]
        elif kind == "relu":
            x = R.relu(x)
        elif kind == "clip":
            x = R.clip(x, args[0], args[1])
        elif kind == "sigmoid":
            x = R.sigmoid(x)
        elif kind == "hard_swish":
            x = R.hard_swish(x)
        elif kind == "leaky_relu":
            x = R.leaky_relu(x, args[0])
        elif kind == "cast":
            return x.astype(np.float32).astype(str(args[0]))
    return x.astype(np.float32)


def epilogue_inputs(spec: Sequence[str], channels: int, out_shape: tuple[int, ...]):
    """Logical extra inputs of an epilogue, in the order `build_epilogue` adds them."""
    kinds = {k for k, _ in parse_epilogue(spec)}
    out = []
    if "bias" in kinds:
        out.append(("bias", (channels,)))
    if "residual" in kinds:
        out.append(("residual", tuple(out_shape)))
    return out


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
