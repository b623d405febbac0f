"""A sketch-policy tuning run killed mid-batch (SIGKILL: no handler runs, the log may end in a
half-written line) continues with --resume and measures nothing twice.

The run is a real `tunefarm tune-tasks` process; the test kills it once its log holds some
records, then resumes to a larger budget and reads the log back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tunefarm.tune.records import load_records

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "examples" / "tiny_tasks.json"
ARGS = ["--policy", "sketch", "--trials-per-round", "4", "--repeat", "1", "--min-repeat-ms", "1"]


def tune_tasks(log: Path, trials: int, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tunefarm", "tune-tasks", str(TINY), "--log", str(log)]
    cmd += ["--trials", str(trials), *ARGS, *extra]
    return subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def wait_for_lines(log: Path, n: int, proc: subprocess.Popen, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_bytes().splitlines()) >= n:
            return
        assert proc.poll() is None, f"the run ended before it was killed: {proc.communicate()}"
        time.sleep(0.2)
    raise AssertionError(f"no {n} records in {log} after {timeout} s")


@pytest.mark.slow
def test_killed_sketch_run_resumes_without_measuring_twice(tmp_path: Path) -> None:
    log = tmp_path / "killed.jsonl"
    proc = tune_tasks(log, 64)
    wait_for_lines(log, 6, proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its measurement children
    proc.wait(timeout=30)
    with open(log, "ab") as fh:  # as if the kill hit while a record was being written
        fh.write(b'{"workload_key": "half a rec')
    before = load_records(log, errors=[])

    resumed = tune_tasks(log, len(before) + 8, "--resume", "--json")
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err

    errors: list[str] = []
    records = load_records(log, errors)
    half = len(log.read_bytes().splitlines()) - 8  # the half line stays, on its own line
    assert len(errors) == 1 and f"killed.jsonl:{half}:" in errors[0], errors
    keys = [(r.workload_key, json.dumps(r.config.as_dict(), sort_keys=True)) for r in records]
    assert len(keys) == len(set(keys)), "a state was measured twice"
    assert keys[: len(before)] == [
        (r.workload_key, json.dumps(r.config.as_dict(), sort_keys=True)) for r in before
    ]
    doc = json.loads(out)
    assert doc["loaded_trials"] == len(before)
    assert len(records) == len(before) + 8 == doc["trials"]
