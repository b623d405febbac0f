"""C emitter: loop-nest IR -> one C file following the kernel ABI (`tf_entry`, `tf_time`).

How annotations become C:
- parallel  -> `#pragma omp parallel for` (one region per kernel loop nest);
- unroll    -> the body repeated with the loop variable replaced by constants (so local
               accumulator arrays are indexed by constants and GCC keeps them in registers);
               long loops get `#pragma GCC unroll` instead;
- vectorize -> GCC vector types (`vector_size`): contiguous loads/stores become vector
               loads/stores, loop-invariant scalars broadcast; anything else (gathers,
               math calls, lane-dependent conditions) falls back to an `omp simd` loop.
"""

from __future__ import annotations

import math

from tunefarm.backends.cpu.target import effective_isa, int8_dot
from tunefarm.codegen.arith import coefficient, simplify
from tunefarm.codegen.loops import Buffer, BufferLoad, Decl, For, If, LoweredFunc, Stmt, Store
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
from tunefarm.ir.tensor import walk
from tunefarm.ir.transform import free_vars, substitute
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
VECTOR_DTYPES = ("float32", "int32")
BYTES = {"uint8": "ub", "int8": "sb"}  # byte vectors, read only to widen to int32 lanes
UNROLL_EXPLICIT_MAX = 32
VECTOR_WIDTHS = (2, 4, 8, 16, 32)


class NotVectorizable(Exception):
    pass


class CodegenError(ValueError):
    pass


def subst_stmts(stmts: list[Stmt], var: str, value: Expr, ranges) -> list[Stmt]:
    """Replace a loop variable in every expression of a statement list, simplifying."""

    def ex(e: Expr) -> Expr:
        return simplify(substitute(e, {var: value}), ranges)

    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Store):
            out.append(Store(s.buffer, ex(s.index), ex(s.value)))
        elif isinstance(s, If):
            cond = ex(s.cond)
            if isinstance(cond, Const):
                if cond.value:
                    out += subst_stmts(s.body, var, value, ranges)
                continue
            out.append(If(cond, subst_stmts(s.body, var, value, ranges)))
        elif isinstance(s, For):
            out.append(
                For(
                    s.var,
                    s.extent,
                    s.kind,
                    subst_stmts(s.body, var, value, ranges),
                    s.thread,
                    s.pragmas,
                )
            )
        else:
            out.append(s)
    return out


def c_float(v: float, dtype: str = "float32") -> str:
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    text = repr(float(v))
    return text + "f" if dtype == "float32" else text


class CEmitter:
    def __init__(self, func: LoweredFunc, target: Target):
        self.func = func
        self.target = target
        self.lines: list[str] = []
        self.widths: set[int] = set()
        self.helpers: set[str] = set()  # C helpers beyond HEADER, emitted only when used
        self.in_parallel = False

    # -- expressions ---------------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        if isinstance(e, Const):
            return c_float(e.value, e.dtype) if is_float(e.dtype) else str(int(e.value))
        if isinstance(e, Var):
            return e.name
        if isinstance(e, BufferLoad):
            return f"{e.buffer.name}[{self.expr(e.index)}]"
        if isinstance(e, Binary):
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
        if isinstance(e, Call):
            suffix = "f" if e.dtype == "float32" else ""
            return f"{e.func}{suffix}({', '.join(self.expr(a) for a in e.args)})"
        raise CodegenError(f"cannot emit expression node {type(e).__name__}")

    # -- vector expressions ---------------------------------------------------------------
    def vexpr(self, e: Expr, v: str, width: int) -> tuple[str, bool]:
        """(code, is_vector) of `e` inside a loop over lanes `v`."""
        if v not in free_vars(e):
            return self.expr(e), False
        if isinstance(e, BufferLoad):
            if e.dtype not in VECTOR_DTYPES or coefficient(e.index, v) != 1:
                raise NotVectorizable("non-contiguous load")
            base = self.expr(simplify(substitute(e.index, {v: Const(0)}), self.func.ranges))
            kind = self.vkind(e.dtype, width)
            return f"(*(const tf_v{width}{kind}u*)(&{e.buffer.name}[{base}]))", True
        if isinstance(e, Cast) or (isinstance(e, Call) and e.func == "nearbyint"):
            return self.vexpr_convert(e, v, width)
        if e.dtype == "int32":
            return self.vexpr_int(e, v, width)
        if isinstance(e, Binary) and is_float(e.dtype) and e.dtype == "float32":
            (a, av), (b, bv) = self.vexpr(e.a, v, width), self.vexpr(e.b, v, width)
            if e.op in ("+", "-", "*", "/"):
                return f"({a} {e.op} {b})", True
            if e.op in ("min", "max"):
                return (
                    f"tf_v{width}_{e.op}({self.vec(a, av, width)}, {self.vec(b, bv, width)})",
                    True,
                )
        if isinstance(e, Select) and e.dtype == "float32":
            (t, tv), (f, fv) = (
                self.vexpr(e.true_value, v, width),
                self.vexpr(e.false_value, v, width),
            )
            t, f = self.vec(t, tv, width), self.vec(f, fv, width)
            if v not in free_vars(e.cond):
                return f"({self.expr(e.cond)} ? {t} : {f})", True
            c = e.cond
            if any(
                isinstance(n, BufferLoad) and v in free_vars(n.index)
                for branch in (e.true_value, e.false_value)
                for n in walk(branch)
            ):
                # Both branches of a vector select are evaluated for every lane; a guarded
                # load (padding) could read outside its buffer, so keep it a scalar loop.
                raise NotVectorizable("lane-dependent guarded load")
            if isinstance(c, Compare) and is_float(c.a.dtype):
                (x, xv), (y, yv) = self.vexpr(c.a, v, width), self.vexpr(c.b, v, width)
                mask = f"({self.vec(x, xv, width)} {c.op} {self.vec(y, yv, width)})"
                return f"tf_v{width}_sel({mask}, {t}, {f})", True
        raise NotVectorizable(type(e).__name__)

    def vexpr_convert(self, e: Expr, v: str, width: int) -> tuple[str, bool]:
        """Conversions between int32, float32 and byte lanes (`__builtin_convertvector`:
        C's conversions lane by lane, so float to int truncates as the scalar cast does),
        and nearbyint as the ISA's round-to-nearest-even instruction."""
        if isinstance(e, Call):
            helper = rint_helper(width, effective_isa(self.target))
            if helper is None:
                raise NotVectorizable(f"no {width}-lane nearbyint on this ISA")
            (x, xv) = self.vexpr(e.args[0], v, width)
            self.helpers.add(helper)
            return f"tf_v{width}_rint({self.vec(x, xv, width)})", True
        src, dst = e.value.dtype, e.dtype  # type: ignore[attr-defined]
        sel = e.value  # type: ignore[attr-defined]
        if isinstance(sel, Select) and v not in free_vars(sel.cond):
            # a guarded (padding) read: the condition is the same for every lane, so the
            # ternary picks one whole vector and never loads outside the buffer
            branches = []
            for branch in (sel.true_value, sel.false_value):
                code, is_vec = self.vexpr(Cast(branch, dst), v, width)
                branches.append(self.vec(code, is_vec, width, dst))
            return f"({self.expr(sel.cond)} ? {branches[0]} : {branches[1]})", True
        if isinstance(e.value, BufferLoad) and src in BYTES:  # type: ignore[attr-defined]
            return self.vexpr_int(e, v, width) if dst == "int32" else self._no(e)
        kinds = {"float32": "f", "int32": "i", **BYTES}
        if src not in kinds or dst not in kinds or src == dst:
            raise NotVectorizable(f"cast {src} -> {dst}")
        if src in BYTES and dst != "int32" or dst in BYTES and src != "int32":
            raise NotVectorizable(f"cast {src} -> {dst}")
        x, xv = self.vexpr(e.value, v, width)  # type: ignore[attr-defined]
        if not xv:
            raise NotVectorizable("lane-invariant cast")  # the caller broadcasts it as a scalar
        for dtype in (src, dst):
            if dtype in BYTES:
                self.helpers.add(byte_vector_helpers(width, BYTES[dtype], dtype))
            if dtype == "int32":
                self.helpers.add(int_vector_helpers(width))
        fast = _byte_convert(width, effective_isa(self.target), src, dst, x)
        if fast is not None:
            self.helpers.add("#include <immintrin.h>")
            return fast, True
        return f"__builtin_convertvector({x}, tf_v{width}{kinds[dst]})", True

    @staticmethod
    def _no(e: Expr) -> tuple[str, bool]:
        raise NotVectorizable(type(e).__name__)

    def vexpr_int(self, e: Expr, v: str, width: int) -> tuple[str, bool]:
        """int32 lanes: + - * on vectors (scalars broadcast), and `acc + dot4(word, vector)`
        as one dot-product-accumulate (`tf_v{w}_dp`, see `dot4_helpers`)."""
        if isinstance(e, Binary) and e.op == "+" and _is_dot4(e.b):
            acc, acc_v = self.vexpr(e.a, v, width)
            return self.dot4(e.b, v, width, self.vec(acc, acc_v, width, "int32")), True
        if isinstance(e, Binary) and e.op in ("min", "max"):
            (a, av), (b, bv) = self.vexpr(e.a, v, width), self.vexpr(e.b, v, width)
            self.helpers.add(int_vector_helpers(width))
            a, b = self.vec(a, av, width, "int32"), self.vec(b, bv, width, "int32")
            return f"tf_v{width}i_{e.op}({a}, {b})", True
        if isinstance(e, Binary) and e.op in ("+", "-", "*"):
            (a, av), (b, bv) = self.vexpr(e.a, v, width), self.vexpr(e.b, v, width)
            return (
                f"({self.vec(a, av, width, 'int32')} {e.op} {self.vec(b, bv, width, 'int32')})",
                True,
            )
        if _is_dot4(e):
            return self.dot4(e, v, width, f"tf_v{width}i_bc(0)"), True
        if isinstance(e, Cast) and isinstance(e.value, BufferLoad) and e.value.dtype in BYTES:
            load = e.value
            if coefficient(load.index, v) != 1:
                raise NotVectorizable("non-contiguous byte load")
            base = self.expr(simplify(substitute(load.index, {v: Const(0)}), self.func.ranges))
            kind = BYTES[load.dtype]
            self.helpers.add(byte_vector_helpers(width, kind, load.dtype))
            self.helpers.add(int_vector_helpers(width))
            ptr = f"*(const tf_v{width}{kind}*)(&{load.buffer.name}[{base}])"
            fast = _byte_convert(width, effective_isa(self.target), load.dtype, "int32", ptr)
            if fast is not None:
                self.helpers.add("#include <immintrin.h>")
                return fast, True
            return f"__builtin_convertvector({ptr}, tf_v{width}i)", True
        raise NotVectorizable(type(e).__name__)

    def dot4(self, call: Expr, v: str, width: int, acc: str) -> str:
        """acc + dot4(a, b) per lane, `a` the same word in every lane (a broadcast uint8 x4)
        and `b` a vector of int8 x4 words; the instruction sequence is the target's."""
        a, b = call.args  # type: ignore[attr-defined]
        if v in free_vars(a):
            raise NotVectorizable("dot4 with a lane-dependent first operand")
        mode = int8_dot(self.target)
        helper = dot4_helpers(width, mode)
        if helper is None:
            raise NotVectorizable(f"no {width}-lane dot4 on {mode}")
        code, is_vec = self.vexpr(b, v, width)
        self.helpers.add(helper)
        self.helpers.add(int_vector_helpers(width))
        return f"tf_v{width}_dp({acc}, {self.expr(a)}, {self.vec(code, is_vec, width, 'int32')})"

    def vkind(self, dtype: str, width: int) -> str:
        """The vector type letter of a dtype ("f" float32, "i" int32); int32 types are
        declared only in kernels that use them, so float kernels' code is unchanged."""
        if dtype == "int32":
            self.helpers.add(int_vector_helpers(width))
            return "i"
        return "f"

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
        ranges = self.func.ranges
        if s.kind == "bind":
            raise CodegenError(
                f"loop {s.var} is bound to {s.thread}: bind is for GPU targets, "
                f"this target is {self.target}"
            )
        if s.extent == 1:
            self.stmts(subst_stmts(s.body, s.var, Const(0), ranges), depth)
            return
        if s.kind == "unroll" and s.extent <= UNROLL_EXPLICIT_MAX:
            for k in range(s.extent):
                self.stmts(subst_stmts(s.body, s.var, Const(k), ranges), depth)
            return
        if s.kind == "vectorize" and self.try_vector(s, depth):
            return
        self.pragmas(s, depth)
        self.emit(f"for (int32_t {s.var} = 0; {s.var} < {s.extent}; ++{s.var}) {{", depth)
        was_parallel = self.in_parallel
        self.in_parallel = was_parallel or s.kind == "parallel"
        self.stmts(s.body, depth + 1)
        self.in_parallel = was_parallel
        self.emit("}", depth)

    def pragmas(self, s: For, depth: int) -> None:
        if s.kind == "parallel":
            if self.in_parallel:
                raise CodegenError(
                    f"loop {s.var}: parallel loop nested inside another parallel "
                    "loop; parallelise only the outer loop"
                )
            cores = self.target.get("cores")
            threads = f" num_threads({cores})" if cores else ""
            self.emit(f"#pragma omp parallel for{threads} schedule(static)", depth)
        elif s.kind == "unroll":
            self.emit(f"#pragma GCC unroll {min(s.extent, 64)}", depth)
        elif s.kind == "vectorize":
            self.emit("#pragma omp simd", depth)
        for key, value in s.pragmas:
            if key == "auto_unroll_max_step" and value > 0:
                self.emit(f"#pragma GCC unroll {value}", depth)
            elif key == "ivdep":
                self.emit("#pragma GCC ivdep", depth)
            elif key == "simd" and s.kind != "vectorize":
                self.emit("#pragma omp simd", depth)

    def try_vector(self, s: For, depth: int) -> bool:
        """Emit the lane loop as vector statements; False if it must stay a scalar loop."""
        width = s.extent
        if width not in VECTOR_WIDTHS:
            return False
        body, conds = s.body, []
        while len(body) == 1 and isinstance(body[0], If) and s.var not in free_vars(body[0].cond):
            conds.append(body[0].cond)
            body = body[0].body
        if not all(isinstance(b, Store) for b in body):
            return False
        try:
            lines = [self.vstore(b, s.var, width) for b in body]  # type: ignore[arg-type]
        except NotVectorizable:
            return False
        self.widths.add(width)
        for c in conds:
            self.emit(f"if ({self.expr(c)}) {{", depth)
            depth += 1
        for line in lines:
            self.emit(line, depth)
        for _ in conds:
            depth -= 1
            self.emit("}", depth)
        return True

    def vstore(self, st: Store, v: str, width: int) -> str:
        dtype = st.buffer.dtype
        if dtype in BYTES and coefficient(st.index, v) == 1:
            code, is_vec = self.vexpr(st.value, v, width)
            if not is_vec:
                raise NotVectorizable("lane-invariant byte store")
            base = self.expr(simplify(substitute(st.index, {v: Const(0)}), self.func.ranges))
            return f"*(tf_v{width}{BYTES[dtype]}*)(&{st.buffer.name}[{base}]) = {code};"
        if dtype not in VECTOR_DTYPES or coefficient(st.index, v) != 1:
            raise NotVectorizable("non-contiguous store")
        code, is_vec = self.vexpr(st.value, v, width)
        base = self.expr(simplify(substitute(st.index, {v: Const(0)}), self.func.ranges))
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
        out = [HEADER, *(vector_helpers(w) for w in sorted(self.widths)), *sorted(self.helpers)]
        for b in f.statics:
            out.append(
                f"static {C_TYPES[b.dtype]} {b.name}[{b.size}] __attribute__((aligned(64)));"
            )
        out.append(f"__attribute__((noinline)) static int32_t {f.name}({params}) {{")
        for b in f.args:
            t = C_TYPES[b.dtype]
            out.append(
                f"  {t}* restrict {b.name} = ({t}*)__builtin_assume_aligned({b.name}_raw, 64);"
            )
        out += body
        out.append("  return 0;\n}")
        call_args = ", ".join(f"args[{i}]" for i in range(len(f.args)))
        out.append(ENTRY.format(name=f.name, args=call_args))
        return "\n".join(out) + "\n"


HEADER = """\
#include <stdint.h>
#include <math.h>
#include <time.h>
static inline float tf_min_float(float a, float b) { return a < b ? a : b; }
static inline float tf_max_float(float a, float b) { return a > b ? a : b; }
static inline double tf_min_double(double a, double b) { return a < b ? a : b; }
static inline double tf_max_double(double a, double b) { return a > b ? a : b; }"""

DOT4_SCALAR = """\
static inline int32_t tf_dot4(int32_t a, int32_t b) {
  int32_t s = 0;
  for (int k = 0; k < 4; ++k)
    s += (int32_t)(uint8_t)(a >> (8 * k)) * (int32_t)(int8_t)(b >> (8 * k));
  return s; }"""

ENTRY = """
int32_t tf_entry(void** args) {{ return {name}({args}); }}
double tf_time(void** args, int32_t number) {{
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) {name}({args});
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}}"""


def vector_helpers(w: int) -> str:
    return f"""\
typedef float tf_v{w}f __attribute__((vector_size({4 * w})));
typedef float tf_v{w}fu __attribute__((vector_size({4 * w}), aligned(4)));
typedef int32_t tf_v{w}i __attribute__((vector_size({4 * w})));
static inline tf_v{w}f tf_v{w}_bc(float s) {{ return (tf_v{w}f){{0}} + s; }}
static inline tf_v{w}f tf_v{w}_sel(tf_v{w}i m, tf_v{w}f a, tf_v{w}f b) {{
  return (tf_v{w}f)(((tf_v{w}i)a & m) | ((tf_v{w}i)b & ~m)); }}
static inline tf_v{w}f tf_v{w}_max(tf_v{w}f a, tf_v{w}f b) {{ return tf_v{w}_sel(a > b, a, b); }}
static inline tf_v{w}f tf_v{w}_min(tf_v{w}f a, tf_v{w}f b) {{ return tf_v{w}_sel(a < b, a, b); }}"""


def _byte_convert(w: int, isa: str, src: str, dst: str, x: str) -> str | None:
    """Widening bytes to int32 lanes and narrowing back as one AVX-512 instruction each
    (vpmovzxbd / vpmovsxbd / vpmovdb); GCC 12 scalarises `__builtin_convertvector` between
    these. Narrowing truncates, which is exact here: values are saturated before."""
    if w != 16 or isa not in ("avx512", "avx512vnni"):
        return None
    if src in BYTES and dst == "int32":
        sign = "u" if src == "uint8" else "i"
        return f"((tf_v16i)_mm512_cvtep{sign}8_epi32((__m128i)({x})))"
    if src == "int32" and dst in BYTES:
        return f"((tf_v16{BYTES[dst]})_mm512_cvtepi32_epi8((__m512i)({x})))"
    return None


def _is_dot4(e: Expr) -> bool:
    return isinstance(e, Call) and e.func == "dot4"


def byte_vector_helpers(w: int, kind: str, dtype: str) -> str:
    return f"typedef {C_TYPES[dtype]} tf_v{w}{kind} __attribute__((vector_size({w}), aligned(1)));"


def int_vector_helpers(w: int) -> str:
    return f"""\
typedef int32_t tf_v{w}iu __attribute__((vector_size({4 * w}), aligned(4)));
static inline tf_v{w}i tf_v{w}i_bc(int32_t s) {{ return (tf_v{w}i){{0}} + s; }}
static inline tf_v{w}i tf_v{w}i_max(tf_v{w}i a, tf_v{w}i b) {{
  tf_v{w}i m = a > b; return (a & m) | (b & ~m); }}
static inline tf_v{w}i tf_v{w}i_min(tf_v{w}i a, tf_v{w}i b) {{
  tf_v{w}i m = a < b; return (a & m) | (b & ~m); }}"""


# nearbyint on float lanes: round to nearest even without raising inexact (imm 0x08), as
# the scalar nearbyintf does in the default rounding mode
_RINT = {16: "_mm512_roundscale_ps", 8: "_mm256_round_ps", 4: "_mm_round_ps"}
_RINT_ISAS = {16: ("avx512", "avx512vnni"), 8: ("avx512", "avx512vnni", "avx2")}


def rint_helper(w: int, isa: str) -> str | None:
    if w not in _RINT or isa not in _RINT_ISAS.get(w, ("avx512", "avx512vnni", "avx2", "sse4")):
        return None
    return f"""#include <immintrin.h>
static inline tf_v{w}f tf_v{w}_rint(tf_v{w}f x) {{ return (tf_v{w}f){_RINT[w]}(x, 0x08); }}"""


# dot4 over a vector of int32 lanes: acc[l] += sum_k uint8(a)[k] * int8(b[l])[k].
# VNNI does it in one vpdpbusd. Without VNNI, pmaddubsw would saturate its int16 pair sums
# (255 * 127 * 2 > 32767), so the sequence below is exact instead: the int8 lanes of b are
# sign-extended to int16 in two halves (bytes 0,2 and bytes 1,3 of each word), the uint8
# lanes of a zero-extended to match, and two pmaddwd (int16 pairs summed into int32) add up
# the four products.
_DOT4 = {
    (16, "vnni"): ("_mm512_dpbusd_epi32((__m512i)acc, _mm512_set1_epi32(a), (__m512i)b)",),
    (8, "vnni"): ("_mm256_dpbusd_epi32((__m256i)acc, _mm256_set1_epi32(a), (__m256i)b)",),
    (16, "avx512bw"): ("_mm512", "__m512i"),
    (8, "avx2"): ("_mm256", "__m256i"),
    (8, "avx512bw"): ("_mm256", "__m256i"),
}


def dot4_helpers(w: int, mode: str) -> str | None:
    """The C of `tf_v{w}_dp(acc, a, b)` for a dot4 mode (see `int8_dot`), None if none."""
    spec = _DOT4.get((w, mode))
    if spec is None:
        return None
    head = "#include <immintrin.h>\n"
    sig = f"static inline tf_v{w}i tf_v{w}_dp(tf_v{w}i acc, int32_t a, tf_v{w}i b) {{"
    if mode == "vnni":
        return f"{head}{sig} return (tf_v{w}i){spec[0]}; }}"
    p, t = spec
    return f"""{head}{sig}
  {t} bv = ({t})b;
  {t} lo = {p}_srai_epi16({p}_slli_epi16(bv, 8), 8), hi = {p}_srai_epi16(bv, 8);
  uint32_t ua = (uint32_t)a;
  {t} alo = {p}_set1_epi32((int32_t)(ua & 0x00FF00FFu));
  {t} ahi = {p}_set1_epi32((int32_t)((ua >> 8) & 0x00FF00FFu));
  return acc + (tf_v{w}i){p}_madd_epi16(lo, alo) + (tf_v{w}i){p}_madd_epi16(hi, ahi); }}"""


def emit_c(func: LoweredFunc, target: Target) -> str:
    if target.kind != "cpu":
        raise CodegenError(f"the C emitter generates CPU code; target is {target}")
    return CEmitter(func, target).module()


__all__ = ["emit_c", "CodegenError", "Buffer"]
