"""The persistent measurer for host kernels, repeats chosen by their spread, and the recheck
of a would-be new best: real gcc builds of the hand-written kernels in measure_kernels."""

from __future__ import annotations

import json
import os
from pathlib import Path

import measure_kernels as mk
import pytest

from tunefarm.backends import registry
from tunefarm.measure import (
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureResult,
    MeasureSettings,
    Recheck,
    time_evaluator,
)
from tunefarm.measure.timing import spread
from tunefarm.tune.recheck import recheck
from tunefarm.tune.records import append_records, load_records, make_record

E = MeasureErrorNo
FAST = MeasureSettings(repeat=2, min_repeat_ms=2, timeout_s=1.5)


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory):
    with LocalBuilder(
        n_parallel=2, timeout_s=20, cache_dir=tmp_path_factory.mktemp("cache"), generate=mk.generate
    ) as b:
        yield b


def _mapped(pid: int, path: str) -> bool:
    """Whether process `pid` has the file at `path` mapped (Linux /proc)."""
    return path in Path(f"/proc/{pid}/maps").read_text()


def test_host_measurer_is_replaced_after_a_wrong_answer_a_segfault_and_a_hang(builder):
    names = ["add", "add", "wrong", "add", "segv", "add", "loop", "add"]
    inputs = [mk.inp(n, unroll=i) for i, n in enumerate(names)]
    builds = builder.build(inputs)
    assert all(b.ok for b in builds), [b.error_msg for b in builds]
    results, pids = [], []
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        assert not runner.overlaps_builds  # host builds would share the measuring cores
        for inp, build in zip(inputs, builds, strict=True):
            (res,) = runner.run([inp], [build])
            results.append(res)
            pids.append(runner._measurer.pid)
            if len(results) == 2 and os.path.exists(f"/proc/{pids[0]}/maps"):
                # dlclosed after timing: the measurer does not accumulate libraries
                assert not _mapped(pids[0], builds[0].artifact)
                assert not _mapped(pids[0], builds[1].artifact)
    got = [r.error_no for r in results]
    assert got == [
        E.NO_ERROR, E.NO_ERROR, E.WRONG_ANSWER, E.NO_ERROR,
        E.RUNTIME_ERROR, E.NO_ERROR, E.RUN_TIMEOUT, E.NO_ERROR,
    ], [r.error_msg for r in results]  # fmt: skip
    assert "SIGSEGV" in results[4].error_msg and "replaced" in results[6].error_msg
    assert all(0 < c < 1e-2 for r in results if r.ok for c in r.costs)
    # the two good ones shared one process; the wrong answer, the fault and the hang each
    # retired theirs (none is left after them), and the next candidate measured correctly
    # in a fresh one
    assert pids[0] == pids[1] is not None
    assert pids[2] is None and pids[4] is None and pids[6] is None
    assert len({pids[1], pids[3], pids[5], pids[7]}) == 4 and None not in pids[3::2]


def test_openmp_kernels_one_after_another_in_one_measurer(builder):
    """Unloading an OpenMP kernel must not unload the OpenMP runtime under its idle pool
    threads (they faulted, SIGSEGV, in the next candidate's measurement before the pin)."""
    inputs = [mk.inp("omp", unroll=20 + i) for i in range(4)]
    builds = builder.build(inputs)
    assert all(b.ok for b in builds), [b.error_msg for b in builds]
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        results = runner.run(inputs, builds)
        assert runner._measurer.pid is not None and runner._measurer.restarts == 0
    assert [r.error_no for r in results] == [E.NO_ERROR] * 4, [r.error_msg for r in results]


def test_registry_runner_for_cpu_is_persistent_and_switchable(monkeypatch):
    with registry.local_runner(FAST) as runner:
        assert runner._measurer is not None and runner.in_process
        assert not runner.overlaps_builds  # builds would share the measuring cores
    monkeypatch.setenv("TUNEFARM_OVERLAP_HOST_BUILDS", "1")  # unless asked for
    with registry.local_runner(FAST) as runner:
        assert runner.overlaps_builds
    monkeypatch.setenv("TUNEFARM_PERSISTENT_MEASURER", "0")  # the fresh-child path
    with registry.local_runner(FAST) as runner:
        assert runner._measurer is None and not runner.overlaps_builds


def test_a_refuted_candidate_never_becomes_the_best():
    """The tuner books a rechecked candidate's figures, but one the recheck refuted does not
    become the best even where its median is below the bar."""
    from tunefarm.task import Task
    from tunefarm.tune.random_tuner import RandomTuner

    tuner = RandomTuner(Task.make("dense", data=(4, 16), weight=(8, 16)))
    tuner.observe(0, MeasureResult((2e-6, 2e-6), E.NO_ERROR, "", 0.1, 0.0, FAST))
    verdict = Recheck(0, (1e-6,), (0.9e-6,), (1e-9,), believed=False)
    refuted = MeasureResult((1e-6,), E.NO_ERROR, "", 0.1, 0.0, FAST, recheck=verdict)
    tuner.observe(1, refuted)
    assert tuner.best_index == 0 and tuner.history[-1] == (1, 1e-6)
    verdict = Recheck(0, (1e-6,), (2e-6,), (1e-6,), believed=True)
    believed = MeasureResult((1e-6,), E.NO_ERROR, "", 0.1, 0.0, FAST, recheck=verdict)
    tuner.observe(2, believed)
    assert tuner.best_index == 2


def _fake_timer(costs: list[float]):
    """fn_time answering the given per-run costs in turn (the last one from then on)."""
    seq = iter(costs)
    last = [costs[-1]]

    def fn_time(number: int) -> float:
        last[0] = next(seq, last[0])
        return last[0]

    return fn_time


def test_repeats_stop_early_when_quiet_and_grow_to_the_cap_when_noisy():
    # one run of 1 s meets min_repeat_ms: number stays 1; 6 s of extra timing at most
    adaptive = MeasureSettings(repeat=2, max_repeat=6, target_cv=0.05, min_repeat_ms=1000)
    quiet = time_evaluator(_fake_timer([1.0, 1.01, 1.0, 1.0]), adaptive)
    assert len(quiet.costs) == 2
    settle = time_evaluator(_fake_timer([1.0, 1.08, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]), adaptive)
    assert 2 < len(settle.costs) < 6
    noisy = time_evaluator(_fake_timer([1.0, 1.2] * 10), adaptive)
    assert len(noisy.costs) == 6 and spread(noisy.costs) > 0.05
    # a kernel of 5-7 s per run is far slower than the time budget: no extra repeats
    slow = time_evaluator(_fake_timer([5.0, 7.0] * 10), adaptive)
    assert len(slow.costs) == 2
    fixed = MeasureSettings(repeat=3, min_repeat_ms=0)
    assert len(time_evaluator(_fake_timer([1.0, 2.0] * 10), fixed).costs) == 3
    # JSON: the two fields only when set, so records written before them read the same
    assert "max_repeat" not in fixed.to_json()
    assert MeasureSettings.from_json(json.loads(json.dumps(adaptive.to_json()))) == adaptive
    with pytest.raises(ValueError, match="max_repeat"):
        MeasureSettings(repeat=3, max_repeat=2)


def test_a_lucky_candidate_is_refuted_and_a_real_one_believed(builder, tmp_path):
    """A slow kernel whose batch figure claimed it beat the fast incumbent is refuted by the
    interleaved rounds; the fast one claiming to beat the slow one is believed. The verdict
    and both sides' figures survive a record file."""
    fast, slow = mk.inp("add", unroll=11), mk.inp("slow", unroll=12)
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:

        class Option:
            pass

        option = Option()
        option.builder, option.runner = builder, runner
        (first,) = runner.run([slow], builder.build([slow]))
        lucky = MeasureResult((1e-9, 1e-9), E.NO_ERROR, "", 0.1, 0.0, FAST)
        refuted, fast_cost = recheck(option, fast, 11, slow, lucky, rounds=3)
        real, slow_cost = recheck(option, slow, 12, fast, first, rounds=3)
    assert not refuted.recheck.believed and refuted.recheck.first_costs == (1e-9, 1e-9)
    assert len(refuted.costs) == 3 and refuted.median > fast_cost
    assert refuted.recheck.against == 11 and len(refuted.recheck.incumbent_costs) == 3
    assert real.recheck.believed and real.median < slow_cost
    path = tmp_path / "r.jsonl"
    append_records(path, [make_record(slow, refuted)])
    (back,) = load_records(path)
    assert back.result.recheck == refuted.recheck and isinstance(back.result.recheck, Recheck)


def test_the_first_batch_best_is_rechecked_against_the_runner_up():
    """With no incumbent yet, a lucky first figure is timed again against the batch's
    runner-up; the recheck's own rounds replace it."""
    from tunefarm.task import Task
    from tunefarm.tune.random_tuner import RandomTuner
    from tunefarm.tune.tuner import MeasureOption

    tuner = RandomTuner(Task.make("dense", data=(4, 16), weight=(8, 16)), seed=1)
    indices = tuner.next_batch(2)
    inputs = tuner.inputs_for(indices)
    lucky = MeasureResult((1e-12,), E.NO_ERROR, "", 0.1, 0.0, FAST)
    plain = MeasureResult((1e-3,), E.NO_ERROR, "", 0.1, 0.0, FAST)
    option = MeasureOption.local(FAST, n_parallel=1)
    try:
        results = tuner._recheck(option, indices, inputs, [lucky, plain])
    finally:
        option.close()
    verdict = results[0].recheck
    assert verdict is not None and verdict.against == indices[1]
    assert verdict.first_costs == (1e-12,) and len(results[0].costs) == tuner.recheck_rounds
    assert min(results[0].costs) > 1e-9 and len(verdict.incumbent_costs) == tuner.recheck_rounds
    assert results[1] is plain and tuner.rechecks == [verdict]


def test_a_near_miss_is_rechecked_and_a_far_miss_is_not():
    """A candidate whose batch figure is a little above the incumbent's (within the tuner's
    recheck_margin) is timed again against it, as a would-be best is: an unlucky figure
    would otherwise never be timed again. One far above it keeps its batch figure."""
    from tunefarm.task import Task
    from tunefarm.tune.random_tuner import RandomTuner
    from tunefarm.tune.tuner import MeasureOption

    tuner = RandomTuner(Task.make("dense", data=(4, 16), weight=(8, 16)), seed=2)
    inc, near, far = tuner.next_batch(3)
    tuner.observe(inc, MeasureResult((1e-3,), E.NO_ERROR, "", 0.1, 0.0, FAST))
    inputs = tuner.inputs_for([near, far])
    unlucky = MeasureResult((1.05e-3,), E.NO_ERROR, "", 0.1, 0.0, FAST)
    slow = MeasureResult((2e-3,), E.NO_ERROR, "", 0.1, 0.0, FAST)
    option = MeasureOption.local(FAST, n_parallel=1)
    try:
        results = tuner._recheck(option, [near, far], inputs, [unlucky, slow])
        tuner.recheck_margin, tuner.best_cost = 0.0, 1e-3  # the bar as before the recheck
        plain = tuner._recheck(option, [near, far], inputs, [unlucky, slow])
    finally:
        option.close()
    verdict = results[0].recheck
    assert verdict is not None and verdict.against == inc
    assert verdict.first_costs == (1.05e-3,) and len(results[0].costs) == tuner.recheck_rounds
    assert results[1] is slow and tuner.rechecks == [verdict]
    assert plain == [unlucky, slow]  # without the margin only a figure under the bar is


def test_a_hopeless_candidate_is_timed_by_its_checked_run_alone(builder):
    """give_up_after: a kernel slower than the bar (and than one timed call) keeps only its
    checked run's figure; its answer is still checked, a fast kernel and one under the bar
    are timed fully, and the cut shows in the result's settings."""
    big = 1 << 18  # "slow": 64 volatile passes over 1 MiB, milliseconds a run
    names = [("slow", big), ("wrong", big), ("add", 4096)]
    inputs = [mk.inp(n, n=size, unroll=40 + i) for i, (n, size) in enumerate(names)]
    builds = builder.build(inputs)
    assert all(b.ok for b in builds), [b.error_msg for b in builds]
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        runner.give_up_after(1e-9)
        slow, wrong, fast = runner.run(inputs, builds)
        runner.give_up_after(60.0)
        (under,) = runner.run(inputs[:1], builds[:1])
        runner.give_up_after(0.0)
        (off,) = runner.run(inputs[:1], builds[:1])
    assert slow.ok and len(slow.costs) == 1 and slow.settings.give_up_s == 1e-9
    assert slow.costs[0] > FAST.min_repeat_ms / 1e3
    assert wrong.error_no == E.WRONG_ANSWER
    assert fast.ok and len(fast.costs) == FAST.repeat  # microseconds: under min_repeat_ms
    assert len(under.costs) == FAST.repeat and len(off.costs) == FAST.repeat
    assert "give_up_s" not in off.settings.to_json()
    assert MeasureSettings.from_json(slow.settings.to_json()) == slow.settings
    with LocalRunner(FAST, mk.io) as device_like:  # kernels not run in process: never cut
        device_like.give_up_after(1.0)
        assert device_like.give_up_s == 0.0
    with pytest.raises(ValueError, match="give_up_after"):
        LocalRunner(FAST, mk.io).give_up_after(-1.0)


def test_a_stalled_checked_run_is_confirmed_by_the_kernels_clock(builder):
    """The checked run is timed by the wall clock; one that the scheduler stalled (here a
    sleep in the kernel's first run, 30 ms of wall time for a microsecond kernel) is over
    the bar but must not become the candidate's figure: a run timed by the kernel's own
    clock decides, and this kernel is then timed fully."""
    (build,) = builder.build([mk.inp("stall", unroll=50)])
    assert build.ok, build.error_msg
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        runner.give_up_after(1e-3)  # the wall-clock checked run (30 ms) is far over it
        (res,) = runner.run([mk.inp("stall", unroll=50)], [build])
    assert res.ok, res.error_msg
    assert len(res.costs) == FAST.repeat and max(res.costs) < 1e-3, res.costs


@pytest.mark.parametrize("clock", ["monotonic", "thread"])
def test_a_checked_run_far_over_the_bar_is_stopped_at_its_deadline(builder, clock):
    """child.cut_after: a kernel that never returns (it would otherwise run to the time
    limit) is stopped at its deadline (CUT_MIN_S here) by its clock's interval timer, timed
    at that deadline, one run; a kernel that segfaults meanwhile is still an error, the
    measurer is replaced after each, and the next candidate is timed fully."""
    from tunefarm.measure import child

    names = ["loop", "segv", "add"]
    inputs = [mk.inp(n, unroll=60 + i) for i, n in enumerate(names)]
    builds = builder.build(inputs)
    assert all(b.ok for b in builds), [b.error_msg for b in builds]
    with LocalRunner(FAST, mk.io, persistent=True, in_process=True) as runner:
        runner.clock_of = lambda _inp: clock
        runner.give_up_after(1e-3)
        loop, segv, add = runner.run(inputs, builds)
        restarts = runner._measurer.restarts
    cut_s = child.CUT_MIN_S  # the bar, and one timed call, are far under it
    assert loop.ok and loop.costs == (cut_s,), (loop.error_no, loop.error_msg)
    assert "stopped" in loop.error_msg and loop.all_cost < FAST.timeout_s
    assert segv.error_no == E.RUNTIME_ERROR and "SIGSEGV" in segv.error_msg
    assert add.ok and len(add.costs) == FAST.repeat and restarts >= 2


def test_no_deadline_without_a_bar_or_a_known_clock():
    """cut_after: nothing is cut unless hopeless candidates are given up on and the kernel's
    clock has an interval timer; a death by another signal is not read as a cut."""
    from tunefarm.measure import child

    bar = MeasureSettings(min_repeat_ms=10, give_up_s=0.05)
    assert child.cut_after(bar, "monotonic") == pytest.approx(child.CUT_FACTOR * 0.05)
    low = MeasureSettings(min_repeat_ms=10, give_up_s=0.001)  # cut no earlier than CUT_MIN_S
    assert child.cut_after(low, "monotonic") == child.CUT_MIN_S
    assert child.cut_after(MeasureSettings(min_repeat_ms=10), "thread") == 0.0
    assert child.cut_after(bar, None) == 0.0
    for give_up_s in (1e-4, 0.01, 0.02, 0.05, 0.3, 2.0):  # only a hopeless run is ever cut
        for min_ms in (0.0, 10.0, 100.0):
            s = MeasureSettings(min_repeat_ms=min_ms, give_up_s=give_up_s)
            cut_s = child.cut_after(s, "thread")
            assert cut_s >= max(give_up_s, min_ms / 1e3) and cut_s >= child.CUT_MIN_S
            assert child.hopeless(cut_s * 1.001, s), (give_up_s, min_ms, cut_s)
    job = {"cut_s": 0.15, "clock": "thread"}
    assert child.cut_reply(job, -child.CUT_SIGNALS["thread"][1])["costs"] == [0.15]
    assert child.cut_reply(job, -child.CUT_SIGNALS["monotonic"][1]) is None
    assert child.cut_reply({**job, "cut_s": 0.0}, -child.CUT_SIGNALS["thread"][1]) is None
