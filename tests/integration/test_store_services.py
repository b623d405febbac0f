"""The record store behind the whole stack: the search worker puts every measured record in
the store (TUNEFARM_STORE, a real SQLite file here) as it is measured, and the same network
submitted again with reuse=best measures nothing: every task comes from the store, its task
row says so, and the store's metrics count the trials saved."""

from __future__ import annotations

import pytest
import requests
from stack_env import flush_db, free_port, redis_ok, stack_env, wait_for
from tiny_model import tiny_model_bytes

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 9
KEY = "store-cpu"
SUBMIT = "store-submit-token"


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not redis_ok(DB):
        pytest.skip("the services tests need Redis")
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("store-stack")
    env = stack_env(tmp, DB, {SUBMIT: "read,submit"}, TUNEFARM_STORE=str(tmp / "records.sqlite"))
    flush_db(DB)
    spec = StackSpec(
        port=free_port(), agents=[(KEY, "cpu")], build_workers=1, metrics_base_port=free_port()
    )
    running = LocalStack(spec, env, tmp / "logs").start()
    running.url = f"http://127.0.0.1:{spec.port}"
    try:
        wait_for(lambda: requests.get(running.url + "/readyz", timeout=2).ok, 60, "the gateway")
        running.check_alive()
        yield running
    finally:
        running.stop()
        flush_db(DB)


def _api(stack, method: str, path: str, **kw) -> requests.Response:
    headers = {"Authorization": f"Bearer {SUBMIT}"}
    return requests.request(method, stack.url + "/api/v1" + path, headers=headers, timeout=30, **kw)


def _run_job(stack, name: str, **fields: str) -> dict:
    data = {"target": "cpu", "device_key": KEY, "trials": "10", "name": name, **fields}
    files = {"model": ("tiny.onnx", tiny_model_bytes(), "application/octet-stream")}
    wait_for(lambda: _api(stack, "GET", "/devices").json()["agents"], 60, "the agent")
    reply = _api(stack, "POST", "/jobs", data=data, files=files)
    assert reply.status_code == 202, reply.text
    job_id = reply.json()["id"]

    def finished():
        doc = _api(stack, "GET", f"/jobs/{job_id}").json()
        return doc if doc["state"] in ("done", "failed", "cancelled") else None

    doc = wait_for(finished, 300, f"job {job_id}", every_s=1)
    assert doc["state"] == "done", doc.get("error")
    return doc


def test_records_go_to_the_store_and_a_resubmission_measures_nothing(stack) -> None:
    cold = _run_job(stack, "cold", reuse="off")
    stats = _api(stack, "GET", "/records/stats").json()
    assert stats["records"] == cold["trials_done"] == 10  # every measured record is in the store
    best = _run_job(stack, "again", reuse="best", reuse_min_trials="1")
    assert best["trials_done"] == 0  # nothing measured again
    assert all(t["reused"] and t["trials_saved"] >= 1 for t in best["tasks"])
    assert "trials in store" in best["tasks"][0]["store"]
    assert best["relative_error"] < 1e-3
    assert _api(stack, "GET", "/records/stats").json()["records"] == 10
    port = stack.commands["search-0"][-1]
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    assert "tunefarm_store_trials_saved_total 10.0" in text
    assert "tunefarm_store_records 10.0" in text


def test_a_sketch_jobs_template_defaults_reach_the_store(stack) -> None:
    """Under the sketch policy each searched task's template default is measured outside the
    budget (recipe.defaults), into the job's log; the store gets it too, through the search
    worker's spooled put like every other record of the job."""
    before = _api(stack, "GET", "/records/stats").json()["records"]
    doc = _run_job(stack, "sketch", reuse="off", policy="sketch", trials="2")
    added = _api(stack, "GET", "/records/stats").json()["records"] - before
    assert added > doc["trials_done"], (added, doc["trials_done"])  # the defaults came along
