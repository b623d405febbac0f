"""The time-to-quality benchmark (`benchmarks/time_to_quality.py`): its figure-of-merit
arithmetic on made-up curves, its op-to-TVM mapping, and one tiny run end to end with
tunefarm's two policies only (MetaSchedule skipped, with the reason in the JSON)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "time_to_quality.py"
sys.path.insert(0, str(SCRIPT.parent))

import time_to_quality as ttq  # noqa: E402 - the benchmarks folder is not a package
from tunefarm.measure import Config  # noqa: E402

POINTS = [30.0, 60.0, 120.0]


def test_metaschedule_first_batch_phases_are_read_from_its_scheduler_log(tmp_path):
    """The warm-up figures of issue 27 come from MetaSchedule's log lines: a task's search
    ends when its batch goes to the builder, its build when the batch goes to the runner."""
    import _tvm_ms_first_batch as first  # stdlib only at import; TVM only inside main()

    log = tmp_path / "task_scheduler.log"
    log.write_text(
        "2026-11-27 19:24:05 [INFO] [task_scheduler.cc:195] TaskScheduler picks Task #5: "
        '"conv2d"\n |  5 | conv2d | 231211008 | 1 | N/A |\n'
        "2026-11-27 19:25:58 [INFO] [task_scheduler.cc:208] Sending 16 sample(s) to builder\n"
        "2026-11-27 19:27:04 [INFO] [task_scheduler.cc:218] Sending 16 valid sample(s) to runner\n"
        "2026-11-27 19:27:14 [INFO] [task_scheduler.cc:195] TaskScheduler picks Task #6: "
        '"fused_relu"\n'
    )
    rows = first.task_phases(str(log))
    assert rows == [
        {"task": "conv2d", "search_s": 113.0, "batch": 16, "build_s": 66.0},
        {"task": "fused_relu"},
    ]


def test_time_to_quality_is_the_first_checkpoint_within_95_percent_of_the_best():
    curves = {
        "sketch": [None, 2.0, 1.0],  # reaches the best itself, at 120 s
        "template": [3.0, 1.05, 1.05],  # 1.05 <= 1.0 / 0.95 = 1.0526: within 95% at 60 s
        "metaschedule": [None, None, 1.06],  # just outside
    }
    got = ttq.time_to_quality(curves, POINTS)
    assert got["best_s"] == 1.0
    assert math.isclose(got["target_s"], 1.0 / 0.95)
    assert got["ttq_s"] == {"sketch": 120.0, "template": 60.0, "metaschedule": None}
    assert ttq.time_to_quality({"sketch": [None, None]}, [1.0, 2.0])["ttq_s"] == {"sketch": None}


def test_summary_geomeans_count_a_miss_as_the_last_checkpoint():
    rows = []
    for sketch, ms in (([2.0, 1.0, 1.0], [4.0, 2.0, 1.5]), ([1.0, 1.0, 1.0], [None, 2.0, 2.0])):
        curves = {"sketch": sketch, "metaschedule": ms}
        rows.append({"curves": curves, "ttq": ttq.time_to_quality(curves, POINTS),
                     "candidates_per_s": {"sketch": 4.0, "metaschedule": 1.0}})  # fmt: skip
    s = ttq.summary(rows, POINTS)
    assert math.isclose(s["ttq_geomean_s"]["sketch"], math.sqrt(60.0 * 30.0))
    assert (
        math.isclose(s["ttq_geomean_s"]["metaschedule"], 120.0)
        and s["not_reached"]["metaschedule"] == 2
    )
    assert s["candidates_per_s"] == {"metaschedule": 1.0, "sketch": 4.0}
    at = s["speedup_vs_metaschedule"]["sketch/metaschedule"]
    assert at[0] == 2.0  # only the first op had both at 30 s
    assert math.isclose(at[1], math.sqrt(2.0 * 2.0)) and math.isclose(at[2], math.sqrt(3.0))


def test_best_at_keeps_the_last_improvement_up_to_the_checkpoint():
    h = ttq.History("sketch", points=[(10.0, 16, 3), (20.0, 32, None), (31.0, 48, 7)])
    assert [h.best_at(t) for t in (5.0, 10.0, 30.0, 31.0)] == [None, 3, 3, 7]
    assert h.candidates() == 48


def test_ops_map_to_tvm_workloads_or_to_none():
    ops = ttq.OPS
    assert (
        ttq.tvm_workload(ops["depthwise_56_128_3x3"].task) == "conv:1,128,56,56,128,3,3,1,1,1,1,128"
    )
    assert ttq.tvm_workload(ops["conv_17_128_128_1x7"].task) == "conv:1,128,17,17,128,1,7,1,1,0,3,1"
    assert ttq.tvm_workload(ops["dense_768x3072"].task) == "dense:128,3072,768"
    assert ttq.tvm_workload(ops["bmm_qk"].task) == "bmm:12,128,128,64"
    assert ttq.tvm_workload(ops["softmax_12x128x128"].task) == "softmax:12,128,128"
    assert ttq.tvm_workload(ops["layer_norm_128x768"].task) == "layer_norm:1,128,768"
    assert ttq.tvm_workload(ops["conv_224_3_64_7x7_s2"].task) == "conv:1,3,224,224,64,7,7,2,2,3,3,1"
    other = ttq.Task.make("layer_norm", shape=(4, 8), axis=-1, epsilon=1e-5)
    assert ttq.tvm_workload(other) is None  # the TVM side fixes BERT's epsilon
    assert len(ttq.select_ops("resnet18-convs,bert,extra")) == 11 + 7 + 2


def test_both_benchmarks_read_ops_lists_alike():
    """One parser (`benchmarks/_select.py`) behind both benchmarks' --ops."""
    for select in (ttq.select_ops, ttq.autosched.select_ops):
        assert select(" bmm_qk, bert,,bmm_qk ")[:2] == ["bmm_qk", "dense_768x768"]
        assert len(select("bert")) == len(set(select("bert,bert"))) == 7
        assert select("none") == []
        with pytest.raises(ValueError, match=r"unknown \['nosuch'\]; groups: .*bert"):
            select("bmm_qk,nosuch")
    assert "depthwise_56_128_3x3" in ttq.select_ops("extra")  # its own OPS and GROUPS
    with pytest.raises(ValueError, match="unknown"):
        ttq.autosched.select_ops("extra")


def test_bad_options_are_refused_with_the_option_named():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--systems", "sketch,autotvm"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2 and "--systems: unknown ['autotvm']" in proc.stderr


@pytest.mark.slow  # two 30-second searches and the re-timing (about a minute)
def test_a_tiny_run_writes_consistent_json_and_a_png(tmp_path):
    out, png = tmp_path / "ttq.json", tmp_path / "ttq.png"
    cmd = [sys.executable, str(SCRIPT), "--ops", "smoke_dense_16x64x64", "--checkpoints",
           "20,60", "--budget-scale", "0.5", "--rounds", "2", "--batch", "4",
           "--json", str(out), "--png", str(png)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["checkpoints_s"] == [10.0, 30.0] and len(doc["loadavg_start"]) == 3
    (row,) = doc["rows"]
    assert set(row["curves"]) == {"sketch", "template"}
    assert "no --tvm-python" in row["skipped"]["metaschedule"]
    for system, curve in row["curves"].items():
        assert len(curve) == 2 and row["candidates"][system] >= 4
        assert row["candidates_per_s"][system] > 0
        # a best never gets worse in the search's view; the re-timed one exists from the
        # first checkpoint after the first batch on
        assert curve[0] is None or curve[1] is not None
    seen = [v for c in row["curves"].values() for v in c if v is not None]
    assert seen, "neither search finished a batch in 30 s"
    assert row["ttq"]["best_s"] == min(seen)
    for system, t in row["ttq"]["ttq_s"].items():
        first = next((p for p, v in zip(doc["checkpoints_s"], row["curves"][system],
                                        strict=True) if v is not None and v <= min(seen) / 0.95),
                     None)  # fmt: skip
        assert t == first
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "smoke_dense_16x64x64 | sketch" in proc.stdout


def test_an_op_with_no_schedule_yet_still_plots(tmp_path):
    curves = {"sketch": [None, None], "template": [None, 2e-3]}
    row = {"op": "x", "checkpoints_s": [1.0, 2.0], "curves": curves,
           "ttq": ttq.time_to_quality(curves, [1.0, 2.0])}  # fmt: skip
    empty = dict(row, op="y", curves={"sketch": [None, None]}, ttq={"target_s": None})
    ttq.plot({"rows": [row, empty], "loadavg_start": [1.0, 1.0, 1.0]}, str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


# -- whole networks (`--networks`, benchmarks/_ttq_network.py) ------------------------------
def test_a_network_snapshot_is_every_task_best_so_far():
    net = ttq.net
    a, b, c = (Config.make({"k": v}) for v in (1, 2, 3))
    h = net.NetHistory("sketch", events=[(1.0, 4, 0, a), (2.0, 8, 1, b), (3.0, 12, 0, c)])
    assert [h.snapshot_at(t) for t in (0.5, 1.0, 2.5, 9.0)] == [0, 1, 2, 3]
    assert h.configs(0) == {} and h.configs(2) == {0: a, 1: b} and h.configs(3) == {0: c, 1: b}
    # equal snapshots of two systems (the untuned network of both) are one network
    other = net.NetHistory("template", events=[(5.0, 4, 1, b)])
    assert net.network_of("sketch", h, 0) == net.network_of("template", other, 0)
    assert net.network_of("sketch", h, 2) != net.network_of("template", other, 1)
    ms = net.NetHistory("metaschedule", events=[(4.0, 16, -1, 900)])
    assert net.network_of("metaschedule", ms, 0) == ("metaschedule", 0)
    assert net.network_of("metaschedule", ms, 1) == ("metaschedule", 900)


def test_the_summary_keeps_networks_apart_from_ops():
    rows = []
    for name in ("op", "network:bert-tiny"):
        curves = {"sketch": [1.0, 1.0, 1.0], "template": [2.0, 2.0, 1.0]}
        row = {"op": name, "curves": curves, "ttq": ttq.time_to_quality(curves, POINTS),
               "candidates_per_s": {"sketch": 1.0, "template": 1.0}}  # fmt: skip
        rows.append(row | ({"network": "bert-tiny"} if name.startswith("network") else {}))
    s = ttq.summary(rows, POINTS)
    for part in (s, s["networks"]):  # one row each: not one geomean over both
        got = part["ttq_geomean_s"]
        assert math.isclose(got["sketch"], 30.0) and math.isclose(got["template"], 120.0)
    assert "networks" not in ttq.summary(rows[:1], POINTS)


def test_unknown_networks_and_nothing_to_run_are_refused():
    for argv, want in (
        (["--networks", "resnet-50"], "--networks: unknown ['resnet-50']"),
        (["--ops", "none"], "--ops none: give --networks"),
    ):
        proc = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert proc.returncode == 2 and want in proc.stderr, proc.stderr[-500:]


@pytest.mark.slow  # two few-second searches of bert-tiny, compiles and the re-timing (~1-2 min)
def test_a_tiny_network_run_times_whole_networks_and_skips_metaschedule(tmp_path):
    out = tmp_path / "net.json"
    cmd = [sys.executable, str(SCRIPT), "--ops", "none", "--networks", "bert-tiny",
           "--checkpoints", "2,4", "--rounds", "1", "--batch", "2", "--json", str(out)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = json.loads(out.read_text())["rows"]
    assert row["op"] == "network:bert-tiny" and row["tasks"] > 1
    assert set(row["curves"]) == {"sketch", "template"}
    assert "no --tvm-python" in row["skipped"]["metaschedule"]
    for system, curve in row["curves"].items():
        # a network exists at every checkpoint (untuned until a task has a best), checked
        # against ONNX Runtime before it is timed
        assert all(v is not None and v > 0 for v in curve), (system, row["rejected"])
        assert row["candidates"][system] >= 2
    assert row["rejected"] == {}
    assert row["ttq"]["best_s"] == min(v for c in row["curves"].values() for v in c)
    assert "network:bert-tiny | sketch" in proc.stdout and "over networks" in proc.stdout
