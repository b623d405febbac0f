"""The C emitter's integer lanes: int32 vectors, the four-way int8 dot product (`dot4`) per
ISA, conversions between int32, float32 and byte lanes, and nearbyint on float lanes.

`IntLanes` is mixed into `CEmitter` (it uses the emitter's `vexpr`, `vec`, `expr`,
`helpers` and `target`); the module-level functions return the C helpers a kernel needs,
each emitted only in kernels that use it, so float kernels' code is unchanged.

No <immintrin.h>: parsing it was 0.12-0.15 s of a 0.2-0.4 s int8 build. A kernel declares
only the intrinsics it calls (`intrinsic`), each as gcc 12's header defines it (the same
builtin, arguments and casts, under a `tf_` name) on the header's vector types, so the
machine code is the same (`benchmarks/build_speed.py --int8` compares it function by
function). The types come first in a kernel: their helper sorts before the others.
"""

from __future__ import annotations

import re

from tunefarm.backends.cpu.target import effective_isa, int8_dot
from tunefarm.codegen.arith import coefficient, simplify
from tunefarm.codegen.loops import BufferLoad
from tunefarm.ir.expr import Binary, Call, Cast, Const, Expr, Select
from tunefarm.ir.transform import free_vars, substitute

BYTES = {"uint8": "ub", "int8": "sb"}  # byte vectors, read only to widen to int32 lanes
C_BYTES = {"uint8": "uint8_t", "int8": "int8_t"}


class NotVectorizable(Exception):
    pass


class IntLanes:
    """Vector expressions on int32 and byte lanes (see the module docstring)."""

    def vexpr_convert(self, e: Expr, v: str, width: int) -> tuple[str, bool]:
        """Conversions between int32, float32 and byte lanes (`__builtin_convertvector`:
        C's conversions lane by lane, so float to int truncates as the scalar cast does),
        and nearbyint as the ISA's round-to-nearest-even instruction."""
        if isinstance(e, Call):
            helper = rint_helper(width, effective_isa(self.target))
            if helper is None:
                raise NotVectorizable(f"no {width}-lane nearbyint on this ISA")
            (x, xv) = self.vexpr(e.args[0], v, width)
            self.helpers.update([helper, *intrinsics(helper)])
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
            self.helpers.update(intrinsics(fast))
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
                self.helpers.update(intrinsics(fast))
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
        self.helpers.update([helper, *intrinsics(helper)])
        self.helpers.add(int_vector_helpers(width))
        return f"tf_v{width}_dp({acc}, {self.expr(a)}, {self.vec(code, is_vec, width, 'int32')})"

    def vkind(self, dtype: str, width: int) -> str:
        """The vector type letter of a dtype ("f" float32, "i" int32); int32 types are
        declared only in kernels that use them, so float kernels' code is unchanged."""
        if dtype == "int32":
            self.helpers.add(int_vector_helpers(width))
            return "i"
        return "f"


def _byte_convert(w: int, isa: str, src: str, dst: str, x: str) -> str | None:
    """Widening bytes to int32 lanes and narrowing back as one AVX-512 instruction each
    (vpmovzxbd / vpmovsxbd / vpmovdb); GCC 12 scalarises `__builtin_convertvector` between
    these. Narrowing truncates, which is exact here: values are saturated before."""
    if w != 16 or isa not in ("avx512", "avx512vnni"):
        return None
    if src in BYTES and dst == "int32":
        sign = "u" if src == "uint8" else "i"
        return f"((tf_v16i)tf_mm512_cvtep{sign}8_epi32((tf_m128i)({x})))"
    if src == "int32" and dst in BYTES:
        return f"((tf_v16{BYTES[dst]})tf_mm512_cvtepi32_epi8((tf_m512i)({x})))"
    return None


def _is_dot4(e: Expr) -> bool:
    return isinstance(e, Call) and e.func == "dot4"


def byte_vector_helpers(w: int, kind: str, dtype: str) -> str:
    byte = C_BYTES[dtype]
    return f"typedef {byte} tf_v{w}{kind} __attribute__((vector_size({w}), aligned(1)));"


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
_RINT = {16: "tf_mm512_roundscale_ps", 8: "tf_mm256_round_ps", 4: "tf_mm_round_ps"}
_RINT_ISAS = {16: ("avx512", "avx512vnni"), 8: ("avx512", "avx512vnni", "avx2")}


def rint_helper(w: int, isa: str) -> str | None:
    if w not in _RINT or isa not in _RINT_ISAS.get(w, ("avx512", "avx512vnni", "avx2", "sse4")):
        return None
    return (
        f"static inline tf_v{w}f tf_v{w}_rint(tf_v{w}f x) "
        f"{{ return (tf_v{w}f){_RINT[w]}(x, 0x08); }}"
    )


# dot4 over a vector of int32 lanes: acc[l] += sum_k uint8(a)[k] * int8(b[l])[k].
# VNNI does it in one vpdpbusd. Without VNNI, pmaddubsw would saturate its int16 pair sums
# (255 * 127 * 2 > 32767), so the sequence below is exact instead: the int8 lanes of b are
# sign-extended to int16 in two halves (bytes 0,2 and bytes 1,3 of each word), the uint8
# lanes of a zero-extended to match, and two pmaddwd (int16 pairs summed into int32) add up
# the four products.
_DOT4 = {
    (16, "vnni"): ("tf_mm512_dpbusd_epi32((tf_m512i)acc, tf_mm512_set1_epi32(a), (tf_m512i)b)",),
    (8, "vnni"): ("tf_mm256_dpbusd_epi32((tf_m256i)acc, tf_mm256_set1_epi32(a), (tf_m256i)b)",),
    (16, "avx512bw"): ("tf_mm512", "tf_m512i"),
    (8, "avx2"): ("tf_mm256", "tf_m256i"),
    (8, "avx512bw"): ("tf_mm256", "tf_m256i"),
}


def dot4_helpers(w: int, mode: str) -> str | None:
    """The C of `tf_v{w}_dp(acc, a, b)` for a dot4 mode (see `int8_dot`), None if none."""
    spec = _DOT4.get((w, mode))
    if spec is None:
        return None
    head = ""
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


DOT4_SCALAR = """\
static inline int32_t tf_dot4(int32_t a, int32_t b) {
  int32_t s = 0;
  for (int k = 0; k < 4; ++k)
    s += (int32_t)(uint8_t)(a >> (8 * k)) * (int32_t)(int8_t)(b >> (8 * k));
  return s; }"""


# -- the intrinsics the helpers call, as gcc 12's headers define them --------------------------

# the header's vector types (may_alias as there: loads through them alias anything); the
# comment makes this helper sort before every other
X86_TYPES = """\
/* 0: x86 vector types of the intrinsics below */
typedef long long tf_m128i __attribute__((vector_size(16), __may_alias__));
typedef long long tf_m256i __attribute__((vector_size(32), __may_alias__));
typedef long long tf_m512i __attribute__((vector_size(64), __may_alias__));
typedef float tf_m128 __attribute__((vector_size(16), __may_alias__));
typedef float tf_m256 __attribute__((vector_size(32), __may_alias__));
typedef float tf_m512 __attribute__((vector_size(64), __may_alias__));
typedef char tf_i8x16 __attribute__((vector_size(16)));
typedef short tf_i16x16 __attribute__((vector_size(32)));
typedef short tf_i16x32 __attribute__((vector_size(64)));
typedef int tf_i32x8 __attribute__((vector_size(32)));
typedef int tf_i32x16 __attribute__((vector_size(64)));
typedef long long tf_i64x8 __attribute__((vector_size(64)));
typedef float tf_f32x4 __attribute__((vector_size(16)));
typedef float tf_f32x8 __attribute__((vector_size(32)));
typedef float tf_f32x16 __attribute__((vector_size(64)));"""
# the intrinsics that call no other: "/* 1 */" sorts them after the types, before the rest
LEAVES = {
    "tf_mm512_undefined_epi32": "tf_m512i {n}(void) { tf_m512i y = y; return y; }",
    "tf_mm_undefined_si128": "tf_m128i {n}(void) { tf_m128i y = y; return y; }",
    "tf_mm512_undefined_ps": "tf_m512 {n}(void) { tf_m512 y = y; return y; }",
    "tf_mm512_setzero_si512": (
        "tf_m512i {n}(void) { return (tf_m512i)(tf_i64x8){ 0, 0, 0, 0, 0, 0, 0, 0 }; }"
    ),
}

_INLINE = "static inline __attribute__((always_inline, artificial))"
_MASK16, _MASK32 = "(unsigned short) -1", "(unsigned int) -1"
INTRINSICS = {  # name: (C definition, intrinsics it calls)
    "tf_mm512_cvtepu8_epi32": (
        "tf_m512i {n}(tf_m128i a) { return (tf_m512i)__builtin_ia32_pmovzxbd512_mask("
        f"(tf_i8x16)a, (tf_i32x16)tf_mm512_undefined_epi32(), {_MASK16}); }}",
        ("tf_mm512_undefined_epi32",),
    ),
    "tf_mm512_cvtepi8_epi32": (
        "tf_m512i {n}(tf_m128i a) { return (tf_m512i)__builtin_ia32_pmovsxbd512_mask("
        f"(tf_i8x16)a, (tf_i32x16)tf_mm512_undefined_epi32(), {_MASK16}); }}",
        ("tf_mm512_undefined_epi32",),
    ),
    "tf_mm512_cvtepi32_epi8": (
        "tf_m128i {n}(tf_m512i a) { return (tf_m128i)__builtin_ia32_pmovdb512_mask("
        f"(tf_i32x16)a, (tf_i8x16)tf_mm_undefined_si128(), {_MASK16}); }}",
        ("tf_mm_undefined_si128",),
    ),
    "tf_mm512_roundscale_ps": (
        "tf_m512 {n}(tf_m512 a, const int imm) { return (tf_m512)__builtin_ia32_rndscaleps_mask("
        "(tf_f32x16)a, imm, (tf_f32x16)tf_mm512_undefined_ps(), -1, 4); }",
        ("tf_mm512_undefined_ps",),
    ),
    "tf_mm256_round_ps": (
        "tf_m256 {n}(tf_m256 v, const int m) "
        "{ return (tf_m256)__builtin_ia32_roundps256((tf_f32x8)v, m); }",
        (),
    ),
    "tf_mm_round_ps": (
        "tf_m128 {n}(tf_m128 v, const int m) "
        "{ return (tf_m128)__builtin_ia32_roundps((tf_f32x4)v, m); }",
        (),
    ),
    "tf_mm512_set1_epi32": (
        "tf_m512i {n}(int a) { return (tf_m512i)(tf_i32x16)"
        "{ a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a }; }",
        (),
    ),
    "tf_mm256_set1_epi32": (
        "tf_m256i {n}(int a) { return (tf_m256i)(tf_i32x8){ a, a, a, a, a, a, a, a }; }",
        (),
    ),
    "tf_mm512_dpbusd_epi32": (
        "tf_m512i {n}(tf_m512i a, tf_m512i b, tf_m512i c) { return (tf_m512i)"
        "__builtin_ia32_vpdpbusd_v16si((tf_i32x16)a, (tf_i32x16)b, (tf_i32x16)c); }",
        (),
    ),
    "tf_mm256_dpbusd_epi32": (
        "tf_m256i {n}(tf_m256i a, tf_m256i b, tf_m256i c) { return (tf_m256i)"
        "__builtin_ia32_vpdpbusd_v8si((tf_i32x8)a, (tf_i32x8)b, (tf_i32x8)c); }",
        (),
    ),
    "tf_mm512_srai_epi16": (
        "tf_m512i {n}(tf_m512i a, const int imm) { return (tf_m512i)"
        "__builtin_ia32_psrawi512_mask((tf_i16x32)a, imm, "
        f"(tf_i16x32)tf_mm512_setzero_si512(), {_MASK32}); }}",
        ("tf_mm512_setzero_si512",),
    ),
    "tf_mm512_slli_epi16": (
        "tf_m512i {n}(tf_m512i a, const int b) { return (tf_m512i)"
        "__builtin_ia32_psllwi512_mask((tf_i16x32)a, b, "
        f"(tf_i16x32)tf_mm512_setzero_si512(), {_MASK32}); }}",
        ("tf_mm512_setzero_si512",),
    ),
    "tf_mm512_madd_epi16": (
        "tf_m512i {n}(tf_m512i a, tf_m512i b) { return (tf_m512i)"
        "__builtin_ia32_pmaddwd512_mask((tf_i16x32)a, (tf_i16x32)b, "
        f"(tf_i32x16)tf_mm512_setzero_si512(), {_MASK16}); }}",
        ("tf_mm512_setzero_si512",),
    ),
    "tf_mm256_srai_epi16": (
        "tf_m256i {n}(tf_m256i a, int b) "
        "{ return (tf_m256i)__builtin_ia32_psrawi256((tf_i16x16)a, b); }",
        (),
    ),
    "tf_mm256_slli_epi16": (
        "tf_m256i {n}(tf_m256i a, int b) "
        "{ return (tf_m256i)__builtin_ia32_psllwi256((tf_i16x16)a, b); }",
        (),
    ),
    "tf_mm256_madd_epi16": (
        "tf_m256i {n}(tf_m256i a, tf_m256i b) "
        "{ return (tf_m256i)__builtin_ia32_pmaddwd256((tf_i16x16)a, (tf_i16x16)b); }",
        (),
    ),
}
_CALL = re.compile(r"\btf_mm(?:512|256)?_[a-z0-9_]+")


def intrinsics(code: str) -> list[str]:
    """The helpers that define the intrinsics `code` calls (and those they call), and the
    vector types: what a kernel adds instead of including <immintrin.h>. Each definition is
    a helper of its own (two helpers may call one intrinsic); sorted, the types come first,
    then the intrinsics that call no other, then the rest, then the `static inline tf_v...`
    helpers that call them."""
    names = list(dict.fromkeys(_CALL.findall(code)))
    names += [callee for n in names if n in INTRINSICS for callee in INTRINSICS[n][1]]
    out = [X86_TYPES]
    for n in dict.fromkeys(names):
        if n in LEAVES:
            out.append(f"/* 1 */ {_INLINE} " + LEAVES[n].replace("{n}", n))
        else:
            out.append(f"{_INLINE} " + INTRINSICS[n][0].replace("{n}", n))
    return out
