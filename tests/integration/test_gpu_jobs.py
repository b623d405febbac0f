"""A network job for a GPU key over REST, for real: the stack's services with one `opencl`
agent (pocl runs it on the CPU) on a private Redis database. The agent measures the job's
tasks and evaluates the compiled GPU network (a device artifact) against ONNX Runtime."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import requests
from stack_env import REDIS_PORT, flush_db, free_port, redis_ok, stack_env, wait_for
from tiny_model import tiny_model_bytes

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 14
KEY = "e2e-opencl"
SUBMIT, READ = "gpu-submit-token", "gpu-read-token-0000"


def _api(url: str, method: str, path: str, token: str = SUBMIT, **kw) -> requests.Response:
    headers = {"Authorization": f"Bearer {token}"}
    return requests.request(method, url + "/api/v1" + path, headers=headers, timeout=30, **kw)


def _agents(url: str) -> int:
    rows = _api(url, "GET", "/devices", READ).json()["devices"]
    return sum(r["total"] for r in rows if r["key"] == KEY)


def _need_opencl() -> None:
    from tunefarm.backends import get_backend

    try:
        get_backend("opencl").device_info()
    except Exception as exc:
        pytest.skip(f"no OpenCL device: {exc}")


def test_a_network_job_for_an_opencl_key_completes(tmp_path):
    if not redis_ok(DB):
        pytest.skip(f"the services tests need Redis at 127.0.0.1:{REDIS_PORT}")
    _need_opencl()
    from tunefarm_services.stack import LocalStack, StackSpec

    env = stack_env(tmp_path, DB, {SUBMIT: "read,submit", READ: "read"})
    flush_db(DB)
    spec = StackSpec(
        port=free_port(), agents=[(KEY, "opencl")], build_workers=1,
        metrics_base_port=free_port(),
    )  # fmt: skip
    stack = LocalStack(spec, env, tmp_path / "logs").start()
    url = f"http://127.0.0.1:{spec.port}"
    try:
        wait_for(lambda: requests.get(url + "/readyz", timeout=2).ok, 60, "the gateway")
        wait_for(lambda: _agents(url) == 1, 60, "the opencl agent in the tracker")
        # a cpu job for the key is refused: its agents serve opencl
        fields = {"target": "cpu", "device_key": KEY, "trials": "4", "name": "wrong"}
        files = {"model": ("tiny.onnx", tiny_model_bytes(), "application/octet-stream")}
        reply = _api(url, "POST", "/jobs", data=fields, files=files)
        assert reply.status_code == 400 and "served by agents of target 'opencl'" in reply.text

        fields = {"target": "opencl", "device_key": KEY, "trials": "6", "name": "tiny-gpu"}
        reply = _api(url, "POST", "/jobs", data=fields, files=files)
        assert reply.status_code == 202, reply.text
        job_id = reply.json()["id"]

        def done() -> bool:
            return _api(url, "GET", f"/jobs/{job_id}", READ).json()["state"] in (
                "done", "failed", "cancelled",
            )  # fmt: skip

        try:
            wait_for(done, 600, "the opencl job")
        except AssertionError:
            logs = "\n".join(f"--- {n}\n{stack.logs(n, 15)}" for n in stack.procs)
            raise AssertionError(f"job did not finish\n{logs}") from None
        doc = _api(url, "GET", f"/jobs/{job_id}", READ).json()
        assert doc["state"] == "done", doc.get("error")
        assert doc["relative_error"] < 1e-3
        assert set(doc["latency_ms"]) == {"tuned", "untuned", "onnxruntime"}
        records = _api(url, "GET", f"/jobs/{job_id}/records", READ).text.splitlines()
        parsed = [json.loads(line) for line in records if line.strip()]
        assert parsed and {r["target"] for r in parsed} == {"opencl"}
        assert any(r["error_no"] == 0 for r in parsed)
        artifact = _api(url, "GET", f"/jobs/{job_id}/artifact", READ)
        with zipfile.ZipFile(io.BytesIO(artifact.content)) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            assert manifest["runtime"] == "device" and "lib.so" not in zf.namelist()
    finally:
        stack.stop()
        flush_db(DB)
