"""The persistent measurer (measure/measurer.py) on pocl: many candidates in one process; a
kernel that faults or never returns costs only its own result, and the measurer that it broke
is replaced (the next candidate measures correctly in a fresh one)."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends.opencl.driver import load_opencl_kernel
from tunefarm.measure import (
    ArgSpec,
    BuildResult,
    Config,
    KernelIO,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureSettings,
)
from tunefarm.task import Task

N = 64
HEAD = f"// tunefarm-launch entry=k grid=1,1,1 block={N},1,1 shared=0\n"
SIG = "__kernel void k(__global float* restrict x, __global float* restrict y) {\n"
GOOD = HEAD + SIG + "  int i = get_local_id(0); y[i] = 2.0f * x[i];\n}\n"
WRONG = HEAD + SIG + "  int i = get_local_id(0); y[i] = 3.0f * x[i];\n}\n"
# a write far outside any mapping: the pocl worker thread takes a SIGSEGV, the process dies
FAULT = HEAD + SIG + "  y[get_local_id(0) + (1L << 40)] = x[0];\n}\n"
# never returns (the store keeps the loop from being removed)
LOOP = HEAD + SIG + "  int i = get_local_id(0);\n  for (;;) { y[i] += x[i]; }\n}\n"

SETTINGS = MeasureSettings(min_repeat_ms=0, repeat=2, number=2, timeout_s=6.0)
SPECS = (ArgSpec("x", (N,)), ArgSpec("y", (N,), is_output=True))


def io_factory(inp: MeasureInput, seed: int) -> KernelIO:
    x = np.random.default_rng(seed).standard_normal(N).astype("float32")
    return KernelIO([x, np.zeros(N, "float32")], {1: 2 * x})


def build(tmp_path, name: str, code: str) -> BuildResult:
    path = tmp_path / f"{name}.cl"
    path.write_text(code)
    return BuildResult(str(path), SPECS, "io")


@pytest.mark.slow  # a hang must run into its 6 s limit; 8 pocl builds (about 20 s here)
def test_one_measurer_for_many_candidates_replaced_after_a_fault_and_a_hang(tmp_path):
    names = ["good", "good", "wrong", "good", "fault", "good", "loop", "good"]
    codes = {"good": GOOD, "wrong": WRONG, "fault": FAULT, "loop": LOOP}
    builds = [build(tmp_path, f"{n}{i}", codes[n]) for i, n in enumerate(names)]
    inp = MeasureInput(Task.make("dense", data=(1, N), weight=(N, N)), Config())
    runner = LocalRunner(SETTINGS, io_factory, load_opencl_kernel, persistent=True)
    with runner:
        pids = []
        results = []
        for b in builds:
            (r,) = runner.run([inp], [b])
            results.append(r)
            pids.append(runner._measurer.pid)
    got = [MeasureErrorNo(r.error_no).name for r in results]
    assert got == [
        "NO_ERROR", "NO_ERROR", "WRONG_ANSWER", "NO_ERROR",
        "RUNTIME_ERROR", "NO_ERROR", "RUN_TIMEOUT", "NO_ERROR",
    ]  # fmt: skip
    assert "measurer died" in results[4].error_msg and "replaced" in results[6].error_msg
    assert all(c > 0 for r in results if r.ok for c in r.costs)
    # the first four shared one process; the fault and the hang each cost one
    assert pids[0] == pids[1] == pids[2] == pids[3]
    assert len({pids[3], pids[5], pids[7]}) == 3


def test_builds_of_the_next_chunk_overlap_measurement_and_results_keep_their_order():
    """A device runner's batch is measured chunk by chunk while the next chunk builds; a
    build error in the middle stays at its place."""
    from tunefarm.backends import registry
    from tunefarm.tune.tuner import MeasureOption

    task = Task.make("dense", target="opencl", data=(2, 16), weight=(8, 16))
    good = registry.default_config(task)
    too_big = Config.make({**good.as_dict(), "tile_o": (1, 8, 1), "k_threads": 64})
    inps = [MeasureInput(task, good), MeasureInput(task, too_big), MeasureInput(task, good)]
    settings = MeasureSettings(min_repeat_ms=0, repeat=1, number=1, timeout_s=30.0)
    with registry.local_builder(n_parallel=1) as builder:
        option = MeasureOption(builder, registry.local_runner(settings, kind="opencl"))
        assert option.runner.overlaps_builds
        results = option.measure(inps)
        option.runner.close()
    assert [r.ok for r in results] == [True, False, True], [r.error_msg for r in results]
