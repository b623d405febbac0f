"""The task scheduler, the tuner factory and `tunefarm tune-tasks`, on real tiny tasks.

Every trial is a real build and measurement of a kernel that runs in microseconds, timed with
`repeat=1, min_repeat_ms=1`, so a round of a few trials costs well under a second.
"""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest

from tunefarm.backends import registry
from tunefarm.cli import _args, tune_tasks
from tunefarm.cli.main import main
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.measure import MeasureErrorNo, MeasureResult, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import TUNER_NAMES, make_tuner
from tunefarm.tune.random_tuner import RandomTuner
from tunefarm.tune.task_scheduler import TaskScheduler, untuned_first
from tunefarm.tune.tuner import MeasureOption

pytestmark = pytest.mark.usefixtures("build_cache")

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "examples" / "tiny_tasks.json"
FAST = ["--repeat", "1", "--min-repeat-ms", "1"]
CONV = dict(data=(1, 16, 8, 8), weight=(16, 16, 3, 3), padding=1)


def tiny_tasks() -> list[Task]:
    return [
        Task.make("conv2d", **CONV),
        Task.make("conv2d", data=(1, 16, 8, 8), weight=(32, 16, 1, 1)),
        Task.make("dense", data=(1, 64), weight=(64, 64)),
    ]


def result(seconds: float) -> MeasureResult:
    """A valid measurement of `seconds` per run (to replay into a tuner)."""
    return MeasureResult((seconds,), MeasureErrorNo.NO_ERROR, "", seconds, 0.0, MeasureSettings())


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["tune-tasks", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- factory ---------------------------------------------------------------------------------
def test_factory_makes_every_named_tuner_and_refuses_others() -> None:
    task = Task.make("dense", data=(1, 64), weight=(64, 64))
    assert _args.TUNERS == TUNER_NAMES  # the CLI keeps its own copy to start fast
    for name in TUNER_NAMES:
        tuner = make_tuner(name, task, seed=1)
        assert tuner.task == task and tuner.trials == 0
    assert make_tuner("xgb", task).model.loss == "rank"
    assert make_tuner("xgb-reg", task).model.loss == "reg"
    with pytest.raises(ValueError, match=r"unknown tuner 'sa'.*random, gridsearch, ga, xgb"):
        make_tuner("sa", task)


def test_scheduler_rejects_bad_arguments() -> None:
    tasks = tiny_tasks()
    with pytest.raises(ValueError, match="2 weights for 3 tasks"):
        TaskScheduler(tasks, weights=[1, 2], tuner_factory="random")
    with pytest.raises(ValueError, match="weight of task 1 must be a number > 0, got -1"):
        TaskScheduler(tasks, weights=[1, -1, 1], tuner_factory="random")
    with pytest.raises(ValueError, match="unknown strategy 'greedy'"):
        TaskScheduler(tasks, tuner_factory="random", strategy="greedy")
    with pytest.raises(ValueError, match="unknown tuner 'best'"):
        TaskScheduler(tasks, tuner_factory="best")
    with pytest.raises(ValueError, match="at least one task"):
        TaskScheduler([], tuner_factory="random")


# -- allocation ------------------------------------------------------------------------------
def test_round_robin_gives_equal_trials_and_prints_the_table(measure: MeasureOption) -> None:
    out = io.StringIO()
    sched = TaskScheduler(tiny_tasks(), [5, 1, 1], "random", strategy="round-robin", stream=out)
    summary = sched.tune(24, measure, trials_per_round=4, batch_size=4)
    assert [t.trials for t in summary.tasks] == [8, 8, 8] and summary.trials == 24
    assert all(t.best_latency_s < math.inf and t.gflops > 0 for t in summary.tasks)
    expected = sum(t.weight * t.best_latency_s for t in summary.tasks)
    assert summary.estimated_total_latency_s == pytest.approx(expected)

    text = out.getvalue()
    table = re.compile(
        r"\|  ID  \| Latency \(ms\) \| Speed \(GFLOPS\) \|  Trials  \|\n-{49}\n"
        r"(?:\| +\d+ \| +(?:\d+\.\d{3}|-) \| +(?:\d+\.\d{2}|-) \| +\d+ \|\n){3}-{49}\n"
        r"Estimated total latency: (?:\d+\.\d{3}|-) ms\tTrials: (\d+)\tUsed time : \d+ s\t"
        r"Next ID: (\d+|-)\n"
    )
    tables = table.findall(text)
    assert len(tables) == 6  # one per round
    assert [int(t) for t, _ in tables] == [4, 8, 12, 16, 20, 24]
    assert [n for _, n in tables] == ["1", "2", "0", "1", "2", "-"]
    assert re.search(r"\|    0 \| +\d+\.\d{3} \|", text) and "|        8 |\n" in text
    assert "[Task  1/ 3]  Current/Best:" in text and "[Task  3/ 3]" in text
    assert "|    1 |            - |              - |        0 |" in text  # before its first round


def test_gradient_spends_trials_where_the_weighted_latency_is(measure: MeasureOption) -> None:
    tasks = [Task.make("conv2d", **CONV), Task.make("conv2d", **CONV, strides=2)]
    # 10000:1 so that even a 100x noisy measurement of the light task cannot flip the choice
    sched = TaskScheduler(tasks, [10000, 1], "random", strategy="gradient", stream=io.StringIO())
    summary = sched.tune(48, measure, trials_per_round=8, batch_size=8)
    heavy, light = (t.trials for t in summary.tasks)
    assert heavy + light == 48 and light >= 8  # the warm-up round
    reasons = [(t.trials, t.stop_reason, t.diagnosis[:200]) for t in summary.tasks]
    assert heavy >= 3 * light, reasons
    assert sched.score(0, 8) > sched.score(1, 8) > 0


def test_alternatives_count_once_with_their_fastest(measure: MeasureOption) -> None:
    """Tasks in one group compute the same nodes: the estimate takes the faster of them."""
    tasks = tiny_tasks()
    sched = TaskScheduler(tasks, [2, 2, 1], "random", stream=io.StringIO(), groups=[0, 0, 2])
    summary = sched.tune(12, measure, trials_per_round=4, batch_size=4)
    a, b, c = (t.weight * t.best_latency_s for t in summary.tasks)
    assert summary.estimated_total_latency_s == pytest.approx(min(a, b) + c)
    with pytest.raises(ValueError, match="2 groups for 3 tasks"):
        TaskScheduler(tasks, tuner_factory="random", groups=[0, 1])


def test_the_warm_up_reaches_each_groups_untuned_alternative_first() -> None:
    """resnet-18 lists each Winograd conv after its direct twin; the compiler keeps the
    Winograd one (what the untuned network runs) until it has a record, so its warm-up
    round comes first, and the other tasks keep their order."""
    _, graph = load_model(zoo.build("resnet-18", image_size=64))
    tasks = extract_tasks(graph, "cpu")
    groups = [t.group for t in tasks]
    order = untuned_first([t.task for t in tasks], groups)
    assert sorted(order) == list(range(len(tasks)))
    pos = {i: k for k, i in enumerate(order)}
    pairs = [(i, j) for i in range(len(tasks)) for j in range(i + 1, len(tasks))
             if groups[i] == groups[j]]  # fmt: skip
    untuned = {(i, j): registry.untuned_variant([tasks[i].task, tasks[j].task]) for i, j in pairs}
    wino = [(i, j) for i, j in pairs if untuned[i, j] is tasks[j].task]
    assert wino and all(pos[j] < pos[i] for i, j in wino)
    singles = [i for i in order if groups.count(groups[i]) == 1]
    assert singles == sorted(singles)
    sched = TaskScheduler([t.task for t in tasks], tuner_factory="random", groups=groups)
    assert sched._cold(8) == order


def test_similar_faster_task_raises_the_forward_estimate() -> None:
    """Same op, same FLOPs: the task 10x slower per FLOP than its sibling scores higher than it
    would alone, because the sibling shows what speed this kernel can reach."""
    tasks = [Task.make("conv2d", **CONV), Task.make("conv2d", **CONV, dilation=1, groups=1)]
    sched = TaskScheduler(tasks, tuner_factory="random", beta=2.0)
    sched.states[0].tuner.load_history([(i, result(1e-3)) for i in range(64)])
    sched.states[0].trials = 64
    alone = sched.score(0, 8)
    assert alone == pytest.approx(0.8 * 1e-3 / 64)  # (1 - alpha) * L / t
    sched.states[1].tuner.load_history([(0, result(1e-4))])
    sched.states[1].trials = 1
    bound = 2.0 * 1e-4  # beta x the latency at the sibling's speed
    # reaching the bound within the next round of 8 trials beats L / t
    assert sched.score(0, 8) == pytest.approx(0.8 * (1e-3 - bound) / 8)
    assert sched.score(0, 8) > alone
    assert sched.score(0, 1000) == pytest.approx(alone)  # not within a round of 1000


def test_kernels_without_flops_get_no_speed_bound() -> None:
    """Two transposes count 0 FLOPs: measured ones say nothing about how fast the other can
    get, so its score is its own L / t (this divided by a zero speed in a bert-base tune)."""
    shapes = [
        dict(shape=(1, 128, 12, 64), perm=(0, 2, 1, 3)),
        dict(shape=(1, 128, 12, 64), perm=(0, 2, 3, 1)),
    ]
    tasks = [Task.make("transpose", **kw) for kw in shapes]
    sched = TaskScheduler(tasks, tuner_factory="random", beta=2.0)
    for state, cost in zip(sched.states, (1e-5, 1e-6), strict=True):
        state.tuner.load_history([(0, result(cost))])
        state.trials = 1
    assert sched.score(0, 8) == pytest.approx(0.8 * 1e-5)


def test_exhausted_task_is_skipped(measure: MeasureOption) -> None:
    tasks = [Task.make("dense", data=(1, 4), weight=(4, 4)), Task.make("conv2d", **CONV)]
    size = make_tuner("random", tasks[0]).space.size
    assert size < 24
    sched = TaskScheduler(tasks, tuner_factory="random", stream=io.StringIO())
    summary = sched.tune(size + 24, measure, trials_per_round=24, batch_size=12)
    small, big = summary.tasks
    assert small.trials == size and small.stop_reason == "space exhausted"
    assert big.trials == 24 and big.stop_reason == "trial budget used"


# -- the command -----------------------------------------------------------------------------
def test_cli_tunes_the_tiny_tasks_and_prints_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "tiny.jsonl"
    args = [str(TINY), "--trials", "12", "--trials-per-round", "4", "--tuner", "xgb"]
    code, out, err = cli(capsys, *args, "--log", str(log), "--json", *FAST)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["trials"] == 12 and doc["tuner"] == "xgb" and doc["strategy"] == "gradient"
    assert [t["weight"] for t in doc["tasks"]] == [2.0, 1.0, 1.0]
    assert [t["name"] for t in doc["tasks"]][2] == "dense_64_64"
    assert sum(t["trials"] for t in doc["tasks"]) == 12
    assert all(t["best_latency_s"] > 0 and t["best_config"] for t in doc["tasks"])
    assert doc["estimated_total_latency_s"] == pytest.approx(
        sum(t["weight"] * t["best_latency_s"] for t in doc["tasks"])
    )
    # not a terminal: a line per round (at most every 10 s), the table once at the end, stderr
    assert re.search(r"^\[\d+s\] trials 12/12 \| task \d (?:conv2d|dense) ", err, re.M), err
    assert err.count("Estimated total latency:") == 1 and "[Task  1/ 3]" not in err
    assert len(log.read_text().splitlines()) == 12


def test_cli_resume_measures_only_new_configs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = tmp_path / "resume.jsonl"
    base = [str(TINY), "--tuner", "random", "--trials-per-round", "3", "--log", str(log), *FAST]
    assert cli(capsys, *base, "--trials", "9")[0] == 0
    first = log.read_text().splitlines()
    assert len(first) == 9

    code, _, err = cli(capsys, *base, "--trials", "18")
    assert code == 2 and "use --resume to continue it or choose another --log" in err
    assert log.read_text().splitlines() == first  # refused before touching the log

    code, out, err = cli(capsys, *base, "--trials", "18", "--resume", "--json")
    assert code == 0, err
    lines = log.read_text().splitlines()
    assert len(lines) == 18 and lines[:9] == first  # 9 new measurements, appended
    seen = [(r["workload_key"], r["config"]["index"]) for r in map(json.loads, lines)]
    assert len(set(seen)) == 18  # nothing measured twice
    doc = json.loads(out)
    assert doc["loaded_trials"] == 9 and doc["trials"] == 18

    code, out, _ = cli(capsys, *base, "--trials", "18", "--resume")
    assert code == 0 and len(log.read_text().splitlines()) == 18  # budget already spent
    assert "Trials: 18" in out


def test_load_log_restores_best_and_counts_trials(tmp_path: Path, measure: MeasureOption) -> None:
    log = tmp_path / "log.jsonl"
    first = TaskScheduler(tiny_tasks(), tuner_factory="random", stream=io.StringIO())
    first.tune(6, measure, trials_per_round=2, batch_size=2, log_file=str(log))
    again = TaskScheduler(tiny_tasks(), tuner_factory="gridsearch", stream=io.StringIO())
    assert again.load_log(str(log)) == 6 and again.trials == 6
    for old, new in zip(first.states, again.states, strict=True):
        assert new.tuner.visited == old.tuner.visited and new.trials == old.trials == 2
        assert new.tuner.best_cost == old.tuner.best_cost


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            '{"tasks": [{"op": "dense", "params": {"data": [1, 8], "weight": [8, 8]}}, '
            '{"op": "conv3d", "params": {}}]}',
            "task 1: unknown op 'conv3d'",
        ),
        (
            '[{"op": "dense", "params": {"data": [1, 8], "weight": [8, 8]}}, '
            '{"op": "conv2d", "params": {"data": [1, 16, 8, 8], "weight": [16, 8, 3, 3]}}]',
            "task 1: conv2d: weight",
        ),
        (
            '[{"op": "dense", "params": {"data": [1, 8], "weight": [8, 8]}, "weight": 0}]',
            "task 0: 'weight' must be a number > 0, got 0",
        ),
        ('[{"op": "dense", "params": {"data": [1, 8]}}]', "task 0: "),
        ('[{"op": "dense", "parms": {}}]', "task 0: unknown key(s) ['parms']"),
        ('{"tasks": [1, 2', "is not valid JSON"),
        ('{"layers": []}', "expected a list of tasks"),
        ("[]", "has no tasks"),
    ],
)
def test_cli_rejects_bad_tasks_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(content)
    code, out, err = cli(capsys, str(path), "--trials", "4", "--log", str(tmp_path / "l.jsonl"))
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err
    assert err.startswith("tunefarm tune-tasks: error: ") and err.count("\n") == 1
    assert not (tmp_path / "l.jsonl").exists()


def test_cli_rejects_bad_options(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = str(tmp_path / "l.jsonl")
    code, _, err = cli(capsys, str(TINY), "--trials", "4", "--log", log, "--target", "tpu")
    assert code == 2 and "target 'tpu'" in err
    code, _, err = cli(capsys, str(TINY), "--trials", "0", "--log", log)
    assert code == 2 and "--trials" in err
    code, _, err = cli(capsys, str(TINY), "--trials", "4", "--log", str(tmp_path / "no/l.jsonl"))
    assert code == 2 and "does not exist" in err
    code, _, err = cli(capsys, str(tmp_path / "missing.json"), "--trials", "4", "--log", log)
    assert code == 2 and "not found" in err


def test_example_resnet18_tasks_are_valid() -> None:
    tasks, weights, names = tune_tasks.load_tasks(
        str(ROOT / "examples" / "resnet18_tasks.json"), "cpu"
    )
    assert len(tasks) == 12 and sum(1 for t in tasks if t.op == "conv2d") == 11
    assert sum(weights) == 21  # 20 convolutions and the dense layer
    assert weights[names.index("conv_56_64_64_3x3")] == 4
    assert isinstance(make_tuner("random", tasks[0]), RandomTuner)
