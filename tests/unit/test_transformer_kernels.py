"""Kernels of the transformer ops (gather, broadcast_to, layer_norm, where, equal, erf, tanh,
sqrt, square, gelu, an int64 -> float32 cast), compiled with gcc on awkward shapes and run
against numpy oracles written here, with the default config and with vectorize off.

The IR of every case also runs in the numpy evaluator, which raises on a load outside its
tensor: a gather's clamped index must keep its table reads in bounds.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.ir.evaluate import evaluate
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task, TaskError

CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0, rtol=0.0, atol_rel=2e-5
)
CONFIGS: dict[str, dict[str, Any] | None] = {
    "default": None,
    "no_vectorize": {"parallel": True, "vectorize": False},
}


def ew(fn: str, *shapes: Any, **kw: Any) -> Task:
    return Task.make("elementwise", fn=fn, shapes=list(shapes), **kw)


CASES: dict[str, Task] = {
    "gather_embedding": Task.make("gather", data=(37, 13), indices=(2, 5), axis=0),
    "gather_middle_axis": Task.make("gather", data=(3, 7, 5), indices=(2,), axis=1),
    "gather_first_token": Task.make("gather", data=(2, 9, 24), indices=(1,), axis=-2),
    "broadcast_mask": Task.make("broadcast_to", shape=(2, 1, 1, 7), out=(2, 3, 5, 7)),
    "broadcast_new_axes": Task.make("broadcast_to", shape=(3, 1), out=(2, 3, 9)),
    "layer_norm_last": Task.make("layer_norm", shape=(2, 5, 19), axis=-1, epsilon=1e-12),
    "layer_norm_two_axes": Task.make("layer_norm", shape=(3, 4, 6), axis=1, epsilon=1e-5),
    # rows of whole vectors: mean and variance summed in vectors of partials (rfactor)
    "layer_norm_row_vectors": Task.make("layer_norm", shape=(2, 3, 96), axis=-1, epsilon=1e-5),
    "where_mask": Task.make("where", shapes=[(2, 1, 1, 7), (2, 3, 5, 7), (1,)]),
    "equal_broadcast": ew("equal", (4, 5), (1, 5)),
    "erf": ew("erf", (3, 17)),
    "tanh": ew("tanh", (5, 9)),
    "sqrt": ew("sqrt", (2, 3, 11)),
    "square": ew("square", (7, 3)),
    "gelu": ew("gelu", (2, 33)),
    "cast_int64": ew("cast", (3, 10), dtypes=["int64"], dtype="float32"),
}


def _erf(x: np.ndarray) -> np.ndarray:
    return np.array([math.erf(v) for v in x.reshape(-1)]).reshape(x.shape)


def oracle(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    """The expected output, written from the ONNX definitions with numpy."""
    a = task.args
    x = [v.astype(np.float64) if v.dtype.kind == "f" else v for v in xs]
    if task.op == "gather":
        n = xs[0].shape[a["axis"]]
        return np.take(x[0], np.where(xs[1] < 0, xs[1] + n, xs[1]), axis=a["axis"])
    if task.op == "broadcast_to":
        return np.broadcast_to(x[0], a["out"])
    if task.op == "layer_norm":
        axes = tuple(range(a["axis"] % x[0].ndim, x[0].ndim))
        mu = x[0].mean(axis=axes, keepdims=True)
        sd = np.sqrt(x[0].var(axis=axes, keepdims=True) + a["epsilon"])
        return (x[0] - mu) / sd * x[1] + x[2]
    if task.op == "where":
        return np.where(x[0] != 0, x[1], x[2])
    fn = a["fn"]
    if fn == "equal":
        return (x[0] == x[1]).astype(np.float64)
    if fn == "gelu":
        return x[0] * 0.5 * (1 + _erf(x[0] / np.sqrt(2)))
    table = {"erf": _erf, "tanh": np.tanh, "sqrt": np.sqrt, "square": np.square}
    if fn in table:
        return table[fn](x[0])
    return xs[0].astype(np.float32)  # cast


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Any]:
    keys = [(name, c) for name in CASES for c in CONFIGS]

    def config(task: Task, values: dict[str, Any] | None) -> Config:
        return registry.default_config(task) if values is None else Config.make(values)

    inputs = [MeasureInput(CASES[n], config(CASES[n], CONFIGS[c])) for n, c in keys]
    cache = tmp_path_factory.mktemp("transformer-build")
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
def test_reference_matches_oracle_and_ir_reads_in_bounds(name: str) -> None:
    task = CASES[name]
    template = registry.template(task)
    xs = registry.random_inputs(task, seed=5)
    want = oracle(task, list(xs.values()))
    ref = template.reference(task, xs)
    np.testing.assert_allclose(ref, want, rtol=1e-5, atol=1e-6)
    v = template.validate(task)
    got = evaluate([v["out"]], {t.name: a for t, a in zip(v["inputs"], xs.values(), strict=True)})
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)


def test_cases_cover_the_transformer_ops() -> None:
    ops = {t.op for t in CASES.values()}
    assert {"gather", "where", "broadcast_to", "layer_norm"} <= ops
    fns = {t.args["fn"] for t in CASES.values() if t.op == "elementwise"}
    assert fns == {"erf", "tanh", "sqrt", "square", "gelu", "equal", "cast"}


def test_random_inputs_cover_both_outcomes() -> None:
    """Indices reach negative values and masks hold both 0 and 1, so the checks above test
    the wrap-around and both select branches."""
    idx = registry.random_inputs(CASES["gather_embedding"], 1)["indices"]
    assert idx.dtype == np.int64 and idx.min() < 0 <= idx.max() < 37
    cond = registry.random_inputs(CASES["where_mask"], 1)["c"]
    assert set(np.unique(cond)) == {0.0, 1.0}


@pytest.mark.parametrize(
    ("task", "words"),
    [
        (Task.make("gather", data=(4, 3), indices=(2,), axis=2), ["axis"]),
        (Task.make("layer_norm", shape=(4, 3), axis=-3), ["axis"]),
        (Task.make("broadcast_to", shape=(4, 3), out=(2, 5, 3)), ["broadcast"]),
        (Task.make("where", shapes=[(2,), (3,)]), ["shapes"]),
        (ew("cast", (3,), dtypes=["complex64"], dtype="float32"), ["dtypes"]),
    ],
)
def test_bad_params_name_the_param(task: Task, words: list[str]) -> None:
    with pytest.raises(TaskError) as err:
        registry.template(task).validate(task)
    for w in words:
        assert w in str(err.value)


def test_dense_row_tiles_with_gelu_epilogue(tmp_path) -> None:
    """The dense template's tile_n rows per weight load (a transformer's [batch * seq,
    hidden] rows), awkward sizes, the bias + gelu epilogue, against an oracle."""
    task = Task.make("dense", data=(12, 40), weight=(24, 40), epilogue=("bias", "gelu"))
    space = registry.config_space(task)
    assert "tile_n" in space.knobs and registry.default_config(task).as_dict()["tile_n"] > 1
    base = registry.default_config(task).as_dict()
    configs = [Config.make(dict(base, tile_n=t, tile_o=(3, 1, 8))) for t in (1, 3, 6)]
    inputs = [MeasureInput(task, c) for c in configs]
    with registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        results = runner.run(inputs, builds)
    assert all(r.error_no == MeasureErrorNo.NO_ERROR for r in results), results
    xs = registry.random_inputs(task, seed=2)
    y = xs["data"].astype(np.float64) @ xs["weight"].T.astype(np.float64) + xs["bias"]
    want = y * 0.5 * (1 + _erf(y / np.sqrt(2)))
    np.testing.assert_allclose(
        registry.template(task).reference(task, xs), want, rtol=1e-5, atol=1e-5
    )
    # batch-1 dense keeps its space (and its records) without the knob
    one = Task.make("dense", data=(1, 40), weight=(24, 40))
    assert "tile_n" not in registry.config_space(one).knobs


def test_dense_refuses_an_unrolled_body_gcc_cannot_afford(tmp_path) -> None:
    """BERT's dense 128x768 -> 3072 on AVX2: 8 rows x 8 vectors of 48 outputs, K unrolled by
    8, is 3072 vector FMAs in the unrolled body (gcc ran past the 30 CPU s build limit on
    it); it is a build error naming the limit, at once and without gcc. The best configs
    of recorded searches, up to 576 (16 x 3 x 6 x 2), and 1024 itself are kept."""
    task = Task.make("dense", "cpu -isa=avx2", data=(128, 768), weight=(3072, 768))
    monster = Config.make({"tile_o": (8, 8, 48), "tile_k": 8, "tile_n": 8})
    with registry.local_builder(n_parallel=1, timeout_s=30, cache_dir=tmp_path) as b:
        (refused,) = b.build([MeasureInput(task, monster)])
    assert refused.error_no == MeasureErrorNo.BUILD_ERROR
    assert "3072 vector FMAs" in refused.error_msg and "limit of 1024" in refused.error_msg
    assert not list(tmp_path.glob("*.c"))  # refused before any source was written
    for values in (
        {"tile_o": (32, 6, 16), "tile_k": 16, "tile_n": 3},  # 576
        {"tile_o": (16, 8, 24), "tile_k": 8, "tile_n": 4},  # 8 x 4 x 8 x 3 = 768
        {"tile_o": (48, 8, 8), "tile_k": 16, "tile_n": 8},  # 1024
    ):
        assert registry.instantiate(task, values).steps


@pytest.mark.parametrize("isa, lanes", [("avx2", 8), ("avx512", 16)])
def test_layer_norm_rows_summed_in_vectors(isa: str, lanes: int) -> None:
    """A row of whole vectors sums its mean and variance in `lanes` partials (the scalar sum
    was a chain of dependent adds per value); a row of odd length keeps the scalar sum."""

    def rfactors(shape: tuple[int, ...]) -> list:
        task = Task.make("layer_norm", target=f"cpu -isa={isa}", shape=shape, axis=-1)
        steps = registry.instantiate(task, registry.default_config(task)).steps
        return [(s.stage, s.factor) for s in steps if s.kind == "rfactor"]

    assert rfactors((1, 7, 768)) == [("out_mean", lanes), ("out_var", lanes)]
    assert rfactors((1, 7, 19)) == []


def test_dense_row_super_blocks(tmp_path) -> None:
    """Past 33 row tiles and 198 rows the rows go in super-blocks outside the weight blocks
    (batch-8 transformer rows), the padded rows rounded up to whole super-blocks: checked
    against an oracle at a row count that leaves a partial tile and a partial super-block."""
    from tunefarm.backends.cpu.dense import super_block

    assert super_block(197, 6) == 1 and super_block(128, 8) == 1  # batch 1: unchanged
    assert super_block(197, 5) == 1  # AVX2's 5-row tile: 40 tiles, still one sweep
    assert super_block(1576, 6) == 33 and super_block(1024, 8) == 32
    assert super_block(1576, 5) == 32 and super_block(1024, 5) == 30
    task = Task.make("dense", data=(241, 16), weight=(24, 16), epilogue=("bias", "residual"))
    config = Config.make(dict(registry.default_config(task).as_dict(), tile_n=4))
    steps = registry.instantiate(task, config).steps
    assert any(s.kind == "fuse" and len(s.axes) == 3 for s in steps), steps  # 61 tiles
    inputs = [MeasureInput(task, config)]
    with registry.local_builder(n_parallel=1, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        (result,) = runner.run(inputs, builds)
    assert result.error_no == MeasureErrorNo.NO_ERROR, result
    xs = registry.random_inputs(task, seed=2)
    arr = [xs[k].astype(np.float64) for k in xs]
    want = arr[0] @ arr[1].T + arr[2] + arr[3]
    np.testing.assert_allclose(
        registry.template(task).reference(task, xs), want, rtol=1e-5, atol=1e-5
    )
