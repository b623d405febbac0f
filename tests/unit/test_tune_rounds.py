"""The task scheduler's rounds measured together (`tune.rounds`), on real tiny kernels.

The warm-up rounds of all tasks go to the builder as units of several tasks' batches, each
task still measuring exactly what its own tuner proposes; on a device (pocl here) the next
unit is proposed while this one builds and is measured, never sharing a candidate with a
batch in flight; host kernels keep propose, measure, learn in turn."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

from tunefarm.backends import registry
from tunefarm.measure import LocalBuilder, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.random_tuner import RandomTuner
from tunefarm.tune.records import load_records
from tunefarm.tune.task_scheduler import TaskScheduler
from tunefarm.tune.tuner import ENV_OVERLAP_BATCHES, MeasureOption

SETTINGS = MeasureSettings(min_repeat_ms=0, repeat=1, number=1, timeout_s=30.0)


def dense(n: int, target: str = "cpu") -> Task:
    return Task.make("dense", target=target, data=(2, 16), weight=(n, 16))


class RecordingBuilder:
    """The real local builder, noting the workloads of each batch it is handed."""

    def __init__(self, builder: LocalBuilder) -> None:
        self.inner, self.calls = builder, []

    def build(self, inputs, on_result=None):
        self.calls.append([inp.task.workload_key for inp in inputs])
        return self.inner.build(inputs, on_result)

    def __getattr__(self, name):  # streams_results, n_parallel, background, ...
        return getattr(self.inner, name)


class RecordingTuner(RandomTuner):
    """A random tuner noting, for each proposal, its thread and what it saw as visited."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.default_index = None  # every batch is the tuner's own proposal
        self.recheck_rounds = 0
        self.proposals = []

    def next_batch(self, batch_size):
        out = super().next_batch(batch_size)
        self.proposals.append((threading.current_thread().name, set(self.visited), out))
        return out


def no_recheck(task: Task, seed: int) -> RandomTuner:
    """A random tuner that believes each figure (no re-timing: a build call of its own)."""
    tuner = RandomTuner(task, seed=seed)
    tuner.recheck_rounds = 0
    return tuner


def _option(kind: str, n_parallel: int) -> tuple[MeasureOption, RecordingBuilder]:
    builder = RecordingBuilder(registry.local_builder(n_parallel=n_parallel))
    return MeasureOption(builder, registry.local_runner(SETTINGS, kind)), builder


def test_warm_up_rounds_of_several_tasks_build_together(tmp_path: Path) -> None:
    tasks = [dense(8), dense(12), dense(16)]
    option, builder = _option("cpu", n_parallel=4)  # a unit: about 4 candidates
    log = tmp_path / "log.jsonl"
    sched = TaskScheduler(tasks, tuner_factory=no_recheck, stream=io.StringIO())
    try:
        summary = sched.tune(6, option, trials_per_round=2, batch_size=1, log_file=str(log))
    finally:
        option.close()
    # two units, each one candidate of every task (a batch of 1 from each round), where
    # rounds one after another would have handed the pool six batches of one candidate
    keys = [t.workload_key for t in tasks]
    assert [sorted(c) for c in builder.calls] == [sorted(keys)] * 2, builder.calls
    assert [t.trials for t in summary.tasks] == [2, 2, 2]
    assert all(t.stop_reason == "trial budget used" for t in summary.tasks)
    assert all(s.rounds == 1 for s in sched.states)
    # each task measured what its own tuner proposes when tuned alone (same seed)
    records = load_records(log)
    for i, task in enumerate(tasks):
        alone = RandomTuner(task, seed=i)
        got = {r.config.index for r in records if r.workload_key == task.workload_key}
        assert got == set(alone.propose(1)) | set(alone.propose_after(alone.propose(1), 1))


def _tune(kind: str, strategy: str = "gradient", trials: int = 6) -> list[RecordingTuner]:
    tasks = [dense(8, kind), dense(12, kind)]
    option, _ = _option(kind, n_parallel=2)  # a unit: one batch of 2
    sched = TaskScheduler(
        tasks,
        tuner_factory=lambda t, s: RecordingTuner(t, seed=s),
        strategy=strategy,
        stream=io.StringIO(),
    )
    per_round = 3 if trials == 6 else 2
    try:
        summary = sched.tune(trials, option, trials_per_round=per_round, batch_size=2)
    finally:
        option.close()
    assert [t.trials for t in summary.tasks] == [trials // 2] * 2
    return [s.tuner for s in sched.states]


def test_on_a_device_the_next_unit_is_proposed_while_this_one_is_measured() -> None:
    tuners = _tune("opencl")
    names = [p[0] for t in tuners for p in t.proposals]
    assert any(n.startswith("tunefarm-rounds") for n in names), names
    for t in tuners:
        measured = [i for i, _ in t.history]
        assert len(measured) == 3 and len(set(measured)) == 3  # nothing measured twice
        assert t.visited == set(measured)  # nothing in flight is left marked
        for k, (_, seen, batch) in enumerate(t.proposals):
            earlier = {i for _, _, b in t.proposals[:k] for i in b}
            assert earlier <= seen and not set(batch) & earlier  # never a batch in flight


def test_host_kernels_are_never_timed_beside_a_proposal(monkeypatch) -> None:
    # the next unit is proposed while this one builds, and joined before it is timed
    spans: list[tuple[str, float, float]] = []
    monkeypatch.setattr(RecordingTuner, "next_batch", _timed(RecordingTuner.next_batch, "p", spans))
    runner = type(registry.local_runner(SETTINGS, "cpu"))
    monkeypatch.setattr(runner, "run", _timed(runner.run, "m", spans))
    monkeypatch.setenv("TUNEFARM_OVERLAP_HOST_BUILDS", "0")  # builds never beside a timing
    tuners = _tune("cpu")
    names = {p[0] for t in tuners for p in t.proposals}
    assert any(n.startswith("tunefarm-rounds") for n in names), names
    proposals = [(a, b) for kind, a, b in spans if kind == "p"]
    timings = [(a, b) for kind, a, b in spans if kind == "m"]
    assert proposals and timings
    for a, b in proposals:
        assert all(b <= c or d <= a for c, d in timings), (a, b, timings)


def test_host_kernels_keep_the_strict_order_when_off(monkeypatch) -> None:
    monkeypatch.setenv(ENV_OVERLAP_BATCHES, "0")
    tuners = _tune("cpu")
    assert {p[0] for t in tuners for p in t.proposals} == {"MainThread"}


def _timed(inner, kind: str, spans: list):
    def wrapper(*args, **kwargs):
        start = time.monotonic()
        try:
            return inner(*args, **kwargs)
        finally:
            spans.append((kind, start, time.monotonic()))

    return wrapper


def test_on_a_device_the_next_round_starts_while_the_last_one_is_measured() -> None:
    # round robin after the warm-up: task 0, 1, 0, 1, two trials (one batch) each; the
    # next round is chosen, and its batch proposed, while the round before is measured
    first, second = _tune("opencl", "round-robin", trials=8)
    assert [p[0] for p in first.proposals][1].startswith("tunefarm-rounds"), first.proposals
    assert [p[0] for p in second.proposals][1].startswith("tunefarm-rounds")
    for t in (first, second):
        assert len({i for i, _ in t.history}) == 4


def test_on_a_device_the_next_unit_builds_while_this_one_is_measured(monkeypatch) -> None:
    # each build call of the pool is a unit's; unit k+1's must start before the last
    # timing of a candidate built by an earlier call ends (before: only once `measure`
    # returned for unit k, after its last timing)
    calls: list[tuple[float, set]] = []
    runs: list[tuple[tuple, float, float]] = []
    inner_build = LocalBuilder.build

    def build(self, inputs, on_result=None):
        calls.append((time.monotonic(), {(i.task.workload_key, i.config.index) for i in inputs}))
        return inner_build(self, inputs, on_result)

    runner = type(registry.local_runner(SETTINGS, "opencl"))
    inner_run = runner.run

    def run(self, inputs, builds):
        start = time.monotonic()
        try:
            return inner_run(self, inputs, builds)
        finally:
            key = (inputs[0].task.workload_key, inputs[0].config.index)
            runs.append((key, start, time.monotonic()))

    monkeypatch.setattr(LocalBuilder, "build", build)
    monkeypatch.setattr(runner, "run", run)
    tuners = _tune("opencl", "round-robin", trials=8)
    for t in tuners:
        assert len({i for i, _ in t.history}) == 4  # each candidate measured once
    assert len(calls) >= 3, calls
    ahead = 0
    for j, (start, _) in enumerate(calls[1:], 1):
        earlier = set().union(*(c for _, c in calls[:j]))
        ahead += any(key in earlier and end > start for key, _, end in runs)
    assert ahead >= 1, (calls, runs)
