"""Tuning records: the JSON-lines format, damaged files, best-record selection, resuming a tuner,
dispatch (ApplyHistoryBest) and the `tunefarm records` command.

Records for the selection tests are made from real configs of a tiny conv2d space with chosen
costs, so which one is fastest is known; `log_to_file` is checked on a real tuning run.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from store_helpers import CONV, NEAR, SETTINGS, rec, refuted

from tunefarm.backends import registry
from tunefarm.cli.main import main
from tunefarm.measure import (
    Config,
    MeasureErrorNo,
    MeasureResult,
    Recheck,
)
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest, current_history
from tunefarm.tune.records import (
    RECORD_VERSION,
    Record,
    RecordError,
    append_records,
    best_by_workload,
    distill,
    history_for,
    load_records,
    log_to_file,
    pick_best,
)
from tunefarm.tune.tuner import MeasureOption, Tuner

CONV_AVX2 = Task.make("conv2d", target="cpu -isa=avx2", **CONV.args)
OTHER = NEAR


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


# -- format ----------------------------------------------------------------------------------
def test_record_round_trips_through_strict_json() -> None:
    for r in (rec(5, 2e-3), rec(6, None)):
        text = json.dumps(r.to_json(), allow_nan=False)
        back = Record.from_json(json.loads(text))
        assert back == r and back.result.costs == r.result.costs
    good, bad = rec(5, 2e-3), rec(6, None)
    assert good.version == RECORD_VERSION and good.ok and good.cost == pytest.approx(2e-3)
    assert good.config.index == 5 and good.workload_key == CONV.workload_key
    assert not bad.ok and bad.cost == float("inf")
    assert bad.result.error_no == MeasureErrorNo.BUILD_ERROR
    obj = good.to_json()
    obj["all_cost"] = None  # an unknown duration is stored as null and read back as inf
    assert Record.from_json(obj).result.all_cost == float("inf")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, "unknown record version 2"),
        ({"costs": "fast"}, "field 'costs' must be a list"),
        ({"costs": [-1.0]}, "field 'costs' must be seconds >= 0"),
        ({"error_no": 99}, "field 'error_no' 99 is not a known"),
        ({"workload_key": "conv2d:0"}, "field 'workload_key' 'conv2d:0' is not its task's"),
        ({"target": "cpu -isa=avx2"}, "field 'target'"),
        ({"config": {"index": 1}}, "field 'config' is invalid"),
        ({"settings": {"repeat": 0}}, "field 'settings' is invalid.*repeat"),
        ({"task": {"op": "conv2d"}}, "field 'task' is invalid"),
    ],
)
def test_from_json_names_the_bad_field(change: dict, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        Record.from_json({**rec(1, 1e-3).to_json(), **change})
    obj = rec(1, 1e-3).to_json()
    del obj["device_key"]
    with pytest.raises(RecordError, match="missing field 'device_key'"):
        Record.from_json(obj)


# -- files -----------------------------------------------------------------------------------
def test_append_and_load_keep_order_and_survive_a_killed_writer(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    assert append_records(path, [rec(1, 3e-3), rec(2, None)]) == 2
    path.write_text(path.read_text() + '{"version": 1, "worklo')  # killed mid-line
    assert append_records(path, [rec(3, 1e-3)]) == 1
    errors: list[str] = []
    loaded = load_records(path, errors)
    assert [r.config.index for r in loaded] == [1, 2, 3] and loaded[0] == rec(1, 3e-3)
    assert len(lines(path)) == 4 and len(errors) == 1
    assert errors[0].startswith(f"{path}:3: not valid JSON: ")


def test_corrupt_and_truncated_lines_are_skipped_with_line_numbers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "log.jsonl"
    good = json.dumps(rec(1, 1e-3).to_json())
    wrong = json.dumps({**rec(2, 1e-3).to_json(), "version": 7})
    path.write_text(f"{good}\nnot json\n\n{wrong}\n{good}\n{good[:50]}")
    errors: list[str] = []
    assert len(load_records(path, errors)) == 2
    assert [e.split(": ")[0] for e in errors] == [f"{path}:2", f"{path}:4", f"{path}:6"]
    assert "unknown record version 7" in errors[1] and "truncated line" in errors[2]
    with caplog.at_level(logging.WARNING, logger="tunefarm.tune.records"):
        assert len(load_records(path)) == 2
    assert f"{path}:6: truncated line" in caplog.text
    with pytest.raises(FileNotFoundError, match="records file .*missing.jsonl' does not exist"):
        load_records(tmp_path / "missing.jsonl")


def test_pick_best_and_distill_keep_the_fastest_valid_record(tmp_path: Path) -> None:
    log, best, merged = tmp_path / "log.jsonl", tmp_path / "best.jsonl", tmp_path / "all.jsonl"
    append_records(log, [rec(1, 3e-3), rec(2, None), rec(3, 1e-3), rec(4, 2e-3)])
    append_records(log, [rec(5, None, OTHER), rec(6, 5e-3, CONV_AVX2), rec(7, 4e-3, CONV_AVX2)])
    assert pick_best(log, best) == 2  # OTHER has only a failed record
    chosen = {(r.workload_key, r.target): r.config.index for r in load_records(best)}
    assert chosen == {(CONV.workload_key, "cpu"): 3, (CONV.workload_key, "cpu -isa=avx2"): 7}
    assert best_by_workload(load_records(log)).keys() == chosen.keys()
    newer = tmp_path / "newer.jsonl"
    append_records(newer, [rec(8, 2e-3), rec(9, 5e-4, OTHER), rec(10, 1e-3)])
    assert distill(best, merged) == 2 and distill(newer, merged) == 3
    got = {(r.workload_key, r.target): r.config.index for r in load_records(merged)}
    assert got == {**chosen, (OTHER.workload_key, "cpu"): 9}  # 10 ties 3: the kept one stays


def test_pick_best_distill_and_show_skip_a_refuted_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record files' best lookups follow `ApplyHistoryBest`: a refuted record, though
    its costs are the lowest, is no best of `best_by_workload`, `pick_best`, `distill` or
    `records show`; it still counts as a valid measurement."""
    lost = refuted(rec(2, 0.5e-3), against=1)
    log, best = tmp_path / "log.jsonl", tmp_path / "best.jsonl"
    append_records(log, [rec(1, 1e-3), lost, rec(3, 2e-3)])
    assert not lost.ranked and rec(1, 1e-3).ranked
    assert best_by_workload(load_records(log))[(CONV.workload_key, "cpu")].config.index == 1
    assert pick_best(log, best) == 1 and load_records(best)[0].config.index == 1
    merged = tmp_path / "merged.jsonl"
    append_records(merged, [lost])
    assert distill(log, merged) == 1 and load_records(merged)[0].config.index == 1
    assert main(["records", "show", str(log), "--json", "--top", "3"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["workloads"]
    assert group["ok"] == 3 and group["best"]["latency_ms"] == pytest.approx(1.0)
    assert [e["config"]["values"] for e in group["top"]] == [
        rec(i, 1e-3).config.to_json()["values"] for i in (1, 3)
    ]


# -- reuse -----------------------------------------------------------------------------------
def test_history_for_maps_records_to_space_indices() -> None:
    space = registry.config_space(CONV)
    stale = rec(12, 2e-3)
    stale = replace(stale, config=Config.make(stale.config.as_dict(), index=40))
    foreign = replace(rec(13, 1e-3), config=Config.make({"tile_ic": [3, 3]}))
    records = [rec(11, 1e-3), stale, rec(14, None), foreign, rec(15, 1e-3, OTHER)]
    history = history_for(CONV, records + [rec(16, 1e-3, CONV_AVX2)])
    assert [i for i, _ in history] == [11, 12, 14]  # stale index fixed, foreign/others skipped
    assert space.get(12) == stale.config.as_dict() and not history[2][1].ok
    assert history_for(CONV, records, device_key="gpu-box") == []
    tuner = RandomTuner(CONV)
    tuner.load_history(history)
    assert tuner.visited == {11, 12, 14} and tuner.best_index == 11


def test_apply_history_best_skips_a_record_its_recheck_refuted() -> None:
    """A candidate that lost its alternating rounds against the incumbent keeps those rounds'
    costs, which can undercut the incumbent's own (earlier, noisier) record: it must not be
    picked over the config that beat it; a believed one is."""
    space = registry.config_space(CONV)
    incumbent = rec(1, 0.8e-3)
    lost = rec(2, 0.76e-3)

    def checked(record: Record, believed: bool) -> Record:
        check = Recheck(1, (0.76e-3,) * 3, (0.74e-3,) * 3, (0.75e-3,), believed)
        return replace(record, result=replace(record.result, recheck=check))

    refuted = checked(lost, believed=False)
    history = ApplyHistoryBest([incumbent, refuted])
    assert history.query(CONV) == (Config.make(space.get(1), 1), "record")
    assert [c.index for c, _ in history.ranked(CONV)] == [1]
    believed = ApplyHistoryBest([incumbent, checked(lost, believed=True)])
    assert believed.query(CONV) == (Config.make(space.get(2), 2), "record")
    # the same record read back from its JSON line is skipped too
    read_back = Record.from_json(json.loads(json.dumps(refuted.to_json())))
    assert ApplyHistoryBest([incumbent, read_back]).query(CONV)[0].index == 1


def test_apply_history_best_picks_fastest_valid_or_says_why_not() -> None:
    key = CONV.workload_key
    records = [rec(1, 3e-3), rec(2, None), rec(3, 1e-3), rec(4, 1e-4, CONV_AVX2, device="box")]
    records.append(rec(5, None, OTHER))
    default = registry.default_config(CONV)
    with ApplyHistoryBest(records) as history:
        assert current_history() is history
        assert history.query(CONV) == (Config.make(registry.config_space(CONV).get(3), 3), "record")
        small = Task.make("dense", data=(1, 8), weight=(8, 8))
        assert history.query(small)[1] == f"no record for workload {small.workload_key}"
        wide = Task.make("conv2d", target="cpu -isa=avx512", **CONV.args)
        config, why = history.query(wide)
        assert config == registry.default_config(wide)
        assert why == (
            f"records exist for workload {key} but not for target cpu -isa=avx512 "
            "(have: cpu, cpu -isa=avx2)"
        )
        assert history.query(CONV_AVX2, device_key="local")[1] == (
            f"records for {key}/cpu -isa=avx2 are for device key box, not local"
        )
        assert history.query(OTHER)[1].startswith(f"every record for {OTHER.workload_key} failed")
        moved = replace(rec(9, 1e-4, OTHER), config=Config.make({"tile_ic": [3, 3]}))
        assert ApplyHistoryBest([moved]).query(OTHER)[1].startswith("no valid record for")
        with ApplyHistoryBest([]) as inner:
            assert current_history() is inner
            assert inner.query(CONV) == (default, f"no record for workload {key}")
            seen: list[object] = []
            thread = threading.Thread(target=lambda: seen.append(current_history()))
            thread.start()
            thread.join()
            assert seen == [None]  # the dispatch stack is per thread
        assert current_history() is history
    assert current_history() is None


# -- a real tuning run -----------------------------------------------------------------------
class RandomTuner(Tuner):
    """Proposes random unvisited configs: enough of a tuner to exercise the callbacks."""

    def next_batch(self, batch_size: int) -> list[int]:
        return self.space.sample(self.rng, batch_size, exclude=self.visited)


@pytest.fixture(scope="module")
def tuned_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list]]:
    """Four real measurements of CONV logged in two batches; yields (path, batches seen)."""
    base = tmp_path_factory.mktemp("tuned")
    path = base / "tune.jsonl"
    batches: list[Sequence[MeasureResult]] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TUNEFARM_CACHE", str(base / "build-cache"))
        option = MeasureOption.local(SETTINGS, n_parallel=2)
        try:
            tuner = RandomTuner(CONV, seed=3)
            callbacks = [log_to_file(path, device_key="ci"), lambda t, i, r: batches.append(r)]
            tuner.tune(4, option, callbacks=callbacks, batch_size=2)
        finally:
            option.close()
    yield path, [tuner, batches]


def test_log_to_file_appends_each_batch_as_it_arrives(tuned_log: tuple[Path, list]) -> None:
    path, (tuner, batches) = tuned_log
    records = load_records(path)
    assert len(batches) == 2 and len(records) == 4 and sum(r.ok for r in records) >= 1
    assert [r.config.index for r in records] == [i for i, _ in tuner.history]
    assert {r.device_key for r in records} == {"ci"}
    assert [r.result for r in records] == [r for b in batches for r in b]
    assert [i for i, _ in history_for(CONV, path)] == [i for i, _ in tuner.history]
    believed = (
        r for r in records if r.ok and (r.result.recheck is None or r.result.recheck.believed)
    )
    best = min(believed, key=lambda r: r.cost)  # a refuted record is never the best
    assert ApplyHistoryBest(path).query(CONV) == (best.config, "record")
    with pytest.raises(FileNotFoundError, match="directory .* is missing"):
        log_to_file(path.parent / "no-such-dir" / "x.jsonl")


# -- the command -----------------------------------------------------------------------------
def test_cli_show_best_and_distill(
    tuned_log: tuple[Path, list], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(tuned_log[0].read_text() + "{oops\n")
    best_ms = min(r.cost for r in load_records(path, []) if r.ranked) * 1e3
    assert main(["records", "show", str(path), "--top", "2"]) == 0
    out, err = capsys.readouterr()
    assert CONV.workload_key in out and "best GFLOPS" in out and "rank" in out
    assert f"{path}:5: not valid JSON" in err
    assert main(["records", "show", str(path), "--json", "--workload", "conv2d", "--top", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (group,) = doc["workloads"]
    assert doc["records"] == 4 and len(doc["skipped_lines"]) == 1 and group["records"] == 4
    assert group["best"]["latency_ms"] == pytest.approx(best_ms)
    ranked = sum(r.ranked for r in load_records(path, []))
    assert len(group["top"]) == min(2, ranked) and group["top"][0] == group["best"]
    flops = registry.flops(CONV)
    assert group["best"]["gflops"] == pytest.approx(flops / best_ms / 1e6)
    out_path = tmp_path / "best.jsonl"
    assert main(["records", "best", str(path), "-o", str(out_path)]) == 0
    assert "wrote 1 record(s)" in capsys.readouterr().out and len(lines(out_path)) == 1
    assert main(["records", "distill", str(path), "-o", str(out_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == 1


def test_cli_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.jsonl"
    assert main(["records", "show", str(missing)]) == 2
    assert f"records file '{missing}' does not exist" in capsys.readouterr().err
    append_records(tmp_path / "log.jsonl", [rec(1, 1e-3)])
    assert main(["records", "best", str(tmp_path / "log.jsonl"), "-o", str(missing / "x")]) == 2
    assert "directory" in capsys.readouterr().err
    assert main(["records", "show", str(tmp_path / "log.jsonl"), "--workload", "dense"]) == 2
    assert "no workload matches 'dense'" in capsys.readouterr().err
    assert main(["records", "best", str(tmp_path / "log.jsonl")]) == 2  # -o is required
