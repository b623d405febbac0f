"""Sketch states: a sketch plus the numbers it leaves open, and the step list they make.

Decisions are a flat dict of JSON values keyed by what they decide:

- `tile:{stage}:{axis}`: inner split factors, outermost first (three for a spatial axis of a
  tiled stage, one for a reduce axis; the outermost level is what remains);
- `loc:{stage}`: compute location: for a fused tile the consumer's tile level (0 or 1) it is
  computed at; for a simple stage -1 (root) or the index of a loop of its reader;
- `par:{stage}`: how many outer loops are fused into the parallel loop (0: none);
- `unroll:{stage}`: the `auto_unroll_max_step` pragma (0: none);
- `vec:{stage}`: the factor that splits off a simple stage's vectorised inner loop;
- `rf:{stage}`: the factor of a factored reduction (its partial results per output);
- `rur:{stage}`: the reduce axis (its index in the plan's reduce axes) whose inner loop is
  unrolled explicitly, or -1 for none: only a short window axis before the innermost reduce
  loop (a conv's `kw`), see `window_axes`; absent where the stage has none;
- `ord:{stage}`: the order of a tiled stage's register tile (innermost spatial level): 0 its
  axes in order, 1 "columns outer" (the axes before the vectorised one reversed: each input
  value is broadcast once and feeds every output vector of its column); only where the stage
  has at least two axes before the vectorised one (a conv's channel blocks and columns);
- `row:{anchor}`: where a row group (`RowFusionRule`) is computed: -1 (each stage on its
  own), or k >= 0: at the k-th loop of the anchor counted from the innermost one that runs
  over the rows only (0: one row at a time).

`realise` turns (sketch, decisions) into steps; records keep only those steps.

A backend may add plans of its own (the GPU's): a plan with methods `sample(params, rng)`
(its decisions), `steps(d, outer)` (its step list) and `mutate(key, d, params, rng)` (a new
value for one of its keys, or None) is sampled, realised and mutated through them, so the
search needs no knowledge of the backend.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.schedule import steps as S
from tunefarm.schedule.sketch import (
    InlinePlan,
    RFactorPlan,
    SimplePlan,
    Sketch,
    SkipPlan,
    TilePlan,
)

Decisions = dict[str, Any]


@dataclass(frozen=True)
class SketchParams:
    """What a backend tunes the generic sampling with (see backends/<kind>/sketch_rules)."""

    lanes: int = 16  # vector width in elements: preferred innermost tile of the last axis
    unroll_steps: tuple[int, ...] = (0, 16, 64, 512)
    max_innermost: int = 64  # largest innermost split factor sampled
    max_local: int = 8192  # elements of a fused tile's local accumulator
    max_register: int = 16  # innermost tile of the other spatial axes
    # the same for a register tile computed columns outer (`ord:` 1): gcc then keeps one
    # broadcast live rather than one per column, so more accumulators fit (0: max_register)
    max_register_columns: int = 0
    min_parallel: int = 16  # the fused parallel loop is made at least this long when it can
    # reduce axes this short (a conv's kernel window) may be unrolled explicitly (`rur:`)
    max_window: int = 7
    # a backend's check of a lowered state before it is measured (device limits): raises a
    # ValueError naming the limit, and the state is dropped and counted by that reason
    check_lowered: Callable[[Any], None] | None = None


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _prime_factors(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out + ([n] if n > 1 else [])


# -------------------------------------------------------------------------------- sampling
def sample_split(
    extent: int, inner: int, rng: np.random.Generator, cap: int, prefer: int = 0
) -> tuple[int, ...]:
    """`inner` factors of `extent` (outermost first) that divide it; the innermost is at most
    `cap`, and `prefer` (a vector width) is picked for it half of the time when it divides."""
    rem, out = extent, []
    for level in range(inner):
        cands = divisors(rem)
        if level == 0:
            cands = [d for d in cands if d <= cap] or [1]
            if prefer and rem % prefer == 0 and rng.random() < 0.5:
                cands = [prefer]
        d = int(rng.choice(cands))
        out.insert(0, d)
        rem //= d
    return tuple(out)


def sample(sketch: Sketch, params: SketchParams, rng: np.random.Generator) -> Decisions:
    d: Decisions = {}
    for p in sketch.plans:
        if hasattr(p, "sample"):
            d.update(p.sample(params, rng))
        elif isinstance(p, TilePlan):
            _sample_tile(p, params, rng, d)
        elif isinstance(p, SimplePlan):
            d[f"vec:{p.stage}"] = _sample_vec(p.spatial[-1][1], params, rng)
            d[f"par:{p.stage}"] = int(rng.integers(0, len(p.spatial) + 1))
            d[f"unroll:{p.stage}"] = int(rng.choice(params.unroll_steps))
            if p.reader is not None:
                d[f"loc:{p.stage}"] = int(rng.integers(-1, 3))
        elif isinstance(p, RFactorPlan):
            ext = dict(p.reduce)[p.axis]
            factors = _rfactors(ext, params)
            prefer = [params.lanes] if params.lanes in factors else factors
            d[f"rf:{p.stage}"] = int(rng.choice(prefer if rng.random() < 0.5 else factors))
            d[f"par:{p.stage}"] = int(rng.integers(0, len(p.spatial) + 1))
            d[f"unroll:{p.stage}"] = int(rng.choice(params.unroll_steps))
        anchor = getattr(p, "anchor", None)
        if anchor is not None and f"row:{anchor}" not in d:
            d[f"row:{anchor}"] = -1 if rng.random() < 0.25 else int(rng.integers(0, 2))
    return d


def _sample_vec(extent: int, params: SketchParams, rng: np.random.Generator) -> int:
    """A simple stage's vector split: half of the time one full vector register when it
    divides the last axis (a narrower split runs the same loop at a fraction of the width:
    a softmax row at 2 lanes takes 8x the exp instructions), else any divisor up to it."""
    if extent % params.lanes == 0 and rng.random() < 0.5:
        return params.lanes
    return int(rng.choice([v for v in divisors(extent) if v <= params.lanes]))


def _sample_tile(p: TilePlan, params: SketchParams, rng: np.random.Generator, d: Decisions):
    """Tile sizes, compute location, parallel loops and unroll of a tiled stage. Half of the
    time a level is chosen the way fast kernels are usually built: the register tile right
    under the fused loop (level 2 of 1), the vector width innermost on the last axis, and
    just enough outer loops fused to give every core work."""
    last = p.spatial[-1][0]
    for ax, ext in p.spatial:
        pref = params.lanes if ax == last else 0
        cap = params.max_innermost if ax == last else params.max_register
        tiles = sample_split(ext, 3, rng, cap, pref)
        if rng.random() < 0.5 and tiles[1] > 1:
            tiles = (tiles[0] * tiles[1], 1, tiles[2])
        d[f"tile:{p.stage}:{ax}"] = tiles
    if has_order(p):
        d[f"ord:{p.stage}"] = int(rng.integers(0, 2))
    window = window_axes(p, params)
    if window:
        d[f"rur:{p.stage}"] = int(rng.choice([-1, *window]))
    _register_budget(p, d, register_budget(params, int(d.get(f"ord:{p.stage}", 0))))
    whole = rng.random() < 0.5  # the whole reduction inside the tile, as in a micro-kernel
    for ax, ext in p.reduce:
        inner = sample_split(ext, 1, rng, params.max_innermost)
        d[f"tile:{p.stage}:{ax}"] = (ext,) if whole and ext <= params.max_innermost else inner
    n = len(p.spatial)
    fused = p.consumer is not None
    if fused:
        d[f"loc:{p.stage}"] = int(rng.integers(0, 2))
    most = n * (d[f"loc:{p.stage}"] + 1) if fused else 2 * n
    extents = outer_extents(p, d)[:most]
    enough = next(
        (k for k in range(1, most + 1) if math.prod(extents[:k]) >= params.min_parallel), most
    )
    d[f"par:{p.stage}"] = enough if rng.random() < 0.7 else int(rng.integers(1, most + 1))
    d[f"unroll:{p.stage}"] = int(rng.choice(params.unroll_steps))


def has_order(p: TilePlan) -> bool:
    """Whether the register tile's order is a decision: two or more axes before the
    vectorised one (with one, both orders are the same loop nest)."""
    return len(p.spatial) >= 3


def window_axes(p: TilePlan, params: SketchParams) -> list[int]:
    """Indices of the reduce axes a state may unroll explicitly (`rur:`): short ones
    (at most `max_window`, more than 1) before the innermost reduce loop, such as a conv's
    kernel window (and its input-channel blocks where there are that few). The auto-unroll
    pragma unrolls whole nests only, and `kw x icb x tile` is over any step it has; with
    the padding inlined, a `kw` loop left rolled keeps a bounds check on every load of the
    tile (conv_7_512_512_3x3: 48 GFLOP/s against 124 for the same tiles with `kw` unrolled,
    which the conv template does)."""
    return [k for k, (_, ext) in enumerate(p.reduce[:-1]) if 1 < ext <= params.max_window]


def register_budget(params: SketchParams, columns: int) -> int:
    """Accumulator vectors a register tile may hold in the given order (`ord:`)."""
    return (params.max_register_columns or params.max_register) if columns else params.max_register


def _register_budget(p: TilePlan, d: Decisions, budget: int) -> None:
    """Shrink the innermost tiles of the other spatial axes until they hold at most `budget`
    vectors (more accumulators than registers spill), moving the excess one level out."""
    others = [f"tile:{p.stage}:{ax}" for ax, _ in p.spatial[:-1]]
    while others and math.prod(d[k][2] for k in others) > budget:
        k = max(others, key=lambda key: d[key][2])
        l1, l2, l3 = d[k]
        q = _prime_factors(l3)[0]
        d[k] = (l1 * q, l2, l3 // q)


def outer_extents(p: TilePlan, d: Decisions) -> list[int]:
    """Extents of the tile's outer loops in order: every axis's level 0, then level 1."""
    tiles = [(ext, d[f"tile:{p.stage}:{ax}"]) for ax, ext in p.spatial]
    level0 = [-(-ext // math.prod(t)) for ext, t in tiles]
    return level0 + [t[0] for _, t in tiles]


# -------------------------------------------------------------------------------- heuristic
def heuristic(
    sketch: Sketch, params: SketchParams, rng: np.random.Generator, vectors: int = 1,
    unroll: int = 0, columns: int = 0,
) -> Decisions:  # fmt: skip
    """A hand-built state of the kind fast CPU kernels are made of, for a search's first
    batch (a cold model ranks nothing, and random tiles rarely land on one): every tiled
    stage computes a register block, `vectors` vector widths (of its last axis, and where
    that axis is one vector wide, as a blocked conv's channel block is, of the outermost
    axis before it they divide: the conv's channel blocks) by as many rows of the other
    axes (innermost first) as fill the register budget of the order `columns` (`ord:`),
    with the whole reduction inside the block (a micro-kernel), at the consumer's second
    tile level, the outer loops fused for parallelism; simple stages vectorised by the
    vector width where it divides. Decisions a plan of a backend's own keeps are sampled."""
    d = sample(sketch, params, rng)
    for p in sketch.plans:
        if isinstance(p, TilePlan):
            _heuristic_tile(p, params, d, vectors, unroll, columns)
        elif isinstance(p, SimplePlan) and p.spatial[-1][1] % params.lanes == 0:
            d[f"vec:{p.stage}"] = params.lanes
    return d


def _heuristic_tile(
    p: TilePlan, params: SketchParams, d: Decisions, vectors: int, unroll: int, columns: int
) -> None:
    (last, ext), others = p.spatial[-1], p.spatial[:-1]
    want = params.lanes * vectors
    inner = max((v for v in divisors(ext) if v <= min(want, params.max_innermost)), default=1)
    d[f"tile:{p.stage}:{last}"] = (1, 1, inner)
    rows = {ax: 1 for ax, _ in others}
    more = max(1, vectors // max(1, inner // params.lanes))  # vectors the last axis lacks
    spread = next((ax for ax, e in others if more > 1 and e > 1 and e % more == 0), None)
    if spread is not None:
        rows[spread] = more
    order = 1 if columns and has_order(p) else 0
    if has_order(p):
        d[f"ord:{p.stage}"] = order
    budget = max(1, register_budget(params, order) // (max(1, inner // params.lanes) * more))
    for ax, e in reversed(others):
        if ax == spread:
            continue
        r = max(v for v in divisors(e) if v <= budget)
        budget //= r
        rows[ax] = r
    for ax, r in rows.items():
        d[f"tile:{p.stage}:{ax}"] = (1, 1, r)
    d.update(_whole_reduction_tiles(p, params))
    window = window_axes(p, params)
    if window:
        d[f"rur:{p.stage}"] = window[-1]  # the innermost window axis, as the conv template
    if p.consumer is not None:
        d[f"loc:{p.stage}"] = 1
    most = len(p.spatial) * (d.get(f"loc:{p.stage}", 1) + 1)
    extents = outer_extents(p, d)[:most]
    d[f"par:{p.stage}"] = next(
        (k for k in range(1, most + 1) if math.prod(extents[:k]) >= params.min_parallel), most
    )
    d[f"unroll:{p.stage}"] = unroll


def window_inner(sketch: Sketch, d: Decisions) -> Decisions | None:
    """A state's reduction reordered so the explicitly unrolled window axis (`rur:`, a conv's
    `kw`) is the only reduce loop inside the register block: every other reduce axis tiled
    (1,), its whole loop outside (`icc, kh, icb` around the spatial tile levels, then `kw`
    unrolled, then the block), as the conv template's `icb_outer` order. With the whole
    reduction inside the block (`heuristic`) the unrolled `kw` sits outside the channel
    block and each FMA broadcasts its own input (21 broadcasts for 42 FMAs on
    conv_7_512_512_3x3's 7 x 2 block); here 9 for 42. That order takes four reduce tiles
    changed at once, which no single tile mutation makes; the "order" mutation makes it
    (`_reorder_reduction`). None where no tiled stage unrolls a window axis.

    Measured on conv_7_512_512_3x3 (issue 27): 0.820 ms against 0.849 for the sketch's best
    without it (Zen 5), but on Zen 4 slower than the hand-built states it was derived from
    (2.36 against 1.93 ms for the (2, 64, 1) shape, pad inlined; 2.5 against 1.85 for the
    batch's best), so it is a mutation the search may take, not a first-batch state."""
    out = dict(d)
    for p in sketch.plans:
        if isinstance(p, TilePlan) and int(d.get(f"rur:{p.stage}", -1)) >= 0:
            out.update(_window_tiles(p, int(d[f"rur:{p.stage}"])))
    return out if out != d else None


def _window_tiles(p: TilePlan, k: int) -> Decisions:
    """The reduce tiles of the window-inner order: reduce axis k whole, every other (1,)."""
    return {
        f"tile:{p.stage}:{ax}": (ext,) if j == k else (1,) for j, (ax, ext) in enumerate(p.reduce)
    }


def _reorder_reduction(p: TilePlan, d: Decisions, params: SketchParams) -> Decisions:
    """The "order" mutation's other move where a stage unrolls a window axis: a state with
    the window innermost (`window_inner`) gets the whole reduction inside the block back (as
    `heuristic` builds it), any other the window innermost, in one step."""
    k = int(d[f"rur:{p.stage}"])
    window = _window_tiles(p, k)
    if all(tuple(d[key]) == v for key, v in window.items()):
        return _whole_reduction_tiles(p, params)
    return window


def _whole_reduction_tiles(p: TilePlan, params: SketchParams) -> Decisions:
    """The reduce tiles of the whole reduction inside the register block (`heuristic`): each
    reduce axis by its largest divisor up to `max_innermost`."""
    return {
        f"tile:{p.stage}:{ax}": (max(v for v in divisors(e) if v <= params.max_innermost),)
        for ax, e in p.reduce
    }


# -------------------------------------------------------------------------------- mutation
MUTATIONS = ("tile", "parallel", "unroll", "location", "rfactor", "order")
_PREFIX: dict[str, str | tuple[str, ...]] = {
    "tile": "tile:",
    "parallel": "par:",
    "unroll": ("unroll:", "rur:"),
    "location": "loc:",
    "rfactor": "rf:",
    "order": "ord:",
}


def mutation_kinds(d: Decisions) -> list[str]:
    """The kinds of MUTATIONS that have something to change in a state: a dense at root has
    no compute location or factored reduction, and drawing those kinds changes nothing."""
    return [
        kind
        for kind in MUTATIONS
        if any(k.startswith(_PREFIX[kind]) or (kind == "location" and k[:4] == "row:") for k in d)
    ]


def mutate(
    sketch: Sketch,
    d: Decisions,
    params: SketchParams,
    rng: np.random.Generator,
    kind: str | None = None,
) -> Decisions | None:
    """One random change of one kind (tile sizes, parallel granularity, auto-unroll, compute
    location, register tile order, or where a window axis is unrolled, half of the time the
    reduction's order: `window_inner`); None when the kind picked has nothing to change in this
    sketch. `kind`: one of MUTATIONS (drawn at random when None; the search passes it to
    know where a state came from)."""
    if kind is None:
        kind = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
    prefix = _PREFIX[kind]
    keys = [k for k in d if k.startswith(prefix) or (kind == "location" and k[:4] == "row:")]
    if not keys:
        return None
    key = keys[int(rng.integers(len(keys)))]
    out = dict(d)
    stage = key.split(":")[1]
    plan = sketch.plan_of(stage)
    if key.startswith("row:"):
        out[key] = int(rng.integers(-1, 2))
    elif hasattr(plan, "mutate"):
        value = plan.mutate(key, d, params, rng)
        if value is None:
            return None
        out[key] = value
    elif kind == "tile":
        moved = move_factor(_extent(plan, key.split(":", 2)[2]), d[key], rng, params)
        if moved is None:
            return None
        out[key] = moved
    elif key.startswith("rur:"):
        window = window_axes(plan, params)
        out[key] = int(rng.choice([v for v in [-1, *window] if v != d[key]] or [d[key]]))
    elif kind == "unroll":
        out[key] = int(rng.choice(params.unroll_steps))
    elif kind == "rfactor":
        ext = dict(plan.reduce)[plan.axis]  # type: ignore[union-attr]
        out[key] = int(rng.choice(_rfactors(ext, params)))
    elif kind == "parallel":
        out[key] = max(0 if isinstance(plan, SimplePlan) else 1, d[key] + int(rng.choice([-1, 1])))
    elif kind == "order" and int(d.get(f"rur:{stage}", -1)) >= 0 and rng.random() < 0.5:
        out.update(_reorder_reduction(plan, d, params))  # type: ignore[arg-type]
    elif kind == "order":
        out[key] = 1 - int(d[key])
    else:
        low = 0 if isinstance(plan, TilePlan) else -1
        high = 1 if isinstance(plan, TilePlan) else 3
        out[key] = int(rng.integers(low, high + 1))
    return out if out != d else None


def _rfactors(extent: int, params: SketchParams) -> list[int]:
    """Factors of a factored reduction: divisors up to the innermost cap (the whole axis
    when it is a large prime)."""
    return [f for f in divisors(extent) if 2 <= f <= params.max_innermost] or [extent]


def _extent(plan: Any, axis: str) -> int:
    return dict(plan.spatial + plan.reduce)[axis]


def move_factor(
    extent: int, inner: tuple[int, ...], rng: np.random.Generator, params: SketchParams
) -> tuple[int, ...] | None:
    """Move one prime factor between two levels of a split (the outermost level included)."""
    levels = [extent // math.prod(inner), *inner] if extent % math.prod(inner) == 0 else None
    if levels is None:
        return None
    src = [i for i, v in enumerate(levels) if v > 1]
    if not src:
        return None
    i = src[int(rng.integers(len(src)))]
    p = int(rng.choice(_prime_factors(levels[i])))
    j = int(rng.choice([k for k in range(len(levels)) if k != i]))
    levels[i] //= p
    levels[j] *= p
    if levels[-1] > params.max_innermost:
        return None
    return tuple(levels[1:])


# -------------------------------------------------------------------------------- realise
def realise(sketch: Sketch, d: Decisions) -> list[S.Step]:
    """The step list of a state; consumers are scheduled before producers, so a producer's
    compute location can name a loop its reader already has."""
    steps: list[S.Step] = []
    outer: dict[str, list[str]] = {}  # stage -> loops a producer may be computed at
    groups = row_groups(sketch)
    for p in reversed(sketch.plans):
        if hasattr(p, "steps"):
            steps += p.steps(d, outer)
        elif isinstance(p, InlinePlan):
            steps.append(S.ComputeInline(p.stage))
        elif isinstance(p, TilePlan):
            steps += _tile_steps(p, d, outer)
        elif isinstance(p, SimplePlan):
            steps += _simple_steps(p, d, outer, _row_at(p, groups, d, outer))
        elif isinstance(p, RFactorPlan):
            steps += _rfactor_steps(p, d, outer, _row_at(p, groups, d, outer))
        elif not isinstance(p, SkipPlan):
            raise TypeError(f"unknown plan {p!r}")
    return steps


def row_groups(sketch: Sketch) -> dict[str, set[str]]:
    """Per row-group anchor: the axes every member of the group spans as the anchor does,
    the only axes a loop the group is computed at may run over (a loop over an axis a
    member reduces would compute that member again for each of its iterations)."""
    out: dict[str, set[str]] = {}
    for p in sketch.plans:
        anchor = getattr(p, "anchor", None)
        if anchor is not None:
            full = dict(sketch.plan_of(anchor).spatial)  # type: ignore[union-attr]
            own = {ax for ax, ext in p.spatial if full.get(ax) == ext}  # type: ignore[union-attr]
            out[anchor] = out[anchor] & own if anchor in out else own
    return out


def _row_at(
    p: SimplePlan | RFactorPlan,
    groups: dict[str, set[str]],
    d: Decisions,
    outer: dict[str, list[str]],
) -> tuple[str, str] | None:
    """(anchor, loop) a row-group member is computed at, or None (at root, or its own
    location decision). The loop is the same for every member: the `row:` decision counts
    from the innermost of the anchor's outer loops that run over rows only (a loop inside
    one over another axis would compute the group again for each of its iterations)."""
    if p.anchor is None or int(d.get(f"row:{p.anchor}", -1)) < 0:
        return None
    rows = list(itertools.takewhile(lambda lf: _only_axes(lf, groups[p.anchor]), outer[p.anchor]))
    if not rows:
        return None
    k = int(d[f"row:{p.anchor}"])
    return p.anchor, rows[::-1][min(k, len(rows) - 1)]


def _fuse_parallel(stage: str, leaves: list[str], k: int) -> tuple[list[S.Step], list[str]]:
    """Fuse the first k loops and parallelise them; the loops that remain, fused one first."""
    if k <= 0 or not leaves:
        return [], leaves
    k = min(k, len(leaves))
    name = "+".join(leaves[:k])
    steps: list[S.Step] = [S.Fuse(stage, tuple(leaves[:k]))] if k > 1 else []
    steps.append(S.Parallel(stage, name))
    return steps, [name, *leaves[k:]]


def _tile_steps(p: TilePlan, d: Decisions, outer: dict[str, list[str]]) -> list[S.Step]:
    tiles = {ax: tuple(d[f"tile:{p.stage}:{ax}"]) for ax, _ in p.spatial + p.reduce}
    sp = [ax for ax, _ in p.spatial]
    rd = [ax for ax, _ in p.reduce]
    t = p.tiled
    steps: list[S.Step] = [S.CacheWrite(p.stage)] if p.cache_write else []
    unroll = int(d.get(f"unroll:{p.stage}", 0))
    if p.consumer is None:  # S S R S R S at root
        steps += [S.Split(t, ax, tiles[ax]) for ax in sp + rd]
        levels = [[f"{ax}.{i}" for ax in sp] for i in range(4)]
        levels[3] = _register_order(levels[3], d.get(f"ord:{p.stage}", 0))
        r0, r1 = [f"{ax}.0" for ax in rd], [f"{ax}.1" for ax in rd]
        order = levels[0] + levels[1] + r0 + levels[2] + r1 + levels[3]
        steps.append(S.Reorder(t, tuple(order)))
        par, rest = _fuse_parallel(t, levels[0] + levels[1], int(d[f"par:{p.stage}"]))
        steps += par + [S.Vectorize(t, f"{sp[-1]}.3")] + _window_unroll(p, d)
        if unroll:
            steps.append(S.Pragma(t, (rest + r0)[0], "auto_unroll_max_step", unroll))
        outer[t] = rest
        return steps
    c, loc = p.outer, int(d[f"loc:{p.stage}"])
    steps += [S.Split(c, ax, (tiles[ax][0], tiles[ax][1] * tiles[ax][2])) for ax in sp]
    clevels = [[f"{ax}.{i}" for ax in sp] for i in range(3)]
    steps.append(S.Reorder(c, tuple(clevels[0] + clevels[1] + clevels[2])))
    at = len(sp) * (loc + 1)
    head = (clevels[0] + clevels[1])[:at]
    par, rest = _fuse_parallel(c, head, max(1, int(d[f"par:{p.stage}"])))
    steps += par + [S.Vectorize(c, f"{sp[-1]}.2")]
    outer[c] = rest
    steps += [S.Split(t, ax, tiles[ax][loc + 1 :]) for ax in sp]
    steps += [S.Split(t, ax, tiles[ax]) for ax in rd]
    tl = [[f"{ax}.{i}" for ax in sp] for i in range(3 - loc)]
    tl[-1] = _register_order(tl[-1], d.get(f"ord:{p.stage}", 0))
    r0, r1 = [f"{ax}.0" for ax in rd], [f"{ax}.1" for ax in rd]
    order = r0 + tl[0] + r1 + tl[1] if loc == 1 else tl[0] + r0 + tl[1] + r1 + tl[2]
    steps += [S.Reorder(t, tuple(order)), S.Vectorize(t, order[-1]), *_window_unroll(p, d)]
    if unroll:
        steps.append(S.Pragma(t, order[0], "auto_unroll_max_step", unroll))
    steps.append(S.ComputeAt(t, c, rest[-1]))
    return steps


def _window_unroll(p: TilePlan, d: Decisions) -> list[S.Step]:
    """The explicit unroll of the inner loop of the reduce axis `rur:` names (none: [])."""
    k = int(d.get(f"rur:{p.stage}", -1))
    return [S.Unroll(p.tiled, f"{p.reduce[k][0]}.1")] if k >= 0 else []


def _register_order(loops: list[str], columns: int) -> list[str]:
    """A register tile's loops in the `ord:` order: as they are (0), or the loops before the
    vectorised last one reversed (1: a conv's columns outside its channel vectors)."""
    return [*loops[-2::-1], loops[-1]] if int(columns) else loops


def _simple_steps(
    p: SimplePlan, d: Decisions, outer: dict[str, list[str]], row: tuple[str, str] | None = None
) -> list[S.Step]:
    s = p.stage
    sp = [ax for ax, _ in p.spatial]
    rd = [ax for ax, _ in p.reduce]
    v = int(d.get(f"vec:{s}", 1))
    steps: list[S.Step] = []
    if v > 1:
        last = sp[-1]
        steps.append(S.Split(s, last, (v,)))
        cand = sp[:-1] + [f"{last}.0"]
        if rd:
            steps.append(S.Reorder(s, tuple(cand + rd + [f"{last}.1"])))
        steps.append(S.Vectorize(s, f"{last}.1"))
    else:
        cand = list(sp)
    loc = int(d.get(f"loc:{s}", -1))
    own = {ax for ax, ext in p.spatial if ext > 1}
    target = [lf for lf in outer.get(p.reader or "", []) if _only_axes(lf, own)]
    k = int(d.get(f"par:{s}", 0))
    if row is not None:
        steps.append(S.ComputeAt(s, *row))
        k = 0  # inside the anchor's parallel loop: no nested parallel region
    elif loc >= 0 and target:
        steps.append(S.ComputeAt(s, p.reader, target[min(loc, len(target) - 1)]))  # type: ignore[arg-type]
        k = 0  # inside the reader's parallel loop: no nested parallel region
    par, rest = _fuse_parallel(s, cand, k)
    steps += par
    unroll = int(d.get(f"unroll:{s}", 0))
    first = (rest + rd)[:1]
    if unroll and first:
        steps.append(S.Pragma(s, first[0], "auto_unroll_max_step", unroll))
    outer[s] = rest
    return steps


def _rfactor_steps(
    p: RFactorPlan, d: Decisions, outer: dict[str, list[str]], row: tuple[str, str] | None = None
) -> list[S.Step]:
    """rfactor, then the partials stage: spatial loops (fused, parallel), the other reduce
    loops, the outer part of the factored axis, its vectorised lanes innermost; the stage
    itself: the same parallel loops and the sum over the lanes. In a row group both are
    computed at the group's loop instead (the partials are then one vector per row)."""
    s, rf = p.stage, f"{p.stage}.rf"
    sp = [ax for ax, _ in p.spatial]
    others = [ax for ax, _ in p.reduce if ax != p.axis]
    lane, rest = f"{p.axis}_i", f"{p.axis}_o"
    steps: list[S.Step] = [S.RFactor(s, p.axis, int(d[f"rf:{s}"]))]
    steps += [S.Reorder(rf, (*sp, *others, rest, lane)), S.Vectorize(rf, lane)]
    k = 0 if row is not None else int(d.get(f"par:{s}", 0))
    par, rf_rest = _fuse_parallel(rf, sp, k)
    steps += par
    unroll = int(d.get(f"unroll:{s}", 0))
    if unroll:
        steps.append(S.Pragma(rf, (rf_rest + others + [rest])[0], "auto_unroll_max_step", unroll))
    if row is not None:
        steps += [S.ComputeAt(rf, *row), S.ComputeAt(s, *row)]
    par, left = _fuse_parallel(s, sp, k)
    outer[s] = left
    return steps + par


def _only_axes(leaf: str, axes: set[str]) -> bool:
    """Whether a loop (maybe fused, maybe split) runs over the given axes only: computing a
    producer at any other loop of its reader would compute each of its elements again."""
    return all(part.split(".")[0] in axes for part in leaf.split("+"))


def local_elements(sketch: Sketch, d: Decisions) -> int:
    """Largest local accumulator a state's fused tiles declare (checked before measuring)."""
    most = 0
    for p in sketch.plans:
        if isinstance(p, TilePlan) and p.consumer is not None:
            loc = int(d[f"loc:{p.stage}"])
            most = max(
                most,
                math.prod(math.prod(d[f"tile:{p.stage}:{ax}"][loc:]) for ax, _ in p.spatial),
            )
    return most
