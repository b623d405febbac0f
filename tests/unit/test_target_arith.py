"""Target strings and the integer analysis that bound inference and vectorisation rely on."""

from __future__ import annotations

import pytest

from tunefarm.backends import TargetError, canonical, kinds, parse_target
from tunefarm.backends.cpu.target import effective_isa, num_cores, vector_lanes
from tunefarm.codegen.arith import SubstSimplifier, bounds, coefficient, simplify, to_affine
from tunefarm.ir.expr import Binary, Const, Var, logical_and, select
from tunefarm.ir.transform import substitute


def test_target_parse_and_print() -> None:
    t = parse_target("cpu -isa=avx512 -cores=2")
    assert (t.kind, t.get("isa"), num_cores(t), vector_lanes(t)) == ("cpu", "avx512", 2, 16)
    assert str(t) == "cpu -isa=avx512 -cores=2"
    assert vector_lanes(parse_target("cpu -isa=avx2")) == 8
    assert canonical("cpu   -cores=2  -isa=generic") == "cpu -isa=generic -cores=2"
    assert canonical("cpu -cores=0") == "cpu"  # 0 is the default: every core
    assert effective_isa(parse_target("cpu")) in ("avx512", "avx2", "sse4", "generic")
    assert kinds() == ["cpu", "cuda", "opencl", "vta"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("gpu", "no backend for 'gpu'; targets that exist: cpu \\[-isa="),
        ("rocm -arch=gfx90a", "no backend for 'rocm'"),
        ("cpu isa=avx2", "must look like -key=value"),
        ("cpu -isa=avx9", "-isa=avx9 is not one of avx512, avx2, sse4, generic"),
        ("cpu -cores=two", "-cores=two is not an integer"),
        ("cpu -arch=sm_90", "unknown option\\(s\\) -arch; cpu takes: cpu \\[-isa="),
        ("cpu -isa=avx2 -isa=sse4", "-isa is given twice"),
        ("", "the target is empty"),
    ],
)
def test_bad_targets_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_target(text)


i, j = Var("i"), Var("j")


def test_affine_form_and_coefficients() -> None:
    aff = to_affine(i * 16 + j - 3 + i * 2)
    assert aff.coefs == {"i": 18, "j": 1} and aff.const == -3
    assert coefficient(i * 16 + j, "j") == 1
    assert coefficient((i * 16 + j) // 4, "j") is None  # j inside a division: not affine


def test_div_mod_folding_uses_ranges() -> None:
    ranges = {"i": (0, 9), "j": (0, 13)}
    assert simplify((i * 14 + j) // 14, ranges) == i
    assert simplify((i * 14 + j) % 14, ranges) == j
    # without knowing j < 14 nothing may be folded
    assert simplify((i * 14 + j) // 14, {}) != i


def test_bounds_and_guard_elimination() -> None:
    ranges = {"i": (0, 3), "j": (0, 13)}
    assert bounds(i * 14 + j, ranges) == (0, 55)
    assert simplify(i * 14 + j < 56, ranges) == Const(1, "bool")
    assert not isinstance(simplify(i * 14 + j < 50, ranges), Const)


def test_subst_simplifier_builds_what_substitute_then_simplify_builds() -> None:
    """The unroller's memoised substitution must give the very same trees (the C text is
    pinned by golden files): nested copies, guards, div/mod, zero coefficients, opaque terms."""
    k = Var("k", "int32")
    ranges = {"i": (0, 3), "j": (0, 13), "k": (0, 7)}
    exprs = [
        ((i * 14 + j) * 8 + k) // 8 + (k % 4) * 3,
        select(logical_and(i * 14 + j < 50, k * 2 + j >= 3), k * 2, j - k),
        (i * j + k * 0) * 2 + (i - i) * k,
        ((j + k) // 4) * (i + 1) - k,
    ]
    simp = SubstSimplifier(ranges)
    for e in exprs:
        for iv in range(2):
            outer, outer_ref = (
                simp(e, "i", Const(iv)),
                simplify(substitute(e, {"i": Const(iv)}), ranges),
            )
            assert outer == outer_ref
            for kv in range(3):  # the inner copies reuse what the outer copy built
                got = simp(outer, "k", Const(kv))
                assert got == simplify(substitute(outer_ref, {"k": Const(kv)}), ranges)
    simp.clear()
    assert simp(exprs[0], "j", Const(13)) == simplify(
        substitute(exprs[0], {"j": Const(13)}), ranges
    )


def test_subst_simplifier_keeps_the_sign_of_zero() -> None:
    """Trees equal but for 0.0 / -0.0 compare equal and print differently: no sharing."""
    f = Var("f", "float32")
    simp = SubstSimplifier({})
    neg = simp(Binary("max", Const(-0.0, "float32"), f, "float32"), "i", Const(0))
    pos = simp(Binary("max", Const(0.0, "float32"), f, "float32"), "i", Const(0))
    assert repr(neg.a.value) == "-0.0" and repr(pos.a.value) == "0.0"


def test_unrolled_term_moves_only_the_constant() -> None:
    """An unrolled variable that is a plain term of an index sum (`_shift`): every copy is
    the tree `simplify(substitute(...))` builds, same repr, and copies share the sum of
    the other terms. Sums where it is not a plain term (a product with another variable,
    by zero, inside a division) take the general path and must agree too."""
    k, m = Var("k", "int32"), Var("m", "int32")
    ranges = {"i": (0, 3), "j": (0, 13), "k": (0, 7), "m": (0, 5)}
    exprs = [
        ((m * 4 + k) * 14 + j) * 8 + i * 16 + 5,
        i * 16 + j - 3 + i * 2 - k * 8,
        (j // 4) * 3 + (k - 2) * 5 - 7 + (j % 3),
        (i - i) * j + k * 3 + m,
        i * j + k * 4 + 1,
        (k * 0 + j) * 2 + k,
        ((j + k) // 4) * 6 + k + m * 2,
        (8 - k) * 3 + j * -2 + m,
    ]
    simp = SubstSimplifier(ranges)
    for e in exprs:
        copies = []
        for kv in range(4):
            got = simp(e, "k", Const(kv))
            ref = simplify(substitute(e, {"k": Const(kv)}), ranges)
            assert repr(got) == repr(ref), (e, kv)
            copies.append(got)
            for mv in range(3):  # an inner unrolled level over each outer copy
                inner = simp(got, "m", Const(mv))
                assert repr(inner) == repr(simplify(substitute(ref, {"m": Const(mv)}), ranges))
    shared = [simp(exprs[0], "k", Const(kv)) for kv in (1, 2)]
    assert shared[0].a is shared[1].a and shared[0].b != shared[1].b  # one sum, two constants


def test_outer_copies_loads_are_simplified_from_their_memoised_children() -> None:
    """An outer unrolled copy's new loads and selects are var-free at the inner level and
    are simplified once from their children's memoised results (`_simplify_new`), not by a
    fresh rewrite: each inner copy must still be the tree `simplify(substitute(...))`
    builds, same repr, over both levels and in both orders of the variables."""
    from tunefarm.codegen.loops import Buffer, BufferLoad

    k, m = Var("k", "int32"), Var("m", "int32")
    ranges = {"i": (0, 3), "j": (0, 13), "k": (0, 7), "m": (0, 5)}
    buf = Buffer("A", (4096,), "float32", "arg")
    a = BufferLoad(buf, ((m * 4 + k) * 14 + j) * 8 + i * 16 + 5, "float32")
    b = BufferLoad(buf, (j // 4) * 3 + (k - 2) * 5 + m * 64, "float32")
    exprs = [
        a * b + BufferLoad(buf, i * 7 + m - 1, "float32") - BufferLoad(buf, k * 3 + j, "float32"),
        select(logical_and(k * 2 + j < 20, m + i >= 2), a, b * 0.5),
        select(i * 4 + k < 9, a, b) + BufferLoad(buf, k * 0 + j * 3, "float32"),
    ]
    for outer, inner in (("k", "m"), ("m", "k")):
        simp = SubstSimplifier(ranges)
        for e in exprs:
            for ov in range(3):
                got = simp(e, outer, Const(ov))
                ref = simplify(substitute(e, {outer: Const(ov)}), ranges)
                assert repr(got) == repr(ref), (e, outer, ov)
                for iv in range(3):
                    want = simplify(substitute(ref, {inner: Const(iv)}), ranges)
                    assert repr(simp(got, inner, Const(iv))) == repr(want), (e, inner, iv)
