"""A one-core kernel's `tf_time` reads the calling thread's CPU time, so a tuner on a shared
host ranks candidates by their own work, not by how often a neighbour got the core."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.measure import MeasureInput, MeasureSettings
from tunefarm.measure.child import check_and_time
from tunefarm.measure.host import load_host_kernel
from tunefarm.task import Task

CONV = {"data": (1, 32, 28, 28), "weight": (32, 32, 3, 3), "padding": (1, 1, 1, 1)}
ONE_CORE, TWO_CORES = "cpu -isa=avx2 -cores=1", "cpu -isa=avx2 -cores=2"  # runs on any x86-64


def _source(target: str):
    task = Task.make("conv2d", target=target, **CONV)
    return registry.generate_source(MeasureInput(task, registry.default_config(task)))


def test_the_clock_follows_the_cores():
    one, two = _source(ONE_CORE).code, _source(TWO_CORES).code
    assert one.count("clock_gettime(CLOCK_THREAD_CPUTIME_ID,") == 2 and "MONOTONIC" not in one
    assert two.count("clock_gettime(CLOCK_MONOTONIC,") == 2 and "CPUTIME" not in two


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
def test_a_neighbour_on_the_core_does_not_count(tmp_path):
    with registry.local_builder(n_parallel=1, timeout_s=60, cache_dir=tmp_path) as builder:
        (built,) = builder.build([MeasureInput(*_task_and_config())])
    assert built.ok, built.error_msg
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(s.shape).astype(s.dtype) for s in built.arg_specs]
    kernel = load_host_kernel(built.artifact, args)
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    spin = f"import os, time\nos.sched_setaffinity(0, {{{cpu}}})\nt = time.time()\n"
    spin += "while time.time() - t < 20: pass\n"
    neighbour = subprocess.Popen([sys.executable, "-c", spin])
    try:
        os.sched_setaffinity(0, {cpu})  # the kernel and the neighbour share one core
        time.sleep(0.3)
        number = max(1, int(0.3 / max(kernel.time(1), 1e-6)))
        start = time.perf_counter()
        per_run = kernel.time(number)
        wall = time.perf_counter() - start
    finally:
        os.sched_setaffinity(0, before)
        neighbour.kill()
        neighbour.wait()
        kernel.close()
    # sharing the core, the wall clock runs about twice the kernel's own CPU time
    assert per_run * number < 0.75 * wall, (per_run * number, wall)


def _task_and_config():
    task = Task.make("conv2d", target=ONE_CORE, **CONV)
    return task, registry.default_config(task)


class _Counted:
    """A loaded kernel that counts its runs (checked and timed)."""

    def __init__(self, kernel) -> None:
        self.kernel, self.runs = kernel, 0

    def run(self) -> int:
        self.runs += 1
        return self.kernel.run()

    def outputs(self):
        return self.kernel.outputs()

    def time(self, number: int) -> float:
        self.runs += number
        return self.kernel.time(number)


def test_the_checked_run_counts_as_a_repeat_when_timed_by_the_kernels_clock(tmp_path):
    task, config = _task_and_config()
    inp = MeasureInput(task, config)
    with registry.local_builder(n_parallel=1, timeout_s=60, cache_dir=tmp_path) as builder:
        (built,) = builder.build([inp])
    assert built.ok, built.error_msg
    io = registry.reference_io(inp, 0)
    runner = registry.local_runner(MeasureSettings(repeat=3, min_repeat_ms=1e-3))
    try:
        assert runner.clock_of is not None and runner.clock_of(inp) == "thread"
        two = MeasureInput(Task.make("conv2d", target=TWO_CORES, **CONV), config)
        assert runner.clock_of(two) == "monotonic"
    finally:
        runner.close()
    settings = MeasureSettings(repeat=3, min_repeat_ms=1e-3)  # any run lasts a timed call
    runs = {}
    for clock in (None, "thread"):
        kernel = _Counted(load_host_kernel(built.artifact, [a.copy() for a in io.args]))
        try:
            reply = check_and_time(kernel, io, built.arg_specs, settings, clock)
        finally:
            kernel.kernel.close()
        assert reply["error_no"] == 0 and len(reply["costs"]) == 3 and reply["number"] == 1
        runs[clock] = kernel.runs
    # checked run + 3 timed; with the clock the checked run is the first of the 3
    assert runs == {None: 4, "thread": 3}, runs
