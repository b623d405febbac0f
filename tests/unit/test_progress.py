"""What a tune shows while it runs (`tunefarm.tune.progress`): each mode on a real task
scheduler fed measured-looking batches (no compiler needed), and one real tiny tune per
mode through the scheduler."""

from __future__ import annotations

import io
import json
import re
import time

import pytest

from tunefarm.measure import MeasureErrorNo, MeasureResult, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.progress import MODES, final_table, make_reporter
from tunefarm.tune.task_scheduler import TaskScheduler
from tunefarm.tune.tuner import MeasureOption


def tasks() -> list[Task]:
    return [
        Task.make("dense", data=(1, 16), weight=(16, 16)),
        Task.make("dense", data=(1, 32), weight=(32, 32)),
    ]


def result(error: MeasureErrorNo = MeasureErrorNo.NO_ERROR) -> MeasureResult:
    ok = error == MeasureErrorNo.NO_ERROR
    return MeasureResult(
        (1e-5,) if ok else (), error, "" if ok else "boom", 0.1, time.time(), MeasureSettings()
    )


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def drive(reporter, rounds: int = 3) -> TaskScheduler:
    """Rounds of 2 batches on alternating tasks, as the scheduler reports them."""
    sched = TaskScheduler(tasks(), tuner_factory="random", reporter=reporter)
    reporter.start(sched, 12)
    for r in range(rounds):
        i = r % 2
        reporter.round_start(sched, i, 4)
        for _ in range(2):
            reporter.batch(sched, i, [result(), result(MeasureErrorNo.RUNTIME_ERROR)])
        sched.trials += 4
        reporter.round_end(sched, None if r == rounds - 1 else 1 - i, 1.0)
    reporter.close()
    reporter.end(sched, 2.0)
    return sched


def test_auto_is_plain_off_a_terminal_and_live_on_one() -> None:
    assert make_reporter("auto", io.StringIO()).mode == "plain"
    assert make_reporter("auto", Tty()).mode == "live"
    with pytest.raises(ValueError, match="unknown progress mode 'loud'"):
        make_reporter("loud")
    assert set(MODES) >= {"live", "plain", "autotvm", "json", "quiet"}


def test_plain_prints_a_status_line_per_round_at_most_every_10_s_and_the_table_once() -> None:
    out = io.StringIO()
    reporter = make_reporter("plain", out)
    reporter.describe(["dense 1x16", "dense 1x32"])
    drive(reporter, rounds=3)
    text = out.getvalue()
    lines = [ln for ln in text.splitlines() if ln.startswith("[")]
    assert len(lines) == 2  # the first round and the last; the middle one came within 10 s
    assert lines[-1].startswith("[1s] trials 12/12 | task 0 dense | est. latency - |")
    assert "errors: runtime_error 6" in lines[-1] and "trials/s | ETA" in lines[-1]
    assert text.count("Estimated total latency") == 1
    assert re.search(r"\|    1 \| +- \| +- \| +0 \| 1 x dense 1x32$", text, re.M), text


def test_verbose_plain_prints_the_table_every_round() -> None:
    out = io.StringIO()
    drive(make_reporter("plain", out, verbose=True), rounds=3)
    assert out.getvalue().count("Estimated total latency") == 3


def test_autotvm_keeps_the_per_batch_lines_and_per_round_tables() -> None:
    out = io.StringIO()
    drive(make_reporter("autotvm", out), rounds=2)
    text = out.getvalue()
    assert text.count("Estimated total latency") == 2
    assert text.count("[Task  1/ 2]  Current/Best:") == 2  # one line per batch (not a tty)


def test_json_is_one_object_per_round_and_a_summary() -> None:
    out = io.StringIO()
    drive(make_reporter("json", out), rounds=2)
    docs = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [d["event"] for d in docs] == ["round", "round", "end"]
    assert docs[0]["errors"] == {"runtime_error": 2} and docs[1]["trials"] == 8
    assert len(docs[-1]["summary"]["tasks"]) == 2


def test_quiet_prints_nothing() -> None:
    out = io.StringIO()
    drive(make_reporter("quiet", out))
    assert out.getvalue() == ""


def test_live_leaves_one_summary_line_and_the_table() -> None:
    out = Tty()
    reporter = make_reporter("live", out)
    drive(reporter, rounds=2)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "tuned in 2s: trials 8/12" in text and "errors: runtime_error 4" in text
    assert text.count("Estimated total latency") == 1


def test_final_table_without_names_is_the_scheduler_table() -> None:
    sched = TaskScheduler(tasks(), tuner_factory="random")
    assert final_table(sched, [], 0.0) == sched.table(None, 0.0)


@pytest.mark.parametrize("mode", ["plain", "live"])
def test_a_real_tune_reports_each_round(mode: str, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TUNEFARM_CACHE", str(tmp_path / "cache"))
    out = Tty() if mode == "live" else io.StringIO()
    sched = TaskScheduler(tasks(), tuner_factory="random", reporter=make_reporter(mode, out))
    option = MeasureOption.local(MeasureSettings(repeat=1, min_repeat_ms=1))
    try:
        summary = sched.tune(4, option, trials_per_round=2, batch_size=2)
    finally:
        option.close()
    assert summary.trials == 4
    text = out.getvalue()
    assert "trials 4/4" in text and text.count("Estimated total latency") == 1


def test_json_logs_of_the_workers_are_one_object_per_line(capsys) -> None:
    """`--log-json`: what Celery's logger setup installs gets the JSON formatter too."""
    import logging

    from celery.signals import after_setup_logger

    from tunefarm.distributed.logs import JSONFormatter, stop_json_logs, use_json_logs

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        use_json_logs("INFO")
        celery_logger = logging.getLogger("celery.test")
        celery_logger.handlers = [logging.StreamHandler()]  # as Celery's setup would add
        after_setup_logger.send(sender=None, logger=celery_logger, loglevel=20, logfile=None,
                                format="", colorize=False)  # fmt: skip
        assert isinstance(celery_logger.handlers[0].formatter, JSONFormatter)
        celery_logger.propagate = False
        celery_logger.warning("task %s failed", "t1", extra={"job": "j-1"})
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("tunefarm").exception("search crashed")
    finally:
        root.handlers = saved[0]
        root.setLevel(saved[1])
        stop_json_logs()
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert lines[0]["message"] == "task t1 failed" and lines[0]["job"] == "j-1"
    assert lines[0]["level"] == "WARNING" and lines[0]["ts"].endswith("Z")
    assert lines[1]["logger"] == "tunefarm" and "ValueError: boom" in lines[1]["exc"]


def test_the_stack_passes_log_json_to_every_process_and_each_takes_it(tmp_path) -> None:
    from tunefarm_services.stack import LocalStack, StackSpec

    from tunefarm.cli.main import build_parser

    plan = LocalStack(StackSpec(log_json=True), {}, tmp_path).plan()
    assert {"gateway", "converter", "search-0", "buildfarm-0", "agent-0"} <= set(plan)
    for argv in plan.values():
        assert argv[-1] == "--log-json" and build_parser().parse_args(argv).log_json
    assert "--log-json" not in LocalStack(StackSpec(), {}, tmp_path).plan()["gateway"]


def test_the_gateway_log_config_writes_json_lines(capsys) -> None:
    import logging
    import logging.config

    from tunefarm.distributed.logs import json_dictconfig

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logging.config.dictConfig(json_dictconfig())
        logging.getLogger("gunicorn.access").info("GET /api/jobs 200")
    finally:
        root.handlers = saved[0]
        root.setLevel(saved[1])
        logging.getLogger("gunicorn.access").handlers = []
    doc = json.loads(capsys.readouterr().err.splitlines()[-1])
    assert doc["logger"] == "gunicorn.access" and doc["message"] == "GET /api/jobs 200"
