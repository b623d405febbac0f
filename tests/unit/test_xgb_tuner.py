"""XGBoost tuner: loop features, the cost model, a real tune, and transfer between tasks.

The tune is real (gcc builds and child-process measurements of a small conv2d); the cost
model test alone trains on synthetic numbers, since it checks the model, not our kernels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task
from tunefarm.tune import features as F
from tunefarm.tune.cost_model import XGBoostCostModel
from tunefarm.tune.tuner import MeasureOption
from tunefarm.tune.xgb_tuner import XGBTuner, normalised_throughput

CONV = Task.make("conv2d", data=(1, 8, 8, 8), weight=(16, 8, 3, 3), padding=1)
OTHER_CONV = Task.make("conv2d", data=(1, 16, 10, 10), weight=(8, 16, 3, 3), strides=2)
FEATURE_TASKS = {
    "conv2d": CONV,
    "dense": Task.make("dense", data=(4, 64), weight=(32, 64)),
    "pool2d": Task.make("pool2d", data=(1, 16, 14, 14), kind="max", kernel=3, padding=1),
}


class ProposalChecker(XGBTuner):
    """Records every proposal and whether it repeated a visited config (the tune loop
    itself drops such repeats silently, so the tuner has to be checked at the source)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.proposed: list[list[int]] = []
        self.repeats: list[int] = []

    def next_batch(self, batch_size: int) -> list[int]:
        batch = super().next_batch(batch_size)
        self.proposed.append(batch)
        self.repeats += [i for i in batch if i in self.visited]
        self.repeats += [i for i in batch if batch.count(i) > 1]
        return batch


@pytest.fixture(scope="module")
def tuned() -> tuple[ProposalChecker, object, list]:
    """One real 40-trial tune of a small conv2d, and its measurements as records."""
    records_mod = pytest.importorskip("tunefarm.tune.records")
    records: list = []

    def keep(tuner, inputs, results) -> None:
        records.extend(records_mod.make_record(i, r) for i, r in zip(inputs, results, strict=True))

    option = MeasureOption.local(MeasureSettings(repeat=1, min_repeat_ms=1), n_parallel=2)
    tuner = ProposalChecker(CONV, seed=0, plan_size=16, nthread=1)
    try:
        summary = tuner.tune(40, option, batch_size=8, callbacks=[keep])
    finally:
        option.close()
    return tuner, summary, records


# ---------------------------------------------------------------------------- features
@pytest.mark.parametrize("op", sorted(FEATURE_TASKS))
def test_loop_features_have_one_length_and_tell_configs_apart(op: str) -> None:
    task = FEATURE_TASKS[op]
    space = registry.config_space(task)
    indices = space.sample(np.random.default_rng(3), 6)
    xs = F.featurize(task, space, indices, "loop")
    assert xs.shape == (6, F.LOOP_FEATURE_LENGTH) == (6, len(F.LOOP_FEATURE_NAMES))
    assert np.isfinite(xs).all() and (xs[:, 0] == 1.0).all()  # every config lowered
    assert len({row.tobytes() for row in xs}) == len(indices)
    again = F.loop_features(task, space.get(indices[0]))  # cached: same values
    np.testing.assert_array_equal(again, xs[0])
    knobs = F.featurize(task, space, indices, "knob")
    assert knobs.shape == (6, len(space.features(0)))
    with pytest.raises(ValueError, match="feature_type"):
        F.featurize(task, space, indices, "ast")


# ---------------------------------------------------------------------------- cost model
def test_rank_model_orders_a_monotone_dataset() -> None:
    rng = np.random.default_rng(0)
    xs = rng.random((300, 4))
    ys = xs[:, 0] ** 2  # throughput grows with feature 0 only
    model = XGBoostCostModel("rank", "knob", seed=0, nthread=1)
    assert model.fit(xs, ys)
    probe = rng.random((10, 4))
    probe[:, 0] = np.linspace(0.05, 0.95, 10)
    assert (np.diff(model.predict(probe)) > 0).all()


def test_cost_model_needs_two_distinct_targets() -> None:
    xs = np.random.default_rng(1).random((20, 3))
    model = XGBoostCostModel("reg", "knob", nthread=1)
    assert not model.fit(xs, np.zeros(20)) and not model.trained
    np.testing.assert_array_equal(model.predict(xs), np.zeros(20))
    assert model.fit(xs, xs[:, 1]) and model.trained
    with pytest.raises(ValueError, match="features"):
        model.predict(xs[:, :2])


def test_normalised_throughput() -> None:
    np.testing.assert_allclose(normalised_throughput([2.0, 1.0, math.inf]), [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(normalised_throughput([math.inf]), [0.0])


# ---------------------------------------------------------------------------- the tuner
def test_tune_never_proposes_a_visited_config(tuned) -> None:
    tuner, summary, _ = tuned
    assert summary.trials == 40 and not summary.errors
    assert tuner.repeats == []
    assert len(tuner.visited) == 40 and math.isfinite(tuner.best_cost)
    assert tuner.model.trained and tuner.plans >= 3  # batches after warm-up: model picks
    assert 0 < tuner.overhead_s < summary.seconds


def test_load_history_trains_and_excludes(tuned) -> None:
    _, _, records = tuned
    tuner = XGBTuner(CONV, seed=1, plan_size=16, nthread=1)
    tuner.load_history((r.config.index, r.result) for r in records)
    assert tuner.model.trained and len(tuner.visited) == 40
    batch = tuner.next_batch(16)
    assert len(batch) == 16 and not set(batch) & tuner.visited
    same_workload = XGBTuner(CONV, seed=1, plan_size=16, nthread=1)
    assert same_workload.transfer_from(records) == 40  # knob features: same space, usable
    assert same_workload.model.trained and not same_workload.visited


def test_transfer_from_another_conv_changes_predictions(tuned) -> None:
    _, _, records = tuned
    tuner = XGBTuner(OTHER_CONV, seed=0, feature_type="loop", plan_size=16, nthread=1)
    candidates = tuner.space.sample(np.random.default_rng(5), 32)
    before = tuner.model.predict(tuner.features(candidates))
    assert tuner.transfer_from(records) == len(records)
    after = tuner.model.predict(tuner.features(candidates))
    assert not np.allclose(before, after) and np.ptp(after) > 0
    batch = tuner.next_batch(8)  # guided from the start: no warm-up needed
    assert tuner.plans == 1 and len(set(batch)) == 8
    assert tuner.model.predict(tuner.features(batch)).mean() > after.mean()
    knob_tuner = XGBTuner(OTHER_CONV, seed=0, feature_type="knob", nthread=1)
    assert knob_tuner.transfer_from(records) == 0 and not knob_tuner.model.trained
