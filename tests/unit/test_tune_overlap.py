"""Overlap in the tuning loop on a device (pocl here): each candidate is measured as soon as
its build ends, while the others still build (`tune.tuner.build_while_measuring` with the
local pool's `on_result`), and the next batch is proposed while this one builds and is
measured (`tune.tuner._Ahead`), never sharing a candidate with it. Host kernels keep the
strict order."""

from __future__ import annotations

import threading
import time

import pytest

from tunefarm.backends import registry
from tunefarm.measure import Config, LocalBuilder, MeasureInput, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.random_tuner import RandomTuner
from tunefarm.tune.tuner import ENV_OVERLAP_BATCHES, MeasureOption

TASK = Task.make("dense", target="opencl", data=(2, 16), weight=(8, 16))
SETTINGS = MeasureSettings(min_repeat_ms=0, repeat=1, number=1, timeout_s=30.0)
SLOW_S = 3.0


def slow_first(inp: MeasureInput):
    """The registry's generator, with config index 0 held back SLOW_S seconds (a slow
    compile); module level, so the build workers can unpickle it."""
    if inp.config.index == 0:
        time.sleep(SLOW_S)
    return registry.generate_source(inp)


def _inputs(n: int) -> list[MeasureInput]:
    good = registry.default_config(TASK).as_dict()  # one config, told apart by its index
    return [MeasureInput(TASK, Config.make(good, index=i)) for i in range(n)]


class RecordingRunner:
    """The real opencl runner, noting when each candidate's measurement ends."""

    def __init__(self, runner):
        self.runner, self.ends = runner, {}
        self.overlaps_builds = runner.overlaps_builds

    def run(self, inputs, builds):
        out = self.runner.run(inputs, builds)
        for inp in inputs:
            self.ends[inp.config.index] = time.monotonic()
        return out

    def close(self):
        self.runner.close()


def test_a_candidate_is_measured_while_a_slower_one_still_builds():
    inps = _inputs(3)
    reported = []
    with LocalBuilder(slow_first, n_parallel=2) as builder:
        runner = RecordingRunner(registry.local_runner(SETTINGS, kind="opencl"))
        assert builder.streams_results and runner.overlaps_builds
        option = MeasureOption(builder, runner)
        results = option.measure(inps)
        runner.close()
        # the pool reports each build as it ends, in the order they end
        builds = builder.build(inps[1:], on_result=lambda i, b: reported.append(i))
    assert [r.ok for r in results] == [True] * 3, [r.error_msg for r in results]
    # candidate 1 (built beside the slow 0) was measured first: in chunks of the pool's
    # size, it would have waited for candidate 0's build
    assert runner.ends[1] < runner.ends[0], runner.ends
    assert sorted(reported) == [0, 1] and len(builds) == 2


class RecordingTuner(RandomTuner):
    """A random tuner noting, for each proposal, its thread and what it saw as visited."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.proposals = []

    def next_batch(self, batch_size):
        out = super().next_batch(batch_size)
        self.proposals.append(
            (threading.current_thread().name, time.monotonic(), set(self.visited), out)
        )
        return out


def _tune(kind: str, trials: int = 6, batch: int = 2) -> RecordingTuner:
    task = TASK if kind == "opencl" else Task.make("dense", data=(2, 16), weight=(8, 16))
    tuner = RecordingTuner(task, seed=3)
    tuner.default_index = None  # every batch is the tuner's own proposal
    option = MeasureOption.local(SETTINGS, n_parallel=2, kind=kind)
    try:
        tuner.tune(trials, option, batch_size=batch)
    finally:
        option.close()
    return tuner


def test_the_next_batch_is_proposed_while_this_one_is_measured():
    tuner = _tune("opencl")
    names = [p[0] for p in tuner.proposals]
    # batch 0 and 1 are proposed in order (the model has no data before batch 0's results);
    # batch 2 while batch 1 builds and is measured
    assert names[:2] == ["MainThread", "MainThread"]
    assert names[2].startswith("tunefarm-propose"), names
    batch1, batch2 = tuner.proposals[1][3], tuner.proposals[2][3]
    assert set(batch1) <= tuner.proposals[2][2]  # batch 1 counted as visited meanwhile
    assert not set(batch1) & set(batch2)
    measured = [i for i, _ in tuner.history]
    assert len(measured) == 6 and len(set(measured)) == 6
    assert tuner.visited == set(measured)  # nothing in flight is left marked


@pytest.mark.parametrize("why", ["off", "host"])
def test_the_strict_order_is_kept_when_off_and_for_host_kernels(why, monkeypatch):
    if why == "off":
        monkeypatch.setenv(ENV_OVERLAP_BATCHES, "0")
    tuner = _tune("opencl" if why == "off" else "cpu")
    assert {p[0] for p in tuner.proposals} == {"MainThread"}
    assert len({i for i, _ in tuner.history}) == 6


class RecordingBuilder:
    """The real local pool, noting when each build call starts and what it builds."""

    def __init__(self, builder: LocalBuilder) -> None:
        self.inner, self.calls = builder, []

    def build(self, inputs, on_result=None):
        self.calls.append((time.monotonic(), {inp.config.index for inp in inputs}))
        return self.inner.build(inputs, on_result)

    def __getattr__(self, name):  # streams_results, n_parallel, close, ...
        return getattr(self.inner, name)


@pytest.mark.parametrize("overlap", ["on", "off"])
def test_the_next_batch_builds_while_this_one_is_measured(overlap, monkeypatch):
    # batch 2's builds are queued as it is proposed and start once batch 1's end, before
    # batch 1's last candidate is measured; before, `Tuner.tune` built it only once
    # `measure` returned for batch 1 (and so does TUNEFARM_OVERLAP_BATCHES=0)
    if overlap == "off":
        monkeypatch.setenv(ENV_OVERLAP_BATCHES, "0")
    tuner = RecordingTuner(TASK, seed=3)
    tuner.default_index, tuner.recheck_rounds = None, 0  # one build call per batch
    builder = RecordingBuilder(registry.local_builder(n_parallel=2))
    runner = RecordingRunner(registry.local_runner(SETTINGS, kind="opencl"))
    try:
        tuner.tune(6, MeasureOption(builder, runner), batch_size=2)
    finally:
        runner.close()
        builder.close()
    batches = [set(p[3]) for p in tuner.proposals]
    assert len(batches) == 3 and len({i for i, _ in tuner.history}) == 6
    starts = {frozenset(c): t for t, c in builder.calls}
    batch2_start = starts[frozenset(batches[2])]
    batch1_end = max(runner.ends[i] for i in batches[1])
    assert (batch2_start < batch1_end) == (overlap == "on"), (builder.calls, runner.ends)
