"""GPU sketch rules without a GPU: each rule on a small DAG gives the expected plans and
steps; random sketch states of conv2d, dense, depthwise, batch matmul, softmax and a
reduction compile with nvcc for sm_80 and sm_90, and the same states as OpenCL C run on pocl
and match the numpy oracle at small, awkward shapes; states over a device limit are dropped
before measurement, counted by the limit.

Needs nvcc and an OpenCL device (pocl); each skips with the reason where it is missing.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.backends.gpu_common.kernel import to_kernel
from tunefarm.backends.gpu_common.sketch_rules import (
    RULES,
    BindPlan,
    CrossThreadPlan,
    GpuTilePlan,
    sketch_params,
)
from tunefarm.backends.opencl import LIMITS
from tunefarm.cli.main import main
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.dense import matmul
from tunefarm.ir.ops.elementwise import relu
from tunefarm.ir.ops.reduction import reduce_mean
from tunefarm.ir.ops.softmax import softmax
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.sketch import InlinePlan, derive_sketches
from tunefarm.schedule.sketch_state import mutate, realise, sample
from tunefarm.task import Task
from tunefarm.tune.policy import uses_sketch
from tunefarm.tune.sketch_search import SketchTuner

E = MeasureErrorNo
CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=120.0)
PARAMS = sketch_params(LIMITS)

# one small task per kind of sketch, at awkward (prime, odd) shapes
OPS: dict[str, dict] = {
    "conv2d": dict(
        op="conv2d", data=(1, 6, 9, 9), weight=(10, 6, 3, 3), padding=(1, 1, 1, 1),
        epilogue=("bias", "relu"),
    ),
    "dense": dict(op="dense", data=(3, 20), weight=(14, 20), epilogue=("bias",)),
    "depthwise": dict(
        op="conv2d", data=(1, 6, 11, 11), weight=(6, 1, 3, 3), strides=(2, 2),
        padding=(1, 1, 1, 1), groups=6,
    ),
    "batch_matmul": dict(op="batch_matmul", a=(2, 5, 12), b=(1, 7, 12), transpose_b=True),
    "softmax": dict(op="softmax", shape=(3, 37)),
    "reduce_mean": dict(op="reduce_mean", shape=(2, 6, 5, 7), axes=(2, 3)),
}  # fmt: skip


def need_nvcc() -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not installed (the CUDA toolkit compiles the cuda backend)")


def need_opencl() -> None:
    from tunefarm.backends.opencl import driver

    try:
        driver.first_device()
    except driver.OpenCLError as exc:
        pytest.skip(f"no OpenCL device: {exc}")


def make_task(name: str, target: str) -> Task:
    params = dict(OPS[name])
    return Task.make(params.pop("op"), target=target, **params)


def states(target: str) -> list[MeasureInput]:
    """One random valid state of every sketch of every op (one seed: the same states on
    every target), so each plan kind (tiled, cross-thread, bound) is compiled and run."""
    out = []
    for name in OPS:
        task = make_task(name, target)
        tuner = SketchTuner(task, seed=3, evolve=False)
        for k, sketch in enumerate(tuner.sketches):
            for _ in range(20):
                d = sample(sketch, tuner.params, tuner.rng)
                i = tuner.state_index(k, d)
                if i is not None:
                    out.append(MeasureInput(task, Config.make(tuner.space.get(i))))
                    break
            else:
                raise AssertionError(f"{name}: no valid state of sketch {sketch.name}")
    return out


def _kinds(sketch) -> dict[str, str]:
    return {p.stage: type(p).__name__ for p in sketch.plans}


# ------------------------------------------------------------------------------- rules
def test_reuse_stage_is_tiled_into_its_epilogue_or_reduced_across_threads():
    a, b = te.placeholder((4, 64), name="a"), te.placeholder((64, 6), name="b")
    mm = matmul(a, b, name="mm")
    out = relu(mm, name="out")
    sketches = derive_sketches([out], [a, b], RULES)
    assert [_kinds(s) for s in sketches] == [
        {"mm": "GpuTilePlan", "out": "SkipPlan"},
        {"mm": "SkipPlan", "out": "CrossThreadPlan"},
    ]
    tile = sketches[0].plan_of("mm")
    assert isinstance(tile, GpuTilePlan) and tile.out == "out" and not tile.cache_write
    assert [o.tensor for o in tile.operands] == ["a", "b"]
    cross = sketches[1].plan_of("out")
    assert isinstance(cross, CrossThreadPlan) and cross.rows_mode


def test_tile_state_gives_the_sssrrsrs_steps():
    a, b = te.placeholder((8, 16), name="a"), te.placeholder((16, 12), name="b")
    out = matmul(a, b, name="out")
    sketch = derive_sketches([out], [a, b], RULES)[0]
    plan = sketch.plan_of("out")
    assert isinstance(plan, GpuTilePlan) and plan.cache_write and plan.acc == "out.local"
    d = {
        "tile:out:i": (1, 4, 1, 2),  # vthread, thread, S3, S4 (block level: 8 / 8 = 1)
        "tile:out:j": (2, 2, 1, 3),
        "tile:out:k": (4, 2),  # R1, R2 (R0: 16 / 8 = 2)
        "unroll:out": 64,
        "vec:out": 1,
    }
    steps = realise(sketch, d)
    assert steps[:3] == [
        S.CacheWrite("out"),
        S.CacheRead("a", "shared", ("out.local",)),
        S.CacheRead("b", "shared", ("out.local",)),
    ]
    assert S.Bind("out", "i.0+j.0", "blockIdx.x") in steps
    assert S.Bind("out", "i.1+j.1", "vthread") in steps
    assert S.Bind("out", "i.2", "threadIdx.y") in steps  # one tag an axis: affine indices
    assert S.Bind("out", "j.2", "threadIdx.x") in steps
    assert S.ComputeAt("out.local", "out", "j.2") in steps
    order = ("k.0", "k.1", "i.0", "j.0", "k.2", "i.1", "j.1")  # R0 R1 S3 R2 S4
    assert S.Reorder("out.local", order) in steps
    assert S.Pragma("out.local", "k.0", "auto_unroll_max_step", 64) in steps
    assert S.ComputeAt("a.shared", "out.local", "k.0") in steps
    # a's rows are 16 floats and its shared tile 8 wide (k: R1 x R2): float4 fetches; b's
    # tile is 2 x 3 = 6 wide along j, not a multiple of 4: scalar fetches
    assert S.Vectorize("a.shared", "ax1.1") in steps
    assert not any(isinstance(s, S.Vectorize) and s.stage == "b.shared" for s in steps)
    assert S.Split("b.shared", "ax0+ax1", (4, 2)) in steps  # over threadIdx.y, x
    assert S.Bind("b.shared", "ax0+ax1.1", "threadIdx.y") in steps
    assert S.Bind("b.shared", "ax0+ax1.2", "threadIdx.x") in steps
    func = lower(Schedule([out], [a, b]).apply_all(steps))
    PARAMS.check_lowered(func)  # within the limits
    # the shared tiles hold what the block reads: a's 4 x 2 rows of the thread tile by
    # 8 k, b's 8 k by 2 x 3 columns (times the 2 virtual threads: refilled per vthread)
    shared = {b.name: b.size for b in to_kernel(func, LIMITS).shared}
    assert shared == {"a_shared": 8 * 8, "b_shared": 8 * 6}, shared


def test_softmax_reduces_across_threads_or_one_row_a_thread():
    x = te.placeholder((3, 37), name="x")
    out = softmax(x, -1, name="out")
    sketches = derive_sketches([out], [x], RULES)
    assert [_kinds(s) for s in sketches] == [
        {"out_max": "SkipPlan", "out_exp": "InlinePlan", "out_sum": "SkipPlan",
         "out": "CrossThreadPlan"},
        {"out_max": "SkipPlan", "out_exp": "InlinePlan", "out_sum": "SkipPlan",
         "out": "BindPlan"},
    ]  # fmt: skip
    cross = sketches[0].plan_of("out")
    assert isinstance(cross, CrossThreadPlan) and not cross.rows_mode
    steps = realise(sketches[0], {"par:out": 32, "unroll:out": 0})
    assert steps == [
        S.Split("out", "i1", (32,)),
        S.Bind("out", "i0", "blockIdx.x"),
        S.Bind("out", "i1.1", "threadIdx.x"),
        S.ComputeAt("out_max", "out", "i0"),
        S.Split("out_max", "k", (32,)),
        S.Reorder("out_max", ("i0", "i1", "k.1", "k.0")),
        S.Bind("out_max", "k.1", "threadIdx.x"),
        S.ComputeAt("out_sum", "out", "i0"),
        S.Split("out_sum", "k", (32,)),
        S.Reorder("out_sum", ("i0", "i1", "k.1", "k.0")),
        S.Bind("out_sum", "k.1", "threadIdx.x"),
        S.ComputeInline("out_exp"),
    ]


def test_a_reduction_output_gets_a_register_cache_and_rows_per_block():
    x = te.placeholder((2, 6, 5, 7), name="x")
    out = reduce_mean(x, (2, 3), True, name="out")
    sketches = derive_sketches([out], [x], RULES)
    cross = sketches[0].plan_of("out")
    assert isinstance(cross, CrossThreadPlan) and cross.cache_write and cross.rows_mode
    steps = realise(sketches[0], {"par:out": 64, "unroll:out": 16, "tile:out:rows": 4})
    assert steps[0] == S.CacheWrite("out")
    assert S.Bind("out", "i0+i1+i2+i3.1", "threadIdx.y") in steps
    assert S.Fuse("out.local", ("r2", "r3")) in steps
    assert S.Bind("out.local", "r2+r3.1", "threadIdx.x") in steps
    assert isinstance(sketches[1].plan_of("out"), BindPlan)


def test_elementwise_is_inlined_and_the_output_fused_and_bound():
    x = te.placeholder((5, 7), name="x")
    mid = te.compute((5, 7), lambda i, j: x[i, j] * 2.0, name="mid")
    out = relu(mid, name="out")
    (sketch,) = derive_sketches([out], [x], RULES)
    assert sketch.plans == (InlinePlan("mid"), BindPlan("out", (("i", 5), ("j", 7)), ()))
    rng = np.random.default_rng(0)
    d = sample(sketch, PARAMS, rng)
    assert d["par:out"] in PARAMS.thread_counts and d["par:out"] <= 64  # 35 outputs
    name = "+".join(ax for ax, _ in sketch.plans[1].axes)
    assert realise(sketch, d)[:3] == [
        S.Fuse("out", ("i", "j")),
        S.Split("out", name, (d["par:out"],)),
        S.Bind("out", f"{name}.0", "blockIdx.x"),
    ]


def test_sampled_and_mutated_tiles_stay_within_the_launch_limits():
    task = make_task("conv2d", "opencl")
    sketches, params = registry.sketches(task)
    tile = next(s for s in sketches if isinstance(s.plans[-2], GpuTilePlan))
    plan = tile.plans[-2]
    rng = np.random.default_rng(1)
    for _ in range(50):
        d = sample(tile, params, rng)
        assert plan.fits(d, params)
        child = mutate(tile, d, params, rng)
        if child is not None:
            assert plan.fits(child, params)
            for ax, ext in plan.spatial:
                assert ext % int(np.prod(child[f"tile:{plan.stage}:{ax}"])) == 0


def test_states_over_a_device_limit_are_dropped_and_counted_by_the_limit():
    """A tile state whose shared tiles need more than 48 KiB (32 + 64 rows of 256 floats)
    is never measured."""
    task = Task.make("dense", target="opencl", data=(64, 512), weight=(256, 512))
    tuner = SketchTuner(task, seed=0, evolve=False)
    k = next(i for i, s in enumerate(tuner.sketches) if isinstance(s.plans[0], GpuTilePlan))
    d = {"tile:dense:i": (1, 8, 2, 2), "tile:dense:j": (1, 16, 2, 2), "tile:dense:k": (64, 4)}
    d |= {"unroll:dense": 0, "vec:dense": 0}
    assert tuner.state_index(k, d) is None
    assert "DeviceLimitError: shared memory per block" in tuner.why()


def test_sketch_rules_come_from_the_gpu_backends():
    for target in ("opencl", "cuda -arch=sm_80"):
        sketches, params = registry.sketches(make_task("softmax", target))
        assert len(sketches) == 2 and params.max_threads == 1024
        assert params.check_lowered is not None
    # auto: sketches for the ops served by the one-output-a-thread fallback only
    assert uses_sketch("auto", make_task("batch_matmul", "opencl"))
    assert uses_sketch("auto", make_task("softmax", "opencl"))
    assert not uses_sketch("auto", make_task("dense", "opencl"))
    assert not uses_sketch("auto", make_task("conv2d", "opencl"))


# --------------------------------------------------------------- compiled and checked
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_random_sketch_states_compile_with_nvcc(arch):
    need_nvcc()
    inps = states(f"cuda -arch={arch}")
    same = [inp.config.as_dict() for inp in states("opencl")]
    assert [inp.config.as_dict() for inp in inps] == same  # the states pocl runs
    builds = registry.local_builder(n_parallel=2, timeout_s=300).build(inps)
    for inp, b in zip(inps, builds, strict=True):
        assert b.ok, f"{inp.task.op}: {b.error_msg}\n{json.dumps(inp.config.as_dict())}"


def test_random_sketch_states_run_correctly_on_opencl():
    need_opencl()
    inps = states("opencl")
    builds = registry.local_builder(n_parallel=2).build(inps)
    with registry.local_runner(CHECK, kind="opencl") as runner:
        results = runner.run(inps, builds)
    for inp, b, r in zip(inps, builds, results, strict=True):
        where = f"{inp.task.op} {json.dumps(inp.config.as_dict())}"
        assert b.ok, f"{where}: {b.error_msg}"
        assert r.ok, f"{where}: {E(r.error_no).name} {r.error_msg}"
    assert {inp.task.op for inp in inps} >= {"conv2d", "dense", "softmax", "reduce_mean"}


@pytest.mark.gpu
def test_random_sketch_states_run_correctly_on_cuda():
    """On a GPU machine: the same states measured through libcuda, checked against numpy."""
    need_nvcc()
    inps = states("cuda -arch=sm_90")
    builds = registry.local_builder(n_parallel=4, timeout_s=300).build(inps)
    with registry.local_runner(CHECK, kind="cuda") as runner:
        results = runner.run(inps, builds)
    for inp, b, r in zip(inps, builds, results, strict=True):
        assert b.ok and r.ok, f"{inp.task.op}: {b.error_msg} {r.error_msg}"


def test_cli_builds_sketch_states_for_cuda_without_a_gpu(capsys: pytest.CaptureFixture[str]):
    need_nvcc()
    code = main(
        ["op", "dense", "-p", "data=8,96", "-p", "weight=40,96", "-p", "epilogue=bias,relu"]
        + ["--target", "cuda -arch=sm_90", "--policy", "sketch", "--sweep", "3"]
        + ["--build-only", "--json"]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and len(doc["builds"]) == 3, doc
    for row in doc["builds"]:
        assert row["ok"], row["error_msg"]
        assert 0 < row["info"]["registers"] <= 255


def test_cli_tunes_dense_with_the_sketch_policy_on_opencl(tmp_path, capsys):
    """The evolutionary search end to end on pocl: every trial built, run and checked."""
    need_opencl()
    tasks = tmp_path / "tasks.json"
    dense = {"op": "dense", "params": {"data": [8, 96], "weight": [40, 96]}}
    tasks.write_text(json.dumps({"tasks": [dense]}))
    log = tmp_path / "log.jsonl"
    code = main(
        ["tune-tasks", str(tasks), "--target", "opencl", "--policy", "sketch", "--trials", "8"]
        + ["--log", str(log), "--repeat", "1", "--min-repeat-ms", "1", "--timeout", "60"]
    )
    capsys.readouterr()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert code == 0 and len(records) == 8
    assert all(r["error_no"] == 0 for r in records), [r["error_msg"] for r in records]
    assert all(S.SKETCH_KNOB in r["config"]["values"] for r in records)


def test_softmax_and_reduce_mean_templates_run_correctly_on_opencl():
    """The one-output-a-thread templates of the two ops the GPU gained with the sketch
    rules, at their default configs (softmax's max and sum both at the thread loop)."""
    need_opencl()
    inps = [
        MeasureInput(t, registry.default_config(t))
        for t in (make_task("softmax", "opencl"), make_task("reduce_mean", "opencl"))
    ]
    builds = registry.local_builder(n_parallel=2).build(inps)
    with registry.local_runner(CHECK, kind="opencl") as runner:
        results = runner.run(inps, builds)
    for inp, r in zip(inps, results, strict=True):
        assert r.ok, f"{inp.task.op}: {E(r.error_no).name} {r.error_msg}"


@pytest.mark.parametrize("name", ["dense", "reduce_mean", "softmax"])
def test_mutated_states_of_every_sketch_still_lower_within_the_limits(name):
    """Every mutation a plan makes (tile factors, thread counts, rows per block, unroll)
    realises into steps that lower to a kernel the device can launch."""
    task = make_task(name, "opencl")
    sketches, params = registry.sketches(task)
    kdef = registry.base_kernel(task)
    rng = np.random.default_rng(2)
    for sketch in sketches:
        d = sample(sketch, params, rng)
        for _ in range(12):
            d = mutate(sketch, d, params, rng) or d
            func = lower(Schedule(kdef.outputs, kdef.inputs).apply_all(realise(sketch, d)))
            params.check_lowered(func)


def test_float4_fetches_and_vector_stores_run_correctly_on_opencl():
    """A dense tile state with float4 shared fetches (K rows of 20, a reduce tile of 4) and
    float2 output stores (S4 = 2 on the output's last axis), checked against numpy."""
    need_opencl()
    task = make_task("dense", "opencl")
    sketches, _ = registry.sketches(task)
    tile = next(s for s in sketches if isinstance(s.plan_of("dense"), GpuTilePlan))
    d = {"tile:dense:i": (1, 3, 1, 1), "tile:dense:j": (1, 7, 1, 2), "tile:dense:k": (2, 2)}
    d |= {"unroll:dense": 16, "vec:dense": 1}
    inp = MeasureInput(task, registry.sketch_config(realise(tile, d)))
    code = registry.generate_source(inp).code
    assert "float4*)(&data_shared" in code and "float4*)(&weight_shared" in code
    assert "float2*)(&out" in code
    (build,) = registry.local_builder(n_parallel=1).build([inp])
    with registry.local_runner(CHECK, kind="opencl") as runner:
        (result,) = runner.run([inp], [build])
    assert result.ok, f"{E(result.error_no).name} {result.error_msg}"
