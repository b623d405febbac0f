"""Tensor cores (`cuda -precision=tf32|fp16`): the option, the mma.sync dense template, and
its builds with NVRTC and nvcc for sm_80 and sm_90 here; correctness against the fp32
reference (within the precision's tolerance) on a GPU only (`gpu` marker)."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cuda import nvrtc, tensorcore, tensorcore_gemm
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.measure.errors import DeviceLimitError
from tunefarm.target import TargetError
from tunefarm.task import Task, TaskError


def dense_task(prec: str, arch: str = "sm_90", n: int = 20, k: int = 72, o: int = 40) -> Task:
    return Task.make("dense", target=f"cuda -arch={arch} -precision={prec}", data=(n, k),
                     weight=(o, k))  # fmt: skip


def test_the_precision_option():
    assert str(parse_target("cuda -precision=tf32")) == "cuda -arch=sm_90 -precision=tf32"
    assert str(parse_target("cuda -precision=fp32")) == "cuda -arch=sm_90"  # the default
    with pytest.raises(TargetError, match="-precision=bf16 is not one of fp32, tf32, fp16"):
        parse_target("cuda -precision=bf16")
    assert isinstance(registry.template(dense_task("fp16")), tensorcore.DenseTensorCore)
    plain = Task.make("dense", target="cuda", data=(4, 8), weight=(4, 8))
    assert not isinstance(registry.template(plain), tensorcore.DenseTensorCore)
    with_bias = Task.make("dense", target="cuda -precision=tf32", data=(8, 8), weight=(4, 8),
                          epilogue=("bias",))  # fmt: skip
    assert isinstance(registry.template(with_bias), tensorcore_gemm.DenseGemmTensorCore)
    # fewer rows than the instruction's N (8): CUDA cores (a batch-1 classifier)
    few_rows = Task.make("dense", target="cuda -precision=tf32", data=(4, 8), weight=(4, 8),
                         epilogue=("bias",))  # fmt: skip
    assert not isinstance(registry.template(few_rows), tensorcore_gemm.TensorCoreGemm)
    assert not isinstance(registry.template(dense_task("fp16", n=1)), tensorcore.DenseTensorCore)


@pytest.mark.parametrize("prec", ["tf32", "fp16"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_every_config_builds_with_nvrtc_and_uses_mma(prec, arch):
    task = dense_task(prec, arch)
    space = registry.config_space(task)
    picks = [0, len(space) // 2, len(space) - 1]
    for i in picks:
        code = registry.generate_source(MeasureInput(task, Config.make(dict(space.get(i))))).code
        step = "m16n8k8" if prec == "tf32" else "m16n8k16"
        assert f"mma.sync.aligned.{step}.row.col.f32" in code
        _, log = nvrtc.compile_cubin(code, (f"-arch={arch}", "-Xptxas=-v"))
        assert nvrtc.resources(log)["spill_bytes"] == 0


def test_nvcc_builds_it_too_and_its_ptx_holds_the_mma(tmp_path):
    assert shutil.which("nvcc"), "nvcc is part of this project's CI"
    for prec in ("tf32", "fp16"):
        task = dense_task(prec)
        src = tmp_path / f"{prec}.cu"
        src.write_text(
            registry.generate_source(MeasureInput(task, registry.default_config(task))).code
        )
        ptx = tmp_path / f"{prec}.ptx"
        subprocess.run(["nvcc", "-ptx", "-arch=sm_90", "-o", str(ptx), str(src)], check=True)
        assert "mma.sync.aligned" in ptx.read_text()


def test_tf32_and_fp16_rounding_of_references():
    x = np.array([1 + 2.0**-12, 1 + 2.0**-9, -3.14159, 1 + 2.0**-11], np.float32)
    tf = tensorcore.round_to("tf32", x)
    assert tf[0] == 1.0 and tf[1] == np.float32(1 + 2.0**-9)  # 10 mantissa bits kept
    assert tf[3] == np.float32(1 + 2.0**-10)  # a tie goes away from zero (cvt.rna)
    assert abs(tf[2] - x[2]) <= 2.0**-10 * 4
    assert tensorcore.round_to("fp16", x)[2] == np.float32(np.float16(-3.14159))
    assert tensorcore.tolerance("tf32") < tensorcore.tolerance("fp16")


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["tf32", "fp16"])
def test_tensor_core_dense_matches_fp32_within_the_precision(prec):
    """On a GPU: random configs at awkward sizes (edges not multiples of the tile)."""
    task = dense_task(prec, n=33, k=200, o=72)
    space = registry.config_space(task)
    inps = [MeasureInput(task, Config.make(dict(space.get(i)))) for i in range(0, len(space), 7)]
    tol = tensorcore.tolerance(prec)
    check = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0, rtol=tol,
                            atol_rel=tol)  # fmt: skip
    with registry.local_builder(n_parallel=2) as builder:
        builds = builder.build(inps)
    with registry.local_runner(check, kind="cuda") as runner:
        results = runner.run(inps, builds)
    for inp, r in zip(inps, results, strict=True):
        assert r.error_no == MeasureErrorNo.NO_ERROR, f"{inp.config.as_dict()}: {r.error_msg}"


def conv_task(prec: str, arch: str = "sm_90", **extra) -> Task:
    args = dict(data=(1, 24, 14, 14), weight=(40, 24, 3, 3), padding=(1, 1, 1, 1))
    return Task.make("conv2d", target=f"cuda -arch={arch} -precision={prec}", **{**args, **extra})


def test_conv_at_tf32_and_fp16_picks_the_tensor_core_template():
    assert isinstance(registry.template(conv_task("tf32")), tensorcore_gemm.Conv2dTensorCore)
    assert not isinstance(registry.template(conv_task("fp32")), tensorcore_gemm.Conv2dTensorCore)
    depthwise = conv_task("fp16", data=(1, 8, 6, 6), weight=(8, 1, 3, 3), groups=8)
    assert not isinstance(registry.template(depthwise), tensorcore_gemm.Conv2dTensorCore)
    task = conv_task("fp16", epilogue=("bias", "cast:int8"))
    with pytest.raises(TaskError, match="epilogue 'cast' is not supported"):
        registry.default_config(task)


def test_conv_tiles_over_the_shared_memory_limit_are_device_limit_errors():
    task = conv_task("fp16")
    space = registry.config_space(task)
    big = space.validate({"wm": 4, "wn": 8, "warps_m": 4, "warps_n": 4, "kchunk": 4})
    with pytest.raises(DeviceLimitError, match="over the 49152 B limit"):
        registry.generate_source(MeasureInput(task, Config.make(big)))


@pytest.mark.parametrize("prec", ["tf32", "fp16"])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_conv_configs_build_with_nvrtc_without_spills(prec, arch):
    task = conv_task(prec, arch, strides=(2, 2), epilogue=("bias", "relu"))
    space = registry.config_space(task)
    built = 0
    for i in range(0, len(space), 29):
        try:
            src = registry.generate_source(MeasureInput(task, Config.make(dict(space.get(i)))))
        except DeviceLimitError:
            continue
        step = "m16n8k8" if prec == "tf32" else "m16n8k16"
        assert f"mma.sync.aligned.{step}.row.col.f32" in src.code
        _, log = nvrtc.compile_cubin(src.code, (f"-arch={arch}", "-Xptxas=-v"))
        res = nvrtc.resources(log)
        assert res["spill_bytes"] == 0 and res["shared_bytes"] > 0, res
        built += 1
    assert built >= 5


def test_nvcc_builds_the_conv_for_sm_80_and_sm_90(tmp_path):
    assert shutil.which("nvcc"), "nvcc is part of this project's CI"
    for prec in ("tf32", "fp16"):
        task = conv_task(prec, epilogue=("bias", "residual", "relu"))
        src = tmp_path / f"{prec}.cu"
        src.write_text(
            registry.generate_source(MeasureInput(task, registry.default_config(task))).code
        )
        for arch in ("sm_80", "sm_90"):
            out = tmp_path / f"{prec}_{arch}.cubin"
            subprocess.run(["nvcc", "-cubin", f"-arch={arch}", "-o", str(out), str(src)],
                           check=True)  # fmt: skip
            assert out.stat().st_size > 0


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["tf32", "fp16"])
def test_tensor_core_conv_matches_fp32_within_the_precision(prec):
    """On a GPU: configs across the space at awkward sizes, with stride and an epilogue."""
    task = conv_task(prec, data=(2, 19, 13, 11), weight=(37, 19, 3, 3), strides=(2, 1),
                     epilogue=("bias", "relu"))  # fmt: skip
    space = registry.config_space(task)
    inps = [MeasureInput(task, Config.make(dict(space.get(i)))) for i in range(0, len(space), 11)]
    tol = tensorcore.tolerance(prec)
    check = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=60.0, rtol=tol,
                            atol_rel=tol)  # fmt: skip
    with registry.local_builder(n_parallel=2) as builder:
        builds = builder.build(inps)
    with registry.local_runner(check, kind="cuda") as runner:
        results = runner.run(inps, builds)
    for inp, r in zip(inps, results, strict=True):
        ok = (MeasureErrorNo.NO_ERROR, MeasureErrorNo.BUILD_ERROR)  # a tile over the limit
        assert r.error_no in ok, f"{inp.config.as_dict()}: {r.error_msg}"
    assert sum(r.error_no == MeasureErrorNo.NO_ERROR for r in results) >= 10


def test_the_sketch_rule_offers_tensor_cores_for_contractions_only():
    """dense, conv2d and batch_matmul at tf32/fp16 get a tensor-core sketch beside the
    CUDA-core ones; depthwise (weight reuse only) and fp32 targets do not."""
    tasks = [
        conv_task("tf32", epilogue=("bias", "relu")),
        dense_task("fp16"),
        Task.make("dense", target="cuda -precision=tf32", data=(8, 64), weight=(32, 64),
                  epilogue=("bias",)),
        Task.make("batch_matmul", target="cuda -precision=fp16", a=(2, 32, 64), b=(2, 64, 48)),
    ]  # fmt: skip
    for task in tasks:
        sks, _ = registry.sketches(task)
        kinds = [type(p).__name__ for sk in sks for p in sk.plans]
        assert kinds.count("TensorCorePlan") == 1 and "GpuTilePlan" in kinds, (task.op, kinds)
    for task in (conv_task("fp16", data=(1, 8, 6, 6), weight=(8, 1, 3, 3), groups=8),
                 conv_task("fp32")):  # fmt: skip
        sks, _ = registry.sketches(task)
        assert not any(type(p).__name__ == "TensorCorePlan" for sk in sks for p in sk.plans)


@pytest.mark.parametrize("prec", ["tf32", "fp16"])
def test_tensor_core_sketch_states_fit_build_and_round_trip(prec):
    """Sampled and mutated states: tiles are multiples of the instruction, within the
    limits; their steps (as records keep them) render the mma kernel, built by NVRTC."""
    from tunefarm.schedule.sketch_state import mutate, realise, sample

    task = conv_task(prec, "sm_80", epilogue=("bias", "relu"))
    sks, params = registry.sketches(task)
    sk = next(s for s in sks if any(type(p).__name__ == "TensorCorePlan" for p in s.plans))
    plan = next(p for p in sk.plans if type(p).__name__ == "TensorCorePlan")
    rng = np.random.default_rng(0)
    step = tensorcore.K_STEP[prec]
    built = 0
    for _ in range(6):
        d = sample(sk, params, rng)
        d = mutate(sk, d, params, rng) or d
        assert plan.fits(d)
        rows, cols, depth = plan.tile_shape(d)
        assert rows % 16 == 0 and cols % 8 == 0 and depth % step == 0
        config = registry.sketch_config(realise(sk, d))
        again = Config.make(json.loads(json.dumps(config.as_dict())))  # a record's round trip
        src = registry.generate_source(MeasureInput(task, again))
        assert "mma.sync.aligned" in src.code and f"#define BM {rows}" in src.code
        if built < 2:
            _, log = nvrtc.compile_cubin(src.code, ("-arch=sm_80", "-Xptxas=-v"))
            assert nvrtc.resources(log)["spill_bytes"] == 0
            built += 1


def test_a_cuda_core_state_at_tf32_is_still_the_lowered_schedule():
    from tunefarm.schedule.sketch_state import realise, sample

    task = conv_task("tf32")
    sks, params = registry.sketches(task)
    sk = next(s for s in sks if any(type(p).__name__ == "GpuTilePlan" for p in s.plans))
    d = sample(sk, params, np.random.default_rng(1))
    src = registry.generate_source(MeasureInput(task, registry.sketch_config(realise(sk, d))))
    assert "mma.sync" not in src.code and "__syncthreads" in src.code


def test_a_network_at_fp16_keeps_fp16_weights_and_runs_its_convs_on_mma(tmp_path):
    """Compiled here (NVRTC, sm_80 and sm_90): the conv weights are converted to fp16 once,
    at compile time (the artifact's params); biases, inputs, outputs and the activations
    between kernels stay fp32 (rounded as each tensor-core kernel stages them). The
    classifier's dense has one row (batch 1), fewer than the instruction's 8: fp32."""
    import zipfile

    from test_gpu_network import branchy_model

    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.onnx_import import load_onnx

    for arch in ("sm_80", "sm_90"):
        info = compile_graph(load_onnx(branchy_model()), f"cuda -arch={arch} -precision=fp16")
        path = info.save(tmp_path / f"{arch}.tfa").path
        with zipfile.ZipFile(path) as zf:
            plan = json.loads(zf.read("plan.json"))
            sources = {n: zf.read(n).decode() for n in zf.namelist() if n.endswith(".cu")}
        mma = [n for n, src in sources.items() if "mma.sync.aligned.m16n8k16" in src]
        assert sorted(n.split("_", 1)[1] for n in mma) == ["conv2d.cu"] * 3
        params = [b for b in plan["buffers"] if b.get("kind") == "param"]
        weights = [b for b in params if len(b["shape"]) == 4]
        assert weights and all(b["dtype"] == "float16" for b in weights), params
        assert all(b["dtype"] == "float32" for b in params if len(b["shape"]) == 2)  # dense
        assert all(b["dtype"] == "float32" for b in params if len(b["shape"]) == 1)  # biases


@pytest.mark.gpu
@pytest.mark.parametrize("prec", ["tf32", "fp16"])
def test_a_network_at_reduced_precision_matches_onnxruntime_within_its_tolerance(prec, tmp_path):
    from test_gpu_network import branchy_model, onnxruntime_outputs, relative

    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.onnx_import import load_onnx
    from tunefarm.runtime.executor import GraphExecutor

    data = branchy_model()
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
    info = compile_graph(load_onnx(data), f"cuda -precision={prec}").save(tmp_path / "n.tfa")
    got = GraphExecutor.load(info.path).run({"x": x})["y"]
    err = relative(got, onnxruntime_outputs(data, x))
    assert err < tensorcore.network_tolerance(prec), err


def test_tune_and_the_recipe_accept_a_network_within_its_precisions_tolerance():
    from tunefarm.recipe import TOLERANCE, tolerance_for

    assert tolerance_for("cuda -precision=fp16") == tensorcore.network_tolerance("fp16") == 1e-2
    assert tolerance_for("cuda -precision=tf32") == TOLERANCE == 1e-3
    assert tolerance_for("cuda") == tolerance_for("cpu") == TOLERANCE
