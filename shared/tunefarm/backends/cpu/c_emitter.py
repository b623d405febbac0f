"""C emitter: loop-nest IR -> one C file following the kernel ABI (`tf_entry`, `tf_time`).

How annotations become C:
- parallel  -> `#pragma omp parallel for` (one region per kernel loop nest), or a plain loop
               when the nest is too small to pay for waking the thread team (`serial.py`);
- unroll    -> the body repeated with the loop variable replaced by constants (so local
               accumulator arrays are indexed by constants and GCC keeps them in registers);
               long loops get `#pragma GCC unroll` instead;
- pragma auto_unroll_max_step=N -> every serial loop inside (the loop itself included) whose
               nest runs at most N steps is unrolled as above, as TVM's auto-unroll does;
- vectorize -> GCC vector types (`vector_size`): contiguous loads/stores become vector
               loads/stores, loop-invariant scalars broadcast, `exp` a polynomial
               (Cephes' expf, 2 ulp); a guard or padding select on a rising bound
               (`j < n`) splits into a whole-vector branch and a lane-by-lane tail;
               anything else (gathers, math calls, other lane-dependent conditions) falls
               back to an `omp simd` loop;
- pragma peel_tail -> the loop's last iteration emitted apart (variable a constant), so
               the guards of a split that does not divide fold away there and are dropped
               from the other iterations where they provably hold (attention's key tiles).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
import re

from tunefarm.backends.cpu import serial
from tunefarm.backends.cpu.c_int8 import (
    BYTES,
    DOT4_SCALAR,
    IntLanes,
    NotVectorizable,
    int_vector_helpers,
)
from tunefarm.codegen.arith import SubstSimplifier, coefficient, simplify
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
from tunefarm.ir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    Expr,
    Logical,
    Select,
    Var,
    is_float,
    logical_and,
)
from tunefarm.ir.tensor import walk
from tunefarm.ir.transform import free_vars, rewrite
from tunefarm.target import Target

C_TYPES = {
    "float16": "_Float16",
    "float32": "float",
    "float64": "double",
    "int32": "int32_t",
    "int64": "int64_t",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "int16": "int16_t",
    "bool": "int32_t",
}
# what a buffer of each dtype holds: a bool buffer (a bool graph input) is numpy's one byte
# a value, 0 or 1, though a bool expression computes in int32
BUFFER_C_TYPES = {**C_TYPES, "bool": "uint8_t"}
VECTOR_DTYPES = ("float32", "int32")
UNROLL_EXPLICIT_MAX = 32
VECTOR_WIDTHS = (2, 4, 8, 16, 32)


class CodegenError(ValueError):
    pass


def subst_stmts(
    stmts: list[Stmt], var: str, value: Expr, simplifier: SubstSimplifier
) -> list[Stmt]:
    """Replace a loop variable in every expression of a statement list, simplifying (the
    simplifier keeps what does not depend on `var` from one unrolled copy to the next)."""

    def ex(e: Expr) -> Expr:
        return simplifier(e, var, value)

    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Store):
            out.append(Store(s.buffer, ex(s.index), ex(s.value)))
        elif isinstance(s, If):
            cond = ex(s.cond)
            if isinstance(cond, Const):
                if cond.value:
                    out += subst_stmts(s.body, var, value, simplifier)
                continue
            out.append(If(cond, subst_stmts(s.body, var, value, simplifier)))
        elif isinstance(s, For):
            out.append(
                For(
                    s.var,
                    s.extent,
                    s.kind,
                    subst_stmts(s.body, var, value, simplifier),
                    s.thread,
                    s.pragmas,
                    s.reduce,
                )
            )
        else:
            out.append(s)
    return out


def nest_steps(s: For) -> int:
    """Iterations of a loop nest counted as auto-unroll counts them: a vectorised loop is one
    step (it becomes one vector statement)."""
    inner = max((nest_steps(b) for b in s.body if isinstance(b, For)), default=1)
    for b in s.body:
        if isinstance(b, If):
            inner = max([inner, *(nest_steps(x) for x in b.body if isinstance(x, For))])
    return (1 if s.kind == "vectorize" else s.extent) * inner


def max_step_in(s: For, outer: int) -> int:
    """The auto_unroll_max_step in force inside `s`: its own pragma, else the enclosing one."""
    step = next((v for k, v in s.pragmas if k == "auto_unroll_max_step"), None)
    return outer if step is None else int(step)


def is_unrolled(s: For, max_step: int) -> bool:
    """Whether the emitter writes one copy of `s`'s body per iteration: an `unroll` loop
    short enough, or a serial nest of at most `max_step` steps under auto-unroll.
    (`unrolled_size` counts the copies with the same rule before anything is emitted.)"""
    if s.kind == "unroll":
        return s.extent <= UNROLL_EXPLICIT_MAX
    return s.kind == "serial" and 0 < s.extent <= UNROLL_EXPLICIT_MAX and nest_steps(s) <= max_step


def c_float(v: float, dtype: str = "float32") -> str:
    if math.isinf(v):  # gcc's builtin: INFINITY would need <math.h>
        inf = "__builtin_inff()" if dtype == "float32" else "__builtin_inf()"
        return inf if v > 0 else f"(-{inf})"
    text = repr(float(v))
    return text + "f" if dtype == "float32" else text


class CEmitter(IntLanes):
    def __init__(self, func: LoweredFunc, target: Target):
        self.func = func
        self.target = target
        self.lines: list[str] = []
        self.widths: set[int] = set()
        self.helpers: set[str] = set()  # C helpers beyond `header`, emitted only when used
        self.in_parallel = False
        self.max_step = 0  # the auto_unroll_max_step in force (0: none)
        self.simplifier = SubstSimplifier(func.ranges)  # unrolled copies share its memo
        self.vector_calls: set[tuple[str, int]] = set()  # (func, width) of VECTOR_MATH used
        # id(index sum) -> (sum, its C): unrolled copies share their index sums but for the
        # constant (`SubstSimplifier._shift`), so each is printed once
        self.index_text: dict[int, tuple[Expr, str]] = {}

    def free_vars(self, e: Expr) -> frozenset[str]:
        """The variables of `e`, memoised by node (the simplifier's memo): the vector paths
        ask it of every level of a tree, and of every unrolled copy's shared subtrees."""
        return self.simplifier.free_vars(e)

    # -- expressions ---------------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            return c_float(e.value, e.dtype) if is_float(e.dtype) else str(int(e.value))
        if isinstance(e, Var):
            return e.name
        if isinstance(e, BufferLoad):
            return f"{e.buffer.name}[{self.expr(e.index)}]"
        if type(e) is Binary and e.dtype == "int32":
            return self.index_expr(e)
        if isinstance(e, Binary):
            return self.binary(e)
        if isinstance(e, Compare):
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if isinstance(e, Logical):
            if e.op == "not":
                return f"(!{self.expr(e.a)})"
            op = "&&" if e.op == "and" else "||"
            return f"({self.expr(e.a)} {op} {self.expr(e.b)})"  # type: ignore[arg-type]
        if isinstance(e, Select):
            return f"({self.expr(e.cond)} ? {self.expr(e.true_value)} : {self.expr(e.false_value)})"
        if isinstance(e, Cast):
            return f"(({C_TYPES[e.dtype]})({self.expr(e.value)}))"
        if isinstance(e, Call) and e.func == "dot4":
            self.helpers.add(DOT4_SCALAR)
            return f"tf_dot4({self.expr(e.args[0])}, {self.expr(e.args[1])})"
        if isinstance(e, Call):  # gcc's builtin (the same libm call, or inline): no <math.h>
            suffix = "f" if e.dtype == "float32" else ""
            return f"__builtin_{e.func}{suffix}({', '.join(self.expr(a) for a in e.args)})"
        raise CodegenError(f"cannot emit expression node {type(e).__name__}")

    def binary(self, e: Binary) -> str:
        a, b = self.expr(e.a), self.expr(e.b)
        if e.op in ("min", "max"):
            cmp = "<" if e.op == "min" else ">"
            return (
                f"tf_{e.op}_{C_TYPES[e.dtype].split('_')[0]}({a}, {b})"
                if is_float(e.dtype)
                else f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"
            )
        op = "/" if e.op == "//" else e.op
        return f"({a} {op} {b})"

    def index_expr(self, e: Binary) -> str:
        """`binary` of an int32 operation, memoised by node (see `index_text`)."""
        hit = self.index_text.get(id(e))
        if hit is not None:
            return hit[1]
        text = self.binary(e)
        self.index_text[id(e)] = (e, text)
        return text

    # -- vector expressions ---------------------------------------------------------------
    def vexpr(self, e: Expr, v: str, width: int) -> tuple[str, bool]:
        """(code, is_vector) of `e` inside a loop over lanes `v`."""
        if v not in self.free_vars(e):
            return self.expr(e), False
        if isinstance(e, BufferLoad):
            if e.dtype not in VECTOR_DTYPES or self.simplifier.coefficient(e.index, v) != 1:
                raise NotVectorizable("non-contiguous load")
            base = self.expr(self.simplifier(e.index, v, Const(0)))
            kind = self.vkind(e.dtype, width)
            return f"(*(const tf_v{width}{kind}u*)(&{e.buffer.name}[{base}]))", True
        if isinstance(e, Cast) or (isinstance(e, Call) and e.func == "nearbyint"):
            return self.vexpr_convert(e, v, width)
        if e.dtype == "int32":
            return self.vexpr_int(e, v, width)
        if isinstance(e, Binary) and is_float(e.dtype) and e.dtype == "float32":
            (a, av), (b, bv) = self.vexpr(e.a, v, width), self.vexpr(e.b, v, width)
            if e.op == "/" and not bv and not isinstance(e.b, Const):
                # by a lane-invariant variable (a softmax's sum): one division, not 16
                return f"({a} * (1.0f / {b}))", True
            if e.op in ("+", "-", "*", "/"):
                return f"({a} {e.op} {b})", True
            if e.op in ("min", "max"):
                return (
                    f"tf_v{width}_{e.op}({self.vec(a, av, width)}, {self.vec(b, bv, width)})",
                    True,
                )
        if isinstance(e, Call) and e.func == "fma" and e.dtype == "float32":
            args = [self.vec(*self.vexpr(a, v, width), width) for a in e.args]
            self.vector_calls.add(("fma", width))
            return f"tf_v{width}_fma({', '.join(args)})", True
        if isinstance(e, Call) and e.func in VECTOR_MATH and e.dtype == "float32":
            arg, is_vec = self.vexpr(e.args[0], v, width)
            self.vector_calls.update((f, width) for f in VECTOR_MATH[e.func][1])
            return f"tf_v{width}_{e.func}({self.vec(arg, is_vec, width)})", True
        if isinstance(e, Select) and e.dtype == "float32":
            (t, tv), (f, fv) = (
                self.vexpr(e.true_value, v, width),
                self.vexpr(e.false_value, v, width),
            )
            t, f = self.vec(t, tv, width), self.vec(f, fv, width)
            if v not in self.free_vars(e.cond):
                return f"({self.expr(e.cond)} ? {t} : {f})", True
            c = e.cond
            tested = [n for n in walk(c) if isinstance(n, BufferLoad)]
            if any(
                isinstance(n, BufferLoad) and v in self.free_vars(n.index) and n not in tested
                for branch in (e.true_value, e.false_value)
                for n in walk(branch)
            ):
                # Both branches of a vector select are evaluated for every lane; a guarded
                # load (padding) could read outside its buffer, so keep it a scalar loop
                # (a load the condition itself reads is read by every lane anyway).
                raise NotVectorizable("lane-dependent guarded load")
            if isinstance(c, Compare) and is_float(c.a.dtype):
                (x, xv), (y, yv) = self.vexpr(c.a, v, width), self.vexpr(c.b, v, width)
                mask = f"({self.vec(x, xv, width)} {c.op} {self.vec(y, yv, width)})"
                return f"tf_v{width}_sel({mask}, {t}, {f})", True
        raise NotVectorizable(type(e).__name__)

    def vec(self, code: str, is_vec: bool, width: int, dtype: str = "float32") -> str:
        if is_vec:
            return code
        if dtype == "int32":
            self.helpers.add(int_vector_helpers(width))
            return f"tf_v{width}i_bc({code})"
        return f"tf_v{width}_bc({code})"

    # -- statements -----------------------------------------------------------------------
    def emit(self, line: str, depth: int) -> None:
        self.lines.append("  " * depth + line)

    def stmts(self, body: list[Stmt], depth: int) -> None:
        for s in body:
            self.stmt(s, depth)

    def stmt(self, s: Stmt, depth: int) -> None:
        if isinstance(s, Store):
            self.emit(f"{s.buffer.name}[{self.expr(s.index)}] = {self.expr(s.value)};", depth)
        elif isinstance(s, If):
            self.emit(f"if ({self.expr(s.cond)}) {{", depth)
            self.stmts(s.body, depth + 1)
            self.emit("}", depth)
        elif isinstance(s, Decl):
            b = s.buffer
            self.emit(f"{C_TYPES[b.dtype]} {b.name}[{b.size}] __attribute__((aligned(64)));", depth)
        elif isinstance(s, For):
            self.loop(s, depth)
        else:
            raise CodegenError(f"cannot emit statement {type(s).__name__}")

    def loop(self, s: For, depth: int) -> None:
        saved, self.max_step = self.max_step, max_step_in(s, self.max_step)
        try:
            self._loop(s, depth)
        finally:
            self.max_step = saved

    def _loop(self, s: For, depth: int) -> None:
        if s.kind == "bind":
            raise CodegenError(
                f"loop {s.var} is bound to {s.thread}: bind is for GPU targets, "
                f"this target is {self.target}"
            )
        if s.extent == 1:
            self.stmts(subst_stmts(s.body, s.var, Const(0), self.simplifier), depth)
            return
        if s.reduce and self.try_horizontal(s, depth):
            return
        if is_unrolled(s, self.max_step):
            scoped = any(isinstance(x, Decl) for x in walk_stmts(s.body))
            for k in range(s.extent):
                if scoped:  # each copy declares its own local buffers
                    self.emit("{", depth)
                self.stmts(subst_stmts(s.body, s.var, Const(k), self.simplifier), depth + scoped)
                if scoped:
                    self.emit("}", depth)
            return
        if s.kind == "vectorize" and self.try_vector(s, depth):
            return
        if s.kind == "serial" and s.extent > 1 and any(k == "peel_tail" for k, _ in s.pragmas):
            self.peeled_loop(s, depth)
            return
        self.pragmas(s, depth)
        self.emit(f"for (int32_t {s.var} = 0; {s.var} < {s.extent}; ++{s.var}) {{", depth)
        was_parallel = self.in_parallel
        self.in_parallel = was_parallel or s.kind == "parallel"
        self.stmts(s.body, depth + 1)
        self.in_parallel = was_parallel
        self.emit("}", depth)

    def peeled_loop(self, s: For, depth: int) -> None:
        """`peel_tail`: the loop's last iteration emitted apart, with the variable a
        constant, so guards of a split that does not divide (attention's score tile of
        `tile_o` key vectors over an odd count of vectors) fold away in it, and are
        dropped from the other iterations where they provably hold: whole register tiles
        run unguarded and the tail tile computes only the vectors that exist."""
        last = s.extent - 1
        main = _drop_proven(s.body, s.var, last - 1, {}, self.simplifier)
        self.emit(f"for (int32_t {s.var} = 0; {s.var} < {last}; ++{s.var}) {{", depth)
        self.stmts(main, depth + 1)
        self.emit("}", depth)
        self.emit("{", depth)
        self.stmts(subst_stmts(s.body, s.var, Const(last), self.simplifier), depth + 1)
        self.emit("}", depth)

    def pragmas(self, s: For, depth: int) -> None:
        if s.kind == "parallel":
            if self.in_parallel:
                raise CodegenError(
                    f"loop {s.var}: parallel loop nested inside another parallel "
                    "loop; parallelise only the outer loop"
                )
            self.parallel_pragma(s, depth)
        elif s.kind == "unroll":
            self.emit(f"#pragma GCC unroll {min(s.extent, 64)}", depth)
        elif s.kind == "vectorize":
            self.emit("#pragma omp simd", depth)
        for key, _ in s.pragmas:
            if key == "ivdep":
                self.emit("#pragma GCC ivdep", depth)
            elif key == "simd" and s.kind != "vectorize":
                self.emit("#pragma omp simd", depth)

    def parallel_pragma(self, s: For, depth: int) -> None:
        """A parallel loop becomes an OpenMP region unless it is too small to pay for
        waking the thread team (`serial.runs_serially`): then it runs on the calling thread,
        with a comment saying so."""
        if serial.runs_serially(s, self.target):
            self.emit(f"/* serial: work {serial.nest_work([s])} */", depth)
            return
        cores = self.target.get("cores")
        threads = f" num_threads({cores})" if cores else ""
        self.emit(f"#pragma omp parallel for{threads} schedule(static)", depth)

    def try_vector(self, s: For, depth: int) -> bool:
        """Emit the lane loop as vector statements; False if it must stay a scalar loop."""
        width = s.extent
        if width not in VECTOR_WIDTHS:
            return False
        body, conds, tail = s.body, [], []
        while len(body) == 1 and isinstance(body[0], If):
            parts = _conjuncts(body[0].cond)
            lane = [c for c in parts if s.var in self.free_vars(c)]
            if lane and not all(_rising_bound(c, s.var) for c in lane):
                return False
            conds += [c for c in parts if s.var not in self.free_vars(c)]
            tail += lane
            body = body[0].body
        if not all(isinstance(b, Store) for b in body):
            return False
        try:
            lines = [self.vstore(b, s.var, width) for b in body]  # type: ignore[arg-type]
        except NotVectorizable:
            return not tail and self.try_vector_peeled(s, conds, body, depth)
        self.widths.add(width)
        for c in conds:
            self.emit(f"if ({self.expr(c)}) {{", depth)
            depth += 1
        if tail:  # the last lane in bounds: all are (a rising index under a bound)
            last = [self.simplifier(c, s.var, Const(width - 1)) for c in tail]
            self.emit(f"if ({self.expr(logical_and(*last))}) {{", depth)
        for line in lines:
            self.emit(line, depth + bool(tail))
        if tail:  # the partial vector at the end: lane by lane, each tested
            self.lane_by_lane(s, body, tail, depth)
        for _ in conds:
            depth -= 1
            self.emit("}", depth)
        return True

    def lane_by_lane(self, s: For, body: list[Stmt], tests: list[Expr], depth: int) -> None:
        """The `else` of a whole-vector test: the lane loop run lane by lane for the partial
        vector at a row's end, each lane tested by `tests` where there are any."""
        self.emit("} else {", depth)
        self.emit(f"for (int32_t {s.var} = 0; {s.var} < {s.extent}; ++{s.var}) {{", depth + 1)
        if tests:
            self.emit(f"if ({self.expr(logical_and(*tests))}) {{", depth + 2)
        self.stmts(body, depth + 2 + bool(tests))
        if tests:
            self.emit("}", depth + 2)
        self.emit("}", depth + 1)
        self.emit("}", depth)

    def try_vector_peeled(self, s: For, conds: list[Expr], body: list[Stmt], depth: int) -> bool:
        """Stores whose selects test a rising bound on the lane (`j < Sk` writing the zero
        padding of a row, attention's padded K^T) as a whole vector of the true branch
        where the last lane passes the test (every lane then does), lane by lane in the
        partial vector at the end, so only the last vector of a row stays scalar. False:
        no such select, or the true branches do not vectorize either."""
        width, guards = s.extent, []

        def peel(e: Expr) -> Expr | None:
            if not (isinstance(e, Select) and _rising_bound(e.cond, s.var)):
                return None
            guards.append(e.cond)
            return _drop_clamp(e.true_value, e.cond)

        whole = [Store(b.buffer, b.index, rewrite(b.value, peel)) for b in body]  # type: ignore[union-attr]
        if not guards:
            return False
        last = simplify(
            logical_and(*(self.simplifier(c, s.var, Const(width - 1)) for c in guards)),
            self.simplifier.ranges,
        )
        if isinstance(last, Const) and not last.value:
            return False  # no vector of the loop is whole: the scalar `omp simd` loop
        try:
            lines = [self.vstore(b, s.var, width) for b in whole]
        except NotVectorizable:
            return False
        self.widths.add(width)
        for c in conds:
            self.emit(f"if ({self.expr(c)}) {{", depth)
            depth += 1
        always = isinstance(last, Const)  # every vector whole: no scalar tail
        if not always:
            self.emit(f"if ({self.expr(last)}) {{", depth)
        for line in lines:
            self.emit(line, depth + (not always))
        if not always:
            self.lane_by_lane(s, body, [], depth)
        for _ in conds:
            depth -= 1
            self.emit("}", depth)
        return True

    def try_horizontal(self, s: For, depth: int) -> bool:
        """A short reduce loop folding contiguous floats into one accumulator (the last
        stage of a factored reduction: its partial results, one vector) becomes one vector
        load and a tree of log2(width) vector steps; as a scalar loop it is a chain of
        `width` dependent additions (GCC keeps the order of float sums) on the critical
        path of every row of a softmax or layer norm. False: not that pattern."""
        width, body = s.extent, s.body
        if width not in VECTOR_WIDTHS or len(body) != 1 or not isinstance(body[0], Store):
            return False
        st, value = body[0], body[0].value
        if not (
            st.buffer.dtype == "float32"
            and isinstance(value, Binary)
            and value.op in HORIZONTAL
            and isinstance(value.a, BufferLoad)
            and value.a.buffer is st.buffer
            and str(value.a.index) == str(st.index)
            and s.var not in self.free_vars(st.index)
            and isinstance(value.b, BufferLoad)
            and value.b.dtype == "float32"
            and self.simplifier.coefficient(value.b.index, s.var) == 1
        ):
            return False
        code, _ = self.vexpr(value.b, s.var, width)
        self.widths.add(width)
        name = HORIZONTAL[value.op]
        self.helpers.add(vector_horizontal(width, name))
        acc, part = self.expr(value.a), f"tf_v{width}_h{name}({code})"
        total = f"({acc} + {part})" if value.op == "+" else f"tf_{name}_float({acc}, {part})"
        self.emit(f"{acc} = {total};", depth)
        return True

    def vstore(self, st: Store, v: str, width: int) -> str:
        dtype = st.buffer.dtype
        if dtype in BYTES and self.simplifier.coefficient(st.index, v) == 1:
            code, is_vec = self.vexpr(st.value, v, width)
            if not is_vec:
                raise NotVectorizable("lane-invariant byte store")
            base = self.expr(self.simplifier(st.index, v, Const(0)))
            return f"*(tf_v{width}{BYTES[dtype]}*)(&{st.buffer.name}[{base}]) = {code};"
        if dtype not in VECTOR_DTYPES or self.simplifier.coefficient(st.index, v) != 1:
            raise NotVectorizable("non-contiguous store")
        code, is_vec = self.vexpr(st.value, v, width)
        base = self.expr(self.simplifier(st.index, v, Const(0)))
        kind = self.vkind(dtype, width)
        value = self.vec(code, is_vec, width, dtype)
        return f"*(tf_v{width}{kind}u*)(&{st.buffer.name}[{base}]) = {value};"

    # -- module ---------------------------------------------------------------------------
    def module(self) -> str:
        f = self.func
        self.lines = []
        self.stmts(f.body, 1)
        body = self.lines
        params = ", ".join(f"void* restrict {b.name}_raw" for b in f.args)
        out = [
            *header("\n".join([*body, *self.helpers])),
            *map(vector_helpers, sorted(self.widths)),
        ]
        out += vector_math(self.vector_calls, self.widths)
        out += sorted(self.helpers)
        for b in f.statics:
            out.append(
                f"static {C_TYPES[b.dtype]} {b.name}[{b.size}] __attribute__((aligned(64)));"
            )
        out.append(f"__attribute__((noinline)) static int32_t {f.name}({params}) {{")
        for b in f.args:
            t = BUFFER_C_TYPES[b.dtype]
            out.append(
                f"  {t}* restrict {b.name} = ({t}*)__builtin_assume_aligned({b.name}_raw, 64);"
            )
        out += body
        out.append("  return 0;\n}")
        call_args = ", ".join(f"args[{i}]" for i in range(len(f.args)))
        clock = timing_clock(self.target)
        out.append(ENTRY.format(name=f.name, args=call_args, clock=clock))
        return "\n".join(out) + "\n"


# scalar min/max, each emitted only into modules that call it
SCALAR_MINMAX = {
    f"tf_{op}_{t}": f"static inline {t} tf_{op}_{t}({t} a, {t} b) {{ return a {cmp} b ? a : b; }}"
    for t in ("float", "double")
    for op, cmp in (("min", "<"), ("max", ">"))
}
SCALAR_CALL = re.compile(r"\b(tf_(?:min|max)_(?:float|double))\(")
LIBM_CONSTANTS = re.compile(r"\b(INFINITY|NAN)\b")


def header(code: str) -> list[str]:
    """The includes and scalar helpers a module needs, and only those: gcc parses every
    line of every header for every candidate, and <math.h> alone is 49 kB of declarations
    (5 ms of CPU per build, 6% of a softmax's). Libm calls and infinities are emitted as
    gcc builtins, so <math.h> is included only if `code` (the body and helpers) names one of
    its constants."""
    out = ["#include <stdint.h>"]
    if LIBM_CONSTANTS.search(code):
        out.append("#include <math.h>")
    out.append("#include <time.h>")  # tf_time's clock_gettime
    used = set(SCALAR_CALL.findall(code))
    out += [c for name, c in SCALAR_MINMAX.items() if name in used]
    return out


def timing_clock(target: Target) -> str:
    """The clock `tf_time` reads. A kernel for `-cores=1` runs entirely on the calling
    thread, so that thread's CPU time is its time and, unlike the wall clock, does not count
    the slices the scheduler gives other processes: on a shared host (load 10-20 on 2 cores)
    a tuner timing by the wall clock ranks candidates by their neighbours (one squeezenet
    conv measured 1-45 ms for one config). Multi-threaded kernels keep the monotonic clock:
    the calling thread's CPU time is not theirs."""
    return "CLOCK_THREAD_CPUTIME_ID" if target.get("cores") == "1" else "CLOCK_MONOTONIC"


def kernel_clock(target: Target) -> str:
    """`timing_clock` as the measurer names it (`measure.child.CLOCKS`), so that the checked
    run can be timed as `tf_time` times the others."""
    return "thread" if timing_clock(target) == "CLOCK_THREAD_CPUTIME_ID" else "monotonic"


ENTRY = """
int32_t tf_entry(void** args) {{ return {name}({args}); }}
double tf_time(void** args, int32_t number) {{
  struct timespec t0, t1;
  clock_gettime({clock}, &t0);
  for (int32_t i = 0; i < number; ++i) {name}({args});
  clock_gettime({clock}, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}}"""


# x86 max/min instructions per vector width: (macro of the ISA, GCC builtin of max, extra
# arguments); they return b where either operand is NaN, as the generic select does
NATIVE_MINMAX = {
    16: ("__AVX512F__", "__builtin_ia32_{op}ps512_mask", ", a, (unsigned short)-1, 4"),
    8: ("__AVX__", "__builtin_ia32_{op}ps256", ""),
    4: ("__SSE__", "__builtin_ia32_{op}ps", ""),
}


def _conjuncts(cond: Expr) -> list[Expr]:
    """The terms of a chain of `and`s."""
    if isinstance(cond, Logical) and cond.op == "and" and cond.b is not None:
        return _conjuncts(cond.a) + _conjuncts(cond.b)
    return [cond]


def _rising_bound(cond: Expr, var: str) -> bool:
    """Whether `cond` is `index < bound` with the index rising in `var` and the bound not
    depending on it: true at the last lane means true at every lane (a vector that does not
    stick out of its tensor), so the guard splits into a whole-vector and a tail branch."""
    return (
        isinstance(cond, Compare)
        and cond.op in ("<", "<=")
        and var not in free_vars(cond.b)
        and (coefficient(cond.a, var) or 0) > 0
    )


def _drop_proven(
    stmts: list[Stmt], var: str, top: int, inner: dict[str, int], simp: SubstSimplifier
) -> list[Stmt]:
    """`stmts` without the guard conjuncts that hold for `var` <= `top` and every value of
    the loops inside (`inner`: variable -> extent)."""
    out: list[Stmt] = []
    for st in stmts:
        if isinstance(st, For):
            body = _drop_proven(st.body, var, top, {**inner, st.var: st.extent}, simp)
            out.append(dataclasses.replace(st, body=body))
        elif isinstance(st, If):
            body = _drop_proven(st.body, var, top, inner, simp)
            keep = [c for c in _conjuncts(st.cond) if not _holds(c, var, top, inner, simp)]
            out += [If(logical_and(*keep), body)] if keep else body
        else:
            out.append(st)
    return out


def _holds(c: Expr, var: str, top: int, inner: dict[str, int], simp: SubstSimplifier) -> bool:
    """Whether `c`, an index below a bound rising in `var` and the inner loop variables,
    is true at `var` = `top` with every inner variable at its last value (so everywhere)."""
    names = free_vars(c)
    if not (isinstance(c, Compare) and c.op in ("<", "<=") and var in names):
        return False
    if not names <= {var, *inner} or free_vars(c.b):
        return False
    coefs = [coefficient(c.a, v) for v in names]
    if any(k is None or k < 0 for k in coefs):
        return False
    for v in names:
        c = simp(c, v, Const(top if v == var else inner[v] - 1))
    return isinstance(c, Const) and bool(c.value)


def _drop_clamp(e: Expr, cond: Expr) -> Expr:
    """`e` where `cond` (x < n) holds: min(x, n - 1) is x there, so an index clamped to
    keep a padded load in bounds becomes the contiguous x again."""
    assert isinstance(cond, Compare)
    if cond.op == "<" and isinstance(cond.b, Const):
        top = Const(cond.b.value - 1, cond.b.dtype)
    elif cond.op == "<=" and isinstance(cond.b, Const):
        top = cond.b
    else:
        return e

    def fn(node: Expr) -> Expr | None:
        if isinstance(node, Binary) and node.op == "min" and node.a == cond.a and node.b == top:
            return node.a
        return None

    return rewrite(e, fn)


def vector_helpers(w: int) -> str:
    return f"""\
typedef float tf_v{w}f __attribute__((vector_size({4 * w})));
typedef float tf_v{w}fu __attribute__((vector_size({4 * w}), aligned(4)));
typedef int32_t tf_v{w}i __attribute__((vector_size({4 * w})));
static inline tf_v{w}f tf_v{w}_bc(float s) {{ return (tf_v{w}f){{0}} + s; }}
static inline tf_v{w}f tf_v{w}_sel(tf_v{w}i m, tf_v{w}f a, tf_v{w}f b) {{
  return (tf_v{w}f)(((tf_v{w}i)a & m) | ((tf_v{w}i)b & ~m)); }}
{vector_minmax(w)}"""


def vector_minmax(w: int) -> str:
    """max and min of two vectors: GCC does not turn the generic select (a compare and two
    bitwise operations) into the max instruction, which costs a max reduction or exp's
    clamp three instructions per vector instead of one; the ISA's builtin where it has one
    (no header: immintrin.h would add half a second to every build)."""
    generic = "\n".join(
        f"static inline tf_v{w}f tf_v{w}_{op}(tf_v{w}f a, tf_v{w}f b) "
        f"{{ return tf_v{w}_sel(a {cmp} b, a, b); }}"
        for op, cmp in (("max", ">"), ("min", "<"))
    )
    if w not in NATIVE_MINMAX:
        return generic
    macro, builtin, extra = NATIVE_MINMAX[w]
    native = "\n".join(
        f"static inline tf_v{w}f tf_v{w}_{op}(tf_v{w}f a, tf_v{w}f b) "
        f"{{ return {builtin.format(op=op)}(a, b{extra}); }}"
        for op in ("max", "min")
    )
    return f"#if defined({macro})\n{native}\n#else\n{generic}\n#endif"


HORIZONTAL = {"+": "add", "max": "max", "min": "min"}


def vector_horizontal(w: int, name: str) -> str:
    """The sum (max, min) of a vector's lanes: fold its upper half onto its lower one down
    to four lanes, each half a narrower vector type (the two members of a union), so every
    step is one instruction on a narrower register instead of a full-width shuffle and
    operation (7% of a softmax row of 128 floats); then two shuffles within the four.
    Self-contained: local types only."""
    lines = [f"static inline float tf_v{w}_h{name}(tf_v{w}f v) {{"]
    if w == 2:
        a, b = "v[0]", "v[1]"
        last = f"{a} + {b}" if name == "add" else f"tf_{name}_float({a}, {b})"
        return "\n".join([*lines, f"  return {last}; }}"])
    var, k = "v", w
    while k > 4:
        h = k // 2
        wide = f"tf_v{w}f" if k == w else f"h{k}"
        lines += [
            f"  typedef float h{h} __attribute__((vector_size({4 * h})));",
            f"  union {{ {wide} v; h{h} h[2]; }} u{h} = {{{var}}};",
            *_fold(h, name, f"u{h}.h[0]", f"u{h}.h[1]", f"v{h}"),
        ]
        var, k = f"v{h}", h
    if w == 4:
        lines.append("  typedef float h4 __attribute__((vector_size(16)));")
    lines += [
        "  typedef int32_t s4 __attribute__((vector_size(16)));",
        f"  h4 p = (h4){var};",
        *_fold(4, name, "p", "__builtin_shuffle(p, (s4){2, 3, 2, 3})", "q"),
        *_fold(4, name, "q", "__builtin_shuffle(q, (s4){1, 1, 1, 1})", "r"),
        "  return r[0]; }",
    ]
    return "\n".join(lines)


def _fold(h: int, name: str, a: str, b: str, out: str) -> list[str]:
    """`h{h} out = a op b` on vectors of h lanes (max/min: the ISA's instruction where the
    target has it, the generic select otherwise)."""
    if name == "add":
        return [f"  h{h} {out} = {a} + {b};"]
    cmp = ">" if name == "max" else "<"
    generic = [
        f"  typedef int32_t i{out} __attribute__((vector_size({4 * h})));",
        f"  i{out} m{out} = {a} {cmp} {b};",
        f"  h{h} {out} = (h{h})(((i{out}){a} & m{out}) | ((i{out}){b} & ~m{out}));",
    ]
    if h not in NATIVE_MINMAX:
        return generic
    macro, builtin, extra = NATIVE_MINMAX[h]
    call = f"{builtin.format(op=name)}({a}, {b}{extra.replace(', a,', f', {a},')})"
    return [f"#if defined({macro})", f"  h{h} {out} = {call};", "#else", *generic, "#endif"]


def vector_exp(w: int) -> str:
    """exp on a vector, emitted only into modules that use it (Cephes' expf: range reduction
    by ln 2, a degree-6 polynomial, the exponent put back in the float's bits; 2 ulp).
    n = round(x / ln 2) by adding and subtracting 1.5 * 2^23 (0x4B400000), whose low
    mantissa bits are then n itself: two additions, where a rounding select and two
    conversions took five instructions (|x / ln 2| <= 128 after the clamp)."""
    return f"""\
static inline tf_v{w}f tf_v{w}_exp(tf_v{w}f x) {{
  x = tf_v{w}_min(tf_v{w}_max(x, tf_v{w}_bc(-87.3f)), tf_v{w}_bc(88.3f));
  tf_v{w}f big = x * 1.44269504f + 12582912.0f;
  tf_v{w}f nf = big - 12582912.0f;
  tf_v{w}f r = x - nf * 0.693359375f + nf * 2.12194440e-4f;
  tf_v{w}f p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f; p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f; p = p * r + 5.0000001201e-1f;
  tf_v{w}i bits = ((tf_v{w}i)big - (0x4B400000 - 127)) << 23;
  return (p * r * r + r + 1.0f) * (tf_v{w}f)bits; }}"""


def vector_erf(w: int) -> str:
    """erf on a vector, emitted only into modules that use it (BERT's GELU; needs
    tf_v{w}_exp), both forms fitted here (weighted least squares) for this file, on a = |x|
    clamped to 4 (erf(4) is 1 - 1.5e-8, 1.0f in float), x's sign bit put back:
    - a <= 0.9: a P(a^2), P of degree 5 (relative error 1.2e-8 of the fit);
    - above: 1 - exp(-a^2) R(a), R = erfc(a) exp(a^2) as a rational of degree 3/3 (4e-8).
    One rational x P(x^2) / Q(x^2) for all of [0, 4] was cheaper, but its float evaluation
    near 1 (|x| ~ 3.8) was 5 ulp off (3.0e-7); here erfc is computed, not 1 - erf. Max abs
    error 1.1e-7 over the floats. Both forms are computed and one selected per lane; the
    select takes the polynomial when the comparison is false, so a NaN gives NaN; +-inf give
    +-1, +-0 keep their sign, a denormal x gives 2x / sqrt(pi)."""
    return f"""\
static inline tf_v{w}f tf_v{w}_erf(tf_v{w}f x) {{
  tf_v{w}i sign = (tf_v{w}i)x & (int32_t)0x80000000;
  tf_v{w}f a = tf_v{w}_min(tf_v{w}_bc(4.0f), (tf_v{w}f)((tf_v{w}i)x & 0x7FFFFFFF));
  tf_v{w}f s = a * a;
  tf_v{w}f p = s * -0.0006086068f + 0.0050110836f;
  p = p * s - 0.026778277f; p = p * s + 0.11282122f; p = p * s - 0.37612522f;
  p = p * s + 1.1283791f;
  tf_v{w}f n = a * -7.1164286e-05f + 0.24299775f;
  n = n * a + 0.7477953f; n = n * a + 1.0012448f;
  tf_v{w}f d = a * 0.42823938f + 1.3465894f;
  d = d * a + 1.8838315f; d = d * a + 1.0f;
  tf_v{w}f big = 1.0f - tf_v{w}_exp(-s) * n / d;
  tf_v{w}f r = tf_v{w}_sel(a > 0.9f, big, a * p);
  return (tf_v{w}f)((tf_v{w}i)r | sign); }}"""


def vector_tanh(w: int) -> str:
    """tanh on a vector, emitted only into modules that use it (needs tf_v{w}_exp): for
    |x| > 0.625, 1 - 2 / (exp(2|x|) + 1) (exp clamps its argument,
    so a large |x| or inf gives exactly 1, no overflow); below, where that form loses the
    relative accuracy to cancellation, x + x^3 P(x^2) with P of degree 5 fitted here for
    relative error (1.3 ulp). Both are computed on |x| and one selected per lane, then x's
    sign bit is put back (tanh(-0) is -0); the select takes the polynomial when the
    comparison is false, so a NaN gives NaN."""
    return f"""\
static inline tf_v{w}f tf_v{w}_tanh(tf_v{w}f x) {{
  tf_v{w}i sign = (tf_v{w}i)x & (int32_t)0x80000000;
  tf_v{w}f a = (tf_v{w}f)((tf_v{w}i)x & 0x7FFFFFFF);
  tf_v{w}f big = 1.0f - 2.0f / (tf_v{w}_exp(a + a) + 1.0f);
  tf_v{w}f s = a * a;
  tf_v{w}f p = s * 0.002138219f - 0.008171781f;
  p = p * s + 0.021698207f; p = p * s - 0.053946253f; p = p * s + 0.13333201f;
  p = p * s - 0.3333333f;
  tf_v{w}f r = tf_v{w}_sel(a > 0.625f, big, a + a * s * p);
  return (tf_v{w}f)((tf_v{w}i)r | sign); }}"""


def vector_fma(w: int) -> str:
    """fma on vectors, rounded once per lane as C's fmaf (an int8 epilogue's QLinearAdd rule
    and HardSwish are bit-exact against numpy only so): a lane loop of the builtin, which
    GCC turns into one vfmadd where the target has FMA (the libm call elsewhere)."""
    return f"""\
static inline tf_v{w}f tf_v{w}_fma(tf_v{w}f a, tf_v{w}f b, tf_v{w}f c) {{
  tf_v{w}f r;
  for (int i = 0; i < {w}; ++i) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
  return r; }}"""


# float32 calls vexpr vectorises: func -> (helper, the helpers it needs, in emission order)
VECTOR_MATH = {
    "fma": (vector_fma, ("fma",)),
    "exp": (vector_exp, ("exp",)),
    "erf": (vector_erf, ("exp", "erf")),
    "tanh": (vector_tanh, ("exp", "tanh")),
}


def vector_math(calls: set[tuple[str, int]], widths: set[int]) -> list[str]:
    """The helpers of the vector calls used at widths the module kept (a loop that turned out
    not vectorisable may have asked for one), each once, a helper after those it calls."""
    return [
        VECTOR_MATH[func][0](w)
        for w in sorted(widths)
        for func in VECTOR_MATH
        if (func, w) in calls
    ]


def emit_c(func: LoweredFunc, target: Target) -> str:
    if target.kind != "cpu":
        raise CodegenError(f"the C emitter generates CPU code; target is {target}")
    emitter = CEmitter(func, target)
    with _no_cycle_collection():
        try:
            return emitter.module()
        finally:
            emitter.simplifier.clear()  # freed now, not by the collector's next full walk


@contextlib.contextmanager
def _no_cycle_collection():
    """Pause Python's cycle collector while emitting. Unrolling keeps memos of hundreds of
    thousands of expression nodes alive (`SubstSimplifier`), and each collection of the old
    generation walks all of them: with the collector on, a conv's emission took twice the
    CPU time it takes without. Emission makes no cycles worth collecting early; whatever it
    does make is collected once the collector is back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


__all__ = ["emit_c", "CodegenError", "Buffer"]
