"""Random, grid-search and genetic tuners plus the progress/metrics callbacks, driven by real
builds and real measurements of tiny kernels (a 576-config conv2d, a 4-config relu)."""

from __future__ import annotations

import io
import json
import math
import re
from collections.abc import Sequence

import pytest

from tunefarm.backends import registry
from tunefarm.measure import MeasureInput, MeasureResult, MeasureSettings
from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task
from tunefarm.tune.callbacks import TuneEvent, metrics_hook, progress_bar
from tunefarm.tune.ga_tuner import GATuner
from tunefarm.tune.gridsearch_tuner import GridSearchTuner
from tunefarm.tune.random_tuner import RandomTuner, TunerArgumentError
from tunefarm.tune.tuner import MeasureOption, Tuner

CONV = Task.make("conv2d", data=(1, 8, 8, 8), weight=(8, 8, 3, 3), padding=1)  # 576 configs
RELU = Task.make("elementwise", fn="relu", shapes=[(1, 8, 8, 8)])  # 4 configs
FAST = MeasureSettings(repeat=1, min_repeat_ms=1)
TUNERS = {
    "random": lambda task, seed: RandomTuner(task, seed=seed),
    "gridsearch": lambda task, seed: GridSearchTuner(task, seed=seed),
    "ga": lambda task, seed: GATuner(task, seed=seed, pop_size=3, elite_num=1),
}
LINE = re.compile(
    r"^(?P<head>.*?)Current/Best: (?P<cur>[ \d]{3}\d\.\d\d)/(?P<best>[ \d]{3}\d\.\d\d) GFLOPS"
    r" \| Progress: \((?P<progress>[\d/]+)\) \| (?P<secs>\d+\.\d\d) s$"
)


@pytest.fixture(scope="module")
def option(tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("build-cache")
    builder = registry.local_builder(n_parallel=2, cache_dir=cache)
    opt = MeasureOption(builder, registry.local_runner(FAST))
    yield opt
    opt.close()


class Recorder:
    """A callback that keeps every measured batch as (index, result) pairs."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[int, MeasureResult]]] = []

    def __call__(
        self, tuner: Tuner, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
    ) -> None:
        self.batches.append([(inp.config.index, r) for inp, r in zip(inputs, results, strict=True)])

    @property
    def indices(self) -> list[int]:
        return [i for batch in self.batches for i, _ in batch]

    @property
    def pairs(self) -> list[tuple[int, MeasureResult]]:
        return [pair for batch in self.batches for pair in batch]


class TtyStream(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("name", ["random", "gridsearch", "ga"])
def test_no_config_twice_across_batches_and_calls(name: str, option: MeasureOption) -> None:
    tuner, rec = TUNERS[name](CONV, 1), Recorder()
    first = tuner.tune(10, option, callbacks=[rec], batch_size=4)
    second = tuner.tune(7, option, callbacks=[rec], batch_size=5)
    assert (first.trials, second.trials, tuner.trials) == (10, 7, 17)
    assert [len(b) for b in rec.batches] == [4, 4, 2, 5, 2]
    assert len(set(rec.indices)) == 17 and set(rec.indices) == tuner.visited
    assert all(0 <= i < tuner.space.size for i in rec.indices)
    assert tuner.best_gflops > 0 and tuner.best_index in tuner.visited
    if name == "gridsearch":
        assert rec.indices == list(range(17))


def test_grid_search_skips_configs_loaded_from_history(option: MeasureOption) -> None:
    rec = Recorder()
    GridSearchTuner(CONV).tune(4, option, callbacks=[rec], batch_size=4)
    resumed = GridSearchTuner(CONV)
    resumed.load_history(p for p in rec.pairs if p[0] in (0, 2, 3))
    assert resumed.next_batch(4) == [1, 4, 5, 6]
    assert resumed.next_batch(4) == [1, 4, 5, 6], "unmeasured proposals are proposed again"
    more = Recorder()
    resumed.tune(4, option, callbacks=[more], batch_size=3)
    assert more.indices == [1, 4, 5, 6] and resumed.next_batch(2) == [7, 8]


@pytest.mark.parametrize("name", ["random", "gridsearch", "ga"])
def test_tiny_space_is_exhausted_exactly(name: str, option: MeasureOption) -> None:
    tuner, rec = TUNERS[name](RELU, 2), Recorder()
    assert tuner.space.size == 4
    summary = tuner.tune(10, option, callbacks=[rec], batch_size=3)
    assert summary.stop_reason == "space exhausted" and summary.trials == 4
    assert sorted(rec.indices) == [0, 1, 2, 3]
    assert not tuner.has_next() and tuner.next_batch(3) == []


def test_ga_tunes_in_generations_and_keeps_elites(option: MeasureOption) -> None:
    tuner, rec = GATuner(CONV, seed=3, pop_size=8, elite_num=2), Recorder()
    # figures believed as measured: a would-be best refuted by its recheck (a loaded host)
    # keeps its raw fitness in the population but is not the best, which this test is not about
    tuner.recheck_rounds = 0
    summary = tuner.tune(24, option, callbacks=[rec], batch_size=8)
    assert summary.trials == 24 and len(set(rec.indices)) == 24
    assert tuner.generation == 3  # the first random, two bred
    population = tuner.population
    assert population[0][0] == tuner.best_index, "the best config stays a parent"
    fitness = {i: tuner.gflops(cost) for i, cost in tuner.history}
    assert len(population) <= 8 + 2 and all(f == fitness[i] for i, f in population)
    latest = {i for i, _ in rec.batches[-1]}
    assert latest <= {i for i, _ in population}


def test_ga_breeds_from_the_best_history_entries(option: MeasureOption) -> None:
    rec = Recorder()
    RandomTuner(CONV, seed=5).tune(12, option, callbacks=[rec], batch_size=6)
    ga = GATuner(CONV, seed=7, pop_size=4, elite_num=1, mutation_prob=0.0)
    ga.load_history(rec.pairs)
    fitness = {i: ga.gflops(r.median) for i, r in rec.pairs}
    best4 = sorted(fitness, key=fitness.__getitem__, reverse=True)[:4]
    assert [i for i, _ in ga.population] == best4
    children = ga.next_batch(8)
    assert len(set(children)) == 8 and not set(children) & ga.visited
    assert ga.fallbacks < 8, "breeding should find unvisited children in a 576-config space"
    parent_digits = [ga.space.digits(i) for i in best4]
    allowed = [{d[k] for d in parent_digits} for k in range(len(ga.space.dims))]
    # Without mutation a bred child takes every knob from a parent; only random fills may not.
    foreign = [
        c for c in children if any(d not in allowed[k] for k, d in enumerate(ga.space.digits(c)))
    ]
    assert len(foreign) <= ga.fallbacks
    assert not set(ga.next_batch(4)) & set(children), "no re-proposal before measuring"


def test_progress_bar_lines_and_metrics_events(option: MeasureOption) -> None:
    log, tty, events = io.StringIO(), TtyStream(), []
    bar = progress_bar("[Task  1/10]", total=4, stream=log)
    tty_bar = progress_bar(stream=tty)
    tuner = GridSearchTuner(RELU)
    tuner.recheck_rounds = 0  # a refuted would-be best would beat `best` as the batch's figure
    tuner.tune(4, option, callbacks=[bar, tty_bar, metrics_hook(events.append)], batch_size=2)
    lines = log.getvalue().splitlines()
    matches = [LINE.match(line) for line in lines]
    assert len(lines) == 2 and all(matches), lines
    assert [m["head"] for m in matches] == ["[Task  1/10]  "] * 2
    assert [m["progress"] for m in matches] == ["2/4", "4/4"]
    assert float(matches[-1]["best"]) == pytest.approx(tuner.best_gflops, abs=0.006)
    assert float(matches[0]["secs"]) <= float(matches[1]["secs"])
    bar.done()
    assert log.getvalue().count("\n") == 2, "a log file gets no extra newline"
    screen = tty.getvalue()
    assert "\n" not in screen and screen.count("\r") == 2
    assert LINE.match(screen.split("\r")[-1].rstrip())["progress"] == "4"
    tty_bar.done()
    tty_bar.done()
    assert tty.getvalue() == screen + "\n"

    assert [e.trials for e in events] == [2, 4] and [e.batch_size for e in events] == [2, 2]
    assert all(e.ok + sum(e.errors.values()) == e.batch_size for e in events)
    assert all(e.current_gflops <= e.best_gflops for e in events)
    assert events[0].best_gflops <= events[1].best_gflops == tuner.best_gflops
    assert {(e.op, e.workload_key) for e in events} == {("elementwise", RELU.workload_key)}
    assert json.loads(json.dumps(events[0].to_json()))["trials"] == 2


def test_metrics_hook_counts_real_failures(option: MeasureOption) -> None:
    events: list[TuneEvent] = []
    log = io.StringIO()
    foreign = ConfigSpace()  # knobs the relu template does not have: every config fails
    foreign.define_knob("tile_q", [1, 2, 3, 4])
    tuner = GridSearchTuner(RELU, space=foreign)
    summary = tuner.tune(
        4, option, callbacks=[metrics_hook(events.append), progress_bar(stream=log)], batch_size=2
    )
    assert summary.stop_reason == "every candidate failed"
    assert [(e.ok, e.errors) for e in events] == [(0, {"INSTANTIATION_ERROR": 2})] * 2
    assert all(e.best_gflops == e.current_gflops == 0.0 for e in events)
    assert all(
        line.startswith("Current/Best:    0.00/   0.00") for line in log.getvalue().splitlines()
    )


def test_early_stopping_ends_the_loop(option: MeasureOption) -> None:
    tuner = RandomTuner(CONV, seed=11)
    summary = tuner.tune(64, option, early_stopping=2, batch_size=4)
    assert summary.stop_reason == "no improvement in 2 trials"
    assert summary.trials < 64 and summary.trials % 4 == 0
    assert tuner.trials - tuner.best_trial >= 2


def test_bad_arguments_name_the_value() -> None:
    for make in TUNERS.values():
        with pytest.raises(TunerArgumentError, match="batch_size .* got 0"):
            make(RELU, 0).next_batch(0)
    bad_ga = [{"pop_size": 0}, {"pop_size": 4, "elite_num": 5}, {"mutation_prob": 1.5}]
    for kwargs in bad_ga:
        with pytest.raises(ValueError, match=str(list(kwargs.values())[-1])):
            GATuner(RELU, **kwargs)
    with pytest.raises(ValueError, match="total .* got -1"):
        progress_bar(total=-1)
    with pytest.raises(ValueError, match="callable, got 3"):
        metrics_hook(3)


def test_the_runner_gives_up_at_a_multiple_of_the_incumbent(option: MeasureOption) -> None:
    """Each batch is measured with the bar at `give_up_factor` times the incumbent's cost,
    lowered as the batch's own candidates are timed (none before the first result: the
    first batch's bar comes from its own results), and the bar is lifted when `tune`
    returns, so the next task measured with this option starts without it."""
    tuner, seen = RandomTuner(CONV, seed=7), []
    tuner.recheck_rounds = 0  # the incumbent's figure as measured
    tuner.tune(
        8,
        option,
        callbacks=[
            lambda t, i, r: seen.append(
                (option.runner.give_up_s, t.best_cost, [x.settings.give_up_s for x in r])
            )
        ],
        batch_size=4,
    )
    (bar0, best0, bars0), (bar1, best1, bars1) = seen
    assert min(bars0) == 0.0 and math.isfinite(best0)  # the first timed: no bar yet
    assert bar0 == pytest.approx(tuner.give_up_factor * best0)  # the batch's best
    assert max(bars1) == pytest.approx(tuner.give_up_factor * best0)  # the incumbent's
    assert bar1 == pytest.approx(tuner.give_up_factor * best1)
    assert option.runner.give_up_s == 0.0 and option.runner.give_up_factor == 0.0
