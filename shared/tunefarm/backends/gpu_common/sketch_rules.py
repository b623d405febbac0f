"""The GPU's sketch rules (cuda and opencl): which stages become which kind of kernel.

Three plans cover a single-kernel task, each a whole launch shape:

- `GpuTilePlan`, multi-level tiling "SSSRRSRS" of a stage with data reuse (conv2d, dense,
  depthwise, batch matmul). Every spatial axis is split five ways: block, virtual thread,
  thread, and two register levels; every reduce axis three ways. The output stage (the
  fused epilogue, or a register cache-write of the stage when it is the output) runs the
  fused block levels on `blockIdx.x`, the fused virtual-thread levels as a `vthread` and the
  fused thread levels on `threadIdx.x`; the accumulator (registers) is computed at the
  thread loop in the order R0 R1 S3 R2 S4; both operands are cache-read into shared memory
  at the innermost R0 loop and fetched by all threads of the block together (float4 where
  the tile and the tensor's rows keep 16-byte alignment), fenced by barriers.
- `CrossThreadPlan`, for reductions whose spatial extent is small (softmax, reduce_mean,
  small-batch dense): the reduction is split over `threadIdx.x` and combined through shared
  memory (the lowering's tree reduction). Its anchor (the output) runs rows on blocks; when
  the output has the reductions' shape, `threadIdx.y` carries several rows per block.
- `BindPlan`, everything else (elementwise, pooling, any reduction): the output's axes
  fused and split over blocks of a tunable thread count, reductions in registers per thread.

Elementwise stages are always inlined (a GPU kernel has no root-level scratch). Device limits
bound the sampling (threads per block, virtual threads, register tile); what sampling cannot
see (shared memory of a tile, a guard around a barrier) is checked on the lowered kernel by
`check_lowered`, and such states are dropped before measurement, counted by the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.kernel import DeviceLimits, to_kernel
from tunefarm.ir.expr import Var
from tunefarm.ir.tensor import ComputeOp, Tensor, loads_of, walk
from tunefarm.schedule import steps as S
from tunefarm.schedule.sketch import (
    DagInfo,
    InlinePlan,
    InlineRule,
    Plan,
    SketchRule,
    SkipPlan,
    axes_of,
    has_data_reuse,
    identity_reader,
)
from tunefarm.schedule.sketch_state import Decisions, SketchParams, divisors, move_factor

Axes = tuple[tuple[str, int], ...]
UNROLL_STEPS = (0, 16, 64, 512, 1500)
THREAD_COUNTS = (32, 64, 128, 256, 512, 1024)
THREAD_TAGS = ("threadIdx.z", "threadIdx.y", "threadIdx.x")
ROWS = (1, 2, 4, 8)  # outputs per block (threadIdx.y) of a cross-thread reduction


@dataclass(frozen=True)
class GpuSketchParams(SketchParams):
    """Sampling numbers within one device's launch limits."""

    max_threads: int = 1024  # threads per block
    max_vthreads: int = 8  # virtual threads per thread (serial copies of the thread tile)
    thread_counts: tuple[int, ...] = THREAD_COUNTS
    max_reduce_tile: int = 64  # R1 x R2 over all reduce axes: the shared tiles' depth


def sketch_params(limits: DeviceLimits) -> GpuSketchParams:
    most = limits.max_threads_per_block

    def check(func: Any) -> None:
        to_kernel(func, limits)  # DeviceLimitError / GpuCodegenError name what is broken

    return GpuSketchParams(
        lanes=4,
        unroll_steps=UNROLL_STEPS,
        max_innermost=64,
        max_register=32,
        max_threads=most,
        thread_counts=tuple(t for t in THREAD_COUNTS if t <= most),
        check_lowered=check,
    )


def _pick(rng: np.random.Generator, n: int, cap: int) -> int:
    return int(rng.choice([d for d in divisors(n) if d <= cap] or [1]))


def _least_factor(n: int) -> int:
    return min(p for p in range(2, n + 1) if n % p == 0)


def _fused(stage: str, names: list[str]) -> tuple[list[S.Step], str]:
    """Fuse adjacent loops (nothing to do for one); the fused loop's name."""
    if len(names) == 1:
        return [], names[0]
    return [S.Fuse(stage, tuple(names))], "+".join(names)


# ------------------------------------------------------------------- multi-level tiling
@dataclass(frozen=True)
class Operand:
    """A tensor a tiled stage reads with reuse: cache-read into shared memory. `last` is the
    stage axis its last index is (None when that index is not a plain axis: no float4)."""

    tensor: str
    ndim: int
    last: str | None
    row: int  # the tensor's last extent


@dataclass(frozen=True)
class GpuTilePlan:
    """ "SSSRRSRS" of `stage`; `out` is the stage storing the result (the fused epilogue, or
    the stage itself after a cache-write when `cache_write`); `out_axes` its axis names,
    position for position with the stage's spatial axes."""

    stage: str
    spatial: Axes
    reduce: Axes
    out: str
    out_axes: tuple[str, ...]
    operands: tuple[Operand, ...]
    cache_write: bool = False

    @property
    def acc(self) -> str:
        return f"{self.stage}.local" if self.cache_write else self.stage

    def sample(self, params: GpuSketchParams, rng: np.random.Generator) -> Decisions:
        d: Decisions = {}
        last = self.spatial[-1][0]
        tagged = self.thread_axes()
        for k, (ax, ext) in enumerate(self.spatial):
            i4 = _pick(rng, ext, 4 if ax == last else 2)
            i3 = _pick(rng, ext // i4, 4)
            most = (64 if ax == last else 16) if k in tagged else 1
            th = _pick(rng, ext // (i4 * i3), most)
            v = _pick(rng, ext // (i4 * i3 * th), 2) if rng.random() < 0.3 else 1
            d[f"tile:{self.stage}:{ax}"] = (v, th, i3, i4)
        self._fit(d, params)
        for ax, ext in self.reduce:
            r2 = _pick(rng, ext, 4)
            r1 = _pick(rng, ext // r2, params.max_reduce_tile // r2)
            d[f"tile:{self.stage}:{ax}"] = (r1, r2)
        while self._depth(d) > params.max_reduce_tile:  # the shared tiles' reduce depth
            k = max(self._reduce_keys(), key=lambda key: math.prod(d[key]))
            r1, r2 = d[k]
            d[k] = (r1 // _least_factor(r1), r2) if r1 > 1 else (r1, r2 // _least_factor(r2))
        d[f"unroll:{self.stage}"] = int(rng.choice(params.unroll_steps))
        d[f"vec:{self.stage}"] = int(rng.integers(0, 2))
        return d

    def _reduce_keys(self) -> list[str]:
        return [f"tile:{self.stage}:{ax}" for ax, _ in self.reduce]

    def _depth(self, d: Decisions) -> int:
        """Reduce iterations one shared tile holds: R1 x R2 over every reduce axis."""
        return math.prod(math.prod(d[k]) for k in self._reduce_keys())

    def _levels(self, d: Decisions, level: int) -> list[int]:
        return [d[f"tile:{self.stage}:{ax}"][level] for ax, _ in self.spatial]

    def _fit(self, d: Decisions, params: GpuSketchParams) -> None:
        """Move factors out to the block level until threads (level 1), virtual threads
        (level 0) and the register tile (levels 2 and 3) fit."""
        budgets = ((1, params.max_threads), (0, params.max_vthreads))
        for level, most in budgets:
            while math.prod(self._levels(d, level)) > most:
                self._shrink(d, level)
        while self._registers(d) > params.max_register:
            self._shrink(d, 2 if max(self._levels(d, 2)) > 1 else 3)

    def _registers(self, d: Decisions) -> int:
        """Accumulators a thread keeps: the product of its register levels (S3 x S4)."""
        inner = zip(self._levels(d, 2), self._levels(d, 3), strict=True)
        return math.prod(a * b for a, b in inner)

    def _shrink(self, d: Decisions, level: int) -> None:
        keys = [f"tile:{self.stage}:{ax}" for ax, _ in self.spatial]
        k = max(keys, key=lambda key: d[key][level])
        tiles = list(d[k])
        tiles[level] //= _least_factor(tiles[level])
        d[k] = tuple(tiles)

    def fits(self, d: Decisions, params: GpuSketchParams) -> bool:
        regs = self._registers(d)
        return (
            math.prod(self._levels(d, 1)) <= params.max_threads
            and math.prod(self._levels(d, 0)) <= params.max_vthreads
            and regs <= params.max_register
            and self._depth(d) <= params.max_reduce_tile
        )

    def mutate(self, key: str, d: Decisions, params: GpuSketchParams, rng) -> Any:
        if key.startswith("tile:"):
            ext = dict(self.spatial + self.reduce)[key.split(":", 2)[2]]
            moved = move_factor(ext, tuple(d[key]), rng, params)
            if moved is None or not self.fits({**d, key: moved}, params):
                return None
            return moved
        if key.startswith("unroll:"):
            return int(rng.choice(params.unroll_steps))
        return None

    def thread_axes(self) -> list[int]:
        """The spatial axes with a thread level: the last three (threadIdx.z, y, x); the
        others keep one thread. One tag an axis keeps each thread's index affine, so a shared
        tile spans just the block's threads (a fused thread index would make it div/mod,
        and bound inference would take the whole axis)."""
        n = len(self.spatial)
        return list(range(max(0, n - 3), n))

    def thread_tags(self) -> list[str]:
        return THREAD_TAGS[-len(self.thread_axes()) :]

    def threads(self, d: Decisions) -> int:
        return math.prod(self._levels(d, 1))

    def thread_extents(self, d: Decisions) -> tuple[int, ...]:
        return tuple(self._levels(d, 1)[k] for k in self.thread_axes())

    def vector_width(self, op: Operand, d: Decisions) -> int:
        """4 (float4 fetches) where every row of the shared tile starts 16-byte aligned in
        global and shared memory: the tensor's rows and the tile's last extent (the whole
        per-step reduce tile, or thread x register levels of a spatial axis) are multiples
        of 4; else 1."""
        if not d.get(f"vec:{self.stage}") or op.last is None or op.row % 4:
            return 1
        tiles = d[f"tile:{self.stage}:{op.last}"]
        extent = math.prod(tiles) if len(tiles) == 2 else math.prod(tiles[1:])
        return 4 if extent % 4 == 0 else 1

    def steps(self, d: Decisions, outer: dict[str, list[str]]) -> list[S.Step]:
        o, acc = self.out, self.acc
        sp = [ax for ax, _ in self.spatial]
        rd = [ax for ax, _ in self.reduce]
        tiles = {ax: tuple(d[f"tile:{self.stage}:{ax}"]) for ax in sp + rd}
        steps: list[S.Step] = [S.CacheWrite(self.stage)] if self.cache_write else []
        steps += [S.CacheRead(op.tensor, "shared", (acc,)) for op in self.operands]
        # the output stage: S0 fused -> blockIdx.x, S1 fused -> vthread, S2 -> threadIdx.z
        # y x (one axis each), S3 S4 inside
        steps += [S.Split(o, a, tiles[ax]) for a, ax in zip(self.out_axes, sp, strict=True)]
        levels = [[f"{a}.{k}" for a in self.out_axes] for k in range(5)]
        steps.append(S.Reorder(o, tuple(x for lv in levels for x in lv)))
        bound = []
        for level, tag in zip(levels[:2], ("blockIdx.x", "vthread"), strict=True):
            fuse, name = _fused(o, level)
            steps += [*fuse, S.Bind(o, name, tag)]
            bound.append(name)
        thread_loops = [levels[2][k] for k in self.thread_axes()]
        tags = self.thread_tags()
        steps += [S.Bind(o, x, tag) for x, tag in zip(thread_loops, tags, strict=True)]
        bound.append(thread_loops[-1])
        # the register tile's stores unrolled; 2 or 4 along the last axis: one float2/4 store
        store = levels[4][-1] if tiles[sp[-1]][3] in (2, 4) else None
        steps += [S.Unroll(o, x) for x in levels[3] + levels[4] if x != store]
        steps += [S.Vectorize(o, store)] if store else []
        steps.append(S.ComputeAt(acc, o, bound[2]))
        # the accumulator: R0 R1 S3 R2 S4, its register tile (S3 S4) unrolled
        steps += [S.Split(acc, ax, (tiles[ax][3],)) for ax in sp]
        steps += [S.Split(acc, ax, tiles[ax]) for ax in rd]
        r0, r1, r2 = ([f"{ax}.{k}" for ax in rd] for k in range(3))
        s3, s4 = ([f"{ax}.{k}" for ax in sp] for k in range(2))
        steps.append(S.Reorder(acc, tuple(r0 + r1 + s3 + r2 + s4)))
        steps += [S.Unroll(acc, x) for x in s3 + s4]
        unroll = int(d.get(f"unroll:{self.stage}", 0))
        if unroll and r0:
            steps.append(S.Pragma(acc, r0[0], "auto_unroll_max_step", unroll))
        # shared tiles of both operands, refilled at every step of the outer reduce loops
        threads = self.thread_extents(d)
        for op in self.operands:
            shared = f"{op.tensor}.shared"
            steps.append(S.ComputeAt(shared, acc, r0[-1]))
            steps += fetch_steps(shared, op.ndim, threads, tags, self.vector_width(op, d))
        outer[o] = bound
        return steps


def fetch_steps(
    stage: str, ndim: int, threads: tuple[int, ...], tags: list[str], vec: int
) -> list[S.Step]:
    """Cooperative fetch of a shared tile: (the last axis split by the vector width, when
    vectorised) the axes fused, split over the block's threads (`threads` along `tags`,
    innermost last), `vec` contiguous elements a thread as one load and store."""
    axes = [f"ax{i}" for i in range(ndim)]
    steps: list[S.Step] = []
    if vec > 1:
        steps.append(S.Split(stage, axes[-1], (vec,)))
        axes[-1] = f"{axes[-1]}.0"
    fuse, fused = _fused(stage, axes)
    steps += [*fuse, S.Split(stage, fused, threads)]
    steps += [S.Bind(stage, f"{fused}.{k}", tag) for k, tag in enumerate(tags, start=1)]
    if vec > 1:
        steps.append(S.Vectorize(stage, f"ax{ndim - 1}.1"))
    return steps


# --------------------------------------------------------------- cross-thread reduction
@dataclass(frozen=True)
class Reduction:
    """A reduction the anchor's plan schedules: its (stage) name, spatial axes, reduce axes."""

    stage: str
    spatial: tuple[str, ...]
    reduce: tuple[str, ...]
    reduce_extent: int


@dataclass(frozen=True)
class CrossThreadPlan:
    """The anchor (the output) with its reductions summed across threads. `rows_mode`: the
    anchor has the reductions' shape, its outputs split over blocks x threadIdx.y rows;
    otherwise its leading axes are blocks and its last axis is spread over threadIdx.x (the
    threads that also reduce). `cache_write`: the anchor is itself the reduction."""

    stage: str
    axes: Axes
    reductions: tuple[Reduction, ...]
    rows_mode: bool
    cache_write: bool = False

    spatial = property(lambda self: self.axes)
    reduce = property(lambda self: ())

    @property
    def points(self) -> int:
        return math.prod(ext for _, ext in self.axes)

    def _threads(self, params: GpuSketchParams) -> list[int]:
        longest = max(r.reduce_extent for r in self.reductions)
        fit = [t for t in params.thread_counts if t // 2 < longest]
        return fit or [params.thread_counts[0]]

    def sample(self, params: GpuSketchParams, rng: np.random.Generator) -> Decisions:
        t = int(rng.choice(self._threads(params)))
        d: Decisions = {f"par:{self.stage}": t}
        d[f"unroll:{self.stage}"] = int(rng.choice(params.unroll_steps))
        if self.rows_mode:
            rows = [r for r in ROWS if self.points % r == 0 and r * t <= params.max_threads]
            d[f"tile:{self.stage}:rows"] = int(rng.choice(rows or [1]))
        return d

    def mutate(self, key: str, d: Decisions, params: GpuSketchParams, rng) -> Any:
        """A new thread count, unroll step or rows per block (None past the block's limit)."""
        rows = int(d.get(f"tile:{self.stage}:rows", 1))
        threads = int(d[f"par:{self.stage}"])
        if key.startswith("par:"):
            threads = int(rng.choice(self._threads(params)))
            return threads if threads * rows <= params.max_threads else None
        if key.startswith("unroll:"):
            return int(rng.choice(params.unroll_steps))
        rows = int(rng.choice([r for r in ROWS if self.points % r == 0]))
        return rows if rows * threads <= params.max_threads else None

    def steps(self, d: Decisions, outer: dict[str, list[str]]) -> list[S.Step]:
        a = self.stage
        threads = int(d[f"par:{a}"])
        names = [ax for ax, _ in self.axes]
        steps: list[S.Step] = [S.CacheWrite(a)] if self.cache_write else []
        if self.rows_mode:
            fuse, fused = _fused(a, names)
            rows = int(d[f"tile:{a}:rows"])
            steps += [*fuse, S.Split(a, fused, (rows,))]
            steps += [S.Bind(a, f"{fused}.0", "blockIdx.x"), S.Bind(a, f"{fused}.1", "threadIdx.y")]
            at = f"{fused}.1"
            outer[a] = [f"{fused}.0", at]
        else:
            last = names[-1]
            steps.append(S.Split(a, last, (threads,)))
            if len(names) > 1:
                fuse, at = _fused(a, names[:-1])
                steps += [*fuse, S.Bind(a, at, "blockIdx.x")]
            else:
                at = f"{last}.0"
            steps.append(S.Bind(a, f"{last}.1", "threadIdx.x"))
            outer[a] = [at, f"{last}.1"]
        unroll = int(d.get(f"unroll:{a}", 0))
        for r in self.reductions:
            steps.append(S.ComputeAt(r.stage, a, at))
            fuse, red = _fused(r.stage, list(r.reduce))
            steps += [*fuse, S.Split(r.stage, red, (threads,))]
            steps.append(S.Reorder(r.stage, (*r.spatial, f"{red}.1", f"{red}.0")))
            steps.append(S.Bind(r.stage, f"{red}.1", "threadIdx.x"))
            if unroll:
                steps.append(S.Pragma(r.stage, f"{red}.0", "auto_unroll_max_step", unroll))
        return steps


# ------------------------------------------------------------------- fused and bound
@dataclass(frozen=True)
class BindPlan:
    """The anchor's axes fused and split over blocks of `par` threads, one output a thread;
    its reductions (and its own, through a register cache-write) computed in the thread."""

    stage: str
    axes: Axes
    reductions: tuple[Reduction, ...]
    cache_write: bool = False

    spatial = property(lambda self: self.axes)
    reduce = property(lambda self: ())

    def _threads(self, params: GpuSketchParams) -> list[int]:
        points = math.prod(ext for _, ext in self.axes)
        fit = [t for t in params.thread_counts if t // 2 < points]
        return fit or [params.thread_counts[0]]

    def sample(self, params: GpuSketchParams, rng: np.random.Generator) -> Decisions:
        d: Decisions = {f"par:{self.stage}": int(rng.choice(self._threads(params)))}
        if self.reductions:
            d[f"unroll:{self.stage}"] = int(rng.choice(params.unroll_steps))
        return d

    def mutate(self, key: str, d: Decisions, params: GpuSketchParams, rng) -> Any:
        if key.startswith("par:"):
            return int(rng.choice(self._threads(params)))
        if key.startswith("unroll:"):
            return int(rng.choice(params.unroll_steps))
        return None

    def steps(self, d: Decisions, outer: dict[str, list[str]]) -> list[S.Step]:
        a = self.stage
        steps: list[S.Step] = [S.CacheWrite(a)] if self.cache_write else []
        fuse, fused = _fused(a, [ax for ax, _ in self.axes])
        steps += [*fuse, S.Split(a, fused, (int(d[f"par:{a}"]),))]
        steps += [S.Bind(a, f"{fused}.0", "blockIdx.x"), S.Bind(a, f"{fused}.1", "threadIdx.x")]
        unroll = int(d.get(f"unroll:{a}", 0))
        for r in self.reductions:
            steps.append(S.ComputeAt(r.stage, a, f"{fused}.1"))
            if unroll:
                steps.append(S.Pragma(r.stage, r.reduce[0], "auto_unroll_max_step", unroll))
        outer[a] = [f"{fused}.0", f"{fused}.1"]
        return steps


# ---------------------------------------------------------------------------------- rules
def _anchor(info: DagInfo) -> Tensor | None:
    """The kernel's one output (every GPU task has one)."""
    outs = info.dag.outputs
    return outs[0] if len(outs) == 1 else None


def _reduction(t: Tensor, name: str | None = None) -> Reduction:
    op = t.op
    assert isinstance(op, ComputeOp)
    return Reduction(
        name or t.name,
        tuple(a.name for a in op.axes),
        tuple(a.name for a in op.reduce_axes),
        math.prod(a.extent for a in op.reduce_axes),
    )


reduction_of = _reduction  # public: the tensor-core rule (cuda) plans reductions the same way


def _reductions_for(info: DagInfo, anchor: Tensor) -> tuple[list[Tensor], tuple[Reduction, ...]]:
    """The intermediate reductions an anchor's plan computes inside its loops (producers
    first), and the anchor's own through a register cache-write when it reduces."""
    inner = [
        t
        for t in info.dag.compute_stages
        if t is not anchor and t.op.reduce_axes and t.name not in info.inlined  # type: ignore[union-attr]
    ]
    found = tuple(_reduction(t) for t in inner)
    if anchor.op.reduce_axes:  # type: ignore[union-attr]
        found += (_reduction(anchor, f"{anchor.name}.local"),)
    return inner, found


def _points(t: Tensor) -> int:
    return math.prod(t.shape)


class GpuInlineRule(InlineRule):
    """Every elementwise stage that is not an output is inlined (no root scratch on a GPU)."""

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        if t.op.reduce_axes or info.is_output(t) or not info.dag.readers(t):  # type: ignore[union-attr]
            return None
        return [[InlinePlan(t.name)]]


class CrossThreadRule:
    """Reductions without data reuse whose spatial extent is small next to the launch: the
    anchor's reductions split over threads (alternative: one output a thread)."""

    name = "cross_thread"

    def __init__(self, max_spatial: int = 4096, min_reduce: int = 16):
        self.max_spatial, self.min_reduce = max_spatial, min_reduce

    def qualifies(self, t: Tensor) -> bool:
        red = math.prod(a.extent for a in t.op.reduce_axes)  # type: ignore[union-attr]
        return red >= self.min_reduce and (_points(t) <= self.max_spatial or _points(t) < red)

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        anchor = _anchor(info)
        if not t.op.reduce_axes or has_data_reuse(t) or anchor is None:  # type: ignore[union-attr]
            return None
        inner, reds = _reductions_for(info, anchor)
        if not self.qualifies(t) or any(has_data_reuse(x) for x in inner):
            return None
        return [cross_alternative(info, anchor, inner, reds), bind_alternative(anchor, inner, reds)]


def cross_alternative(info: DagInfo, anchor: Tensor, inner: list[Tensor], reds) -> list[Plan]:
    rows = all(x.shape == anchor.shape for x in inner)
    axes, _ = axes_of(anchor)
    cache = bool(anchor.op.reduce_axes)  # type: ignore[union-attr]
    plan = CrossThreadPlan(anchor.name, axes, reds, rows or cache, cache)
    return [*(SkipPlan(x.name) for x in inner), plan]


def bind_alternative(anchor: Tensor, inner: list[Tensor], reds) -> list[Plan]:
    axes, _ = axes_of(anchor)
    cache = bool(anchor.op.reduce_axes)  # type: ignore[union-attr]
    return [*(SkipPlan(x.name) for x in inner), BindPlan(anchor.name, axes, reds, cache)]


class GpuTilingRule:
    """Stages with data reuse whose result is the output or feeds an elementwise output (a
    fused epilogue): "SSSRRSRS" with shared-memory operands; when its outputs are few next
    to its reduction, a cross-thread reduction as an alternative."""

    name = "multi_level_tiling"

    def __init__(self, cross: CrossThreadRule):
        self.cross = cross

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        if not has_data_reuse(t):
            return None
        spatial, reduce = axes_of(t)
        readers = info.readers(t)
        if info.is_output(t):
            out, extra = t, []
        elif len(readers) == 1 and identity_reader(readers[0], t, info):
            out = readers[0]
            if not info.is_output(out):
                return None
            extra = [SkipPlan(out.name)]
        else:
            return None
        out_axes = tuple(a.name for a in out.op.axes)  # type: ignore[union-attr]
        plan = GpuTilePlan(
            t.name, spatial, reduce, out.name, out_axes, operands(t), cache_write=out is t
        )
        alts: list[list[Plan]] = [[plan, *extra]]
        if self.cross.qualifies(t):
            inner = [] if out is t else [t]
            reds = (_reduction(t, f"{t.name}.local"),) if out is t else (_reduction(t),)
            alts.append(cross_alternative(info, out, inner, reds))
        return alts


def operands(t: Tensor) -> tuple[Operand, ...]:
    """The tensors a stage loads with reuse (indices free of some spatial axis)."""
    op = t.op
    assert isinstance(op, ComputeOp)
    spatial = {a.name for a in op.axes if a.extent > 1}
    found: dict[str, Operand] = {}
    for ld in loads_of(op.body):
        used = {v.name for idx in ld.indices for v in _vars(idx)}
        if not spatial - used or ld.tensor.name in found:
            continue
        last = ld.indices[-1]
        found[ld.tensor.name] = Operand(
            ld.tensor.name,
            len(ld.indices),
            last.name if isinstance(last, Var) else None,
            ld.tensor.shape[-1],
        )
    return tuple(found.values())


def _vars(e) -> list[Var]:
    return [n for n in walk(e) if isinstance(n, Var)]


class BindRule:
    """Everything else: the anchor fused and bound, its reductions in each thread."""

    name = "bind"

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        anchor = _anchor(info)
        if anchor is None:
            return [[SkipPlan(t.name)]]  # left at root: the lowering names why it cannot run
        inner, reds = _reductions_for(info, anchor)
        return [bind_alternative(anchor, inner, reds)]


CROSS = CrossThreadRule()
RULES: tuple[SketchRule, ...] = (GpuInlineRule(), GpuTilingRule(CROSS), CROSS, BindRule())
