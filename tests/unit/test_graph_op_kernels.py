"""Kernels of the graph ops between anchors (concat, slice, pad, transpose, reduce_mean, lrn,
copy) and of broadcasting elementwise ops, compiled and run against the numpy reference.

Three layers of evidence:
- every case is built with gcc twice (default config, and vectorize off, which takes the
  scalar path) and its output must be within 1e-5 * max(1, max|ref|) of the template's
  numpy reference;
- that reference is checked against onnxruntime single-node models (opset 13), and LRN,
  which onnxruntime only runs for 4-D inputs and odd sizes, also against a loop written
  from the ONNX formula;
- the IR of every case runs in the numpy evaluator, which raises on a load outside its
  tensor unless a select guards it: the property that keeps the C kernels' reads in bounds.
Bad params must be TaskErrors that name the param.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from tunefarm.backends import registry
from tunefarm.ir.evaluate import evaluate
from tunefarm.measure import (
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureSettings,
)
from tunefarm.task import Task, TaskError

# Pass iff max |out - ref| <= 1e-5 * max(1, max |ref|).
CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0, rtol=0.0, atol_rel=1e-5
)
CONFIGS: dict[str, dict[str, Any] | None] = {
    "default": None,
    "no_vectorize": {"parallel": True, "vectorize": False},
}
BLOCKED = (1, 4, 7, 7, 16)


def T(op: str, **params: Any) -> Task:
    return Task.make(op, **params)


def ew(fn: str, *shapes: Any, **kw: Any) -> Task:
    return Task.make("elementwise", fn=fn, shapes=list(shapes), **kw)


CASES: dict[str, Task] = {
    # concat: blocked channels (vector copies), the innermost axis (scalar fallback), ...
    "concat_blocked_axis1_3in": T(
        "concat", shapes=[BLOCKED, (1, 2, 7, 7, 16), (1, 3, 7, 7, 16)], axis=1
    ),
    "concat_blocked_axis_neg4": T("concat", shapes=[(1, 3, 5, 5, 8), (1, 1, 5, 5, 8)], axis=-4),
    "concat_axis0_rank2": T("concat", shapes=[(3, 13), (4, 13)], axis=0),
    "concat_last_axis_odd": T("concat", shapes=[(2, 3, 7), (2, 3, 13)], axis=-1),
    "concat_last_axis_lanes": T("concat", shapes=[(3, 5), (3, 11)], axis=1),
    "concat_rank3_3in": T("concat", shapes=[(2, 5, 7), (2, 1, 7), (2, 7, 7)], axis=1),
    "concat_nchw_channels": T("concat", shapes=[(1, 13, 7, 7), (1, 7, 7, 7)], axis=1),
    "concat_single_input": T("concat", shapes=[(3, 5)], axis=0),
    # slice: the outputs of a split, negative axes and bounds, vector and scalar inner loops
    "slice_split_first": T("slice", shape=(1, 13, 7, 7), axis=1, begin=0, end=7),
    "slice_split_second": T("slice", shape=(1, 13, 7, 7), axis=1, begin=7, end=13),
    "slice_last_axis": T("slice", shape=(3, 5, 13), axis=-1, begin=3, end=11),
    "slice_axis0": T("slice", shape=(7, 13), axis=0, begin=2, end=5),
    "slice_blocked": T("slice", shape=BLOCKED, axis=1, begin=1, end=3),
    "slice_negative_begin_big_end": T("slice", shape=(4, 13), axis=-1, begin=-5, end=1000),
    "slice_inner_16_lanes": T("slice", shape=(3, 20), axis=1, begin=2, end=18),
    # pad: ONNX pads order, non-zero values, padded and unpadded innermost axes
    "pad_nchw_spatial": T("pad", shape=(1, 3, 7, 7), pads=[0, 0, 1, 1, 0, 0, 1, 1]),
    "pad_nchw_asym_value": T("pad", shape=(1, 3, 7, 7), pads=[0, 0, 2, 0, 0, 0, 1, 3], value=-1.5),
    "pad_rank2": T("pad", shape=(5, 13), pads=[1, 2, 3, 0], value=0.25),
    "pad_axis0_only": T("pad", shape=(3, 5, 7), pads=[1, 0, 0, 2, 0, 0]),
    "pad_blocked_spatial": T("pad", shape=(1, 2, 5, 5, 16), pads=[0, 0, 1, 1, 0, 0, 0, 1, 1, 0]),
    "pad_zero": T("pad", shape=(2, 7), pads=[0, 0, 0, 0]),
    # transpose
    "transpose_nchw_to_nhwc": T("transpose", shape=(2, 3, 5, 7), perm=[0, 2, 3, 1]),
    "transpose_nhwc_to_nchw": T("transpose", shape=(2, 5, 7, 3), perm=[0, 3, 1, 2]),
    "transpose_rank2": T("transpose", shape=(7, 13), perm=[1, 0]),
    "transpose_default_reverses": T("transpose", shape=(3, 5, 7)),
    "transpose_blocked_keep_inner": T("transpose", shape=BLOCKED, perm=[0, 1, 3, 2, 4]),
    "transpose_rank5": T("transpose", shape=(2, 3, 4, 5, 6), perm=[4, 0, 2, 1, 3]),
    # reduce_mean
    "mean_global_pool": T("reduce_mean", shape=(1, 13, 7, 7), axes=[2, 3], keepdims=True),
    "mean_last_axis_drop": T("reduce_mean", shape=(2, 5, 7), axes=[-1], keepdims=False),
    "mean_axis0_keep": T("reduce_mean", shape=(2, 5, 7), axes=[0], keepdims=True),
    "mean_inner_16_lanes": T("reduce_mean", shape=(3, 5, 7, 16), axes=[1, 2], keepdims=False),
    "mean_rank5_neg_axes": T("reduce_mean", shape=(2, 3, 5, 7, 4), axes=[1, -1], keepdims=True),
    "mean_all_no_keepdims": T("reduce_mean", shape=(3, 13), keepdims=False),
    "mean_empty_axes_means_all": T("reduce_mean", shape=(7, 13), axes=[], keepdims=True),
    # lrn
    "lrn_alexnet": T("lrn", shape=(1, 13, 7, 7), size=5, alpha=1e-4, beta=0.75, bias=1.0),
    "lrn_strong": T("lrn", shape=(2, 7, 3, 5), size=3, alpha=0.5, beta=0.75, bias=1.5),
    "lrn_size1_lanes": T("lrn", shape=(1, 13, 4, 16), size=1, alpha=0.4, beta=0.5, bias=1.0),
    "lrn_window_wider_than_c": T("lrn", shape=(1, 7, 5, 5), size=9, alpha=0.3, beta=0.6, bias=2.0),
    "lrn_even_size": T("lrn", shape=(2, 7, 5, 5), size=4, alpha=0.2, beta=0.75, bias=1.0),
    "lrn_rank3": T("lrn", shape=(2, 7, 13), size=3, alpha=0.5, beta=0.9, bias=1.0),
    "lrn_rank5": T("lrn", shape=(1, 5, 3, 4, 8), size=3, alpha=0.5, beta=0.75, bias=1.0),
    # copy
    "copy_rank2": T("copy", shape=(3, 7)),
    "copy_blocked": T("copy", shape=BLOCKED),
    "copy_rank1": T("copy", shape=(13,)),
    # elementwise with numpy broadcasting between differently shaped inputs
    "add_channel_bias_shape": ew("add", (1, 64, 56, 56), (64, 1, 1)),
    "mul_channel_scale_shape": ew("multiply", (1, 64, 56, 56), (64, 1, 1)),
    "add_broadcast_first": ew("add", (64, 1, 1), (1, 64, 56, 56)),
    "mul_both_broadcast_lanes": ew("multiply", (4, 1, 16), (5, 1)),
    "hard_sigmoid_odd": ew("hard_sigmoid", (3, 7, 13), alpha=0.2, beta=0.5),
    "hard_sigmoid_lanes": ew("hard_sigmoid", (2, 16), alpha=0.25, beta=0.4),
}


def _config(task: Task, values: dict[str, Any] | None) -> Config:
    return registry.default_config(task) if values is None else Config.make(values)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    """(case, config name) -> MeasureResult; one batched build, since gcc is the cost."""
    keys = [(name, c) for name in CASES for c in CONFIGS]
    inputs = [MeasureInput(CASES[n], _config(CASES[n], CONFIGS[c])) for n, c in keys]
    cache = tmp_path_factory.mktemp("graph-op-build")
    n = min(4, os.cpu_count() or 1)
    with registry.local_builder(n_parallel=n, timeout_s=120, cache_dir=cache) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        return dict(zip(keys, runner.run(inputs, builds), strict=True))


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_matches_reference(results, name: str) -> None:
    bad = {
        c: f"{results[name, c].error_no.name}: {results[name, c].error_msg}"
        for c in CONFIGS
        if results[name, c].error_no != MeasureErrorNo.NO_ERROR
    }
    assert not bad, f"{CASES[name]}: {bad}"


@pytest.mark.parametrize("name", list(CASES))
def test_ir_reads_in_bounds_and_matches_reference(name: str) -> None:
    """The evaluator raises IndexError for any load outside its tensor not under a select."""
    task = CASES[name]
    template = registry.template(task)
    v = template.validate(task)
    xs = registry.random_inputs(task, seed=3)
    got = evaluate([v["out"]], {t.name: a for t, a in zip(v["inputs"], xs.values(), strict=True)})
    want = template.reference(task, xs)
    assert got[0].shape == want.shape
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)


def _code(name: str, vectorize: bool = True) -> str:
    cfg = Config.make({"parallel": True, "vectorize": vectorize})
    return registry.generate_source(MeasureInput(CASES[name], cfg)).code


def test_vectorisation_where_lanes_are_contiguous_scalar_where_selects_vary() -> None:
    """Selects whose condition is fixed across lanes keep vector loads; a lane-dependent
    select that guards loads falls back to an `omp simd` loop (no unguarded vector load)."""
    for name in ("concat_blocked_axis1_3in", "slice_blocked", "pad_blocked_spatial"):
        code = _code(name)
        assert "tf_v16fu" in code and "omp simd" not in code, name
    for name in ("concat_last_axis_lanes", "pad_nchw_spatial"):
        code = _code(name)
        assert "tf_v" not in code and "#pragma omp simd" in code, name
    assert "tf_v" not in _code("concat_blocked_axis1_3in", vectorize=False)


# ---------------------------------------------------------------- references vs onnxruntime
def run_onnx(op: str, inputs: list[np.ndarray], **attrs: Any) -> np.ndarray:
    """One ONNX node (opset 13) on `inputs` with onnxruntime's CPU provider."""
    names = [f"in{i}" for i in range(len(inputs))]
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in zip(names, inputs, strict=True)
    ]
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node(op, names, ["out"], **attrs)], op, infos, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip(names, inputs, strict=True)))[0]


def _i64(*v: int) -> np.ndarray:
    return np.array(v, dtype=np.int64)


def onnx_node(task: Task, xs: list[np.ndarray]) -> tuple[str, list[np.ndarray], dict[str, Any]]:
    """(ONNX op, its inputs, its attributes) computing `task` on `xs`."""
    a = task.args
    if task.op == "concat":
        return "Concat", xs, {"axis": a["axis"]}
    if task.op == "slice":
        return "Slice", [*xs, _i64(a["begin"]), _i64(a["end"]), _i64(a["axis"])], {}
    if task.op == "pad":
        value = np.array(a.get("value", 0.0), dtype=np.float32)
        return "Pad", [*xs, _i64(*a["pads"]), value], {"mode": "constant"}
    if task.op == "transpose":
        return "Transpose", xs, {"perm": list(a["perm"])} if "perm" in a else {}
    if task.op == "reduce_mean":
        attrs = {"keepdims": int(a.get("keepdims", True))}
        if a.get("axes"):
            attrs["axes"] = list(a["axes"])
        return "ReduceMean", xs, attrs
    if task.op == "lrn":
        return "LRN", xs, {k: a[k] for k in ("size", "alpha", "beta", "bias")}
    if task.op == "copy":
        return "Identity", xs, {}
    raise AssertionError(f"no ONNX node for {task.op}")


def _onnx_runs(task: Task) -> bool:
    """onnxruntime's LRN takes only 4-D inputs and odd sizes."""
    if task.op == "lrn":
        return len(task.args["shape"]) == 4 and task.args["size"] % 2 == 1
    return task.op != "elementwise"


ONNX_CASES = [n for n, t in CASES.items() if _onnx_runs(t)]


@pytest.mark.parametrize("name", ONNX_CASES)
def test_reference_matches_onnxruntime(name: str) -> None:
    task = CASES[name]
    xs = registry.random_inputs(task, seed=5)
    want = registry.template(task).reference(task, dict(xs))
    op, inputs, attrs = onnx_node(task, list(xs.values()))
    got = np.atleast_1d(run_onnx(op, inputs, **attrs))  # a 0-d mean is shape (1,) in kernels
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(want, got, rtol=1e-5, atol=1e-6)


def test_full_mean_reference_is_0d_like_onnx() -> None:
    from tunefarm.ir import reference as R

    x = np.random.default_rng(0).uniform(-1, 1, (3, 13)).astype(np.float32)
    want = run_onnx("ReduceMean", [x], keepdims=0)
    got = R.reduce_mean(x, None, keepdims=False)
    assert got.shape == want.shape == () and abs(float(got) - float(want)) < 1e-6


def lrn_loop(x: np.ndarray, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """ONNX LRN straight from its formula, one channel at a time, in float64."""
    x64, c_total, y = x.astype(np.float64), x.shape[1], np.empty(x.shape)
    for c in range(c_total):
        lo = max(0, c - (size - 1) // 2)
        hi = min(c_total - 1, c + math.ceil((size - 1) / 2))
        s = (x64[:, lo : hi + 1] ** 2).sum(axis=1)
        y[:, c] = x64[:, c] / (bias + alpha / size * s) ** beta
    return y


@pytest.mark.parametrize("name", [n for n, t in CASES.items() if t.op == "lrn"])
def test_lrn_reference_matches_formula(name: str) -> None:
    task = CASES[name]
    xs = registry.random_inputs(task, seed=7)
    want = lrn_loop(xs["x"], *(task.args[k] for k in ("size", "alpha", "beta", "bias")))
    got = registry.template(task).reference(task, dict(xs))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- bad params
BAD: list[tuple[Task, str]] = [
    (T("concat", shapes=[(2, 3), (2, 3)], axis=2), "axis"),
    (T("concat", shapes=[(2, 3), (2, 3)], axis=-3), "axis"),
    (T("concat", shapes=[(2, 3), (2, 3)]), "axis"),
    (T("concat", shapes=[(2, 3), (3, 3)], axis=1), "shapes"),
    (T("concat", shapes=[(2, 3), (2, 3, 1)], axis=0), "shapes"),
    (T("concat", shapes=[], axis=0), "shapes"),
    (T("slice", shape=(4, 13), axis=2, begin=0, end=2), "axis"),
    (T("slice", shape=(4, 13), axis=1, begin=5, end=5), "begin"),
    (T("slice", shape=(4, 13), axis=1, begin=6, end=2), "begin"),
    (T("slice", shape=(4, 13), axis=1, begin=20, end=30), "begin"),
    (T("slice", shape=(4, 13), axis=1, begin=1.5, end=3), "begin"),
    (T("slice", shape=(4, 13), axis=1, begin=1), "end"),
    (T("transpose", shape=(2, 3, 4), perm=[0, 0, 1]), "perm"),
    (T("transpose", shape=(2, 3, 4), perm=[0, 1]), "perm"),
    (T("transpose", shape=(2, 3, 4), perm=[0, 1, 3]), "perm"),
    (T("transpose", shape=(2, 3, 4), perm=[-1, 0, 1]), "perm"),
    (T("pad", shape=(2, 3), pads=[0, -1, 0, 1]), "pads"),
    (T("pad", shape=(2, 3), pads=[0, 1, 0]), "pads"),
    (T("pad", shape=(2, 3), pads=[0, 1, 0, 1], mode="reflect"), "mode"),
    (T("pad", shape=(2, 3), pads=[0, 1, 0, 1], value="zero"), "value"),
    (T("reduce_mean", shape=(2, 3), axes=[2]), "axes"),
    (T("reduce_mean", shape=(2, 3), axes=[1, -1]), "axes"),
    (T("reduce_mean", shape=(2, 3), axes=[1], keepdims="yes"), "keepdims"),
    (T("lrn", shape=(1, 4, 3, 3), size=0), "size"),
    (T("lrn", shape=(1, 4, 3, 3)), "size"),
    (T("lrn", shape=(4, 3), size=3), "shape"),
    (T("lrn", shape=(1, 4, 3, 3), size=3, alpha="big"), "alpha"),
    (T("copy", shape=(0, 3)), "shape"),
    (ew("add", (2, 3), (4,)), "shape"),
]


@pytest.mark.parametrize(("task", "param"), BAD, ids=[str(t) for t, _ in BAD])
def test_bad_params_raise_task_error_naming_the_param(task: Task, param: str) -> None:
    with pytest.raises(TaskError, match=param) as info:
        registry.instantiate(task, {"parallel": True, "vectorize": True})
    msg = str(info.value)
    assert msg.startswith(task.op) and f"{task.op}: {task.op}:" not in msg, msg


def test_new_ops_are_registered_with_a_space_and_flops() -> None:
    for op in ("concat", "slice", "pad", "transpose", "reduce_mean", "lrn", "copy"):
        assert op in registry.ops()
    assert registry.flops(CASES["lrn_alexnet"]) > 0 and registry.flops(CASES["copy_rank2"]) == 0
    assert registry.config_space(CASES["pad_zero"]).size == 4
