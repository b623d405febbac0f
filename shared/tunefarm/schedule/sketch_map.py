"""The sketch state nearest to a template's schedule: so evolution can start from it.

A search's first batch measures the template's default schedule, and on many convs it is the
best state of the first 32 trials (docs/autoscheduler.md, "All 11 convs"). Its steps are not
a sketch state, so neither the population seeds nor the local moves could mutate it. This
module reads a template schedule of the cache-write kind (a local accumulator computed at a
loop of its output, as the CPU conv2d and dense templates write) back into decisions:

- the block each output loop leaves to the local stage, per axis (the loops of the output
  inside the compute-at loop), and of that the register tile (the spatial loops after the
  last reduce loop of the local stage); spatial loops of the block outside the register tile
  go to the tile's middle level, with the local stage at the outer tile level (`loc:` 0);
- the reduce split factors (`tile:` of a reduce axis), the register tile's order (`ord:`
  1 when its non-unit axes before the vectorised one run reversed: columns outer);
- the parallel loop: the fewest outer loops of the sketch whose extents cover the
  template's parallel extent (`par:`);
- unroll: the smallest `auto_unroll_max_step` that covers the register tile (`unroll:`),
  and the explicit unroll of a kernel-window reduce loop (the conv's `kw`: `rur:`);
- a stage the template keeps at root (a conv's padding): its vector width, parallel loops.

A block larger than the sketch's local accumulator limit (`SketchParams.max_local`) is made
to fit by moving factors of its middle level to the outer loops.

What a sketch state cannot say, and the nearest state drops: the order of the output's outer
loops (the dense template runs columns outer, j.0 before i.0: the sketch fuses the same two
loops in axis order), the output's copy-out order inside the block. A schedule that
vectorises another axis than the last, has no cache-write stage, or splits the last axis
inside its register tile maps to None: the sketch vectorises that level whole, and the dense
template's 3 vectors of 16 columns become one 48-wide loop over a weight packed in blocks of
16 columns, a gather (19x slower than the template's kernel, measured), so the dense's
default stays a state of its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from tunefarm.schedule import steps as S
from tunefarm.schedule.sketch import InlinePlan, SimplePlan, Sketch, SkipPlan, TilePlan
from tunefarm.schedule.sketch_state import (
    Decisions,
    SketchParams,
    has_order,
    outer_extents,
    window_axes,
)

Loops = list[tuple[str, int]]  # (loop name, extent) in order, outermost first


def nearest_state(
    sketches: list[Sketch],
    steps: list[S.Step],
    params: SketchParams,
    fill: Callable[[Sketch], Decisions] | None = None,
) -> tuple[int, Decisions] | None:
    """(sketch index, decisions) of the state nearest to a template schedule, or None when no
    sketch can hold it. Among sketches that can, the one that treats the most stages as the
    template does (inlined or not) wins. `fill`: a sketch's decisions for what the schedule
    says nothing about (a backend's own plans, row groups), overwritten where it does."""
    inlined = {s.stage for s in steps if isinstance(s, S.ComputeInline)}
    best: tuple[int, int, Decisions] | None = None
    for k, sketch in enumerate(sketches):
        d = _map(sketch, steps, params, fill(sketch) if fill is not None else {})
        if d is None:
            continue
        agree = sum((isinstance(p, InlinePlan)) == (p.stage in inlined) for p in sketch.plans)
        if best is None or agree > best[0]:
            best = (agree, k, d)
    return None if best is None else (best[1], best[2])


def _map(sketch: Sketch, steps: list[S.Step], params: SketchParams, d: Decisions):
    for p in sketch.plans:
        if isinstance(p, TilePlan):
            if not (p.cache_write and p.consumer is not None) or not _tile(p, steps, params, d):
                return None
        elif isinstance(p, SimplePlan):
            _simple(p, steps, d)
        elif not isinstance(p, InlinePlan | SkipPlan):
            return None  # a factored reduction or a backend's own plan: not read here
    return d


def _of(steps: list[S.Step], stage: str) -> list[S.Step]:
    return [s for s in steps if s.stage == stage]


def _loops(axes: Loops, steps: list[S.Step]) -> Loops:
    """A stage's loops after its splits, reorders and fuses (names as the steps make them)."""
    loops = list(axes)
    for s in steps:
        names = [n for n, _ in loops]
        if isinstance(s, S.Split):
            i = names.index(s.axis)
            ext = loops[i][1]
            inner = list(s.factors)
            parts = [-(-ext // math.prod(inner)), *inner]
            loops[i : i + 1] = [(f"{s.axis}.{j}", e) for j, e in enumerate(parts)]
        elif isinstance(s, S.Reorder):
            ext = dict(loops)
            picked = iter(s.order)
            loops = [(n, ext[n]) if n not in s.order else (o := next(picked), ext[o])
                     for n in names]  # fmt: skip
        elif isinstance(s, S.Fuse):
            ext = dict(loops)
            i = names.index(s.axes[0])
            fused = ("+".join(s.axes), math.prod(ext[a] for a in s.axes))
            loops = [lp for lp in loops if lp[0] not in s.axes]
            loops.insert(i, fused)
    return loops


def _axis(loop: str) -> set[str]:
    return {part.split(".")[0] for part in loop.split("+")}


def _per_axis(loops: Loops, axes: list[str]) -> dict[str, int]:
    """The product of the extents of each axis's loops (a fused loop counts for each)."""
    out = dict.fromkeys(axes, 1)
    for name, ext in loops:
        mine = _axis(name) & set(axes)
        if len(_axis(name)) > 1 and mine:
            raise ValueError(f"fused loop {name} inside a block: not a schedule this reads")
        for ax in mine:
            out[ax] *= ext
    return out


def _tile(p: TilePlan, steps: list[S.Step], params: SketchParams, d: Decisions) -> bool:
    outer_steps, local_steps = _of(steps, p.outer), _of(steps, p.tiled)
    at = next((s for s in local_steps if isinstance(s, S.ComputeAt)), None)
    vec = [s for s in local_steps if isinstance(s, S.Vectorize)]
    if at is None or not vec:
        return False
    sp = [ax for ax, _ in p.spatial]
    rd = [ax for ax, _ in p.reduce]
    outer = _loops(list(p.spatial), [s for s in outer_steps if not isinstance(s, S.Parallel)])
    names = [n for n, _ in outer]
    if at.axis not in names:
        return False
    inside = outer[names.index(at.axis) + 1 :]
    try:
        block = _per_axis(inside, sp)
    except ValueError:
        return False
    axes = [(ax, block[ax]) for ax in sp] + list(p.reduce)
    local = _loops(axes, [s for s in local_steps if not isinstance(s, S.ComputeAt)])
    last_reduce = max((i for i, (n, _) in enumerate(local) if _axis(n) & set(rd)), default=-1)
    register = _per_axis(local[last_reduce + 1 :], sp)
    if _axis(vec[-1].axis) != {sp[-1]} or local[-1][0] != vec[-1].axis:
        return False  # the sketch vectorises the innermost loop of the last axis only
    if sum(_axis(n) == {sp[-1]} for n, _ in local[last_reduce + 1 :]) > 1:
        return False  # vectors of the last axis unrolled in the tile: see the docstring
    mid = _fit_local({ax: block[ax] // register[ax] for ax in sp}, register, params.max_local)
    loc = 0 if any(v > 1 for v in mid.values()) else 1
    d[f"loc:{p.stage}"] = loc
    for ax in sp:
        d[f"tile:{p.stage}:{ax}"] = (1, mid[ax], register[ax]) if loc == 0 else (1, 1, register[ax])
    inner = _per_axis([lp for lp in local if not lp[0].endswith(".0")], rd)
    for ax, _ in p.reduce:
        d[f"tile:{p.stage}:{ax}"] = (inner[ax],)  # the whole axis where it is not split
    if has_order(p):
        tail = [n for n, _ in local[last_reduce + 1 : -1] if register[next(iter(_axis(n)))] > 1]
        tail_axes = [next(iter(_axis(n))) for n in tail]
        d[f"ord:{p.stage}"] = int(len(tail_axes) > 1 and tail_axes == sorted(tail_axes,
                                  key=lambda a: -sp.index(a)))  # fmt: skip
    d[f"par:{p.stage}"] = _parallel(p, d, outer_steps, outer, loc)
    d[f"unroll:{p.stage}"] = _unroll(local, local_steps, sp[-1], params)
    window = window_axes(p, params)
    if window:  # the conv template's unrolled `kw`
        unrolled = {a for s in local_steps if isinstance(s, S.Unroll) for a in _axis(s.axis)}
        picked = [k for k in window if p.reduce[k][0] in unrolled]
        d[f"rur:{p.stage}"] = picked[-1] if picked else -1
    return True


def _fit_local(mid: dict[str, int], register: dict[str, int], most: int) -> dict[str, int]:
    """Middle tile levels whose local block holds at most `most` elements: the sketch's
    limit on a local accumulator (the template's 4 x 14 x 14 pass tiles of conv_14_256_256
    hold 12544); the largest middle level gives up its smallest prime factor to the outer
    loops until the block fits."""
    mid = dict(mid)
    while math.prod(mid[ax] * register[ax] for ax in mid) > most and max(mid.values()) > 1:
        ax = max(mid, key=lambda a: mid[a])
        mid[ax] //= _smallest_prime(mid[ax])
    return mid


def _smallest_prime(n: int) -> int:
    return next(p for p in range(2, n + 1) if n % p == 0)


def _unroll(local: Loops, steps: list[S.Step], last: str, params: SketchParams) -> int:
    """The smallest auto-unroll step that unrolls the template's innermost run of unrolled
    loops (the last axis's loops aside: the sketch vectorises that axis whole, one step)."""
    marked = {s.axis for s in steps if isinstance(s, S.Unroll | S.Vectorize)}
    run = 1
    for name, ext in reversed(local):
        if name not in marked:
            break
        run *= 1 if _axis(name) == {last} else ext
    if run == 1:
        return 0
    return min((u for u in params.unroll_steps if u >= run), default=max(params.unroll_steps))


def _parallel(p: TilePlan, d: Decisions, outer_steps: list[S.Step], outer: Loops, loc: int) -> int:
    """The fewest of the sketch's outer loops whose extents cover the template's parallel
    loop (at least 1: the sketch's output always has one)."""
    par = next((s for s in outer_steps if isinstance(s, S.Parallel)), None)
    want = dict(outer).get(par.axis, 1) if par is not None else 1
    most = len(p.spatial) * (loc + 1)
    extents = outer_extents(p, d)[:most]
    return next((k for k in range(1, most + 1) if math.prod(extents[:k]) >= want), most)


def _simple(p: SimplePlan, steps: list[S.Step], d: Decisions) -> None:
    """A stage the template runs at root: the last axis vectorised whole when the template
    vectorises it (the conv's padding: its input-channel block), its fused parallel loops."""
    own = _of(steps, p.stage)
    last, ext = p.spatial[-1]
    d[f"vec:{p.stage}"] = ext if any(isinstance(s, S.Vectorize) for s in own) else 1
    fuse = next((s for s in own if isinstance(s, S.Fuse)), None)
    par = any(isinstance(s, S.Parallel) for s in own)
    d[f"par:{p.stage}"] = (len(fuse.axes) if fuse else 1) if par else 0
    d[f"unroll:{p.stage}"] = 0
    if p.reader is not None:
        d[f"loc:{p.stage}"] = -1


def describe(d: Decisions) -> str:
    """One line of a state's decisions, sorted (for logs and benchmark tables)."""
    return " ".join(f"{k}={_short(v)}" for k, v in sorted(d.items()))


def _short(v: Any) -> str:
    return "x".join(map(str, v)) if isinstance(v, tuple | list) else str(v)
