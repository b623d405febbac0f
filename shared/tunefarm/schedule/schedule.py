"""A schedule: a compute DAG plus the list of steps applied to it.

`Schedule(outputs, inputs)` starts with one stage per compute tensor, each with its axes as
loops in definition order (spatial, then reduce). `apply(step)` records the step and updates
the stage's loop structure; lowering (`tunefarm.codegen.lower`) turns the result into loops.
Errors in a step raise `ScheduleError` naming the step and what was expected, so a bad
template config or a bad generated sketch is diagnosed, not miscompiled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tunefarm.ir.expr import Expr, Load, Reduce, Var
from tunefarm.ir.tensor import ComputeDAG, ComputeOp, IterVar, Tensor, compute
from tunefarm.ir.transform import rewrite, substitute
from tunefarm.schedule import steps as S

# loop pragmas the C emitter reads (`steps.Pragma`); peel_tail: the last iteration apart
PRAGMA_KEYS = ("auto_unroll_max_step", "ivdep", "simd", "peel_tail")


class ScheduleError(ValueError):
    """A schedule step that cannot be applied; the message names the step."""


@dataclass
class Leaf:
    """One loop of a stage after splits/fuses, with its annotation."""

    name: str
    kind: str  # "spatial" | "reduce"
    annotation: str = "none"  # none | vectorize | unroll | parallel | bind
    thread: str | None = None
    pragmas: list[tuple[str, int]] = field(default_factory=list)
    step_index: int | None = None  # the step that annotated it, for error messages


@dataclass(frozen=True)
class SplitRel:
    parent: str
    outputs: tuple[str, ...]
    factors: tuple[int, ...]
    step_index: int


@dataclass(frozen=True)
class FuseRel:
    inputs: tuple[str, ...]
    output: str
    step_index: int


@dataclass
class Stage:
    """A compute stage and its loop structure. `body` may differ from the tensor's op body
    (cache stages rewrite loads); `tensor` stays the identity other stages load from."""

    name: str
    tensor: Tensor
    axes: tuple[IterVar, ...]
    body: Expr
    leaves: list[Leaf]
    relations: list[SplitRel | FuseRel] = field(default_factory=list)
    attach: str = "root"  # root | inline | at
    attach_target: tuple[str, str] | None = None  # (stage, axis) when attach == "at"
    attach_step: int | None = None
    is_output: bool = False
    scope: str = "global"

    @property
    def reduce_axes(self) -> tuple[IterVar, ...]:
        return self.body.axes if isinstance(self.body, Reduce) else ()

    def leaf(self, name: str) -> Leaf | None:
        return next((lf for lf in self.leaves if lf.name == name), None)


def _new_stage(t: Tensor, is_output: bool) -> Stage:
    op = t.op
    assert isinstance(op, ComputeOp)
    leaves = [Leaf(a.name, "spatial") for a in op.axes]
    leaves += [Leaf(a.name, "reduce") for a in op.reduce_axes]
    return Stage(t.name, t, op.axes, op.body, leaves, is_output=is_output)


class Schedule:
    """Stages in topological order (producers first) and the steps applied so far."""

    def __init__(self, outputs: Iterable[Tensor], inputs: Iterable[Tensor]):
        self.dag = ComputeDAG(list(outputs), list(inputs))
        self.inputs = self.dag.inputs
        self.outputs = self.dag.outputs
        self.stages: dict[str, Stage] = {}
        for t in self.dag.compute_stages:
            self.stages[t.name] = _new_stage(t, any(t is o for o in self.outputs))
        self.steps: list[S.Step] = []

    # -- helpers ---------------------------------------------------------------------------
    def _err(self, step: S.Step, msg: str) -> ScheduleError:
        return ScheduleError(f"{S.describe(step, len(self.steps))}: {msg}")

    def stage(self, step: S.Step) -> Stage:
        st = self.stages.get(step.stage)
        if st is None:
            raise self._err(step, f"unknown stage; stages are {list(self.stages)}")
        return st

    def _leaf_index(self, step: S.Step, st: Stage, axis: str) -> int:
        for i, lf in enumerate(st.leaves):
            if lf.name == axis:
                return i
        names = [lf.name for lf in st.leaves]
        raise self._err(step, f"unknown axis {axis!r}; the loops of {st.name!r} are {names}")

    def stage_of_tensor(self, t: Tensor) -> Stage | None:
        return next((s for s in self.stages.values() if s.tensor is t), None)

    # -- application -----------------------------------------------------------------------
    def apply(self, step: S.Step) -> None:
        handler = getattr(self, f"_apply_{step.kind}", None)
        if handler is None:
            raise self._err(step, "unsupported step kind")
        handler(step)
        self.steps.append(step)

    def apply_all(self, steps: Iterable[S.Step]) -> Schedule:
        for step in steps:
            self.apply(step)
        return self

    def _apply_split(self, step: S.Split) -> None:
        st = self.stage(step)
        i = self._leaf_index(step, st, step.axis)
        if not step.factors or any((not isinstance(f, int)) or f <= 0 for f in step.factors):
            raise self._err(step, f"split factors must be positive ints, got {step.factors}")
        old = st.leaves[i]
        names = tuple(f"{step.axis}.{k}" for k in range(len(step.factors) + 1))
        new = [Leaf(n, old.kind) for n in names]
        st.leaves[i : i + 1] = new
        st.relations.append(SplitRel(step.axis, names, tuple(step.factors), len(self.steps)))

    def _apply_reorder(self, step: S.Reorder) -> None:
        st = self.stage(step)
        if len(set(step.order)) != len(step.order):
            raise self._err(step, "an axis appears twice in the order")
        positions = sorted(self._leaf_index(step, st, a) for a in step.order)
        by_name = {lf.name: lf for lf in st.leaves}
        for pos, name in zip(positions, step.order, strict=True):
            st.leaves[pos] = by_name[name]

    def _apply_fuse(self, step: S.Fuse) -> None:
        st = self.stage(step)
        if len(step.axes) < 2:
            raise self._err(step, "fuse needs at least two axes")
        idx = [self._leaf_index(step, st, a) for a in step.axes]
        if idx != list(range(idx[0], idx[0] + len(idx))):
            order = [lf.name for lf in st.leaves]
            raise self._err(
                step, f"fused axes must be adjacent and in loop order; order is {order}"
            )
        kinds = {st.leaves[i].kind for i in idx}
        if len(kinds) > 1:
            raise self._err(step, "cannot fuse spatial and reduce axes")
        name = "+".join(step.axes)
        st.leaves[idx[0] : idx[-1] + 1] = [Leaf(name, kinds.pop())]
        st.relations.append(FuseRel(tuple(step.axes), name, len(self.steps)))

    def _annotate(self, step: S.Step, axis: str, annotation: str) -> Leaf:
        st = self.stage(step)
        lf = st.leaves[self._leaf_index(step, st, axis)]
        if lf.annotation != "none":
            raise self._err(step, f"axis {axis!r} is already annotated {lf.annotation!r}")
        lf.annotation = annotation
        lf.step_index = len(self.steps)
        return lf

    def _apply_vectorize(self, step: S.Vectorize) -> None:
        st = self.stage(step)
        if st.leaves[self._leaf_index(step, st, step.axis)].kind == "reduce":
            raise self._err(
                step,
                f"cannot vectorize reduce axis {step.axis!r}: each lane would race on "
                "the same accumulator; vectorize a spatial axis (e.g. an output-channel block)",
            )
        self._annotate(step, step.axis, "vectorize")

    def _apply_unroll(self, step: S.Unroll) -> None:
        self._annotate(step, step.axis, "unroll")

    def _apply_parallel(self, step: S.Parallel) -> None:
        st = self.stage(step)
        if st.leaves[self._leaf_index(step, st, step.axis)].kind == "reduce":
            raise self._err(step, f"cannot parallelize reduce axis {step.axis!r}")
        self._annotate(step, step.axis, "parallel")

    def _apply_bind(self, step: S.Bind) -> None:
        if step.thread not in S.GPU_THREAD_TAGS:
            raise self._err(step, f"unknown thread tag {step.thread!r}; use {S.GPU_THREAD_TAGS}")
        self._annotate(step, step.axis, "bind").thread = step.thread

    def _apply_pragma(self, step: S.Pragma) -> None:
        st = self.stage(step)
        # `tensor_core.*`: an intrinsic's tile, read by the template that renders the state
        # (registry.instantiate); it changes nothing in the lowered loops
        if step.key not in PRAGMA_KEYS and not step.key.startswith("tensor_core."):
            keys = ", ".join(PRAGMA_KEYS)
            raise self._err(step, f"pragma key must be {keys} or tensor_core.*")
        st.leaves[self._leaf_index(step, st, step.axis)].pragmas.append((step.key, step.value))

    def _apply_compute_at(self, step: S.ComputeAt) -> None:
        st = self.stage(step)
        target = self.stages.get(step.target)
        if target is None:
            raise self._err(step, f"unknown target stage; stages are {list(self.stages)}")
        if target is st:
            raise self._err(step, "a stage cannot be computed at itself")
        if st.is_output:
            raise self._err(step, "an output stage cannot be computed at another stage")
        self._leaf_index(step, target, step.axis)
        st.attach, st.attach_target, st.attach_step = (
            "at",
            (step.target, step.axis),
            len(self.steps),
        )

    def _apply_compute_inline(self, step: S.ComputeInline) -> None:
        st = self.stage(step)
        if st.is_output:
            raise self._err(step, "an output stage cannot be inlined")
        if st.reduce_axes:
            raise self._err(step, "a reduction cannot be inlined into its consumers")
        st.attach, st.attach_target, st.attach_step = "inline", None, len(self.steps)

    def _apply_compute_root(self, step: S.ComputeRoot) -> None:
        st = self.stage(step)
        st.attach, st.attach_target, st.attach_step = "root", None, len(self.steps)

    def _apply_cache_write(self, step: S.CacheWrite) -> None:
        st = self.stage(step)
        if any(s.stage == st.name for s in self.steps):
            raise self._err(step, "cache_write must come before any other step on the stage")
        local = Tensor(f"{st.name}.{step.scope}", st.tensor.shape, st.tensor.dtype, None)  # type: ignore[arg-type]
        local.op = ComputeOp(local.name, st.axes, st.body)
        cache = _new_stage(local, False)
        cache.scope = step.scope
        st.body = Load(local, tuple(a.var for a in st.axes), local.dtype)
        st.leaves = [Leaf(a.name, "spatial") for a in st.axes]
        self._insert_before(st.name, cache)

    def _apply_rfactor(self, step: S.RFactor) -> None:
        st = self.stage(step)
        if any(s.stage == st.name for s in self.steps):
            raise self._err(step, "rfactor must come before any other step on the stage")
        body = st.body
        axes = {a.name: a for a in st.reduce_axes}
        if not isinstance(body, Reduce) or step.axis not in axes:
            raise self._err(step, f"axis must be a reduce axis of the stage, one of {list(axes)}")
        extent = axes[step.axis].extent
        if not isinstance(step.factor, int) or step.factor < 2 or extent % step.factor:
            raise self._err(step, f"factor must be an int >= 2 dividing {extent}")
        ko = IterVar(Var(f"{step.axis}_o"), extent // step.factor, "reduce")
        ki = IterVar(Var(f"{step.axis}_i"), step.factor, "spatial")
        source = substitute(body.source, {step.axis: ko.var * step.factor + ki.var})
        others = tuple(a for a in body.axes if a.name != step.axis)
        rf = Tensor(f"{st.name}.rf", (*st.tensor.shape, step.factor), st.tensor.dtype, None)  # type: ignore[arg-type]
        rf.op = ComputeOp(
            rf.name, (*st.axes, ki), Reduce(body.combiner, source, (*others, ko), body.dtype)
        )
        lane = IterVar(Var(f"{step.axis}_i"), step.factor, "reduce")
        load = Load(rf, (*(a.var for a in st.axes), lane.var), rf.dtype)
        st.body = Reduce(body.combiner, load, (lane,), body.dtype)
        st.leaves = [Leaf(a.name, "spatial") for a in st.axes] + [Leaf(lane.name, "reduce")]
        self._insert_before(st.name, _new_stage(rf, False))

    def _apply_cache_read(self, step: S.CacheRead) -> None:
        src = self.dag.by_name.get(step.stage)
        if src is None:
            raise self._err(step, f"unknown tensor; tensors are {list(self.dag.by_name)}")
        readers = [self.stages.get(r) for r in step.readers]
        if not readers or any(r is None for r in readers):
            raise self._err(step, f"readers must be existing stages, got {step.readers}")
        name = f"{src.name}.{step.scope}"
        if name in self.stages:
            raise self._err(step, f"stage {name!r} already exists")
        names = [f"ax{i}" for i in range(src.ndim)]
        copy = compute(src.shape, lambda *i: src[tuple(i)], name=name, axis_names=names)
        cache = _new_stage(copy, False)
        cache.scope = step.scope

        def retarget(node: Expr) -> Expr | None:
            if isinstance(node, Load) and node.tensor is src:
                return Load(copy, node.indices, node.dtype)
            return None

        for r in readers:
            assert r is not None
            r.body = rewrite(r.body, retarget)
        first = min(list(self.stages).index(r.name) for r in readers if r is not None)
        self._insert_before(list(self.stages)[first], cache)

    def _insert_before(self, name: str, new: Stage) -> None:
        items = list(self.stages.items())
        pos = [k for k, _ in items].index(name)
        items.insert(pos, (new.name, new))
        self.stages = dict(items)


def create_schedule(outputs: list[Tensor], inputs: list[Tensor], steps: Iterable[S.Step] = ()):
    return Schedule(outputs, inputs).apply_all(steps)
