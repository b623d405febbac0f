"""Host builds that overlap host measurement in idle priority (measure/priority.py,
LocalBuilder.background, tuner.build_while_measuring): the next candidates compile while a
chunk is timed, in SCHED_IDLE, and are back at the normal policy when the parent waits for
them; a candidate that crashes still costs only itself. Real gcc builds of measure_kernels."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import measure_kernels as mk
import pytest

from tunefarm.measure import LocalBuilder, LocalRunner, MeasureErrorNo, MeasureSettings, priority
from tunefarm.tune.tuner import MeasureOption

E = MeasureErrorNo
FAST = MeasureSettings(repeat=2, min_repeat_ms=2, timeout_s=1.5)
pytestmark = pytest.mark.skipif(
    not priority.available(), reason="needs SCHED_IDLE and the right to leave it"
)


def _policies(builder: LocalBuilder) -> list[int]:
    return [priority.policy_of(s.proc.pid) for s in builder._pool._slots]


def test_set_idle_reaches_a_process_and_its_children():
    proc = subprocess.Popen(["sh", "-c", "sleep 5 & sleep 5 & wait"])
    try:
        deadline = time.monotonic() + 5
        kids: list[str] = []
        while len(kids) < 2 and time.monotonic() < deadline:
            kids = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        pids = [proc.pid, *map(int, kids)]
        assert len(pids) == 3
        priority.set_idle([proc.pid], True)
        assert [priority.policy_of(p) for p in pids] == [os.SCHED_IDLE] * 3
        priority.set_idle([proc.pid], False)
        assert [priority.policy_of(p) for p in pids] == [os.SCHED_OTHER] * 3
    finally:
        proc.kill()
        proc.wait()
    priority.set_idle([proc.pid], True)  # an exited process is skipped, not an error


def test_workers_started_in_background_start_idle_and_come_back(tmp_path):
    # idle builds get only the CPU time nothing else wants: at load 12 two tiny ones waited
    # past the default 4x wall backstop (85 s), so this one is generous
    with LocalBuilder(
        mk.generate, n_parallel=2, timeout_s=20, wall_timeout_s=600, cache_dir=tmp_path
    ) as builder:
        assert builder.can_background
        builder.background(True)
        builds = builder.build([mk.inp("add", unroll=i) for i in range(2)])
        assert all(b.ok for b in builds), [b.error_msg for b in builds]
        assert _policies(builder) == [os.SCHED_IDLE] * 2
        builder.background(False)
        assert _policies(builder) == [os.SCHED_OTHER] * 2


def _compiler_group(worker: int, deadline_s: float) -> int | None:
    """The process group of the compiler the build worker `worker` runs (compile.py starts
    each in a session of its own), once one appears; None if none did by the deadline. Only a
    child that leads its own group counts: stopping any other child's group could stop the
    test run itself (the worker's other children share pytest's group)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        for kid in map(int, open(f"/proc/{worker}/task/{worker}/children").read().split()):
            try:
                group = os.getpgid(kid)
            except ProcessLookupError:
                continue
            if group == kid != os.getpgrp():  # a group of its own: never the test's
                return group
        time.sleep(0.001)
    return None


def test_a_build_starved_in_idle_priority_is_not_timed_out(tmp_path):
    """A real gcc build in SCHED_IDLE that gets no CPU for longer than its time limit (here:
    its compiler stopped outright, which is starvation that no scheduler can soften) waits
    past the limit in wall seconds and is not failed for it: the limit counts the build's
    CPU seconds. It completes once it runs again."""
    limit_s, starved_s = 1.0, 2.5  # gcc needs well under a CPU second for this kernel
    with LocalBuilder(
        mk.generate, n_parallel=1, timeout_s=limit_s, wall_timeout_s=120, cache_dir=tmp_path
    ) as builder:
        assert builder.build([mk.inp("add", unroll=70)])[0].ok  # starts the worker
        (worker,) = [s.proc.pid for s in builder._pool._slots]
        builder.background(True)
        out: list = []
        build = threading.Thread(
            target=lambda: out.extend(builder.build([mk.inp("add", unroll=71)]))
        )
        build.start()
        group = _compiler_group(worker, deadline_s=30)
        assert group is not None, "the build worker started no compiler"
        os.killpg(group, signal.SIGSTOP)
        try:
            time.sleep(starved_s)
        finally:
            os.killpg(group, signal.SIGCONT)
        builder.background(False)
        build.join(120)
    (res,) = out
    assert res.ok, res.error_msg
    assert res.build_seconds > limit_s  # over the limit in wall seconds, within it in CPU


class _WatchingRunner(LocalRunner):
    """A host runner that notes the build workers' policies whenever it starts a chunk."""

    builder: LocalBuilder
    seen: list[list[int]]

    def run(self, inputs, builds):
        self.seen.append(_policies(self.builder))
        return super().run(inputs, builds)


def test_host_batch_measured_as_built_with_idle_builds_and_a_crash_costs_one(tmp_path, monkeypatch):
    monkeypatch.setenv("TUNEFARM_OVERLAP_HOST_BUILDS", "idle")  # whatever the host's load
    names = ["add", "segv", "add", "wrong", "add", "add"]
    inputs = [mk.inp(n, unroll=40 + i) for i, n in enumerate(names)]
    with LocalBuilder(mk.generate, n_parallel=2, timeout_s=20, cache_dir=tmp_path) as builder:
        runner = _WatchingRunner(FAST, mk.io, persistent=True, in_process=True)
        runner.builder, runner.seen = builder, []
        option = MeasureOption(builder, runner)
        assert runner.overlaps_idle_builds(4) and not runner.overlaps_builds
        results = option.measure(inputs)
        after = _policies(builder)
        runner.close()
    assert [r.error_no for r in results] == [
        E.NO_ERROR, E.RUNTIME_ERROR, E.NO_ERROR, E.WRONG_ANSWER, E.NO_ERROR, E.NO_ERROR,
    ], [r.error_msg for r in results]  # fmt: skip
    assert "SIGSEGV" in results[1].error_msg
    # one measurement per candidate, as its build ended: the first while the others built
    # (two workers, six builds), in idle priority; every worker back at normal after
    assert len(runner.seen) == len(names)
    assert runner.seen[0] == [os.SCHED_IDLE] * 2
    assert after == [os.SCHED_OTHER] * 2


def test_overlap_of_host_builds_can_be_turned_off_and_waits_for_idle_cores(monkeypatch):
    monkeypatch.setenv("TUNEFARM_OVERLAP_HOST_BUILDS", "0")
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        assert not runner.overlaps_idle_builds(0) and not runner.overlaps_builds
        monkeypatch.delenv("TUNEFARM_OVERLAP_HOST_BUILDS")
        # unset: only while the load average, less our own processes, leaves a core idle
        assert runner.overlaps_idle_builds(1000) and not runner.overlaps_idle_builds(-1000)
