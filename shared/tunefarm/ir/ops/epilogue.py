"""Fused epilogues: the elementwise tail an anchor op (conv2d, dense) absorbs.

An epilogue is a tuple of strings applied in order after the anchor op:
  "bias" (per output channel), "residual" (add a tensor shaped like the output), "relu",
  "clip:LO:HI", "sigmoid", "silu" (x * sigmoid(x)), "hard_swish", "leaky_relu:ALPHA",
  "gelu" (erf form), and last "cast:DTYPE" (float16, float64, int32, int8, uint8; integer
  casts truncate toward zero as C and numpy do).

`build_epilogue` makes it one compute stage (so it fuses into the producer's store, on any
target); `reference_epilogue` is its numpy oracle; graph passes use `parse_epilogue` and
`epilogue_inputs` to check and wire fused nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, call, cast, const, max_, min_, select
from tunefarm.ir.tensor import Tensor
from tunefarm.task import TaskError

EPILOGUE_KINDS = (
    "bias",
    "residual",
    "relu",
    "clip",
    "sigmoid",
    "silu",
    "hard_swish",
    "leaky_relu",
    "gelu",
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
    if kind == "silu":  # x * sigmoid(x), as the standalone kernel (`ops.elementwise.silu`)
        return x * _activation("sigmoid", args, x)
    if kind == "hard_swish":
        return x * min_(max_(x + const(3.0), const(0.0)), const(6.0)) * const(1.0 / 6.0)
    if kind == "leaky_relu":
        return select(x > 0.0, x, x * const(args[0]))
    if kind == "gelu":
        return x * const(0.5) * (const(1.0) + call("erf", x * const(0.7071067811865476)))
    raise TaskError(f"unknown activation {kind}")


def build_epilogue(
    acc: Tensor,
    spec: Sequence[str],
    channel_index: Callable[[tuple[Expr, ...]], tuple[Expr, ...]],
    bias_shape: tuple[int, ...],
    name: str,
    shape: tuple[int, ...] | None = None,
) -> tuple[Tensor, list[tuple[str, Tensor]]]:
    """One elementwise stage `name` computing the whole epilogue on `acc` (so it fuses into
    the producer's store). Returns the output and the extra inputs it reads
    (("bias"|"residual", placeholder)). A `shape` smaller than `acc`'s crops it (a padded
    anchor's output), with a stage even when the epilogue is empty."""
    kinds = {k for k, _ in parse_epilogue(spec)}
    extra: list[tuple[str, Tensor]] = []
    out_shape = tuple(acc.shape if shape is None else shape)
    if "bias" in kinds:
        extra.append(("bias", te.placeholder(bias_shape, acc.dtype, "bias")))
    if "residual" in kinds:
        extra.append(("residual", te.placeholder(out_shape, acc.dtype, "residual")))
    out = apply_epilogue(acc, spec, channel_index, dict(extra), name, out_shape)
    return out, extra


def apply_epilogue(
    acc: Tensor,
    spec: Sequence[str],
    channel_index: Callable[[tuple[Expr, ...]], tuple[Expr, ...]],
    extra: dict[str, Tensor],
    name: str,
    shape: tuple[int, ...] | None = None,
) -> Tensor:
    """The epilogue stage on `acc` reading the given "bias"/"residual" tensors, over `shape`
    (default: acc's; a smaller one crops)."""
    steps = parse_epilogue(spec)
    shape = tuple(acc.shape if shape is None else shape)
    if not steps and shape == tuple(acc.shape):
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

    return te.compute(shape, body, name=name, tag="epilogue", axis_names=names)


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
        elif kind == "silu":
            x = R.silu(x)
        elif kind == "hard_swish":
            x = R.hard_swish(x)
        elif kind == "leaky_relu":
            x = R.leaky_relu(x, args[0])
        elif kind == "gelu":
            x = R.gelu(x)
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
