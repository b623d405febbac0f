"""GPU kernels without a GPU: every GPU template, at its default and 10 random configs,
compiles with nvcc for sm_80 and sm_90, and the same loop nests rendered as OpenCL C run on
pocl (real work-groups, local memory, barriers) and match the numpy oracle. A config that
breaks a launch limit is a build-error record naming the limit.

Needs nvcc and an OpenCL device (pocl: .ci/run installs it); each skips with the reason where
it is missing (a failure in CI, see tests/conftest.py). Tests that need a GPU are marked `gpu`.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target, registry
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task

E = MeasureErrorNo
CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0)
RANDOM = 10

# one small task per GPU template (op, params)
TEMPLATES: dict[str, dict] = {
    "conv2d": dict(
        op="conv2d", data=(1, 8, 10, 10), weight=(16, 8, 3, 3), padding=(1, 1, 1, 1),
        epilogue=("bias", "relu"),
    ),
    "dense": dict(op="dense", data=(2, 64), weight=(48, 64), epilogue=("bias",)),
    "depthwise_conv2d": dict(
        op="conv2d", data=(1, 8, 12, 12), weight=(8, 1, 3, 3), strides=(2, 2),
        padding=(1, 1, 1, 1), groups=8,
    ),
    "pool2d": dict(
        op="pool2d", data=(1, 8, 12, 12), kind="avg", kernel=(3, 3), strides=(2, 2),
        padding=(1, 1, 1, 1),
    ),
    "global_pool2d": dict(op="global_pool2d", data=(1, 16, 7, 7), kind="max"),
    "batch_matmul": dict(op="batch_matmul", a=(2, 8, 12), b=(1, 10, 12), transpose_b=True),
    "elementwise": dict(op="elementwise", fn="add", shapes=[(2, 8, 5, 5), (1, 8, 1, 1)]),
}  # fmt: skip


def make_task(name: str, target: str) -> Task:
    params = dict(TEMPLATES[name])
    return Task.make(params.pop("op"), target=target, **params)


def configs(task: Task, seed: int = 0) -> list[Config]:
    """The default config and RANDOM random ones (the same for every target: one seed)."""
    space = registry.config_space(task)
    picked = space.sample(np.random.default_rng(seed), RANDOM + 1)
    default = registry.default_config(task)
    rest = [i for i in picked if i != default.index][:RANDOM]
    return [default, *(Config.make(space.get(i), index=i) for i in rest)]


def inputs(target: str) -> list[MeasureInput]:
    return [
        MeasureInput(t, c)
        for t in (make_task(name, target) for name in TEMPLATES)
        for c in configs(t)
    ]


def over_a_limit(msg: str) -> bool:
    return "DeviceLimitError" in msg and "exceeds the limit" in msg


def need_nvcc() -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed (the CUDA toolkit compiles the cuda backend)")


def need_opencl() -> None:
    from tunefarm.backends.opencl import driver

    try:
        driver.first_device()
    except driver.OpenCLError as exc:
        pytest.skip(f"no OpenCL device: {exc}")


def test_targets_parse_and_refuse_bad_options():
    assert str(parse_target("cuda")) == "cuda -arch=sm_90"
    assert str(parse_target("cuda -arch=sm_80")) == "cuda -arch=sm_80"
    with pytest.raises(ValueError, match="-arch=sm_70 is not one of sm_80, sm_90"):
        parse_target("cuda -arch=sm_70")
    with pytest.raises(ValueError, match="unknown option"):
        parse_target("opencl -arch=sm_90")
    assert get_backend("cuda").ops() == get_backend("opencl").ops()


@pytest.mark.slow
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_template_compiles_with_nvcc(arch):
    """Default + 10 random configs of every template: a fat binary, or a limit named."""
    need_nvcc()
    inps = inputs(f"cuda -arch={arch}")
    builds = registry.local_builder(n_parallel=2, timeout_s=300).build(inps)
    compiled = 0
    for inp, b in zip(inps, builds, strict=True):
        where = f"{inp.task.op} {inp.config.as_dict()}"
        assert b.ok or (b.error_no == E.BUILD_ERROR and over_a_limit(b.error_msg)), (
            f"{where}: {b.error_msg}"
        )
        compiled += b.ok
    assert compiled >= len(inps) * 3 // 4
    default = [registry.default_config(inp.task).index for inp in inps]
    picked = [b for inp, b, d in zip(inps, builds, default, strict=True) if inp.config.index == d]
    assert len(picked) == len(TEMPLATES) and all(b.ok for b in picked)


@pytest.mark.slow
def test_every_template_runs_correctly_on_opencl():
    """The same configs as OpenCL C on pocl, each checked against numpy in a child."""
    need_opencl()
    inps = inputs("opencl")
    builds = registry.local_builder(n_parallel=2).build(inps)
    with registry.local_runner(CHECK, kind="opencl") as runner:
        results = runner.run(inps, builds)
    ran = 0
    for inp, b, r in zip(inps, builds, results, strict=True):
        where = f"{inp.task.op} {inp.config.as_dict()}"
        if not b.ok:
            assert over_a_limit(b.error_msg), f"{where}: {b.error_msg}"
            continue
        assert r.ok, f"{where}: {E(r.error_no).name} {r.error_msg}"
        ran += 1
    assert ran >= len(inps) * 3 // 4


THREADS_2048 = dict(tile_f=(4, 1, 16, 1), tile_y=(1, 1, 32, 1), tile_x=(8, 1, 4, 1))
# 64 channels of a 34 x 34 window in shared memory: 295,936 bytes
SHARED_296K = dict(tile_f=(64, 1, 1, 1), tile_y=(1, 1, 8, 4), tile_x=(1, 1, 8, 4), tile_rc=(1, 64))


@pytest.mark.parametrize(
    ("config", "limit"),
    [(THREADS_2048, "threads per block: 2048"), (SHARED_296K, "shared memory per block: ")],
)
@pytest.mark.parametrize("target", ["cuda -arch=sm_80", "opencl"])
def test_a_launch_limit_is_a_build_error_naming_it(config, limit, target):
    task = Task.make(
        "conv2d", target=target, data=(1, 64, 32, 32), weight=(64, 64, 3, 3), padding=1
    )
    values = {**registry.default_config(task).as_dict(), **config}
    inp = MeasureInput(task, Config.make(values))
    (build,) = registry.local_builder(n_parallel=1).build([inp])
    assert build.error_no == E.BUILD_ERROR
    assert limit in build.error_msg and "exceeds the limit" in build.error_msg, build.error_msg


def test_build_only_reports_registers_and_shared_memory():
    need_nvcc()
    task = make_task("conv2d", "cuda -arch=sm_90")
    src = registry.generate_source(MeasureInput(task, registry.default_config(task)))
    info = get_backend("cuda").artifact_info(src.code, parse_target(task.target))
    assert 0 < info["registers"] <= 255 and info["shared_bytes"] > 0
    assert info["compiler"].startswith("NVRTC 13.")


@pytest.mark.gpu
def test_every_template_runs_correctly_on_cuda():
    """On a GPU machine: the default and random configs measured through libcuda."""
    need_nvcc()
    inps = inputs("cuda -arch=sm_90")
    builds = registry.local_builder(n_parallel=4, timeout_s=300).build(inps)
    with registry.local_runner(CHECK, kind="cuda") as runner:
        results = runner.run(inps, builds)
    for inp, b, r in zip(inps, builds, results, strict=True):
        if b.ok:
            assert r.ok, f"{inp.task.op} {inp.config.as_dict()}: {r.error_msg}"


def test_records_keep_the_nvcc_version_and_a_missing_gpu_is_a_runtime_error():
    """A cuda candidate's build carries nvcc's release into its result and record; on a
    machine without a GPU the run is an error record saying so, not a crash."""
    need_nvcc()
    from tunefarm.tune.records import Record, make_record

    task = make_task("dense", "cuda -arch=sm_80")
    inp = MeasureInput(task, registry.default_config(task))
    with registry.local_builder(n_parallel=1) as builder:
        (build,) = builder.build([inp])
    assert build.ok and build.compiler.startswith("NVRTC 13.")
    with registry.local_runner(CHECK, kind="cuda") as runner:
        (result,) = runner.run([inp], [build])
    if not result.ok:  # no GPU here
        assert result.error_no == E.RUNTIME_ERROR and "libcuda" in result.error_msg
    line = make_record(inp, result).to_json()
    assert line["compiler"] == build.compiler
    assert Record.from_json(line).result.compiler == build.compiler


def test_tunefarm_op_build_only_prints_resources_and_the_limit(capsys):
    """`tunefarm op ... --target "cuda -arch=sm_90" --build-only` on a machine without a GPU:
    the default config's registers and shared memory, and a config over the thread limit
    as a build error naming it."""
    need_nvcc()
    from tunefarm.cli.main import main

    too_many = '{"tile_f": [1, 1, 16, 1], "tile_y": [1, 1, 10, 1], "tile_x": [1, 1, 10, 1]}'
    argv = ["op", "conv2d", "-p", "data=1,8,10,10", "-p", "weight=16,8,3,3", "-p", "padding=1"]
    argv += ["--target", "cuda -arch=sm_90", "--build-only", "--config", "{}"]
    assert main([*argv, "--config", too_many]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("#"))
    assert header.split()[-4:] == ["compiler", "registers", "shared_bytes", "spill_bytes"]
    assert "built" in out and "threads per block: 1600" in out
