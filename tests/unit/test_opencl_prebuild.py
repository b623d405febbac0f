"""OpenCL candidates are compiled in the build workers (`backends/opencl/prebuild.py`): the
build fills pocl's kernel cache with the program and the work-group function for the
launch's block, so the measurer compiles nothing; a broken source is a build error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tunefarm.backends import registry
from tunefarm.backends.opencl import prebuild
from tunefarm.backends.opencl.driver import OpenCLError
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task

CONV = dict(data=(1, 8, 10, 10), weight=(8, 8, 3, 3), strides=(1, 1), padding=(1, 1, 1, 1))

# run in a fresh process: pocl reads POCL_CACHE_DIR once, when it starts
FILL_CACHE = """
import json, os, sys
from pathlib import Path
from tunefarm.backends.opencl import prebuild
from tunefarm.backends.opencl.driver import OpenCLError
src, out, cache = sys.argv[1], sys.argv[2], sys.argv[3]
note = prebuild.compile_file(src, out, tuple(sys.argv[4:]))
dirs = sorted(p.name for p in Path(cache).rglob("*") if p.is_dir())
print(json.dumps({"note": note, "dirs": dirs}))
"""


def conv_source(tmp_path):
    task = Task.make("conv2d", target="opencl", **CONV)
    src = registry.generate_source(MeasureInput(task, registry.default_config(task)))
    path = tmp_path / "k.src.cl"
    path.write_text(src.code)
    return src, path


def test_candidates_get_the_prebuild_toolchain_with_their_buffer_sizes(tmp_path, monkeypatch):
    src, _ = conv_source(tmp_path)
    assert src.toolchain.in_process == "tunefarm.backends.opencl.prebuild"
    # data 8x10x10, weight 8x8x3x3, out 8x10x10 floats
    assert src.toolchain.flags == ("--buffers=3200,2304,3200",)
    monkeypatch.setenv(prebuild.ENV, "0")
    task = Task.make("conv2d", target="opencl", **CONV)
    off = registry.generate_source(MeasureInput(task, registry.default_config(task)))
    assert off.toolchain.compiler == ""  # the measurer compiles, as networks' kernels do


def test_a_build_fills_pocls_cache_with_the_blocks_work_group_function(tmp_path):
    src, path = conv_source(tmp_path)
    cache = tmp_path / "kcache"
    cache.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", FILL_CACHE, str(path), str(tmp_path / "k.cl"), str(cache),
         *src.toolchain.flags],
        capture_output=True, text=True, check=True, env={**_env(), "POCL_CACHE_DIR": str(cache)},
    )  # fmt: skip
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    assert rep["note"].startswith("built and launched once")
    block = src.code.split("block=")[1].split()[0].replace(",", "-")
    assert any(d.startswith(block) for d in rep["dirs"]), rep["dirs"]  # e.g. 8-8-8-goffs0-...
    assert (tmp_path / "k.cl").read_text() == src.code  # the artifact is the source


def test_a_source_that_does_not_build_is_a_build_error_with_the_log(tmp_path):
    path = tmp_path / "bad.src.cl"
    path.write_text(
        "// tunefarm-launch entry=tf_kernel grid=1,1,1 block=1,1,1 shared=0\n"
        "__kernel void tf_kernel(__global float* a) { a[0] = undefined_name; }\n"
    )
    with pytest.raises(OpenCLError, match="(?s)clBuildProgram failed.*undefined_name"):
        prebuild.compile_file(str(path), str(tmp_path / "bad.cl"), ("--buffers=4",))


def test_prebuilt_candidates_measure_correctly(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path / "cache"))
    task = Task.make("conv2d", target="opencl", **CONV)
    space = registry.config_space(task)
    inps = [MeasureInput(task, registry.default_config(task))]
    i = len(space) // 3
    inps += [MeasureInput(task, Config.make(dict(space.get(i)), index=i))]
    with registry.local_builder(n_parallel=2) as builder:
        builds = builder.build(inps)
    assert all(b.error_no == MeasureErrorNo.NO_ERROR for b in builds), builds
    settings = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0)
    with registry.local_runner(settings, kind="opencl") as runner:
        results = runner.run(inps, builds)
    assert [r.error_no for r in results] == [MeasureErrorNo.NO_ERROR] * 2, results


# build two candidates in the build workers, then measure them in the persistent measurer;
# pocl's cache listed after each (every file: a compile in the measurer would add some)
SHARED_CACHE = """
import json, sys
from pathlib import Path
from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.task import Task
cache = Path(sys.argv[1])
task = Task.make("conv2d", target="opencl", **json.loads(sys.argv[2]))
space = registry.config_space(task)
inps = [MeasureInput(task, registry.default_config(task))]
inps += [MeasureInput(task, Config.make(dict(space.get(len(space) // 3)), index=1))]
def files():
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*")
                  if p.is_file() and not p.name.startswith("tempfile_"))  # pocl's scratch
with registry.local_builder(n_parallel=2) as builder:
    builds = builder.build(inps)
after_build = files()
settings = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0)
with registry.local_runner(settings, kind="opencl") as runner:
    results = runner.run(inps, builds)
print(json.dumps({"after_build": after_build, "after_measure": files(),
                  "ok": [r.ok for r in results], "errors": [r.error_msg for r in results]}))
"""


def test_the_measurer_finds_every_prebuilt_kernel_in_pocls_cache(tmp_path):
    """Build workers and the measurer share pocl's cache (POCL_CACHE_DIR, inherited by every
    process of the tune): measuring adds nothing to it, so the measurer compiled nothing."""
    cache = tmp_path / "kcache"
    cache.mkdir()
    env = {**_env(), "POCL_CACHE_DIR": str(cache), "TUNEFARM_CACHE": str(tmp_path / "build")}
    out = subprocess.run(
        [sys.executable, "-c", SHARED_CACHE, str(cache), json.dumps(CONV)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    assert rep["ok"] == [True, True], rep["errors"]
    assert any(f.endswith(".so") for f in rep["after_build"]), rep["after_build"]
    assert rep["after_measure"] == rep["after_build"]


def _env() -> dict[str, str]:
    return dict(os.environ)


def test_lighter_build_options_are_added_to_the_drivers(monkeypatch):
    from tunefarm.backends.opencl import driver

    monkeypatch.delenv(driver.ENV_BUILD_OPTIONS, raising=False)
    assert driver.build_options() == "-cl-std=CL1.2"
    monkeypatch.setenv(driver.ENV_BUILD_OPTIONS, "-cl-opt-disable")
    assert driver.build_options() == "-cl-std=CL1.2 -cl-opt-disable"
