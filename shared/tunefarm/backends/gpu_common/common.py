"""What the GPU templates share: conv params in logical NCHW/OIHW, the cooperative fetch of a
shared-memory tile, and the unroll knobs."""

from __future__ import annotations

from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace

UNROLL_STEPS = (0, 512, 1500)  # auto_unroll_max_step, as AutoTVM's CUDA conv2d


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
