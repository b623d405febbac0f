"""One renderer, two dialects: a `GpuKernel` -> CUDA C or OpenCL C source.

The dialects differ only in words (`Dialect`): how a kernel and its pointers are qualified,
what the thread indices and the barrier are called, and the names of a few math functions.
Everything else — unrolling, float4 vector loads and stores, guards, local (register) arrays —
is rendered by the same code, so a kernel that is correct on pocl in the OpenCL dialect is the
same loop nest nvcc compiles in the CUDA dialect.

How loops become code:
- a thread binding -> `int v = <index>;` (plus `if (v < extent)` where the tag is launched
  wider than the loop);
- unroll (virtual threads too) -> the body repeated with the variable replaced by constants,
  so register arrays are indexed by constants, while that writes at most 256 statements; a
  larger one becomes a loop under `#pragma unroll`;
- a loop with `auto_unroll_max_step` -> `#pragma unroll` on every loop inside it (itself
  included) whose iterations, counted down to the innermost statements, fit the step, and
  that holds no barrier;
- vectorize over 2 or 4 lanes of a contiguous store -> one float2/float4 store, its lanes
  computed as scalars, or a straight float4 copy where the source is contiguous too; the base
  index must be provably a multiple of the width (aligned), else the lanes stay scalar.

The launch shape travels in the first line of the source (`// tunefarm-launch ...`), where
the loaders read it; the source itself is the artifact of OpenCL.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tunefarm.backends.gpu_common.kernel import Barrier, CrossReduce, GpuKernel, ThreadBind
from tunefarm.codegen.arith import simplify, to_affine
from tunefarm.codegen.loops import Buffer, BufferLoad, Decl, For, If, Stmt, Store
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
)
from tunefarm.ir.transform import free_vars, substitute

UNROLL_EXPLICIT_MAX = 256  # statements an explicit unroll may write; past it, #pragma unroll
LANES = "xyzw"


@dataclass(frozen=True)
class Dialect:
    """The words that differ between CUDA C and OpenCL C."""

    name: str
    prelude: str
    kernel: str  # before `void name(...)`
    launch_bounds: str  # format with threads / bx, by, bz
    pointer: dict[str, str]  # buffer scope -> address-space qualifier ('' for none)
    restrict: str
    shared_decl: str  # format with name, size
    index: dict[str, str]  # thread tag -> expression
    barrier: str
    float_suffix: str  # expf vs exp
    fmin: str
    fmax: str
    launch_decl: str = ""  # the launch line as data in the binary (nvcc drops comments)
    int64: str = "long long"  # 64-bit on every CUDA host (long is 32-bit on Windows)


CUDA = Dialect(
    name="cuda",
    prelude='#define TF_INF __int_as_float(0x7f800000)\nextern "C"',
    kernel="__global__ void",
    launch_bounds="__launch_bounds__({threads})",
    pointer={"arg": "", "shared": "", "local": ""},
    restrict="__restrict__",
    shared_decl="__shared__ __align__(16) float {name}[{size}];",
    index={
        **{f"blockIdx.{a}": f"blockIdx.{a}" for a in "xyz"},
        **{f"threadIdx.{a}": f"threadIdx.{a}" for a in "xyz"},
    },
    barrier="__syncthreads();",
    float_suffix="f",
    fmin="fminf",
    fmax="fmaxf",
    launch_decl='extern "C" __device__ const char tf_launch[] = "{line}";',
)

OPENCL = Dialect(
    name="opencl",
    prelude="#define TF_INF INFINITY",
    kernel="__kernel void",
    launch_bounds="__attribute__((reqd_work_group_size({bx}, {by}, {bz})))",
    pointer={"arg": "__global ", "shared": "__local ", "local": ""},
    restrict="restrict",
    shared_decl="__local float {name}[{size}] __attribute__((aligned(16)));",
    index={
        **{f"blockIdx.{a}": f"(int)get_group_id({i})" for i, a in enumerate("xyz")},
        **{f"threadIdx.{a}": f"(int)get_local_id({i})" for i, a in enumerate("xyz")},
    },
    barrier="barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",  # as __syncthreads()
    float_suffix="",
    fmin="fmin",
    fmax="fmax",
    int64="long",  # OpenCL C's long is 64-bit by definition
)

TYPES = {
    "float32": "float",
    "float64": "double",
    "int32": "int",
    "bool": "int",
    "int64": "long long",
}


def _buffer_ctype(dtype: str, dialect: Dialect) -> str:
    """What a buffer argument holds: a bool buffer (a bool graph input) is numpy's one byte a
    value, though a bool expression computes in int."""
    return "unsigned char" if dtype == "bool" else _ctype(dtype, dialect)


class RenderError(ValueError):
    pass


def _float(v: float) -> str:
    if math.isinf(v):
        return "TF_INF" if v > 0 else "(-TF_INF)"
    return repr(float(v)) + "f"


def _ctype(dtype: str, dialect: Dialect) -> str:
    if dtype not in TYPES:
        raise RenderError(f"dtype {dtype} has no GPU type here; GPU kernels use {sorted(TYPES)}")
    return dialect.int64 if dtype == "int64" else TYPES[dtype]


class Renderer:
    def __init__(self, kernel: GpuKernel, dialect: Dialect) -> None:
        self.k, self.d = kernel, dialect
        self.ranges = dict(kernel.func.ranges)
        self.lines: list[str] = []
        self.scopes: list[set[str]] = [set()]  # thread index variables declared per C scope

    # -- expressions ---------------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            return _float(e.value) if is_float(e.dtype) else str(int(e.value))
        if isinstance(e, Var):
            return e.name
        if isinstance(e, BufferLoad):
            return f"{e.buffer.name}[{self.expr(e.index)}]"
        if isinstance(e, Binary):
            a, b = self.expr(e.a), self.expr(e.b)
            if e.op in ("min", "max"):
                if is_float(e.dtype):
                    return f"{self.d.fmin if e.op == 'min' else self.d.fmax}({a}, {b})"
                cmp = "<" if e.op == "min" else ">"
                return f"(({a}) {cmp} ({b}) ? ({a}) : ({b}))"
            return f"({a} {'/' if e.op == '//' else e.op} {b})"
        if isinstance(e, Compare):
            return f"({self.expr(e.a)} {e.op} {self.expr(e.b)})"
        if isinstance(e, Logical):
            if e.op == "not":
                return f"(!{self.expr(e.a)})"
            return f"({self.expr(e.a)} {'&&' if e.op == 'and' else '||'} {self.expr(e.b)})"  # type: ignore[arg-type]
        if isinstance(e, Select):
            t, f = self.expr(e.true_value), self.expr(e.false_value)
            return f"({self.expr(e.cond)} ? {t} : {f})"
        if isinstance(e, Cast):
            return f"(({_ctype(e.dtype, self.d)})({self.expr(e.value)}))"
        if isinstance(e, Call):
            suffix = self.d.float_suffix if e.dtype == "float32" else ""
            return f"{e.func}{suffix}({', '.join(self.expr(a) for a in e.args)})"
        raise RenderError(f"cannot render expression node {type(e).__name__}")

    def subst(self, stmts: list[Stmt], var: str, value: int) -> list[Stmt]:
        """The statements with loop variable `var` fixed (guards that become constant drop)."""

        def ex(e: Expr) -> Expr:
            return simplify(substitute(e, {var: Const(value)}), self.ranges)

        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, Store):
                out.append(Store(s.buffer, ex(s.index), ex(s.value)))
            elif isinstance(s, If):
                cond = ex(s.cond)
                if isinstance(cond, Const):
                    out += self.subst(s.body, var, value) if cond.value else []
                else:
                    out.append(If(cond, self.subst(s.body, var, value)))
            elif isinstance(s, For):
                body = self.subst(s.body, var, value)
                out.append(For(s.var, s.extent, s.kind, body, s.thread, s.pragmas))
            elif isinstance(s, ThreadBind):
                body = self.subst(s.body, var, value)
                out.append(ThreadBind(s.var, s.tag, s.extent, s.launch, body))
            elif isinstance(s, CrossReduce):
                index = ex(s.index)
                out.append(CrossReduce(s.op, s.partial, s.scratch, s.target, index, s.tag))
            else:
                out.append(s)
        return out

    # -- statements -----------------------------------------------------------------------
    def emit(self, line: str, depth: int) -> None:
        self.lines.append("  " * depth + line)

    def stmts(self, body: list[Stmt], depth: int, unroll_budget: int = 0) -> None:
        for s in body:
            self.stmt(s, depth, unroll_budget)

    def block(self, body: list[Stmt], depth: int, budget: int) -> None:
        """Statements in a new C scope (a loop or if body)."""
        self.scopes.append(set())
        self.stmts(body, depth, budget)
        self.scopes.pop()

    def stmt(self, s: Stmt, depth: int, budget: int) -> None:
        if isinstance(s, Store):
            self.emit(f"{s.buffer.name}[{self.expr(s.index)}] = {self.expr(s.value)};", depth)
        elif isinstance(s, If):
            self.emit(f"if ({self.expr(s.cond)}) {{", depth)
            self.block(s.body, depth + 1, budget)
            self.emit("}", depth)
        elif isinstance(s, Decl):
            if not any(s.buffer.name in scope for scope in self.scopes):
                self.emit(
                    f"{_ctype(s.buffer.dtype, self.d)} {s.buffer.name}[{s.buffer.size}];", depth
                )
                self.scopes[-1].add(s.buffer.name)
        elif isinstance(s, Barrier):
            self.emit(self.d.barrier, depth)
        elif isinstance(s, ThreadBind):
            # an unrolled virtual thread repeats its body in one scope: declare once
            if not any(s.var in scope for scope in self.scopes):
                self.emit(f"int {s.var} = {self.d.index[s.tag]};", depth)
                self.scopes[-1].add(s.var)
            self.ranges[s.var] = (0, s.extent - 1)
            if s.extent < s.launch:
                self.emit(f"if ({s.var} < {s.extent}) {{", depth)
                self.block(s.body, depth + 1, budget)
                self.emit("}", depth)
            else:
                self.stmts(s.body, depth, budget)
        elif isinstance(s, For):
            self.loop(s, depth, budget)
        elif isinstance(s, CrossReduce):
            self.cross_reduce(s, depth)
        else:
            raise RenderError(f"cannot render statement {type(s).__name__}")

    def cross_reduce(self, s: CrossReduce, depth: int) -> None:
        """A tree over the threads of `s.tag` in the shared scratch (one slot per thread of
        the block), halving until thread 0 of the tag holds the total; a register accumulator
        then takes it in every thread, one in memory from thread 0 only."""
        bx, by, _ = self.k.block
        idx = self.d.index
        tz, ty, tx = (idx[f"threadIdx.{a}"] for a in "zyx")
        lin = f"({tz} * {bx * by} + {ty} * {bx} + {tx})"
        axis = "xyz".index(s.tag[-1])
        stride, count = (1, bx, bx * by)[axis], self.k.block[axis]
        t = idx[s.tag]
        width = 1 << max(0, (count - 1).bit_length())
        red = s.scratch.name

        def comb(a: str, b: str) -> str:
            if s.op == "+":
                return f"({a} + {b})"
            return f"{self.d.fmax if s.op == 'max' else self.d.fmin}({a}, {b})"

        d = depth + 1
        self.emit("{", depth)
        self.emit(self.d.barrier, d)
        self.emit(f"{red}[{lin}] = {s.partial.name}[0];", d)
        self.emit(self.d.barrier, d)
        self.emit(f"for (int tf_s = {width // 2}; tf_s > 0; tf_s >>= 1) {{", d)
        self.emit(f"if ({t} < tf_s && {t} + tf_s < {count}) {{", d + 1)
        other = f"{red}[{lin} + tf_s * {stride}]"
        self.emit(f"{red}[{lin}] = {comb(f'{red}[{lin}]', other)};", d + 2)
        self.emit("}", d + 1)
        self.emit(self.d.barrier, d + 1)
        self.emit("}", d)
        target = f"{s.target.name}[{self.expr(s.index)}]"
        total = f"{red}[{lin} - {t} * {stride}]"
        if s.target.scope == "local":  # every thread's register copy gets the total
            self.emit(f"{target} = {comb(target, total)};", d)
        else:  # memory the threads share: one update
            self.emit(f"if ({t} == 0) {{", d)
            self.emit(f"{target} = {comb(target, total)};", d + 1)
            self.emit("}", d)
        self.emit("}", depth)

    def loop(self, s: For, depth: int, budget: int) -> None:
        if s.kind == "parallel":
            raise RenderError(
                f"loop {s.var} is marked parallel: on a GPU bind it to blockIdx/threadIdx"
            )
        for key, value in s.pragmas:
            if key == "auto_unroll_max_step":
                budget = max(budget, value)
        if s.extent == 1:
            self.stmts(self.subst(s.body, s.var, 0), depth, budget)
            return
        if s.kind == "unroll" and s.extent * statements(s.body) <= UNROLL_EXPLICIT_MAX:
            for k in range(s.extent):
                self.stmts(self.subst(s.body, s.var, k), depth, budget)
            return
        if s.kind == "vectorize" and self.vector(s, depth):
            return
        small = budget and iterations(s) <= budget and not has_barrier(s.body)
        if s.kind in ("unroll", "vectorize") or small:
            self.emit("#pragma unroll", depth)
        self.emit(f"for (int {s.var} = 0; {s.var} < {s.extent}; ++{s.var}) {{", depth)
        self.block(s.body, depth + 1, budget)
        self.emit("}", depth)

    # -- float2/float4 ----------------------------------------------------------------------
    def vector(self, s: For, depth: int) -> bool:
        """One vector store for the lanes of `s`; False where it must stay scalar."""
        width, body, conds = s.extent, s.body, []
        while len(body) == 1 and isinstance(body[0], If) and s.var not in free_vars(body[0].cond):
            conds.append(body[0].cond)  # a guard the same for every lane goes around the vector
            body = body[0].body
        if width not in (2, 4) or len(body) != 1 or not isinstance(body[0], Store):
            return False
        st = body[0]
        base = self.aligned_base(st.index, s.var, width, st.buffer)
        if base is None:
            return False
        for c in conds:
            self.emit(f"if ({self.expr(c)}) {{", depth)
            depth += 1
        self.vector_store(st, s.var, width, base, depth)
        for _ in conds:
            depth -= 1
            self.emit("}", depth)
        return True

    def vector_store(self, st: Store, var: str, width: int, base: str, depth: int) -> None:
        vtype = f"float{width}"
        dst = f"*(({self.d.pointer[st.buffer.scope]}{vtype}*)(&{st.buffer.name}[{base}]))"
        src = st.value
        if isinstance(src, BufferLoad):
            sbase = self.aligned_base(src.index, var, width, src.buffer)
            if sbase is not None:
                ptr = f"{self.d.pointer[src.buffer.scope]}{vtype}*"
                self.emit(f"{dst} = *(({ptr})(&{src.buffer.name}[{sbase}]));", depth)
                return
        self.emit("{", depth)
        self.emit(f"{vtype} tf_v;", depth + 1)
        for k in range(width):
            lane = self.subst([Store(st.buffer, st.index, src)], var, k)[0]
            assert isinstance(lane, Store)
            self.emit(f"tf_v.{LANES[k]} = {self.expr(lane.value)};", depth + 1)
        self.emit(f"{dst} = tf_v;", depth + 1)
        self.emit("}", depth)

    def aligned_base(self, index: Expr, var: str, width: int, buf: Buffer) -> str | None:
        """The lane-0 index if `index` steps by one per lane and is a multiple of `width`."""
        if buf.dtype != "float32" or buf.scope == "local":  # registers: no aligned address
            return None
        aff = to_affine(index)
        if aff.coefs.get(var) != 1 or any(var in free_vars(e) for e, _ in aff.opaque):
            return None
        rest = [c for v, c in aff.coefs.items() if v != var] + [aff.const]
        rest += [c for _, c in aff.opaque]  # integer terms: aligned if their scale is
        if any(c % width for c in rest):
            return None
        return self.expr(simplify(substitute(index, {var: Const(0)}), self.ranges))

    # -- module ---------------------------------------------------------------------------
    def source(self) -> str:
        k, d = self.k, self.d
        self.lines = []
        for b in k.shared:
            self.emit(d.shared_decl.format(name=b.name, size=b.size), 1)
        self.stmts(k.body, 1)
        params = ", ".join(
            f"{d.pointer['arg']}{_buffer_ctype(b.dtype, d)}* {d.restrict} {b.name}"
            for b in k.func.args
        )
        bx, by, bz = k.block
        bounds = d.launch_bounds.format(threads=k.threads, bx=bx, by=by, bz=bz)
        line = launch_comment(k)
        decl = [d.launch_decl.format(line=line)] if d.launch_decl else []
        return "\n".join(
            [
                line,
                *decl,
                d.prelude,
                f"{d.kernel} {bounds} {k.func.name}({params}) {{",
                *self.lines,
                "}",
                "",
            ]
        )


def statements(body: list[Stmt]) -> int:
    """Statements a body runs per iteration, loops counted at their full extent."""
    total = 0
    for s in body:
        if isinstance(s, For):
            total += s.extent * statements(s.body)
        elif isinstance(s, (If, ThreadBind)):
            total += statements(s.body)
        else:
            total += 1
    return total


def has_barrier(body: list[Stmt]) -> bool:
    """Loops around a barrier (a shared tile's fill) are not unrolled by the budget: nvcc's
    front end takes minutes over hundreds of unrolled barriers, for no gain."""
    for s in body:
        if isinstance(s, (Barrier, CrossReduce)):
            return True
        if isinstance(s, (For, If, ThreadBind)) and has_barrier(s.body):
            return True
    return False


def iterations(s: For) -> int:
    """Statements run by a loop nest: its extent times the largest inner loop's."""
    inner = [iterations(c) for c in s.body if isinstance(c, For)]
    return s.extent * max(inner, default=1)


def launch_comment(k: GpuKernel) -> str:
    grid = ",".join(map(str, k.grid))
    block = ",".join(map(str, k.block))
    return (
        f"// tunefarm-launch entry={k.func.name} grid={grid} block={block} shared={k.shared_bytes}"
    )


def parse_launch(source: str) -> dict[str, object]:
    """The launch line of a rendered kernel: entry, grid, block, shared (bytes)."""
    first = source.split("\n", 1)[0]
    if not first.startswith("// tunefarm-launch "):
        raise RenderError("source does not start with a tunefarm-launch line")
    fields = dict(item.split("=", 1) for item in first.split()[2:])
    return {
        "entry": fields["entry"],
        "grid": tuple(int(v) for v in fields["grid"].split(",")),
        "block": tuple(int(v) for v in fields["block"].split(",")),
        "shared": int(fields["shared"]),
    }


def render(kernel: GpuKernel, dialect: Dialect) -> str:
    """The kernel's source in a dialect (`CUDA` or `OPENCL`)."""
    return Renderer(kernel, dialect).source()
