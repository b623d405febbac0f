"""Reuse in the one recipe: `tunefarm tune --reuse best|warm|off` on a one-conv network with a
real SQLite store, and the store's records commands (import, export, stats, query, migrate)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from store_helpers import CONV, NEAR, rec

from tunefarm.cli.main import main
from tunefarm.measure import MeasureSettings
from tunefarm.recipe import reuse
from tunefarm.store import open_store
from tunefarm.store.schema import SCHEMA_HEAD
from tunefarm.task import Task
from tunefarm.tune.records import append_records, load_records
from tunefarm.tune.task_scheduler import TaskScheduler
from tunefarm.tune.xgb_tuner import XGBTuner

FAST = ["--min-repeat-ms", "1", "--repeat", "1", "--bench-repeat", "1", "--select-top", "1"]


@pytest.fixture(autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path_factory.getbasetemp() / "build-cache"))


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A one-conv network: one tuning task, compiled and checked in about a second."""
    w = np.random.default_rng(0).standard_normal((8, 8, 3, 3)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1])
    relu = helper.make_node("Relu", ["c"], ["y"])
    graph = helper.make_graph(
        [node, relu],
        "oneconv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
        [numpy_helper.from_array(w, "w")],
    )
    path = tmp_path_factory.mktemp("net") / "oneconv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return str(path)


def tune(capsys: pytest.CaptureFixture[str], model: str, tmp: Path, name: str, *extra: str) -> dict:
    argv = ["tune", model, "--trials", "4", "--log", str(tmp / f"{name}.jsonl"), *FAST]
    assert main([*argv, "-o", str(tmp / f"{name}.tfa"), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow  # three whole jobs (tune, compile, check against ONNX Runtime): ~45 s at load 14
def test_reuse_best_measures_nothing_and_warm_starts_from_the_store(
    model_path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ["--store", str(tmp_path / "s.sqlite")]
    cold = tune(capsys, model_path, tmp_path, "cold", *store, "--reuse", "off")
    assert cold["scheduler"]["trials"] == 4 and "reuse" in cold["scheduler"]
    with open_store(store[1]) as s:
        assert s.totals()["records"] == 4  # every measured record went to the store
    # the conv has two tasks (direct and Winograd), 2 trials each in the store
    best = tune(
        capsys, model_path, tmp_path, "best", *store, "--reuse", "best", "--reuse-min-trials", "2"
    )
    assert best["scheduler"]["trials"] == 0  # nothing measured again
    tasks = best["scheduler"]["reuse"]["tasks"]
    assert all(t["reused"] and t["trials_in_store"] == 2 for t in tasks)
    assert "2 trials in store" in tasks[0]["message"]
    assert best["scheduler"]["reuse"]["trials_saved"] == 4
    # the store's ranked records are compiled in: all 4, less any whose recheck a faster
    # incumbent refuted (under load; `Record.ranked`), and at least one per task
    cold_ranked = [r for r in load_records(tmp_path / "cold.jsonl") if r.ranked]
    compiled = load_records(tmp_path / "best.jsonl")
    assert len(compiled) == len(cold_ranked) and len({r.workload_key for r in compiled}) == 2
    assert best["relative_error"] < 1e-3 and best["tasks"][0]["tuned"]
    warm = tune(capsys, model_path, tmp_path, "warm", *store)  # default: warm
    tasks = warm["scheduler"]["reuse"]["tasks"]
    first = tasks[0]["workload_key"]
    assert not tasks[0]["reused"]  # the ranked records were loaded, not measured again
    assert tasks[0]["warm"] == sum(r.workload_key == first for r in cold_ranked)
    assert warm["scheduler"]["trials"] == 4
    key = lambda r: (r.workload_key, json.dumps(r.config.to_json()))  # noqa: E731
    new = load_records(tmp_path / "warm.jsonl")[len(compiled) :]  # after the loaded ones
    # none of the loaded configs measured again (a refuted one may come again)
    assert len(new) == 4 and not {key(r) for r in new} & {key(r) for r in cold_ranked}
    with open_store(store[1]) as s:
        assert s.totals()["records"] == 8  # every measurement: 4 cold, 4 warm


def test_warm_seeds_the_nearest_workloads_best_configs(tmp_path: Path) -> None:
    # same shapes with a bias: another workload whose configs fit this task's space
    biased = Task.make("conv2d", bias=True, **CONV.args)
    with open_store(str(tmp_path / "s.sqlite")) as store:
        store.put([rec(i, (i + 1) * 1e-3, biased) for i in range(6)])
        store.put([rec(i, 1e-3, NEAR) for i in range(6)])  # farther, and its configs do not fit
        loop = lambda task, seed: XGBTuner(task, seed=seed, feature_type="loop")  # noqa: E731
        scheduler = TaskScheduler([CONV], tuner_factory=loop)  # a model that transfers
        report, to_log = reuse.plan(scheduler, store, "warm", "local")
    assert report.tasks[0].seeded == reuse.SIMILAR_K and report.tasks[0].warm == 0
    assert to_log == [] and report.fleet_records == 12  # the cost model learned from both
    tuner = scheduler.states[0].tuner
    first = tuner.propose(1 + reuse.SIMILAR_K)  # the default config, then the seeds in order
    assert first[1:] == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="--reuse must be one of best, warm, off"):
        reuse.plan(scheduler, store, "always", "local")


def test_records_commands_import_export_stats_query_migrate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, store = tmp_path / "a.jsonl", str(tmp_path / "s.sqlite")
    append_records(log, [rec(i, (i + 1) * 1e-3) for i in range(5)] + [rec(0, 1e-3, NEAR)])
    with open(log, "a") as fh:
        fh.write('{"workload": "autotvm v0.2 line", "result": [[0.1], 0]}\n')
    assert main(["records", "import", str(log), "--store", store]) == 1  # a foreign line: exit 1
    out, err = capsys.readouterr()
    assert "6 record(s), 6 new" in out and f"{log}:7:" in err and "not imported" in err
    assert main(["records", "import", str(log), "--store", store, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["files"][0]["new"] == 0  # idempotent
    assert main(["records", "stats", "--store", store, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["records"] == 6 and doc["workloads"] == 2
    assert (
        main(
            [
                "records",
                "query",
                CONV.workload_key,
                "--target",
                "cpu",
                "--store",
                store,
                "--top",
                "2",
                "--json",
            ]
        )
        == 0
    )
    task = json.loads(capsys.readouterr().out)["tasks"][0]
    assert task["trials"] == 5 and [t["latency_ms"] for t in task["top"]] == pytest.approx([1, 2])
    out_path = tmp_path / "out.jsonl"
    assert main(["records", "export", "-o", str(out_path), "--store", store]) == 0
    assert load_records(out_path) == load_records(log)
    assert main(["records", "migrate", "--store", store]) == 0
    assert f"-> {SCHEMA_HEAD}" in capsys.readouterr().out
    (tmp_path / "bad.sqlite").write_bytes(b"garbage" * 200)
    assert main(["records", "stats", "--store", str(tmp_path / "bad.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.sqlite is not a SQLite database" in err and len(err.splitlines()) == 1
    assert main(["records", "stats", "--store", "postgresql://x@127.0.0.1:1/db"]) == 2
    assert "unreachable" in capsys.readouterr().err
    assert MeasureSettings  # the records carry their settings (part of the unique key)


def test_the_fleet_set_is_cached_by_the_store_revision(tmp_path: Path) -> None:
    with open_store(str(tmp_path / "s.sqlite")) as store:
        store.put([rec(i, (i + 1) * 1e-3) for i in range(4)])
        first = reuse.fleet_records(store, "cpu", "local")
        assert len(first) == 4 and reuse.fleet_records(store, "cpu", "local") is first
        store.put([rec(0, 1e-3, NEAR)])  # a new revision: read again, in the background
        reuse.refresh_fleet_async(store, "cpu", "local").join(30)
        again = reuse.fleet_records(store, "cpu", "local")
        assert again is not first and len(again) == 5
