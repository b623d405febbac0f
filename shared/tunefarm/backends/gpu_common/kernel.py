"""GPU lowering: a lowered loop nest -> one GPU kernel (launch shape, shared memory, barriers).

The loop-nest IR from `codegen.lower` already carries everything a GPU needs: loops bound to
`blockIdx.*` / `threadIdx.*` / `vthread`, buffers in `shared` or `local` scope. This pass
makes it a kernel, in three steps:

1. launch  — the grid and block extents of every thread tag (a tag bound in several stages
             launches with its largest extent; smaller loops get a guard);
2. shared  — shared buffers are declared once at the top of the kernel, and the fill of each
             is fenced by a barrier before (the previous tile's readers are done) and after
             (every thread's part has arrived);
3. limits  — threads per block and shared memory per block against the device's limits; a
             schedule over a limit is a `DeviceLimitError` naming the limit and the value, which
             the build worker records as a build error (tuning goes on).

Virtual threads become serial loops inside each thread: correct, and nvcc's compile time
stays bounded (TVM interleaves them instead, which an unrolled loop of 16 reductions made
take minutes). Root-level scratch buffers would need a
second kernel and a grid-wide sync, so they are refused: GPU schedules inline or attach
every intermediate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tunefarm.codegen.loops import Buffer, Decl, For, If, LoweredFunc, Stmt
from tunefarm.measure.errors import DeviceLimitError

BLOCK_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
THREAD_TAGS = ("threadIdx.x", "threadIdx.y", "threadIdx.z")


class GpuCodegenError(ValueError):
    """A schedule that cannot become a GPU kernel (named loop or buffer, and why)."""


@dataclass
class Barrier(Stmt):
    """Every thread of the block waits here (and shared-memory writes become visible)."""


@dataclass
class ThreadBind(Stmt):
    """`var` takes the thread index `tag`; `body` runs only where var < extent (a tag
    launched wider than this loop)."""

    var: str
    tag: str
    extent: int
    launch: int
    body: list[Stmt]


@dataclass(frozen=True)
class DeviceLimits:
    """What one launch may use. Values for the CUDA architectures are in `cuda/target.py`."""

    name: str
    max_threads_per_block: int = 1024
    max_block_dims: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_dims: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    max_shared_bytes: int = 48 * 1024


@dataclass
class GpuKernel:
    """A kernel ready to render: body, launch shape and the shared buffers to declare."""

    func: LoweredFunc
    body: list[Stmt]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: list[Buffer] = field(default_factory=list)

    @property
    def threads(self) -> int:
        return math.prod(self.block)

    @property
    def shared_bytes(self) -> int:
        return sum(b.size * 4 for b in self.shared)


def launch_extents(body: list[Stmt]) -> dict[str, int]:
    """Thread tag -> the largest extent any loop bound to it has."""
    out: dict[str, int] = {}

    def visit(stmts: list[Stmt]) -> None:
        for s in stmts:
            if isinstance(s, For):
                if s.kind == "bind" and s.thread in BLOCK_TAGS + THREAD_TAGS:
                    out[s.thread] = max(out.get(s.thread, 1), s.extent)
                visit(s.body)
            elif isinstance(s, If):
                visit(s.body)

    visit(body)
    return out


class _Pass:
    def __init__(self, launch: dict[str, int]) -> None:
        self.launch = launch
        self.shared: list[Buffer] = []

    def stmts(self, body: list[Stmt], bound: tuple[str, ...], guarded: bool) -> list[Stmt]:
        out: list[Stmt] = []
        i = 0
        while i < len(body):
            s = body[i]
            if isinstance(s, Decl) and s.buffer.scope == "shared":
                if guarded:
                    raise GpuCodegenError(
                        f"shared buffer {s.buffer.name} is filled under a thread guard (a "
                        "thread loop narrower than its launch); its barrier would not be "
                        "reached by every thread: bind equal extents to each thread tag"
                    )
                self.shared.append(s.buffer)
                fill = self.stmts(body[i + 1 : i + 2], bound, guarded)
                if not (out and isinstance(out[-1], Barrier)):  # two fills share a fence
                    out.append(Barrier())
                out += [*fill, Barrier()]
                i += 2
                continue
            out.append(self.stmt(s, bound, guarded))
            i += 1
        return out

    def stmt(self, s: Stmt, bound: tuple[str, ...], guarded: bool) -> Stmt:
        if isinstance(s, If):
            return If(s.cond, self.stmts(s.body, bound, True))
        if not isinstance(s, For):
            return s
        if s.kind == "bind" and s.thread == "vthread":
            return For(s.var, s.extent, "serial", self.stmts(s.body, bound, guarded))
        if s.kind != "bind":
            body = self.stmts(s.body, bound, guarded)
            return For(s.var, s.extent, s.kind, body, s.thread, s.pragmas)
        # A tag bound again inside a loop bound to it (a cooperative fetch inside the thread
        # axis of its consumer) reads the same index: SIMT code is written per thread.
        tag = str(s.thread)
        launch = self.launch[tag]
        narrow = s.extent < launch
        body = self.stmts(s.body, (*bound, tag), guarded or narrow)
        return ThreadBind(s.var, tag, s.extent, launch, body)


def to_kernel(func: LoweredFunc, limits: DeviceLimits) -> GpuKernel:
    """The GPU kernel of a lowered function, checked against `limits`."""
    if func.statics:
        names = ", ".join(b.name for b in func.statics)
        raise GpuCodegenError(
            f"intermediate buffer(s) {names} are computed at the root: a GPU kernel keeps "
            "every intermediate inlined (compute_inline) or attached to a loop (compute_at)"
        )
    launch = launch_extents(func.body)
    p = _Pass(launch)
    body = p.stmts(func.body, (), False)
    grid = tuple(launch.get(t, 1) for t in BLOCK_TAGS)
    block = tuple(launch.get(t, 1) for t in THREAD_TAGS)
    kernel = GpuKernel(func, body, grid, block, p.shared)  # type: ignore[arg-type]
    check_limits(kernel, limits)
    return kernel


def check_limits(kernel: GpuKernel, limits: DeviceLimits) -> None:
    """DeviceLimitError naming the first limit the launch breaks and by how much."""
    where = f"on {limits.name}"
    if kernel.threads > limits.max_threads_per_block:
        raise DeviceLimitError(
            f"threads per block: {kernel.threads} (block {kernel.block}) exceeds the limit "
            f"{limits.max_threads_per_block} {where}"
        )
    for axis, (got, most) in enumerate(zip(kernel.block, limits.max_block_dims, strict=True)):
        if got > most:
            raise DeviceLimitError(
                f"block dimension {'xyz'[axis]}: {got} exceeds the limit {most} {where}"
            )
    for axis, (got, most) in enumerate(zip(kernel.grid, limits.max_grid_dims, strict=True)):
        if got > most:
            raise DeviceLimitError(
                f"grid dimension {'xyz'[axis]}: {got} exceeds the limit {most} {where}"
            )
    if kernel.shared_bytes > limits.max_shared_bytes:
        raise DeviceLimitError(
            f"shared memory per block: {kernel.shared_bytes} bytes exceeds the limit "
            f"{limits.max_shared_bytes} bytes {where}"
        )


__all__ = [
    "Barrier",
    "DeviceLimits",
    "GpuCodegenError",
    "GpuKernel",
    "ThreadBind",
    "check_limits",
    "to_kernel",
]
