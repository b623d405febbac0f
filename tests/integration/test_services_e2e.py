"""The whole stack, for real: gateway, converter, extractor, search, two build workers and two
device agents as separate processes on a private Redis database. A network submitted over
REST completes; killing a build worker and an agent mid-job, or restarting the search
worker, still completes the job with every trial in the log exactly once."""

from __future__ import annotations

import io
import json
import re
import time
import zipfile

import pytest
import requests
from stack_env import REDIS_PORT, flush_db, free_port, redis_ok, stack_env, wait_for
from tiny_model import tiny_model_bytes

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 12
KEY = "e2e-cpu"
SUBMIT, READ = "e2e-submit-token", "e2e-read-token-0000"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not redis_ok(DB):
        pytest.skip(f"the services tests need Redis at 127.0.0.1:{REDIS_PORT}")
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("stack")
    env = stack_env(tmp, DB, {SUBMIT: "read,submit,admin", READ: "read"})
    flush_db(DB)
    spec = StackSpec(
        port=free_port(),
        agents=[(KEY, "cpu"), (KEY, "cpu")],
        build_workers=2,
        metrics_base_port=free_port(),
    )
    running = LocalStack(spec, env, tmp / "logs").start()
    running.url = f"http://127.0.0.1:{spec.port}"
    try:
        wait_for(lambda: requests.get(running.url + "/readyz", timeout=2).ok, 60, "the gateway")
        wait_for(lambda: _device_total(running) == 2, 60, "two agents in the tracker")
        running.check_alive()
        yield running
    finally:
        running.stop()
        flush_db(DB)


def _api(stack, method: str, path: str, token: str = SUBMIT, **kw) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return requests.request(method, stack.url + "/api/v1" + path, headers=headers, timeout=30, **kw)


def _device_total(stack) -> int:
    rows = _api(stack, "GET", "/devices", READ).json()["devices"]
    return sum(r["total"] for r in rows if r["key"] == KEY)


def _submit(stack, trials: int, name: str, **extra: str) -> str:
    fields = {"target": "cpu", "device_key": KEY, "trials": str(trials), "name": name, **extra}
    files = {"model": ("tiny.onnx", tiny_model_bytes(), "application/octet-stream")}
    reply = _api(stack, "POST", "/jobs", data=fields, files=files)
    assert reply.status_code == 202, reply.text
    return reply.json()["id"]


def _job(stack, job_id: str) -> dict:
    return _api(stack, "GET", f"/jobs/{job_id}", READ).json()


def _wait_state(stack, job_id: str, timeout_s: float = 240) -> dict:
    def finished():
        doc = _job(stack, job_id)
        return doc if doc["state"] in ("done", "failed", "cancelled") else None

    try:
        return wait_for(finished, timeout_s, f"job {job_id} to finish", every_s=1)
    except AssertionError:
        logs = "\n".join(f"--- {n}\n{stack.logs(n, 15)}" for n in stack.procs)
        raise AssertionError(f"job did not finish: {_job(stack, job_id)}\n{logs}") from None


def _records(stack, job_id: str) -> list[dict]:
    reply = _api(stack, "GET", f"/jobs/{job_id}/records", READ)
    assert reply.status_code == 200
    return [json.loads(line) for line in reply.text.splitlines() if line.strip()]


def _assert_each_trial_once(records: list[dict], doc: dict) -> None:
    keys = [(r["workload_key"], r["config"]["index"]) for r in records]
    assert len(keys) == len(set(keys)), "a candidate was recorded twice"
    assert len(records) == doc["trials_done"], "the log and the job disagree on trials"
    assert sum(t["trials"] for t in doc["tasks"]) == len(records)


def test_a_network_submitted_over_rest_completes(stack):
    job_id = _submit(stack, 40, "tiny-rest")
    doc = _wait_state(stack, job_id)
    assert doc["state"] == "done", doc.get("error")
    assert len(doc["tasks"]) == 5  # two 3x3 convs, each with a Winograd alternative, a dense
    assert all(t["trials"] > 0 and t["gflops"] > 0 for t in doc["tasks"])
    assert doc["estimated_latency_ms"] > 0
    assert set(doc["latency_ms"]) == {"tuned", "untuned", "onnxruntime"}
    assert doc["relative_error"] < 1e-3
    # in-network selection ran on the agent over the task running each node (three nodes)
    assert doc["selection"]["tasks"] == 3 and doc["selection"]["saved_ms"] >= 0
    assert doc["delivered"] in ("tuned", "untuned")
    records = _records(stack, job_id)
    _assert_each_trial_once(records, doc)
    assert {r["device_key"] for r in records} == {KEY}

    artifact = _api(stack, "GET", f"/jobs/{job_id}/artifact", READ)
    assert artifact.status_code == 200
    with zipfile.ZipFile(io.BytesIO(artifact.content)) as zf:
        assert {"lib.so", "plan.json", "manifest.json"} <= set(zf.namelist())

    headers = {"Authorization": f"Bearer {SUBMIT}"}  # read,submit,admin: admin reads metrics
    gateway_metrics = requests.get(stack.url + "/metrics", headers=headers, timeout=10).text
    assert 'tunefarm_jobs{state="done"}' in gateway_metrics
    search_port = stack.commands["search-0"][-1]
    worker_metrics = requests.get(f"http://127.0.0.1:{search_port}/metrics", timeout=10).text
    assert f'tunefarm_trials_total{{job="{job_id}"' in worker_metrics
    assert f'tunefarm_estimated_latency_ms{{job="{job_id}"}}' in worker_metrics
    build_port = stack.commands["buildfarm-0"][-1]
    build_metrics = requests.get(f"http://127.0.0.1:{build_port}/metrics", timeout=10).text
    counts = re.findall(r"^tunefarm_build_duration_seconds_count (\S+)$", build_metrics, re.M)
    assert counts and float(counts[0]) > 0  # observed in the pool's children, served by the parent


def test_a_sketch_policy_job_tunes_the_light_ops_too(stack):
    """The extract step follows the job's policy: the global pool is a task, tuned through
    the build farm and the agents, and the compiled network uses its record."""
    job_id = _submit(stack, 6, "tiny-sketch", policy="sketch")
    doc = _wait_state(stack, job_id)
    assert doc["state"] == "done", doc.get("error")
    assert [t["task"].split()[0] for t in doc["tasks"]][-1] == "global_pool2d"
    assert all(t["trials"] > 0 for t in doc["tasks"]) and doc["fallbacks"] == []
    assert doc["relative_error"] < 1e-3
    assert "global_pool2d" in {r["task"]["op"] for r in _records(stack, job_id)}


def test_killed_build_worker_and_agent_lose_nothing(stack):
    job_id = _submit(stack, 64, "tiny-kill")
    wait_for(lambda: _job(stack, job_id)["trials_done"] >= 8, 120, "the first trials")
    stack.kill("buildfarm-0")
    stack.kill("agent-0")
    # the dead agent leaves the tracker within its heartbeat TTL (8 s here)
    wait_for(lambda: _device_total(stack) == 1, 30, "the dead agent to leave the tracker")
    doc = _wait_state(stack, job_id)
    assert doc["state"] == "done", doc.get("error")
    _assert_each_trial_once(_records(stack, job_id), doc)
    stack.start_one("buildfarm-0")
    stack.start_one("agent-0")
    wait_for(lambda: _device_total(stack) == 2, 60, "the agent to come back")


def test_restarted_search_worker_resumes_from_the_log(stack):
    job_id = _submit(stack, 64, "tiny-resume")
    wait_for(lambda: len(_records(stack, job_id)) >= 16, 120, "16 records in the log")
    stack.kill("search-0")
    before = _records(stack, job_id)
    time.sleep(1)
    stack.start_one("search-0")
    doc = _wait_state(stack, job_id)
    assert doc["state"] == "done", doc.get("error")
    after = _records(stack, job_id)
    assert after[: len(before)] == before, "the log was rewritten instead of resumed"
    assert len(after) > len(before)
    _assert_each_trial_once(after, doc)


def test_cancel_stops_a_tuning_job(stack):
    job_id = _submit(stack, 2000, "tiny-cancel")
    wait_for(lambda: _job(stack, job_id)["trials_done"] > 0, 120, "tuning to start")
    assert _api(stack, "POST", f"/jobs/{job_id}/cancel").status_code == 202
    doc = _wait_state(stack, job_id, 60)
    assert doc["state"] == "cancelled"
    assert len(_records(stack, job_id)) == doc["trials_done"]
