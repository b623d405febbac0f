"""Sketches: schedule structures derived from a compute definition alone.

A sketch says *what shape* a schedule has (which stages are inlined, which are tiled with a
multi-level structure, which consumer a tile is fused into, where a cache-write stage goes)
and leaves the numbers open (tile sizes, how many outer loops run in parallel, the
auto-unroll step, compute locations). `tunefarm.schedule.sketch_state` fills the numbers in
and turns a sketch plus its decisions into a plain step list (`schedule.steps`), which is
all that a tuning record stores.

Derivation walks the stages producers first. For each stage the backend's rules are asked in
order (`SketchRule.derive`); the first rule that answers gives one or more alternative plans
for the stage, and each alternative branches into its own sketch. The generic rules live
here; a backend picks and parameterises them (`tunefarm.backends.cpu.sketch_rules`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from tunefarm.ir.expr import Call, Load, Select, Var
from tunefarm.ir.tensor import ComputeDAG, ComputeOp, Tensor, loads_of, walk


class SketchError(ValueError):
    """A compute definition no rule can schedule (the message names the stage)."""


# ---------------------------------------------------------------------------------- plans
@dataclass(frozen=True)
class InlinePlan:
    """Substitute the stage into its readers (elementwise, not an output)."""

    stage: str


@dataclass(frozen=True)
class TilePlan:
    """Multi-level tiling of a stage with data reuse ("SSRSRS" on CPU).

    consumer: the elementwise stage the tile is fused into (computed at one of its tile
    loops), or None to tile at root. cache_write: the tiled stage is `{stage}.local`, a
    local accumulator added by a cache-write whose consumer is the original stage.
    """

    stage: str
    spatial: tuple[tuple[str, int], ...]
    reduce: tuple[tuple[str, int], ...]
    consumer: str | None = None
    cache_write: bool = False

    @property
    def tiled(self) -> str:
        return f"{self.stage}.local" if self.cache_write else self.stage

    @property
    def outer(self) -> str:
        """The stage whose loops carry the parallel annotation."""
        return self.stage if self.cache_write else (self.consumer or self.stage)


@dataclass(frozen=True)
class SimplePlan:
    """A stage at root (or at a loop of its only reader): fused parallel outer loops, the
    innermost spatial loop split by a vector width and vectorised."""

    stage: str
    spatial: tuple[tuple[str, int], ...]
    reduce: tuple[tuple[str, int], ...]
    reader: str | None = None  # the only stage reading it, for compute-location choices
    anchor: str | None = None  # the output of its row group (`RowFusionRule`), if any


@dataclass(frozen=True)
class RFactorPlan:
    """A reduction factored on its innermost reduce axis (`axis`): `{stage}.rf` computes
    vectorised partial results in parallel, the stage adds them up."""

    stage: str
    spatial: tuple[tuple[str, int], ...]
    reduce: tuple[tuple[str, int], ...]
    axis: str
    anchor: str | None = None  # the output of its row group (`RowFusionRule`), if any


@dataclass(frozen=True)
class SkipPlan:
    """Leave the stage as defined (a rule chose not to touch it)."""

    stage: str


Plan = InlinePlan | TilePlan | SimplePlan | RFactorPlan | SkipPlan


@dataclass(frozen=True)
class Sketch:
    """One schedule structure: a plan per emitted stage, producers first."""

    name: str
    plans: tuple[Plan, ...]

    def plan_of(self, stage: str) -> Plan | None:
        return next((p for p in self.plans if p.stage == stage), None)


# -------------------------------------------------------------------------------- analysis
@dataclass
class DagInfo:
    """What the rules ask about a DAG: stages, outputs, readers after inlining."""

    dag: ComputeDAG
    inlined: set[str] = field(default_factory=set)
    claimed: set[str] = field(default_factory=set)  # consumers fused into a tile

    def stage(self, name: str) -> Tensor:
        return self.dag.by_name[name]

    def is_output(self, t: Tensor) -> bool:
        return any(t is o for o in self.dag.outputs)

    def readers(self, t: Tensor) -> list[Tensor]:
        """Stages that read `t` once inlined stages are substituted into their readers."""
        out: list[Tensor] = []
        for r in self.dag.readers(t):
            if r.name in self.inlined:
                out += [x for x in self.readers(r) if all(x is not y for y in out)]
            elif all(r is not y for y in out):
                out.append(r)
        return out


def axes_of(t: Tensor) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
    op = t.op
    assert isinstance(op, ComputeOp)
    return (
        tuple((a.name, a.extent) for a in op.axes),
        tuple((a.name, a.extent) for a in op.reduce_axes),
    )


def has_data_reuse(t: Tensor) -> bool:
    """A reduction where some input is read at indices free of some spatial axis: each
    element loaded serves several outputs, which a tile keeps in cache and registers."""
    op = t.op
    if not isinstance(op, ComputeOp) or not op.reduce_axes:
        return False
    spatial = {a.name for a in op.axes if a.extent > 1}
    for ld in loads_of(op.body):
        used = {n.name for idx in ld.indices for n in _vars(idx)}
        if spatial - used:
            return True
    return False


def _vars(e) -> list[Var]:
    return [n for n in walk(e) if isinstance(n, Var)]


def identity_reader(consumer: Tensor, producer: Tensor, info: DagInfo) -> bool:
    """Whether `consumer` is elementwise over `producer`'s shape and reads it only at its own
    loop indices (so a tile of the consumer needs exactly the same tile of the producer)."""
    op = consumer.op
    if not isinstance(op, ComputeOp) or op.reduce_axes or consumer.shape != producer.shape:
        return False
    own = tuple(a.name for a in op.axes)
    found = False
    for ld in _loads_through_inlined(consumer, info):
        if ld.tensor is producer:
            names = tuple(i.name if isinstance(i, Var) else None for i in ld.indices)
            if names != own:
                return False
            found = True
    return found


def _loads_through_inlined(t: Tensor, info: DagInfo) -> list[Load]:
    out: list[Load] = []
    for ld in loads_of(t.op.body):  # type: ignore[union-attr]
        if ld.tensor.name in info.inlined:
            out += _loads_through_inlined(ld.tensor, info)
        else:
            out.append(ld)
    return out


# ---------------------------------------------------------------------------------- rules
class SketchRule(Protocol):
    name: str

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        """Alternatives for stage `t` (each a list of plans), or None to pass it on."""


class InlineRule:
    """Inline every elementwise stage that is not an output (padding, epilogue helpers)."""

    name = "inline"

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        op = t.op
        if op.reduce_axes or info.is_output(t) or not info.dag.readers(t):  # type: ignore[union-attr]
            return None
        if _is_padding(t) and any(has_data_reuse(r) for r in info.dag.readers(t)):
            # inlined, every load of the tile's inner loop tests the border; at root, the
            # padded copy costs one pass over the data (alternatives: both)
            spatial, _ = axes_of(t)
            return [[InlinePlan(t.name)], [SimplePlan(t.name, spatial, (), None)]]
        if len(info.dag.readers(t)) > 1 and _calls_math(t):
            # inlined into every reader, a math call (exp) is computed once per reader;
            # at root it is computed once and read back (alternatives: both)
            spatial, _ = axes_of(t)
            return [[InlinePlan(t.name)], [SimplePlan(t.name, spatial, (), None)]]
        return [[InlinePlan(t.name)]]


def _calls_math(t: Tensor) -> bool:
    return any(isinstance(n, Call) for n in walk(t.op.body))  # type: ignore[union-attr]


def _is_padding(t: Tensor) -> bool:
    return any(isinstance(n, Select) for n in walk(t.op.body))  # type: ignore[union-attr]


class MultiLevelTilingRule:
    """Tile stages with data reuse. Alternatives: fused into their elementwise consumer (an
    epilogue, or a cache-write stage for an output), and tiled at root."""

    name = "multi_level_tiling"

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        if not has_data_reuse(t):
            return None
        spatial, reduce = axes_of(t)
        out: list[list[Plan]] = []
        readers = info.readers(t)
        if len(readers) == 1 and identity_reader(readers[0], t, info):
            out.append([TilePlan(t.name, spatial, reduce, consumer=readers[0].name)])
        elif info.is_output(t):
            out.append([TilePlan(t.name, spatial, reduce, consumer=t.name, cache_write=True)])
        out.append([TilePlan(t.name, spatial, reduce)])
        return out


class RFactorRule:
    """Reductions without data reuse whose outputs are too few to keep every core and vector
    lane busy: factor the innermost reduce axis (alternative: the simple plan)."""

    name = "rfactor"

    def __init__(self, max_spatial: int = 4096, min_reduce: int = 16):
        self.max_spatial, self.min_reduce = max_spatial, min_reduce

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        spatial, reduce = axes_of(t)
        if not reduce or has_data_reuse(t):
            return None
        points = 1
        for _, ext in spatial:
            points *= ext
        axis, extent = reduce[-1]
        if points > self.max_spatial or extent < self.min_reduce:
            return None
        readers = info.readers(t)
        reader = readers[0].name if len(readers) == 1 and not info.is_output(t) else None
        return [
            [RFactorPlan(t.name, spatial, reduce, axis)],
            [SimplePlan(t.name, spatial, reduce, reader)],
        ]


class SimpleRule:
    """Everything else that runs: parallel outer loops and a vectorised inner loop."""

    name = "simple"

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        spatial, reduce = axes_of(t)
        readers = info.readers(t)
        reader = readers[0].name if len(readers) == 1 and not info.is_output(t) else None
        return [[SimplePlan(t.name, spatial, reduce, reader)]]


class RowFusionRule:
    """Reduce-then-broadcast chains (softmax, layer norm, log-softmax, RMS norm, a mean then
    a subtraction) computed row by row: every stage whose readers all lead, through stages
    without data reuse, to one elementwise output (the group's *anchor*) may be computed at
    one loop of that output, the same for the whole group (decision `row:{anchor}`). At the
    output's row loop a row is read from memory once and every later pass over it (max, exp
    and sum, scale) hits L1, instead of one pass over the whole tensor per stage.

    A finishing rule: it runs on each complete sketch (`finish`), since a group is known only
    once every stage of it has a plan."""

    name = "row_fusion"

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        return None

    def finish(self, info: DagInfo, plans: list[Plan]) -> list[Plan]:
        members = {p.stage: p for p in plans if isinstance(p, SimplePlan | RFactorPlan)}
        memo: dict[str, str | None] = {}
        out: list[Plan] = []
        for p in plans:
            a = _anchor(info, p.stage, members, memo) if p.stage in members else None
            out.append(replace(p, anchor=a) if a is not None else p)  # type: ignore[type-var]
        return out


def _anchor(info: DagInfo, name: str, members: dict[str, Plan], memo: dict) -> str | None:
    """The one elementwise output every reader of stage `name` leads to through group
    members (non-output stages planned simple or factored), or None."""
    if name in memo:
        return memo[name]
    t = info.stage(name)
    ends: set[str | None] = set()
    readers = [] if info.is_output(t) else info.readers(t)
    for r in readers:
        if r.name not in members or has_data_reuse(r):
            ends.add(None)
        elif info.is_output(r):
            simple = isinstance(members[r.name], SimplePlan) and not r.op.reduce_axes  # type: ignore[union-attr]
            ends.add(r.name if simple else None)
        else:
            ends.add(_anchor(info, r.name, members, memo))
    memo[name] = ends.pop() if len(ends) == 1 else None
    return memo[name]


def derive_sketches(
    outputs: Sequence[Tensor], inputs: Sequence[Tensor], rules: Sequence[SketchRule]
) -> list[Sketch]:
    """Every sketch the rules derive for the DAG, in a stable order. Two passes over the
    stages: the inline rule first (its choices decide which stages read which), then the
    others; each sketch's plans are in producer-first order."""
    dag = ComputeDAG(list(outputs), list(inputs))
    inline = [r for r in rules if isinstance(r, InlineRule)]
    others = [r for r in rules if not isinstance(r, InlineRule)]
    partial: list[tuple[DagInfo, list[Plan], list[str]]] = [(DagInfo(dag), [], [])]
    for phase in (inline, others):
        for t in dag.compute_stages:
            partial = [grown for item in partial for grown in _grow(item, phase, t, dag)]
    order = {t.name: i for i, t in enumerate(dag.compute_stages)}
    finishing = [r for r in rules if hasattr(r, "finish")]
    out = []
    for info, plans, names in partial:
        for rule in finishing:
            plans = rule.finish(info, plans)  # type: ignore[attr-defined]
        ordered = tuple(sorted(plans, key=lambda p: order[p.stage]))
        out.append(Sketch("|".join(names) or "default", ordered))
    return out


def _grow(item, rules: Sequence[SketchRule], t: Tensor, dag: ComputeDAG):
    """The partial sketch `item` extended by the first answer of `rules` for stage t (itself
    when t is planned already, or when these rules pass it on to the next phase)."""
    info, plans, names = item
    if t.name in info.claimed or any(p.stage == t.name for p in plans):
        return [item]
    alts = _first_answer(rules, info, t, required=not any(isinstance(r, InlineRule) for r in rules))
    if not alts:
        return [item]
    out = []
    for k, alt in enumerate(alts):
        nxt = DagInfo(dag, set(info.inlined), set(info.claimed))
        for p in alt:
            if isinstance(p, InlinePlan):
                nxt.inlined.add(p.stage)
            if isinstance(p, TilePlan) and p.consumer and not p.cache_write:
                nxt.claimed.add(p.consumer)
        tag = [f"{t.name}:{type(alt[0]).__name__}{k}"] if len(alts) > 1 else []
        out.append((nxt, plans + alt, names + tag))
    return out


def _first_answer(
    rules: Sequence[SketchRule], info: DagInfo, t: Tensor, required: bool = True
) -> list[list[Plan]]:
    for rule in rules:
        alts = rule.derive(info, t)
        if alts:
            return alts
    if required:
        raise SketchError(f"stage {t.name!r}: no sketch rule applies")
    return []
