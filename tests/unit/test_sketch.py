"""Sketch generation: the derivation rules on small DAGs, the steps a state makes, and random
states of every sketch compiled and checked against the numpy reference on awkward shapes."""

from __future__ import annotations

import ctypes
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target, registry
from tunefarm.backends.cpu.c_emitter import emit_c
from tunefarm.backends.cpu.target import cflags
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import call
from tunefarm.ir.ops.dense import matmul
from tunefarm.ir.ops.softmax import softmax
from tunefarm.measure import MeasureInput, MeasureSettings
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.sketch import (
    InlinePlan,
    InlineRule,
    MultiLevelTilingRule,
    RFactorPlan,
    RFactorRule,
    RowFusionRule,
    SimplePlan,
    SimpleRule,
    TilePlan,
    derive_sketches,
)
from tunefarm.schedule.sketch_state import (
    SketchParams,
    local_elements,
    mutate,
    realise,
    row_groups,
    sample,
)
from tunefarm.task import Task

RULES = (InlineRule(), MultiLevelTilingRule(), RFactorRule(), SimpleRule())
CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0)


def _matmul_relu():
    a, b = te.placeholder((6, 8), name="a"), te.placeholder((8, 10), name="b")
    mm = matmul(a, b, name="mm")
    scaled = te.compute(mm.shape, lambda i, j: mm[i, j] * 2.0, name="scaled")
    out = te.compute(mm.shape, lambda i, j: scaled[i, j] + 1.0, name="out")
    return [a, b], out


# ------------------------------------------------------------------------------- rules
def test_inline_then_tile_fused_into_the_epilogue_or_at_root():
    inputs, out = _matmul_relu()
    sketches = derive_sketches([out], inputs, RULES)
    assert [type(p).__name__ for p in sketches[0].plans] == ["TilePlan", "InlinePlan"]
    fused = sketches[0].plans[0]
    assert isinstance(fused, TilePlan) and fused.consumer == "out" and not fused.cache_write
    assert sketches[0].plans[1] == InlinePlan("scaled")
    root = sketches[1].plans
    assert isinstance(root[0], TilePlan) and root[0].consumer is None
    assert root[2] == SimplePlan("out", (("i", 6), ("j", 10)), (), None)


def test_output_reduction_gets_a_cache_write_stage():
    a, b = te.placeholder((6, 8), name="a"), te.placeholder((8, 10), name="b")
    out = matmul(a, b, name="out")
    sketches = derive_sketches([out], [a, b], RULES)
    plan = sketches[0].plans[0]
    assert isinstance(plan, TilePlan) and plan.cache_write and plan.tiled == "out.local"


def test_reduction_without_reuse_is_simple_and_elementwise_helpers_inline():
    x = te.placeholder((3, 37), name="x")
    out = softmax(x, -1, name="out")
    sketches = derive_sketches([out], [x], RULES)
    assert len(sketches) == 8  # max, sum: factored or not; exp: inlined or computed once
    sketch = next(
        s
        for s in sketches
        if isinstance(s.plan_of("out_exp"), InlinePlan)
        and not any(isinstance(p, RFactorPlan) for p in s.plans)
    )
    kinds = {p.stage: type(p).__name__ for p in sketch.plans}
    assert kinds == {
        "out_max": "SimplePlan",
        "out_exp": "InlinePlan",
        "out_sum": "SimplePlan",
        "out": "SimplePlan",
    }
    assert sketch.plan_of("out_sum").reader == "out"  # type: ignore[union-attr]
    assert sketch.plan_of("out_max").reader is None  # read by two stages


def test_long_reduction_with_few_outputs_is_factored_or_simple():
    x = te.placeholder((4, 256), name="x")
    k = te.reduce_axis(256, "k")
    out = te.compute((4,), lambda i: te.sum(x[i, k], k), name="out")
    sketches = derive_sketches([out], [x], RULES)
    assert [type(s.plans[0]) for s in sketches] == [RFactorPlan, SimplePlan]
    d = {"rf:out": 16, "par:out": 1, "unroll:out": 0}
    assert realise(sketches[0], d) == [
        S.RFactor("out", "k", 16),
        S.Reorder("out.rf", ("i", "k_o", "k_i")),
        S.Vectorize("out.rf", "k_i"),
        S.Parallel("out.rf", "i"),
        S.Parallel("out", "i"),
    ]


def test_rfactor_step_is_checked():
    x = te.placeholder((4, 30), name="x")
    k = te.reduce_axis(30, "k")
    out = te.compute((4,), lambda i: te.sum(x[i, k], k), name="out")
    with pytest.raises(ValueError, match="factor must be an int >= 2 dividing 30"):
        Schedule([out], [x]).apply(S.RFactor("out", "k", 7))
    with pytest.raises(ValueError, match="must be a reduce axis"):
        Schedule([out], [x]).apply(S.RFactor("out", "i", 2))


def test_fused_tile_state_gives_the_ssrsrs_steps():
    a, b = te.placeholder((6, 8), name="a"), te.placeholder((8, 32), name="b")
    out = matmul(a, b, name="out")
    sketch = derive_sketches([out], [a, b], RULES)[0]
    d = {
        "tile:out:i": (1, 3, 1),
        "tile:out:j": (2, 1, 16),
        "tile:out:k": (4,),
        "loc:out": 1,
        "par:out": 2,
        "unroll:out": 16,
    }
    assert realise(sketch, d) == [
        S.CacheWrite("out"),
        S.Split("out", "i", (1, 3)),
        S.Split("out", "j", (2, 16)),
        S.Reorder("out", ("i.0", "j.0", "i.1", "j.1", "i.2", "j.2")),
        S.Fuse("out", ("i.0", "j.0")),
        S.Parallel("out", "i.0+j.0"),
        S.Vectorize("out", "j.2"),
        S.Split("out.local", "i", (1,)),
        S.Split("out.local", "j", (16,)),
        S.Split("out.local", "k", (4,)),
        S.Reorder("out.local", ("k.0", "i.0", "j.0", "k.1", "i.1", "j.1")),
        S.Vectorize("out.local", "j.1"),
        S.Pragma("out.local", "k.0", "auto_unroll_max_step", 16),
        S.ComputeAt("out.local", "out", "j.1"),
    ]
    assert local_elements(sketch, d) == 3 * 16


def test_mutations_keep_tile_products_and_change_one_thing():
    a, b = te.placeholder((12, 8), name="a"), te.placeholder((8, 48), name="b")
    out = matmul(a, b, name="out")
    sketch = derive_sketches([out], [a, b], RULES)[0]
    rng = np.random.default_rng(0)
    params = SketchParams()
    d = sample(sketch, params, rng)
    for _ in range(50):
        m = mutate(sketch, d, params, rng)
        if m is None:
            continue
        changed = [k for k in d if d[k] != m[k]]
        assert len(changed) == 1
        for k in changed:
            if k.startswith("tile:out:j"):
                assert 48 % int(np.prod(m[k])) == 0
        realise(sketch, m)


def test_steps_round_trip_through_the_compact_config_form():
    steps = [S.Split("c", "x", (4, 2)), S.Pragma("c", "x.0", "auto_unroll_max_step", 64)]
    config = registry.sketch_config(steps)
    assert registry.is_sketch(config)
    assert [S.step_from_list(s) for s in config.get(S.SKETCH_KNOB)] == steps
    with pytest.raises(ValueError, match="first item must be a kind"):
        S.step_from_list(["warp", "c"])


def test_auto_unroll_pragma_unrolls_small_inner_nests_in_c():
    x = te.placeholder((64, 4), name="x")
    out = te.compute((64, 4), lambda i, j: x[i, j] + 1.0, name="out")
    steps = [S.Split("out", "i", (2,)), S.Pragma("out", "i.0", "auto_unroll_max_step", 8)]
    code = emit_c(lower(Schedule([out], [x]).apply_all(steps)), parse_target("cpu"))
    kernel = code.split("int32_t tf_entry")[0]
    assert kernel.count("for (") == 1  # i.1 (2) x j (4) = 8 steps: unrolled; i.0 stays a loop
    assert "#pragma GCC unroll" not in code


# ------------------------------------------------------------------ random states vs numpy
def conv(data, weight, **kw) -> Task:
    return Task.make("conv2d", data=data, weight=weight, **kw)


CASES = {
    "conv2d_nchwc_pad_bias_relu": conv(
        (1, 16, 9, 11), (32, 16, 3, 3), padding=1, epilogue=("bias", "relu")
    ),
    "conv2d_nchwc_s2_odd": conv((1, 5, 15, 14), (24, 5, 3, 3), strides=2, padding=(1, 0, 2, 1)),
    "conv2d_residual": conv((1, 8, 7, 7), (8, 8, 1, 1), epilogue=("bias", "residual", "relu")),
    "depthwise": conv((1, 24, 11, 11), (24, 1, 3, 3), strides=2, padding=1, groups=24),
    "group_conv_packed": conv(
        (1, 16, 9, 9), (16, 4, 3, 3), padding=1, groups=4, blocks=[8, 8], epilogue=("bias",)
    ),
    "dense_bias_relu": Task.make("dense", data=(3, 37), weight=(20, 37), epilogue=["bias", "relu"]),
    "dense_batch1": Task.make("dense", data=(1, 64), weight=(40, 64)),
    "batch_matmul": Task.make("batch_matmul", a=(2, 7, 9), b=(2, 9, 5)),
    "batch_matmul_tb": Task.make("batch_matmul", a=(3, 12, 16), b=(3, 10, 16), transpose_b=True),
    "matmul": Task.make("matmul", a=(13, 17), b=(17, 19)),
    "softmax_last": Task.make("softmax", shape=(3, 37), axis=-1),
    "softmax_axis1": Task.make("softmax", shape=(2, 5, 7), axis=1),
    "reduce_mean": Task.make("reduce_mean", shape=(2, 6, 5), axes=[2], keepdims=True),
    "reduce_mean_long_axis": Task.make("reduce_mean", shape=(2, 3, 96), axes=[2], keepdims=False),
    "reduce_mean_prime_axis": Task.make("reduce_mean", shape=(3, 67), axes=[1], keepdims=True),
    "max_pool": Task.make("pool2d", data=(2, 5, 10, 11), kind="max", kernel=3, strides=2),
    "avg_pool": Task.make("pool2d", data=(1, 24, 8, 7), kind="avg", kernel=3, padding=1),
    "elementwise_add": Task.make("elementwise", fn="add", shapes=[(2, 3, 17), (2, 3, 17)]),
    "elementwise_sigmoid": Task.make("elementwise", fn="sigmoid", shapes=[(5, 33)]),
    # DenseNet's concat, batch norm and ReLU in one pass, [N, C/b, H*W, b] (channel_affine)
    "affine_of_a_concat": Task.make(
        "elementwise",
        fn="affine",
        relu=True,
        shapes=[(1, 2, 35, 8), (1, 1, 35, 8), (1, 3, 1, 8), (1, 3, 1, 8)],
    ),
    # the kernels a network runs between its anchors, as the compiler calls them
    # (compiler.tasks): pools in their input's channel block, blocked concats and adds, ...
    "max_pool_blocked_ceil": Task.make(
        "pool2d",
        data=(1, 24, 9, 11),
        kind="max",
        kernel=3,
        strides=2,
        padding=1,
        ceil_mode=True,
        block=8,
    ),  # fmt: skip
    "avg_pool_blocked_pad": Task.make(
        "pool2d",
        data=(1, 12, 7, 7),
        kind="avg",
        kernel=3,
        padding=1,
        count_include_pad=True,
        block=4,
    ),  # fmt: skip
    "global_avg_pool_blocked": Task.make("global_pool2d", data=(1, 24, 5, 3), kind="avg", block=8),
    "global_max_pool_blocked": Task.make("global_pool2d", data=(2, 12, 7, 7), kind="max", block=4),
    "concat_blocked": Task.make("concat", shapes=[(1, 3, 5, 7, 8), (1, 2, 5, 7, 8)], axis=1),
    "concat_last_axis": Task.make("concat", shapes=[(2, 3, 7), (2, 3, 13)], axis=-1),
    "transpose_nhwc_to_nchw": Task.make("transpose", shape=(2, 5, 7, 3), perm=[0, 3, 1, 2]),
    "layout_to_blocked": Task.make(
        "layout_transform", shape=(1, 24, 5, 7), src="NCHW", dst="NCHW8c"
    ),
    "layout_from_blocked": Task.make(
        "layout_transform", shape=(1, 3, 5, 7, 8), src="NCHW8c", dst="NCHW"
    ),
    "add_blocked": Task.make("elementwise", fn="add", shapes=[(1, 3, 5, 7, 8)] * 2),
    "mul_broadcast": Task.make("elementwise", fn="multiply", shapes=[(1, 13, 5, 7), (13, 1, 1)]),
    "clip": Task.make("elementwise", fn="clip", shapes=[(3, 7, 13)], lo=0.0, hi=6.0),
    "slice_channels": Task.make("slice", shape=(1, 13, 7, 7), axis=1, begin=7, end=13),
    "softmax_4d": Task.make("softmax", shape=(2, 3, 5, 17), axis=-1),
    "batch_matmul_odd": Task.make("batch_matmul", a=(3, 9, 13), b=(3, 13, 7)),
    "reduce_mean_spatial": Task.make(
        "reduce_mean", shape=(1, 13, 7, 7), axes=[2, 3], keepdims=True
    ),
}


@pytest.fixture(scope="module")
def measure(tmp_path_factory: pytest.TempPathFactory):
    from tunefarm.tune.tuner import MeasureOption

    cache = tmp_path_factory.mktemp("sketch-build-cache")
    opt = MeasureOption(
        registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=cache),
        registry.local_runner(CHECK),
    )
    yield opt
    opt.close()


def _random_states(task: Task, per_sketch: int, seed: int) -> list[MeasureInput]:
    sketches, params = registry.sketches(task)
    rng = np.random.default_rng(seed)
    kdef = registry.base_kernel(task)
    out = []
    for sketch in sketches:
        for _ in range(per_sketch):
            steps = realise(sketch, sample(sketch, params, rng))
            lower(Schedule(kdef.outputs, kdef.inputs).apply_all(steps))  # valid by construction
            out.append(MeasureInput(task, registry.sketch_config(steps)))
    return out


def test_random_states_of_every_sketch_match_numpy(measure):
    inputs = [i for n, t in enumerate(CASES.values()) for i in _random_states(t, 2, n)]
    results = measure.measure(inputs)
    bad = [
        (str(i.task), r.error_no.name, r.error_msg[:400])
        for i, r in zip(inputs, results, strict=True)
        if not r.ok
    ]
    assert not bad, bad


def test_sketch_rules_come_from_the_backend():
    rules, params = get_backend("cpu").sketch_rules(parse_target("cpu -isa=avx2"))
    names = [r.name for r in rules]
    assert names == ["inline", "multi_level_tiling", "rfactor", "simple", "row_fusion"]
    assert params.lanes == 8


def test_padding_of_a_tiled_conv_is_inlined_or_a_root_copy():
    task = CASES["conv2d_nchwc_pad_bias_relu"]
    sketches, _ = registry.sketches(task)
    pads = {type(s.plan_of("conv_pad")).__name__ for s in sketches}
    assert pads == {"InlinePlan", "SimplePlan"} and len(sketches) == 4


# ------------------------------------------------------------------------------ row groups
ROW_CASES = [
    Task.make("softmax", shape=(5, 7), axis=-1),
    Task.make("softmax", shape=(3, 100), axis=-1),
    Task.make("softmax", shape=(2, 33, 3), axis=1),
    Task.make("layer_norm", shape=(3, 33), axis=-1, epsilon=1e-5),
    Task.make("layer_norm", shape=(2, 3, 100), axis=-1, epsilon=1e-12),
    Task.make("layer_norm", shape=(2, 5, 7), axis=1, epsilon=1e-5),
]


def test_reduce_then_broadcast_stages_form_one_row_group():
    x = te.placeholder((3, 37), name="x")
    out = softmax(x, -1, name="out")
    rules = (*RULES, RowFusionRule())
    for sketch in derive_sketches([out], [x], rules):
        anchors = {
            p.stage: getattr(p, "anchor", None)
            for p in sketch.plans
            if not isinstance(p, InlinePlan)
        }
        assert anchors.pop("out") is None
        assert set(anchors.values()) == {"out"}, sketch.name  # max, sum (and exp at root)
        assert row_groups(sketch) == {"out": {"i0"}}  # the rows, not the softmax axis
    # without the rule no stage has an anchor
    assert all(
        getattr(p, "anchor", None) is None
        for sketch in derive_sketches([out], [x], RULES)
        for p in sketch.plans
    )


def test_a_row_group_is_computed_inside_the_output_row_loop():
    task = Task.make("softmax", shape=(12, 16, 128), axis=-1)
    sketches, params = registry.sketches(task)
    sketch = next(
        s for s in sketches if s.name.count("RFactorPlan") == 2 and "exp:Simple" in s.name
    )
    d = sample(sketch, params, np.random.default_rng(0))
    d.update({"par:out": 2, "vec:out": params.lanes, "row:out": 0})
    at = {s.stage: (s.target, s.axis) for s in realise(sketch, d) if isinstance(s, S.ComputeAt)}
    members = ["out_max.rf", "out_max", "out_exp", "out_sum.rf", "out_sum"]
    assert at == {m: ("out", "i0+i1") for m in members}
    kdef = registry.base_kernel(task)
    func = lower(Schedule(kdef.outputs, kdef.inputs).apply_all(realise(sketch, d)))
    assert len(func.body) == 1 and not func.statics  # one row loop; rows live in locals
    d["row:out"] = -1
    assert not any(isinstance(s, S.ComputeAt) for s in realise(sketch, d))


@pytest.mark.slow
def test_row_group_states_match_numpy_on_awkward_shapes(measure):
    """Every sketch of softmax and layer norm with its row group computed at the innermost
    row loop (rows not a multiple of the vector width, rows of 7, 33, 100, two axes)."""
    inputs, grouped = [], 0
    for n, task in enumerate(ROW_CASES):
        sketches, params = registry.sketches(task)
        rng = np.random.default_rng(n)
        kdef = registry.base_kernel(task)
        for sketch in sketches:
            d = sample(sketch, params, rng)
            d.update({k: int(rng.integers(0, 2)) for k in d if k.startswith("row:")})
            steps = realise(sketch, d)
            grouped += any(isinstance(s, S.ComputeAt) and s.target == "out" for s in steps)
            lower(Schedule(kdef.outputs, kdef.inputs).apply_all(steps))
            inputs.append(MeasureInput(task, registry.sketch_config(steps)))
    assert grouped >= len(inputs) // 2
    results = measure.measure(inputs)
    bad = [
        (str(i.task), r.error_msg[:400]) for i, r in zip(inputs, results, strict=True) if not r.ok
    ]
    assert not bad, bad


def _rms_norm(n: int, m: int):
    """x / sqrt(mean(x^2) + eps) * g over rows of m: the reduce-then-broadcast pattern
    without an op of its own (and x - mean(x), a mean then a subtraction)."""
    x, g = te.placeholder((n, m), name="x"), te.placeholder((m,), name="g")
    k = te.reduce_axis(m, "k")
    ss = te.compute((n, 1), lambda i, j: te.sum(x[i, k] * x[i, k] * (1.0 / m), k), name="ss")
    out = te.compute(
        (n, m), lambda i, j: x[i, j] / call("sqrt", ss[i, 0] + 1e-6) * g[j], name="out"
    )
    k2 = te.reduce_axis(m, "k")
    mean = te.compute((n,), lambda i: te.sum(x[i, k2] * (1.0 / m), k2), name="mean")
    centred = te.compute((n, m), lambda i, j: x[i, j] - mean[i], name="out")
    return [x, g], out, [x], centred


def _run_c(code: str, tmp: Path, arrays: list[np.ndarray]) -> None:
    src, lib = tmp / "k.c", tmp / f"k{len(list(tmp.iterdir()))}.so"
    src.write_text(code)
    flags = cflags(parse_target("cpu"))
    subprocess.run(["gcc", *flags, "-shared", str(src), "-o", str(lib), "-lm"], check=True)
    ptrs = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
    assert ctypes.CDLL(str(lib)).tf_entry(ptrs) == 0


def test_rms_norm_and_mean_subtraction_row_groups_match_numpy(tmp_path: Path):
    rules, params = get_backend("cpu").sketch_rules(parse_target("cpu"))
    rms_in, rms, sub_in, sub = _rms_norm(5, 33)
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((5, 33), np.float32), rng.standard_normal(33, np.float32)
    want = {
        "rms": x / np.sqrt((x.astype(np.float64) ** 2).mean(1, keepdims=True) + 1e-6) * g,
        "sub": x - x.astype(np.float64).mean(1, keepdims=True),
    }
    checked = 0
    for key, inputs, out, args in (("rms", rms_in, rms, [x, g]), ("sub", sub_in, sub, [x])):
        for sketch in derive_sketches([out], inputs, rules):
            assert row_groups(sketch) == {"out": {"i"}}, sketch.name
            d = sample(sketch, params, rng)
            d.update({"row:out": 0, "par:out": 1})
            steps = realise(sketch, d)
            assert S.ComputeAt(sketch.plans[0].stage, "out", "i") in steps
            got = np.zeros((5, 33), np.float32)
            func = lower(Schedule([out], inputs).apply_all(steps))
            _run_c(emit_c(func, parse_target("cpu")), tmp_path, [*args, got])
            np.testing.assert_allclose(got, want[key], rtol=1e-5, atol=1e-5)
            checked += 1
    assert checked >= 4  # factored and simple reductions of both
