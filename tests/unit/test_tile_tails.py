"""Tile tails in the C emitter (attention's odd key counts, ViT's 197 keys): a loop marked
`peel_tail` runs its last iteration apart, so the guards of a split that does not divide
fold away there and are dropped from the other iterations; a select that writes a row's
zero padding (`j < n ? x[min(j, n - 1)] : 0`) vectorises but for the row's last vector;
a select whose branch reads only what its condition reads (attention's exp floor)
vectorises too. Real compiled kernels against numpy, with the ISA pinned (AVX2, 8 lanes)."""

from __future__ import annotations

import ctypes
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target, registry
from tunefarm.backends.cpu.c_emitter import emit_c
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import const, min_, select
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule, ScheduleError
from tunefarm.task import Task

TARGET = parse_target("cpu -isa=avx2")
LANES = 8


def aligned(a: np.ndarray) -> np.ndarray:
    buf = np.empty(a.size + 16, np.float32)
    start = (-buf.ctypes.data % 64) // 4
    out = buf[start : start + a.size].reshape(a.shape)
    out[...] = a
    return out


def build_run(sch: Schedule, xs: list[np.ndarray], out_shape, tmp: Path) -> tuple[np.ndarray, str]:
    code = emit_c(lower(sch), TARGET)
    src, lib = tmp / "k.c", tmp / "k.so"
    src.write_text(code)
    subprocess.run(get_backend("cpu").toolchain(TARGET).command(str(src), str(lib)), check=True)
    args_np = [aligned(x) for x in xs] + [aligned(np.zeros(out_shape, np.float32))]
    args = (ctypes.c_void_p * len(args_np))(*[a.ctypes.data for a in args_np])
    assert ctypes.CDLL(str(lib)).tf_entry(args) == 0
    return args_np[-1], code


def matmul_schedule(m: int, k: int, n: int, peel: bool) -> Schedule:
    """[m, k] x [k, n], n split into tiles of 2 vectors that do not divide its vectors."""
    a, b = te.placeholder((m, k), name="a"), te.placeholder((k, n), name="b")
    r = te.reduce_axis(k, "r")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r.var] * b[r.var, j], axis=r), name="c")
    steps = [
        S.Split("c", "j", (2, LANES)),
        S.Reorder("c", ("j.0", "i", "r", "j.1", "j.2")),
        S.Unroll("c", "j.1"),
        S.Vectorize("c", "j.2"),
    ]
    if peel:
        steps.append(S.Pragma("c", "j.0", "peel_tail"))
    return Schedule([c], [a, b]).apply_all(steps)


@pytest.mark.parametrize("n", [40, 37])  # 5 vectors (tail tile of 1), 37: a partial vector too
def test_peel_tail_drops_the_guards_and_computes_the_same(tmp_path: Path, n: int) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 7), np.float32), rng.standard_normal((7, n), np.float32)
    want = a.astype(np.float64) @ b
    got, code = build_run(matmul_schedule(3, 7, n, True), [a, b], (3, n), tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    plain, before = build_run(matmul_schedule(3, 7, n, False), [a, b], (3, n), tmp_path)
    np.testing.assert_allclose(plain, want, rtol=1e-5, atol=1e-5)
    main = code.split("for (int32_t c_j_0 = 0; c_j_0 < 2; ++c_j_0) {")[1].split("\n    }\n")[0]
    assert "if (" not in main  # whole tiles: no guard left
    assert "if (" in before  # without the pragma every tile tests its lanes
    if n == 40:  # the tail tile holds its one whole vector and nothing else
        assert "if (" not in code


def test_peel_tail_is_a_known_pragma() -> None:
    sch = matmul_schedule(2, 2, 16, False)
    with pytest.raises(ScheduleError, match="peel_tail"):
        sch.apply(S.Pragma("c", "j.0", "peel_later"))


def test_padding_select_vectorises_but_the_last_vector(tmp_path: Path) -> None:
    """x [4, 19] scaled into rows padded to 24 with zeros, as attention's K^T."""
    n, pad = 19, 24
    x = te.placeholder((4, n), name="x")

    def body(i, j):
        return select(j < n, x[i, min_(j, n - 1)] * const(0.5), const(0.0))

    y = te.compute((4, pad), body, name="y")
    sch = Schedule([y], [x]).apply_all([S.Split("y", "j", (LANES,)), S.Vectorize("y", "j.1")])
    xs = np.random.default_rng(1).standard_normal((4, n)).astype(np.float32)
    got, code = build_run(sch, [xs], (4, pad), tmp_path)
    want = np.zeros((4, pad), np.float32)
    want[:, :n] = xs * 0.5
    np.testing.assert_array_equal(got, want)
    assert re.search(r"\(\*\(const tf_v8fu\*\)\(&x\[", code)  # a vector load of x
    assert "? (x[" in code  # the last vector, lane by lane


def test_attention_pads_keys_to_vectors_not_tiles() -> None:
    """197 keys, 8 lanes: 25 vectors (200 keys); tiles of 2 used to pad to 208."""
    t = Task.make("attention", target="cpu -isa=avx2", q=(1, 2, 197, 16), k=(1, 2, 16, 197),
                  v=(1, 2, 197, 16), scale=0.25)  # fmt: skip
    kdef = registry.instantiate(t, {**registry.default_config(t).as_dict(), "tile_o": 2})
    code = emit_c(lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps)), TARGET)
    assert f"attn_kp[{2 * 16 * 200}]" in code
    assert "attn_kp_j_1" in code and "(*(const tf_v8fu*)(&k[" in code  # K^T copied in vectors


def _select_kernel(tmp: Path, branch_reads_other: bool) -> tuple[np.ndarray, str, np.ndarray]:
    x, w = te.placeholder((64,), name="x"), te.placeholder((64,), name="w")

    def body(i):
        t = x[i] * const(2.0)
        taken = w[i] if branch_reads_other else t
        return select(t <= const(0.5), const(0.0), taken)

    y = te.compute((64,), body, name="y")
    sch = Schedule([y], [x, w]).apply_all([S.Split("y", "i", (LANES,)), S.Vectorize("y", "i.1")])
    rng = np.random.default_rng(2)
    xs, ws = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    got, code = build_run(sch, [xs, ws], (64,), tmp)
    want = np.where(xs * 2 <= 0.5, 0, ws if branch_reads_other else xs * 2).astype(np.float32)
    return got, code, want


def test_select_reading_what_its_condition_reads_vectorises(tmp_path: Path) -> None:
    got, code, want = _select_kernel(tmp_path, False)
    np.testing.assert_array_equal(got, want)
    assert "tf_v8_sel(" in code and "omp simd" not in code


def test_select_guarding_another_load_stays_scalar(tmp_path: Path) -> None:
    got, code, want = _select_kernel(tmp_path, True)
    np.testing.assert_array_equal(got, want)
    assert "tf_v8_sel(" not in code and "omp simd" in code
