"""What the GPU templates share: conv params in logical NCHW/OIHW, the cooperative fetch of a
shared-memory tile, and the unroll knobs."""

from __future__ import annotations

from typing import Any

from tunefarm.ir.ops.conv import conv_output_size
from tunefarm.ir.ops.epilogue import parse_epilogue
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import as_padding, as_pair
from tunefarm.task import Task, TaskError

UNROLL_STEPS = (0, 512, 1500)  # auto_unroll_max_step, as AutoTVM's CUDA conv2d


def conv_params(task: Task) -> dict[str, Any]:
    """Normalised conv params: data (N,C,H,W), weight (O,C/g,KH,KW), attrs, output size."""
    a = task.args
    try:
        n, c, h, w = (int(v) for v in a["data"])
        o, ci, kh, kw = (int(v) for v in a["weight"])
    except KeyError as exc:
        raise TaskError(f"{task.op}: missing param {exc.args[0]!r} (need data, weight)") from None
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: data must be (N,C,H,W) and weight (O,I,KH,KW)") from None
    groups = int(a.get("groups", 1))
    if groups < 1 or c % groups or o % groups or ci * groups != c:
        raise TaskError(
            f"{task.op}: weight {a['weight']} does not match data channels {c} with groups="
            f"{groups} (need weight I = C/groups and O divisible by groups)"
        )
    strides = as_pair(a.get("strides", 1), "strides")
    dilation = as_pair(a.get("dilation", 1), "dilation")
    padding = as_padding(a.get("padding", 0))
    if min(strides) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise TaskError(f"{task.op}: strides and dilation must be >= 1 and padding >= 0")
    try:
        oh = conv_output_size(h, kh, strides[0], padding[0] + padding[2], dilation[0])
        ow = conv_output_size(w, kw, strides[1], padding[1] + padding[3], dilation[1])
    except ValueError as exc:
        raise TaskError(f"{task.op}: {exc}") from None
    epilogue = tuple(a.get("epilogue", ()))
    parse_epilogue(epilogue)
    return dict(
        n=n, c=c, h=h, w=w, o=o, kh=kh, kw=kw, groups=groups, strides=strides,
        padding=padding, dilation=dilation, oh=oh, ow=ow, epilogue=epilogue,
    )  # fmt: skip


def define_unroll(sp: ConfigSpace) -> None:
    sp.define_knob("auto_unroll_max_step", list(UNROLL_STEPS))
    sp.define_knob("unroll_explicit", [0, 1])


def fetch_steps(stage: str, ndim: int, threads: tuple[int, ...], tags: tuple[str, ...]):
    """Cooperative fetch of a shared tile: its axes fused, split over the block's threads
    (innermost tag last), the remainder a serial loop each thread runs."""
    axes = tuple(f"ax{i}" for i in range(ndim))
    fused = "+".join(axes)
    steps: list[S.Step] = [S.Fuse(stage, axes)] if ndim > 1 else []
    if ndim == 1:
        fused = axes[0]
    steps.append(S.Split(stage, fused, tuple(threads)))
    for k, tag in enumerate(tags, start=1):
        steps.append(S.Bind(stage, f"{fused}.{k}", tag))
    return steps
