"""AVX2's register budget in the conv defaults: 16 ymm registers hold a direct conv tile of
at most 7 columns x 2 output vectors and a Winograd GEMM block of at most 16 accumulators
(`conv2d.short_columns`, `winograd.max_accumulators`) and a long 1x1 reduction runs in
passes (`conv2d.short_vector_passes`), while AVX-512's defaults keep their
wider tiles. Each default is built and run, its output checked against numpy."""

from __future__ import annotations

import pytest

from tunefarm.backends import registry
from tunefarm.measure import MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task

CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=30.0, rtol=0.0, atol_rel=2e-5
)
AVX2, AVX512 = "cpu -isa=avx2 -cores=1", "cpu -isa=avx512 -cores=1"


def conv(op: str, target: str, k: int, blocks: int) -> Task:
    """A 56 x 56 conv of 16 -> 16 channels (two output blocks of 8 on AVX2), as a network
    pins it, with bias and ReLU."""
    return Task.make(
        op, target=target, data=(1, 16, 56, 56), weight=(16, 16, k, k), padding=k // 2,
        epilogue=("bias", "relu"), blocks=(blocks, blocks),
    )  # fmt: skip


def run_default_checked(tmp_path, task: Task) -> dict:
    """Build and run the task's default config; the runner checks it against numpy."""
    inp = MeasureInput(task, registry.default_config(task))
    with registry.local_builder(n_parallel=1, timeout_s=120, cache_dir=tmp_path) as b:
        (built,) = b.build([inp])
    with registry.local_runner(CHECK) as runner:
        (result,) = runner.run([inp], [built])
    assert result.error_no == MeasureErrorNo.NO_ERROR, result.error_msg[:300]
    return inp.config.as_dict()


@pytest.mark.parametrize("k", [1, 3])
def test_avx2_direct_conv_tile_is_seven_columns_by_two_vectors(tmp_path, k: int) -> None:
    """56 columns: 7 x 2 on AVX2 (14 accumulators), where 8 x 2 (1x1) and 14 x 1 (3x3)
    were the defaults before."""
    cfg = run_default_checked(tmp_path, conv("conv2d", AVX2, k, 8))
    assert (cfg["tile_ow"][1], cfg["tile_oc"][1]) == (7, 2)


def test_avx512_direct_conv_tile_is_unchanged() -> None:
    """AVX-512 keeps 8 columns x 2 vectors on the same row (blocks of 16: one output block,
    so one vector)."""
    task = Task.make(
        "conv2d", target=AVX512, data=(1, 64, 56, 56), weight=(64, 64, 3, 3), padding=1,
        blocks=(16, 16),
    )  # fmt: skip
    cfg = registry.default_config(task).as_dict()
    assert (cfg["tile_ow"][1], cfg["tile_oc"][1]) == (8, 2)


def test_avx2_winograd_block_fits_sixteen_registers(tmp_path) -> None:
    """196 tiles of 4 x 4 on a 56 x 56 map: AVX2's default block holds at most 16
    accumulators (it was 14 tiles x 2 vectors, 28, which spilled); AVX-512's stays 14 x 2."""
    cfg = run_default_checked(tmp_path, conv("conv2d_winograd", AVX2, 3, 8))
    assert cfg["reg_n"] * cfg["tile_oc"][1] <= 16 and cfg["tile_oc"][1] == 2
    wide = registry.default_config(conv("conv2d_winograd", AVX512, 3, 8)).as_dict()
    assert (wide["reg_n"], wide["tile_oc"][1]) == (14, 2)


def test_avx2_long_1x1_reduction_runs_in_passes_of_64_channels(tmp_path) -> None:
    """A 1x1 conv over 256 input channels on AVX2: 4 passes of 64 (`short_vector_passes`),
    built, run and checked against numpy; with a kernel window or a stride it stays one
    pass."""
    task = Task.make(
        "conv2d", target=AVX2, data=(1, 256, 28, 28), weight=(64, 256, 1, 1),
        epilogue=("bias", "relu"), blocks=(8, 8),
    )  # fmt: skip
    cfg = run_default_checked(tmp_path, task)
    assert cfg["ic_passes"] == 4 and (cfg["tile_ow"][1], cfg["tile_oc"][1]) == (7, 2)
    window = Task.make(
        "conv2d", target=AVX2, data=(1, 256, 28, 28), weight=(64, 256, 3, 3), padding=1,
        blocks=(8, 8),
    )  # fmt: skip
    strided = Task.make(
        "conv2d", target=AVX2, data=(1, 256, 28, 28), weight=(64, 256, 1, 1), strides=2,
        blocks=(8, 8),
    )  # fmt: skip
    for one_pass in (window, strided):
        assert registry.default_config(one_pass).as_dict()["ic_passes"] == 1
