"""Under the sketch policy each searched task's template default (the untuned kernel, which
the sketches' own "default" need not match) is measured once into the log, so a network
compiled from the records keeps the untuned kernel where every sketch measured slower."""

from __future__ import annotations

import io
import time

from tunefarm.backends import registry
from tunefarm.graph.extract import NetworkTask
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import MeasureInput, MeasureResult, MeasureSettings
from tunefarm.recipe.defaults import measure_defaults, unmeasured_defaults
from tunefarm.recipe.job import tune_network
from tunefarm.store import open_store
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest
from tunefarm.tune.records import append_records, load_records, make_record
from tunefarm.tune.tuner import MeasureOption

TARGET = "cpu -isa=avx2 -cores=1"  # runs on any x86-64 host
CONV = Task.make("conv2d", target=TARGET, data=(1, 16, 14, 14), weight=(16, 16, 1, 1))


def _slow_sketch_record():
    """A sketch of the conv's compute definition, recorded as slower than anything."""
    steps = list(registry.base_kernel(CONV).steps)
    inp = MeasureInput(CONV, registry.sketch_config(steps))
    res = MeasureResult((1.0,), MeasureErrorNo.NO_ERROR, "", 1.0, time.time(), MeasureSettings())
    return make_record(inp, res, "local")


def _tasks() -> list[NetworkTask]:
    return [NetworkTask(t, 1, (), 0.0, i) for i, t in enumerate((CONV, CONV))]


def test_each_sketch_searched_task_once_until_the_log_holds_it(tmp_path):
    log = tmp_path / "net.jsonl"
    (only,) = unmeasured_defaults(_tasks(), "sketch", log, "local")
    assert only.task == CONV and only.config == registry.default_config(CONV)
    assert unmeasured_defaults(_tasks(), "template", log, "local") == []
    append_records(log, [_slow_sketch_record()])  # a sketch record is not the default
    assert len(unmeasured_defaults(_tasks(), "sketch", log, "local")) == 1
    assert unmeasured_defaults(_tasks(), "sketch", log, "other-device") != []


def test_the_measured_default_beats_a_slower_sketch(tmp_path):
    log = tmp_path / "net.jsonl"
    append_records(log, [_slow_sketch_record()])
    settings = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=30)
    option = MeasureOption.local(settings, n_parallel=1, build_timeout_s=60)
    try:
        assert measure_defaults(_tasks(), "sketch", log, option, "local") == 1
        assert measure_defaults(_tasks(), "sketch", log, option, "local") == 0  # resumed
    finally:
        option.close()
    default = [r for r in load_records(log, []) if r.config.index is not None]
    assert len(default) == 1 and default[0].ok, default[0].result.error_msg
    config, why = ApplyHistoryBest(str(log), "local").query(CONV)
    assert why == "record" and config == registry.default_config(CONV)


def test_the_measured_default_reaches_the_record_store_as_the_job_records_do(tmp_path):
    """The services' search tunes through `tune_network` with the job's store (its spooled
    put): the default measured outside the budget goes there too, not into the log only."""
    settings = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=30)
    option = MeasureOption.local(settings, n_parallel=1, build_timeout_s=60)
    log = tmp_path / "net.jsonl"
    try:
        with open_store(str(tmp_path / "s.sqlite")) as store:
            tune_network(
                _tasks()[:1], 1, log, policy="sketch", measure_option=option,
                stream=io.StringIO(), store=store, reuse="off",
            )  # fmt: skip
            stored = list(store.iter_records())
    finally:
        option.close()
    default = registry.default_config(CONV)
    assert any(r.config.index == default.index and r.ok for r in stored), stored
    assert len(stored) == len(load_records(log, []))  # every record of the log, no more


def test_the_estimated_total_counts_the_measured_default(tmp_path):
    """A searched task's first sketches (the bare compute definition) can run 10-100x slower
    than the template default the network runs untuned: zoo resnet-50 at 32x32 was estimated
    at 0.1-2 s from them. The estimate counts the default, the kernel the records compile to."""
    log = tmp_path / "net.jsonl"
    append_records(log, [_slow_sketch_record()])  # 1 s: its only searched trial so far
    settings = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=30)
    option = MeasureOption.local(settings, n_parallel=1, build_timeout_s=60)
    try:
        # resumed, the loaded trial spends the budget: only the default is measured
        summary = tune_network(
            _tasks()[:1], 1, log, policy="sketch", resume=True, measure_option=option,
            stream=io.StringIO(),
        )  # fmt: skip
    finally:
        option.close()
    (default,) = [r for r in load_records(log, []) if r.config.index is not None]
    assert summary.tasks[0].best_latency_s == 1.0  # the tuner's own best is still the sketch
    assert summary.estimated_total_latency_s == default.result.median < 0.05


def test_the_default_is_measured_once_not_again_as_the_first_sketch(tmp_path):
    """The sketch search's first batch starts with the template's default schedule, the very
    kernel `recipe.defaults` has just measured into the log: it takes that result instead
    (`SketchTuner.load_default`), so each trial of the budget measures another kernel."""
    steps = list(registry.base_kernel(CONV).steps)
    default, sketch = registry.default_config(CONV), registry.sketch_config(steps)
    source = registry.generate_source(MeasureInput(CONV, default))
    assert registry.generate_source(MeasureInput(CONV, sketch)) == source  # the same kernel
    settings = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=30)
    option = MeasureOption.local(settings, n_parallel=1, build_timeout_s=60)
    log = tmp_path / "net.jsonl"
    try:
        summary = tune_network(
            _tasks()[:1], 3, log, policy="sketch", measure_option=option, stream=io.StringIO()
        )
    finally:
        option.close()
    records = load_records(log, [])
    sources = [registry.generate_source(MeasureInput(CONV, r.config)) for r in records]
    assert sources.count(source) == 1, [r.config.as_dict() for r in records]
    assert len(records) == 1 + 3 == 1 + summary.trials  # the default, then 3 trials
    # the search starts from it: its best is the default's figure or better, unless a
    # recheck re-timed the default as the incumbent (`Tuner._recheck`): under load the
    # fresher figure may read slower than the logged one
    retimed = any(r.result.recheck is not None for r in records[1:])
    assert retimed or summary.tasks[0].best_latency_s <= records[0].cost
