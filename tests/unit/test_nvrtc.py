"""NVRTC builds CUDA C in process (no GPU needed): the cuda backend's default compiler, with
nvcc as the fallback. Resources from ptxas's report must agree with nvcc's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cuda import nvrtc
from tunefarm.backends.cuda.resources import nvcc_resource_usage, resource_usage
from tunefarm.backends.cuda.target import nvcc_toolchain, toolchain
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput
from tunefarm.measure.compile import run_toolchain, toolchain_identity
from tunefarm.target import TargetError
from tunefarm.task import Task

GOLDEN = Path(__file__).parent.parent / "golden" / "cuda"


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_nvrtc_builds_a_cubin_whose_resources_match_nvcc(arch):
    code = (GOLDEN / "conv2d_3x3.cu").read_text()
    cubin, log = nvrtc.compile_cubin(code, (f"-arch={arch}", "-Xptxas=-v"))
    assert cubin[:4] == b"\x7fELF" and f"'{arch}'" in log
    got = nvrtc.resources(log)
    assert got["registers"] > 0 and got["shared_bytes"] == 12416
    if shutil.which("nvcc"):
        ref = nvcc_resource_usage(code, parse_target(f"cuda -arch={arch}"))
        assert {k: ref[k] for k in got} == got


def test_a_compile_error_names_the_line_and_the_builder_reports_it():
    with pytest.raises(nvrtc.NvrtcError, match=r"bad\.cu\(2\).*undefined"):
        nvrtc.compile_cubin(
            'extern "C" __global__ void k(float* x) {\n x[0] = nope;\n}', (), "bad.cu"
        )
    task = Task.make("dense", target="cuda -arch=sm_90", data=(4, 32), weight=(16, 32))
    inp = MeasureInput(task, registry.default_config(task))
    with registry.local_builder(n_parallel=1) as builder:
        (build,) = builder.build([inp])
    assert build.ok, build.error_msg
    assert build.artifact.endswith(".cubin") and build.compiler.startswith("NVRTC 13.")
    log = Path(build.artifact + ".log").read_text()  # ptxas's report comes with every build
    assert nvrtc.resources(log)["registers"] > 0
    broken = MeasureInput(task, Config.make({**inp.config.as_dict(), "tile_k": 7}))
    with registry.local_builder(n_parallel=1) as builder:
        (bad,) = builder.build([broken])
    assert bad.error_no in (MeasureErrorNo.INSTANTIATION_ERROR, MeasureErrorNo.BUILD_ERROR)


def test_the_compiler_choice_and_the_nvcc_fallback(monkeypatch, tmp_path):
    target = parse_target("cuda -arch=sm_90")
    tc = toolchain(target)
    assert tc.in_process and tc.artifact_suffix == ".cubin"
    assert toolchain_identity(tc) == nvrtc.version()
    monkeypatch.setenv("TUNEFARM_CUDA_COMPILER", "nvcc")
    assert toolchain(target) == nvcc_toolchain(target)
    assert not toolchain(target).in_process
    monkeypatch.setenv("TUNEFARM_CUDA_COMPILER", "clang")
    with pytest.raises(TargetError, match="TUNEFARM_CUDA_COMPILER='clang'.*nvrtc or nvcc"):
        toolchain(target)
    monkeypatch.delenv("TUNEFARM_CUDA_COMPILER")
    src = tmp_path / "k.cu"
    src.write_text((GOLDEN / "dense_float4.cu").read_text())
    rc, log = run_toolchain(tc, str(src), str(tmp_path / "k.cubin"), (), 60.0)
    assert rc == 0 and "registers" in log and (tmp_path / "k.cubin").stat().st_size > 0
    info = resource_usage(src.read_text(), target)
    assert info["compiler"] == nvrtc.version() and info["registers"] > 0


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_the_light_options_leave_every_golden_cubin_byte_identical(arch):
    # `-minimal` (nvrtc.LIGHT_OPTIONS) only trims NVRTC's prelude: the same SASS, byte for
    # byte, for every golden kernel (tensor-core mma ones included); builds use it
    target = parse_target(f"cuda -arch={arch}")
    assert set(nvrtc.LIGHT_OPTIONS) <= set(toolchain(target).flags)
    plain = (f"-arch={arch}", "-Xptxas=-v")
    for path in sorted(GOLDEN.glob("*.cu")):
        code = path.read_text()
        a, _ = nvrtc.compile_cubin(code, plain)
        b, _ = nvrtc.compile_cubin(code, plain + nvrtc.LIGHT_OPTIONS)
        assert a == b, f"{path.name} ({arch}): the cubin changed with {nvrtc.LIGHT_OPTIONS}"
