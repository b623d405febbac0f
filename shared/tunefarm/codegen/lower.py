"""Lowering: a scheduled compute DAG -> a loop nest over flat buffers.

The passes, in order:
1. inline   — substitute the bodies of `compute_inline` stages into their readers;
2. buffers  — args for inputs/outputs, static scratch for root intermediates, locals for
              stages computed at a loop of another stage;
3. bounds   — for each `compute_at` stage (consumers first), the region its consumer's inner
              loops read, as (start expression, constant extent) per axis;
4. loops    — per stage, leaf loop extents from splits/fuses, the value of each original axis
              in terms of leaf variables, and guards for splits that do not divide;
5. nest     — emit each stage's loops, placing attached stages after the loop they are
              attached to and the reduction init right before the first reduce loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tunefarm.codegen.arith import bounds, coefficient, from_affine, simplify, to_affine
from tunefarm.codegen.loops import (
    Buffer,
    BufferLoad,
    Decl,
    For,
    If,
    LoweredFunc,
    Stmt,
    Store,
    flat_index,
)
from tunefarm.ir.expr import Binary, Const, Expr, Load, Reduce, Var, logical_and
from tunefarm.ir.tensor import walk
from tunefarm.ir.transform import free_vars, rewrite, substitute
from tunefarm.schedule.schedule import Schedule, ScheduleError, SplitRel, Stage
from tunefarm.schedule.steps import describe

REDUCE_INIT = {"sum": 0.0, "max": -math.inf, "min": math.inf}
INT_LIMITS = {"uint8": (0, 255), "int8": (-128, 127), "int32": (-(2**31), 2**31 - 1)}


def reduce_init(combiner: str, dtype: str) -> Const:
    """The identity of a reduction in `dtype`: an integer max starts at the dtype's lowest."""
    if dtype in INT_LIMITS and combiner in ("max", "min"):
        lo, hi = INT_LIMITS[dtype]
        return Const(lo if combiner == "max" else hi, dtype)
    return Const(REDUCE_INIT[combiner], dtype)


REDUCE_OP = {"sum": "+", "max": "max", "min": "min"}


def c_ident(*parts: str) -> str:
    out = "_".join(parts)
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in out)


@dataclass
class LoopInfo:
    """The loop structure of one emitted stage."""

    stage: Stage
    extents: dict[str, int]  # every axis name (root, intermediate, leaf) -> extent
    values: dict[str, Expr]  # root axis name -> value in absolute coordinates
    local: dict[str, Expr]  # root axis name -> value relative to the stage's domain start
    guards: list[tuple[Expr, bool]]  # (condition, is_reduce_guard)
    buffer: Buffer
    starts: list[Expr]  # domain start per spatial axis (absolute coordinates)

    def var(self, leaf: str) -> str:
        return c_ident(self.stage.name, leaf)


class Lowerer:
    def __init__(self, sch: Schedule, name: str = "tf_kernel"):
        self.sch = sch
        self.name = name
        self.stages = [s for s in sch.stages.values()]
        self.bodies: dict[str, Expr] = {}
        self.info: dict[str, LoopInfo] = {}
        self.ranges: dict[str, tuple[int, int]] = {}
        self.by_tensor: dict[int, Stage] = {id(s.tensor): s for s in self.stages}

    # 1. inline ---------------------------------------------------------------------------
    def inline(self) -> None:
        inlined: dict[int, Stage] = {}
        for st in self.stages:

            def fn(node: Expr) -> Expr | None:
                src = inlined.get(id(node.tensor)) if isinstance(node, Load) else None
                if src is None:
                    return None
                mapping = {a.name: i for a, i in zip(src.axes, node.indices, strict=True)}
                return substitute(self.bodies[src.name], mapping)

            self.bodies[st.name] = rewrite(st.body, fn)
            if st.attach == "inline":
                inlined[id(st.tensor)] = st
        self.emitted = [s for s in self.stages if s.attach != "inline"]

    def readers(self, st: Stage) -> list[Stage]:
        return [
            c
            for c in self.emitted
            if any(isinstance(n, Load) and n.tensor is st.tensor for n in walk(self.bodies[c.name]))
        ]

    # 2-4. buffers, bounds, loops -------------------------------------------------------------
    def plan(self) -> None:
        for st in reversed(self.emitted):
            starts, extents = self.domain(st)
            scope = "arg" if st.is_output else "local" if st.attach == "at" else "static"
            if scope == "local" and st.scope == "shared":
                scope = "shared"  # a GPU block's shared memory (cache_read(..., "shared"))
            shape = tuple(extents) if scope in ("local", "shared") else st.tensor.shape
            buf = Buffer(c_ident(st.name), shape, st.tensor.dtype, scope)
            self.info[st.name] = self.loop_info(st, starts, extents, buf)

    def domain(self, st: Stage) -> tuple[list[Expr], list[int]]:
        if st.attach != "at":
            return [Const(0)] * len(st.axes), [a.extent for a in st.axes]
        target_name, axis = st.attach_target  # type: ignore[misc]
        where = describe(self.sch.steps[st.attach_step], st.attach_step)  # type: ignore[index]
        target = self.sch.stages[target_name]
        if target.attach == "inline":
            raise ScheduleError(f"{where}: target stage {target_name!r} is inlined")
        readers = self.readers(st)
        # other readers computed at the same loop (softmax's sum and output both read its
        # max) run inside that loop too: the region covers what each of them reads; the
        # target itself need not read the stage (softmax's max computed at the output's row
        # loop, read only by the exp and sum stages computed there too)
        siblings = [r for r in readers if r.name != target_name]
        reads = len(siblings) < len(readers)
        if not readers or any(
            r.attach != "at" or r.attach_target != st.attach_target for r in siblings
        ):
            raise ScheduleError(
                f"{where}: stage {st.name!r} is read by {[r.name for r in readers]}; "
                "compute_at needs each reader to be the target or computed at the same loop"
            )
        tinfo = self.info[target_name]
        leaf_names = [lf.name for lf in target.leaves]
        if axis not in leaf_names:
            raise ScheduleError(
                f"{where}: axis {axis!r} is no longer a loop of {target_name!r} (later steps "
                f"split or fused it); its loops are {leaf_names}"
            )
        free = [tinfo.var(n) for n in leaf_names[leaf_names.index(axis) + 1 :]]
        if st.scope == "shared":
            free += [v for v in self.thread_vars() if v not in free]
        sources = [(tinfo, free)] if reads else []
        for r in siblings:
            sinfo = self.info[r.name]
            sources.append((sinfo, [sinfo.var(lf.name) for lf in r.leaves]))
        return self.region(st, sources)

    def thread_vars(self) -> list[str]:
        """Loop variables bound to threadIdx in the stages planned so far (the consumers):
        a block's shared buffer holds what every thread of the block reads, so its region
        is relaxed over them as over the loops inside the attach point."""
        return [
            info.var(lf.name)
            for info in self.info.values()
            for lf in info.stage.leaves
            if lf.thread is not None and lf.thread.startswith("threadIdx")
        ]

    def region(
        self, st: Stage, sources: list[tuple[LoopInfo, list[str]]]
    ) -> tuple[list[Expr], list[int]]:
        """Per axis of `st`: the start and extent of what the readers' free loops read
        (`sources`: each reader's loop info and its loops free inside the attach point)."""
        loads = [
            (info, free, n)
            for info, free in sources
            for n in walk(self.bodies[info.stage.name])
            if isinstance(n, Load) and n.tensor is st.tensor
        ]
        starts, extents = [], []
        for d, full in enumerate(st.tensor.shape):
            cands = []
            for info, free, ld in loads:
                idx = simplify(substitute(ld.indices[d], info.values), self.ranges)
                cands.append(self._span(idx, free))
            if any(c is None for c in cands) or len({str(c[0]) for c in cands}) != 1:
                starts.append(Const(0))
                extents.append(full)
                continue
            lo = min(c[1] for c in cands)
            hi = max(c[1] + c[2] for c in cands)
            starts.append(simplify(cands[0][0] + lo, self.ranges))
            extents.append(int(hi - lo))
        return starts, extents

    def _span(self, idx: Expr, free: list[str]) -> tuple[Expr, int, int] | None:
        """(base over fixed vars, constant offset of the minimum, extent) or None."""
        aff = to_affine(idx)
        if any(set(free) & free_vars(e) for e, _ in aff.opaque):
            return None
        offset, span = aff.const, 1
        for v in free:
            c = aff.coefs.pop(v, 0)
            hi = self.ranges[v][1]
            offset += min(0, c * hi)
            span += abs(c) * hi
        aff.const = 0
        return from_affine(aff), offset, span

    def loop_info(self, st: Stage, starts: list[Expr], dom: list[int], buf: Buffer) -> LoopInfo:
        extents = {a.name: e for a, e in zip(st.axes, dom, strict=True)}
        extents.update({a.name: a.extent for a in st.reduce_axes})
        divisible: dict[str, bool] = {}
        for rel in st.relations:
            if isinstance(rel, SplitRel):
                whole, prod = extents[rel.parent], math.prod(rel.factors)
                extents[rel.outputs[0]] = -(-whole // prod)
                extents.update(dict(zip(rel.outputs[1:], rel.factors, strict=True)))
                divisible[rel.parent] = whole % prod == 0
            else:
                extents[rel.output] = math.prod(extents[i] for i in rel.inputs)
        info = LoopInfo(st, extents, {}, {}, [], buf, starts)
        value: dict[str, Expr] = {lf.name: Var(info.var(lf.name)) for lf in st.leaves}
        for lf in st.leaves:
            self.ranges[info.var(lf.name)] = (0, extents[lf.name] - 1)
        for rel in reversed(st.relations):
            if isinstance(rel, SplitRel):
                acc = value[rel.outputs[0]]
                for out, f in zip(rel.outputs[1:], rel.factors, strict=True):
                    acc = acc * f + value[out]
                value[rel.parent] = acc
            else:
                rest = value[rel.output]
                for name in reversed(rel.inputs[1:]):
                    value[name] = rest % extents[name]
                    rest = rest // extents[name]
                value[rel.inputs[0]] = rest
        reduce_names = {a.name for a in st.reduce_axes}
        for parent, ok in divisible.items():
            if not ok:
                cond = simplify(value[parent] < extents[parent], self.ranges)
                if not isinstance(cond, Const):
                    info.guards.append((cond, self._is_reduce_axis(st, parent, reduce_names)))
        for i, a in enumerate(st.axes):
            info.local[a.name] = simplify(value[a.name], self.ranges)
            info.values[a.name] = simplify(starts[i] + value[a.name], self.ranges)
            if st.attach == "at":
                self._bound_guard(info, a.name, st.tensor.shape[i])
        for a in st.reduce_axes:
            info.local[a.name] = info.values[a.name] = simplify(value[a.name], self.ranges)
        return info

    @staticmethod
    def _is_reduce_axis(st: Stage, name: str, reduce_names: set[str]) -> bool:
        for lf in st.leaves:
            if lf.name == name:
                return lf.kind == "reduce"
        # a split (r.0) or a fused loop (r1+r2: fuse never mixes kinds) of reduce axes
        return any(
            part in reduce_names or any(part.startswith(r + ".") for r in reduce_names)
            for part in name.split("+")
        )

    def _bound_guard(self, info: LoopInfo, axis: str, size: int) -> None:
        """A computed-at region may stick out of the tensor; guard it unless provably not."""
        v = info.values[axis]
        lo, hi = bounds(v, self.ranges)
        if lo < 0:
            info.guards.append((v >= 0, False))
        if hi > size - 1:
            info.guards.append((v < size, False))

    # 5. nest -------------------------------------------------------------------------------
    def store_index(self, info: LoopInfo) -> Expr:
        names = [a.name for a in info.stage.axes]
        coords = info.local if info.buffer.scope in ("local", "shared") else info.values
        return simplify(flat_index([coords[n] for n in names], info.buffer.shape), self.ranges)

    def convert_loads(self, e: Expr) -> Expr:
        def fn(node: Expr) -> Expr | None:
            if not isinstance(node, Load):
                return None
            st = self.by_tensor.get(id(node.tensor))
            if st is None:  # a placeholder argument
                buf = self.arg_buffers[node.tensor.name]
                return BufferLoad(buf, flat_index(node.indices, buf.shape), node.dtype)
            pinfo = self.info[st.name]
            idx = list(node.indices)
            if pinfo.buffer.scope in ("local", "shared"):
                idx = [i - s for i, s in zip(idx, pinfo.starts, strict=True)]
            return BufferLoad(pinfo.buffer, flat_index(idx, pinfo.buffer.shape), node.dtype)

        return rewrite(e, fn)

    def stage_nest(self, st: Stage) -> list[Stmt]:
        info = self.info[st.name]
        body = self.bodies[st.name]
        idx = self.store_index(info)
        red = body if isinstance(body, Reduce) else None
        src = red.source if red is not None else body
        value = self.convert_loads(substitute(src, info.values))
        value = simplify(value, self.ranges)
        if red is not None:
            cur = BufferLoad(info.buffer, idx, info.buffer.dtype)
            value = Binary(REDUCE_OP[red.combiner], cur, value, value.dtype)
        spatial_guards = [c for c, r in info.guards if not r]
        main: Stmt = Store(info.buffer, idx, value)
        if info.guards:
            main = If(logical_and(*[c for c, _ in info.guards]), [main])
        first_reduce = next((i for i, lf in enumerate(st.leaves) if lf.kind == "reduce"), None)
        attached = self.attached_to(st.name)

        def build(i: int) -> list[Stmt]:
            out: list[Stmt] = []
            if i >= 0:
                for child in attached.get(st.leaves[i].name, []):
                    out += self.emit_stage(child)
            if red is not None and first_reduce == i + 1:
                out += self.init_nest(st, info, idx, red.combiner, spatial_guards, i + 1)
            if i + 1 < len(st.leaves):
                out.append(self.make_for(info, st.leaves[i + 1], build(i + 1)))
            else:
                out.append(main)
            return out

        return build(-1)

    def init_nest(self, st, info, idx, combiner, guards, start) -> list[Stmt]:
        init: Stmt = Store(info.buffer, idx, reduce_init(combiner, info.buffer.dtype))
        if guards:
            init = If(logical_and(*guards), [init])
        stmts: list[Stmt] = [init]
        for lf in reversed([lf for lf in st.leaves[start:] if lf.kind == "spatial"]):
            stmts = [self.make_for(info, lf, stmts)]
        return stmts

    def make_for(self, info: LoopInfo, lf, body: list[Stmt]) -> For:
        kind = {"none": "serial", "bind": "bind"}.get(lf.annotation, lf.annotation)
        var, extent = info.var(lf.name), info.extents[lf.name]
        return For(var, extent, kind, body, lf.thread, lf.pragmas, lf.kind == "reduce")

    def attached_to(self, name: str) -> dict[str, list[Stage]]:
        out: dict[str, list[Stage]] = {}
        for s in self.emitted:
            if s.attach == "at" and s.attach_target[0] == name:  # type: ignore[index]
                out.setdefault(s.attach_target[1], []).append(s)  # type: ignore[index]
        return out

    def emit_stage(self, st: Stage) -> list[Stmt]:
        decl: list[Stmt] = [Decl(self.info[st.name].buffer)] if st.attach == "at" else []
        return decl + self.stage_nest(st)

    def run(self) -> LoweredFunc:
        self.inline()
        self.arg_buffers = {
            t.name: Buffer(c_ident(t.name), t.shape, t.dtype, "arg") for t in self.sch.inputs
        }
        self.plan()
        body: list[Stmt] = []
        for st in self.emitted:
            if st.attach == "root":
                body += self.emit_stage(st)
        args = [self.arg_buffers[t.name] for t in self.sch.inputs]
        args += [self.info[t.name].buffer for t in self.sch.outputs]
        statics = [i.buffer for i in self.info.values() if i.buffer.scope == "static"]
        return LoweredFunc(self.name, args, statics, body, dict(self.ranges))


def lower(sch: Schedule, name: str = "tf_kernel") -> LoweredFunc:
    """Lower a schedule to loops; raises ScheduleError for invalid schedules."""
    return Lowerer(sch, name).run()


__all__ = ["lower", "c_ident", "coefficient"]
