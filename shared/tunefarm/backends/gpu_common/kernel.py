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

from tunefarm.codegen.arith import simplify
from tunefarm.codegen.loops import (
    Buffer,
    BufferLoad,
    Decl,
    For,
    If,
    LoweredFunc,
    Stmt,
    Store,
    walk_stmts,
)
from tunefarm.ir.expr import Binary, Const, Expr
from tunefarm.ir.transform import free_vars, substitute
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


@dataclass
class CrossReduce(Stmt):
    """Combine every thread's `partial` along thread tag `tag` (a tree in the shared buffer
    `scratch`, one slot per thread of the block) into `target[index]`, by thread 0 of the tag."""

    op: str  # "+" | "max" | "min"
    partial: Buffer
    scratch: Buffer
    target: Buffer
    index: Expr
    tag: str


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
            done = self.stmt(s, bound, guarded)
            out += done if isinstance(done, list) else [done]
            i += 1
        return out

    def stmt(self, s: Stmt, bound: tuple[str, ...], guarded: bool) -> Stmt | list[Stmt]:
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
        if s.reduce and tag in THREAD_TAGS:
            return self.cross_thread(s, tag, bound, guarded)
        body = self.stmts(s.body, (*bound, tag), guarded or narrow)
        return ThreadBind(s.var, tag, s.extent, launch, body)

    def cross_thread(self, s: For, tag: str, bound: tuple[str, ...], guarded: bool) -> list[Stmt]:
        """A reduce loop bound to threads: each thread sums its share into a register, then
        the block combines the partial sums through shared memory (TVM's cross-thread
        reduction, for reductions whose spatial extent is too small to fill a block)."""
        if guarded:
            raise GpuCodegenError(
                f"reduce loop {s.var} is bound to {tag} under a thread guard: its barriers "
                "would not be reached by every thread"
            )
        target, index, op = accumulator_of(s)
        partial = Buffer(f"{s.var}_part", (1,), target.dtype, "local")
        scratch = Buffer(f"{s.var}_red", (math.prod(self.block()),), target.dtype, "shared")
        self.shared.append(scratch)
        body = retarget(s.body, target, index, partial)
        launch = self.launch[tag]
        bind = ThreadBind(
            s.var, tag, s.extent, launch, self.stmts(body, (*bound, tag), s.extent < launch)
        )
        init = Store(partial, Const(0), Const(REDUCE_INIT[op], target.dtype))
        return [Decl(partial), init, bind, CrossReduce(op, partial, scratch, target, index, tag)]

    def block(self) -> tuple[int, int, int]:
        return tuple(self.launch.get(t, 1) for t in THREAD_TAGS)  # type: ignore[return-value]


REDUCE_INIT = {"+": 0.0, "max": -math.inf, "min": math.inf}


def accumulator_of(loop: For) -> tuple[Buffer, Expr, str]:
    """The one accumulator a thread-bound reduce loop updates: buffer, index, combiner."""
    stores = [x for x in walk_stmts(loop.body) if isinstance(x, Store)]
    loops = [x for x in walk_stmts(loop.body) if isinstance(x, For)]
    inner = {loop.var} | {x.var for x in loops if x.extent > 1}
    ones = {x.var: Const(0) for x in loops if x.extent == 1}  # a loop of one: its var is 0
    found = set()
    for st in stores:
        v = st.value
        ok = isinstance(v, Binary) and v.op in REDUCE_INIT and isinstance(v.a, BufferLoad)
        if not ok or v.a.buffer != st.buffer or v.a.index != st.index:  # type: ignore[union-attr]
            raise GpuCodegenError(
                f"reduce loop {loop.var} bound to threads must only accumulate, found a store "
                f"to {st.buffer.name}"
            )
        found.add((st.buffer, simplify(substitute(st.index, ones)), v.op))  # type: ignore[union-attr]
    if len(found) != 1 or free_vars(next(iter(found))[1]) & inner:
        raise GpuCodegenError(
            f"reduce loop {loop.var} bound to threads must accumulate into one element per "
            "thread group (bind it below the register tile, or keep it serial)"
        )
    return next(iter(found))


def retarget(body: list[Stmt], target: Buffer, index: Expr, partial: Buffer) -> list[Stmt]:
    """The loop body accumulating into a thread's private partial instead of `target`."""
    out: list[Stmt] = []
    for s in body:
        if isinstance(s, Store) and s.buffer == target:
            v = s.value
            assert isinstance(v, Binary)
            load = BufferLoad(partial, Const(0), partial.dtype)
            out.append(Store(partial, Const(0), Binary(v.op, load, v.b, v.dtype)))
        elif isinstance(s, For):
            body_ = retarget(s.body, target, index, partial)
            out.append(For(s.var, s.extent, s.kind, body_, s.thread, s.pragmas, s.reduce))
        elif isinstance(s, If):
            out.append(If(s.cond, retarget(s.body, target, index, partial)))
        else:
            out.append(s)
    return out


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
    "CrossReduce",
    "DeviceLimits",
    "GpuCodegenError",
    "GpuKernel",
    "ThreadBind",
    "check_limits",
    "to_kernel",
]
