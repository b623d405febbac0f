"""The sketch search's options for depth (issue 27): mutation kinds a state can use, local
moves around the best measured states, no measured state proposed again, and the trace and
model-quality figures the search reports."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator

import pytest

from tunefarm.measure import MeasureSettings
from tunefarm.schedule.sketch_state import MUTATIONS, mutate, mutation_kinds
from tunefarm.task import Task
from tunefarm.tune import sketch_search
from tunefarm.tune.sketch_search import SketchTuner
from tunefarm.tune.tuner import MeasureOption

DENSE = Task.make("dense", data=(4, 64), weight=(48, 64), epilogue=["bias", "relu"])


@pytest.fixture(autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path_factory.getbasetemp() / "build-cache"))


@pytest.fixture(scope="module")
def measure() -> Iterator[MeasureOption]:
    option = MeasureOption.local(MeasureSettings(repeat=1, min_repeat_ms=1))
    yield option
    option.close()


def test_applicable_kinds_are_those_with_decisions_and_always_change_the_state():
    tuner = SketchTuner(DENSE, seed=3, kinds="applicable")
    for state in tuner._random(12):
        d = state.d
        kinds = mutation_kinds(d)
        assert kinds and set(kinds) <= set(MUTATIONS)
        assert "rfactor" not in kinds or any(k.startswith("rf:") for k in d)
        for kind in set(MUTATIONS) - set(kinds):  # a kind without decisions changes nothing
            assert mutate(tuner.sketches[state.sketch], d, tuner.params, tuner.rng, kind) is None
        made = [tuner._mutant(state) for _ in range(10)]
        for child, origin in made:
            assert origin[4:] in kinds
            if child is not None:
                assert child != state and child.sketch == state.sketch
                assert tuner._make(child, origin) is not None  # realises and lowers


def test_local_moves_start_from_the_best_and_skip_measured_states(measure):
    tuner = SketchTuner(DENSE, seed=0, kinds="applicable", local_share=0.5, trace=True)
    tuner.tune(24, measure, batch_size=8)
    local = tuner._local(6, set())
    assert 0 < len(local) <= 6 and len(set(local)) == len(local)
    assert not set(local) & tuner.visited  # never a state measured already
    assert all(tuner.origin[i].startswith(("local", "init", "random", "mut")) for i in local)
    tuner.best_trial = -100  # stalled: part of the next batch comes from local moves
    assert tuner.stalled()
    batch = tuner.next_batch(8)
    assert len(batch) == 8 and not set(batch) & tuner.visited
    assert any(tuner.origin[i].startswith("local") for i in batch)


def test_trace_and_model_quality_describe_every_batch(measure, monkeypatch, caplog):
    monkeypatch.setattr(sketch_search, "QUALITY_EVERY", 16)
    tuner = SketchTuner(DENSE, seed=1, population=16, trace=True)
    with caplog.at_level(logging.INFO, logger=sketch_search.__name__):
        tuner.tune(32, measure, batch_size=8)
    assert "32 trials, cost model Kendall tau" in caplog.text and "top 10%" in caplog.text
    assert [row["measured"] for row in tuner.trace] == [8, 16, 24, 32]
    guided = [row for row in tuner.trace if "population" in row]
    assert guided and all(1 <= row["tile_vectors"] <= row["population"] for row in guided)
    assert sum(sum(row["origins"].values()) for row in tuner.trace) == 32
    assert all(set(row["children"]) <= {"new", "none", "measured", "duplicate"} for row in guided)
    assert tuner.trace[0]["new_bests"]  # the first measured state is a best
    quality = tuner.model_quality()
    assert quality["n"] > 0 and -1 <= quality["tau"] <= 1 or math.isnan(quality["tau"])
    assert quality["n"] == sum(1 for i, c in tuner.history if i in tuner.predicted and c < math.inf)


def test_bad_kinds_option_is_refused():
    with pytest.raises(ValueError, match="kinds"):
        SketchTuner(DENSE, kinds="some")
