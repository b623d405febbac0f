"""Target strings and the integer analysis that bound inference and vectorisation rely on."""

from __future__ import annotations

import pytest

from tunefarm.backends import TargetError, canonical, kinds, parse_target
from tunefarm.backends.cpu.target import effective_isa, num_cores, vector_lanes
from tunefarm.codegen.arith import bounds, coefficient, simplify, to_affine
from tunefarm.ir.expr import Const, Var


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
