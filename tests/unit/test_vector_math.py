"""The vector erf and tanh the C emitter writes (BERT's GELU, the pooler's tanh): a real
compiled elementwise kernel over a dense grid and every float binade, against float64
references. Documented edge behaviour: NaN in gives NaN out, +-inf give +-1, erf(0) and
tanh(0) are 0 and a denormal x keeps its sign (erf: x * 1.128, tanh: x)."""

from __future__ import annotations

import ctypes
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target
from tunefarm.backends.cpu.c_emitter import emit_c
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.ops import elementwise
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule

TARGET = parse_target("cpu")
SPECIAL = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -3e-39, np.inf, -np.inf, np.nan]


def inputs() -> np.ndarray:
    """-10..10 densely, then every binade from the smallest denormal to the largest float,
    then the special values; padded to a whole number of vectors."""
    grid = np.linspace(-10, 10, 400_001, dtype=np.float32)
    mags = np.logspace(-45, 38.5, 20_000).astype(np.float32)
    x = np.concatenate([grid, mags, -mags, np.array(SPECIAL, np.float32)])
    pad = -len(x) % 64
    return np.concatenate([x, np.zeros(pad, np.float32)])


def aligned(a: np.ndarray) -> np.ndarray:
    """A copy of `a` at a 64-byte boundary (the kernel assumes its arguments are)."""
    buf = np.empty(a.size + 16, np.float32)
    start = (-buf.ctypes.data % 64) // 4
    out = buf[start : start + a.size]
    out[:] = a
    return out


def run(func: str, x: np.ndarray, tmp: Path) -> tuple[np.ndarray, str]:
    """(func over x by the compiled vector kernel, its C source)."""
    w = vector_lanes(TARGET)
    data = te.placeholder(x.shape, name="data")
    y = getattr(elementwise, func)(data)
    axis = "i0"
    sch = Schedule([y], [data]).apply_all(
        [S.Split(y.name, axis, (w,)), S.Vectorize(y.name, f"{axis}.1")]
    )
    code = emit_c(lower(sch), TARGET)
    src, lib = tmp / f"{func}.c", tmp / f"{func}.so"
    src.write_text(code)
    subprocess.run(get_backend("cpu").toolchain(TARGET).command(str(src), str(lib)), check=True)
    x, out = aligned(x), aligned(np.zeros_like(x))
    args = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
    assert ctypes.CDLL(str(lib)).tf_entry(args) == 0
    return out, code


def test_vector_erf_is_accurate_and_vectorised(tmp_path: Path) -> None:
    x = inputs()
    got, code = run("erf", x, tmp_path)
    w = vector_lanes(TARGET)
    assert f"tf_v{w}_erf(" in code and "erff(" not in code and f"tf_v{w}_tanh" not in code
    ref = np.vectorize(math.erf)(np.nan_to_num(x.astype(np.float64)))
    ok = ~np.isnan(x)
    assert np.abs(got[ok] - ref[ok]).max() <= 2e-7
    assert np.isnan(got[~ok]).all()
    assert np.abs(got[ok]).max() <= 1.0  # clamped: never past +-1
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()
    assert got[x == np.inf].tolist() == [1.0] and got[x == -np.inf].tolist() == [-1.0]
    tiny = (np.abs(x) < 1e-30) & (x != 0)  # erf(x) = 2x / sqrt(pi), to the denormal step
    expect = x[tiny].astype(np.float64) * (2 / math.sqrt(math.pi))
    np.testing.assert_allclose(got[tiny], expect, rtol=1e-6, atol=2e-45)
    assert (np.sign(got[tiny]) == np.sign(x[tiny])).all()


def test_vector_tanh_is_accurate_and_vectorised(tmp_path: Path) -> None:
    x = inputs()
    got, code = run("tanh", x, tmp_path)
    w = vector_lanes(TARGET)
    assert f"tf_v{w}_tanh(" in code and "tanhf(" not in code
    assert code.index(f"tf_v{w}_exp(tf_v") < code.index(f"tf_v{w}_tanh(tf_v")  # exp first
    ref = np.tanh(x.astype(np.float64))
    ok = ~np.isnan(x)
    ulp = np.spacing(np.abs(ref[ok]).astype(np.float32)).astype(np.float64)
    err_ulp = np.abs(got[ok] - ref[ok]) / np.maximum(ulp, np.spacing(np.float32(0)))
    assert err_ulp.max() <= 4  # a few ulp everywhere, near 0 included
    assert np.isnan(got[~ok]).all()
    assert got[x == np.inf].tolist() == [1.0] and got[x == -np.inf].tolist() == [-1.0]
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()


@pytest.mark.parametrize("func", ["erf", "tanh"])
def test_helpers_only_where_used(func: str, tmp_path: Path) -> None:
    data = te.placeholder((64,), name="data")
    y = elementwise.relu(data)
    code = emit_c(lower(Schedule([y], [data])), TARGET)
    assert f"_{func}(" not in code and "_exp(" not in code


def test_scalar_libm_calls_need_no_math_header(tmp_path: Path) -> None:
    """Scalar (not vectorised) sqrt and a clip to [-inf, 3] compile without <math.h> (gcc's
    builtins), give numpy's values, and only the scalar helpers they call are emitted."""
    data = te.placeholder((64,), name="data")
    y = elementwise.clip(elementwise.sqrt(data), -math.inf, 3.0)
    code = emit_c(lower(Schedule([y], [data])), TARGET)
    assert "<math.h>" not in code and "__builtin_sqrtf(" in code and "__builtin_inff()" in code
    assert "tf_min_double" not in code and "tf_max_double" not in code
    src, lib = tmp_path / "k.c", tmp_path / "k.so"
    src.write_text(code)
    subprocess.run(get_backend("cpu").toolchain(TARGET).command(str(src), str(lib)), check=True)
    x = aligned(np.linspace(0, 16, 64, dtype=np.float32))
    out = aligned(np.zeros(64, np.float32))
    args = (ctypes.c_void_p * 2)(x.ctypes.data, out.ctypes.data)
    assert ctypes.CDLL(str(lib)).tf_entry(args) == 0
    np.testing.assert_allclose(out, np.minimum(np.sqrt(x), 3.0), rtol=1e-6)
