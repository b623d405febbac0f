"""Kernels that users' models lean on, against numpy: dense with row tiles that do not
divide the rows (ViT's 197 tokens), on the host's own vector width, with every epilogue
input kind.
"""

from __future__ import annotations

import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.dense import _register_tile
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task

CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0, rtol=0.0, atol_rel=2e-5
)


def run_checked(tmp_path, task: Task, configs: list[Config]) -> None:
    """Build and run each config; the runner compares every output with the numpy oracle."""
    inputs = [MeasureInput(task, c) for c in configs]
    with registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        results = runner.run(inputs, builds)
    bad = [(i.config.as_dict(), r.error_msg[:300]) for i, r in zip(inputs, results, strict=True)]
    assert all(r.error_no == MeasureErrorNo.NO_ERROR for r in results), bad


def test_dense_row_tiles_need_not_divide_rows(tmp_path) -> None:
    """13 rows (prime) in tiles of 4, 5 and 8: the last tile computes padded rows that the
    output crops; bias and residual read the real rows only."""
    task = Task.make("dense", data=(13, 48), weight=(32, 48), epilogue=("bias", "residual"))
    space = registry.config_space(task)
    assert {4, 5, 8} <= set(space.knobs["tile_n"].entities)
    base = registry.default_config(task).as_dict()
    assert base["tile_n"] > 1
    configs = [Config.make(dict(base, tile_n=t, tile_o=(2, 2, 8))) for t in (4, 5, 8)]
    run_checked(tmp_path, task, [registry.default_config(task), *configs])


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_default_dense_tile_fills_the_registers(isa: str) -> None:
    """ViT's 197 x 768 -> 3072: the default tile keeps rows x vectors accumulators within
    the ISA's register file and wastes at most a row of the last tile."""
    lanes = vector_lanes(parse_target(f"cpu -isa={isa}"))
    rows, inner = _register_tile(197, 3072 // lanes, lanes)
    assert rows > 1 and inner > 1
    assert rows * inner <= (24 if lanes >= 16 else 12)
    assert -(-197 // rows) * rows - 197 <= 3
    assert _register_tile(1, 3072 // lanes, lanes)[0] == 1


@pytest.mark.parametrize(
    "params",
    [
        dict(a=(3, 13, 8), b=(3, 8, 19)),  # attention P V at odd sizes
        dict(a=(2, 11, 12), b=(2, 21, 12), transpose_b=True),  # Q K^T with K untransposed
        dict(a=(1, 7, 5), b=(4, 5, 19)),  # a batch of one broadcasts
        dict(a=(4, 7, 5), b=(1, 5, 19)),
    ],
)
def test_batch_matmul_tiles_against_numpy(tmp_path, params) -> None:
    """The register-tiled batch matmul pads rows (clamped) and columns (zero) to whole tiles
    and crops them; every config here must match numpy."""
    task = Task.make("batch_matmul", **params)
    base = registry.default_config(task).as_dict()
    configs = [registry.default_config(task)]
    configs += [Config.make(dict(base, tile_n=t, tile_o=o)) for t, o in ((3, 2), (4, 1))]
    run_checked(tmp_path, task, configs)
