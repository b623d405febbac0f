"""The gateway's REST API against a real Redis (state, events, tracker and the Celery broker
in the test database), through Flask's test client: auth, submission and its validation, job
reads, files, server-sent events, devices, health, metrics and the OpenAPI document."""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

import pytest

from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.jobs import JobStore, new_job_id
from tunefarm.distributed.tracker import Tracker, queue_depth

pytestmark = pytest.mark.integration

READ_TOKEN = "read-" + uuid.uuid4().hex
SUBMIT_TOKEN = "submit-" + uuid.uuid4().hex
METRICS_TOKEN = "metrics-" + uuid.uuid4().hex
DEVICE_KEY = "test-key"
ZOO_JOB = {"model": "zoo:resnet-18", "target": "cpu", "device_key": DEVICE_KEY, "trials": 10}


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gateway_tokens_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("gateway") / "tokens"
    path.write_text(
        "# tokens for the gateway tests\n\n"
        f"{READ_TOKEN} read  dashboard\n"
        f"{SUBMIT_TOKEN}  read,submit ci pipeline  # a comment\n"
        f"{METRICS_TOKEN} metrics prometheus\n"
    )
    return path


@pytest.fixture(scope="module")
def gateway_config(service_config, gateway_tokens_file):
    return service_config.with_(tokens_file=str(gateway_tokens_file))


@pytest.fixture(scope="module")
def gateway_app(gateway_config):
    from tunefarm_services.gateway.app import create_app

    app = create_app(gateway_config, blueprints=[])
    app.testing = True
    return app


@pytest.fixture
def client(gateway_app):
    return gateway_app.test_client()


@pytest.fixture(scope="module", autouse=True)
def device_key(gateway_config):
    """A registered (fake) agent, so DEVICE_KEY is a known device key."""
    tracker = Tracker(gateway_config)
    info = tracker.register(DEVICE_KEY, "cpu")
    yield DEVICE_KEY
    tracker.unregister(info)


@pytest.fixture
def jobs(gateway_config):
    return JobStore(gateway_config)


@pytest.fixture
def store(gateway_config):
    return ArtifactStore(gateway_config.artifacts)


def auth(token: str = SUBMIT_TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def submit(client, token: str = SUBMIT_TOKEN, **changes):
    """POST a zoo job with `changes` applied (a value of None drops the field)."""
    body = {k: v for k, v in {**ZOO_JOB, **changes}.items() if v is not None}
    return client.post("/api/v1/jobs", json=body, headers=auth(token))


def make_job(jobs: JobStore, state: str = "queued", **fields) -> str:
    spec = {"name": "t", "model": "zoo:resnet-18", "target": "cpu", "device_key": DEVICE_KEY}
    job_id = new_job_id()
    jobs.create({**spec, "trials": 10, "tuner": "xgb", "early_stopping": None, **fields}, job_id)
    if state != "queued":
        jobs.set_state(job_id, state)
    return job_id


def relu_onnx() -> bytes:
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    return helper.make_model(graph).SerializeToString()


def upload(client, data: bytes, filename: str = "relu.onnx", **form):
    fields = {"target": "cpu", "device_key": DEVICE_KEY, "trials": "5", **form}
    fields["model"] = (io.BytesIO(data), filename)
    return client.post(
        "/api/v1/jobs", data=fields, headers=auth(), content_type="multipart/form-data"
    )


def convert_depth(config) -> int:
    import redis

    return queue_depth(redis.Redis.from_url(config.broker_url), config.queue("convert"))


def assert_field_error(response, field: str, status: int = 400) -> str:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert field in body["fields"], body
    return body["fields"][field]


# -- auth -----------------------------------------------------------------------------------------
def test_missing_token_is_401_with_a_bearer_challenge(client):
    response = client.get("/api/v1/jobs")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    assert "missing token" in response.get_json()["error"]


def test_unknown_token_is_401(client):
    response = client.get("/api/v1/jobs", headers=auth("not-a-token"))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]
    assert response.get_json() == {"error": "unknown token"}
    assert client.get("/api/v1/jobs", headers={"Authorization": "Basic eDp5"}).status_code == 401


def test_read_only_token_reads_but_cannot_submit_or_cancel(client, jobs):
    assert client.get("/api/v1/jobs", headers=auth(READ_TOKEN)).status_code == 200
    response = submit(client, token=READ_TOKEN)
    assert response.status_code == 403
    assert "'submit'" in response.get_json()["error"]
    assert "insufficient_scope" in response.headers["WWW-Authenticate"]
    job_id = make_job(jobs)
    cancel = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=auth(READ_TOKEN))
    assert cancel.status_code == 403
    assert jobs.get(job_id)["state"] == "queued"


def test_cookie_token_works_but_not_cross_site(client, jobs):
    client.set_cookie("tunefarm_token", SUBMIT_TOKEN)
    assert client.get("/api/v1/jobs").status_code == 200
    job_id = make_job(jobs)
    evil = {"Origin": "https://evil.example"}
    assert client.post(f"/api/v1/jobs/{job_id}/cancel", headers=evil).status_code == 403
    same = {"Origin": "http://localhost"}
    assert client.post(f"/api/v1/jobs/{job_id}/cancel", headers=same).status_code == 202


def test_health_needs_no_token_and_metrics_a_metrics_one(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers=auth(READ_TOKEN)).status_code == 403
    metrics = client.get("/metrics", headers=auth(METRICS_TOKEN))
    assert metrics.status_code == 200
    assert "tunefarm_jobs" in metrics.get_data(as_text=True)


def test_malformed_tokens_file_names_the_line(gateway_config, tmp_path):
    from tunefarm_services.gateway.app import create_app
    from tunefarm_services.gateway.auth import TokensFileError

    path = tmp_path / "tokens"
    path.write_text("# ok\ngood-xxxxxxxxxxxxxxxx read\nbad-xxxxxxxxxxxxxxxx read,delete\n")
    with pytest.raises(TokensFileError, match=r"line 3: unknown scope\(s\) delete"):
        create_app(gateway_config.with_(tokens_file=str(path)), blueprints=[])
    path.write_text("lonely-token\n")
    with pytest.raises(TokensFileError, match="line 1: expected 'TOKEN SCOPES"):
        create_app(gateway_config.with_(tokens_file=str(path)), blueprints=[])


# -- submission -----------------------------------------------------------------------------------
def test_submit_zoo_model_queues_the_job(client, jobs, gateway_config):
    before = convert_depth(gateway_config)
    response = submit(client, model="resnet-18", tuner="ga", early_stopping=50)
    assert response.status_code == 202, response.get_json()
    body = response.get_json()
    job_id = body["id"]
    assert body["state"] == "queued"
    assert response.headers["Location"] == f"/api/v1/jobs/{job_id}"
    assert body["links"]["events"] == f"/api/v1/jobs/{job_id}/events"
    doc = jobs.get(job_id)
    assert doc["state"] == "queued"
    assert (doc["model"], doc["name"], doc["tuner"], doc["batch"]) == (
        "zoo:resnet-18",
        "resnet-18",
        "ga",
        1,
    )
    assert doc["early_stopping"] == 50
    assert doc["select_top"] == 3  # in-network selection is on by default
    assert convert_depth(gateway_config) == before + 1
    assert _newest_convert_message(gateway_config) == ("tunefarm.convert", [job_id])


def _newest_convert_message(config) -> tuple[str, list]:
    """(task name, args) of the message most recently sent to `convert` (Celery protocol 2:
    kombu pushes new messages on the left of the list)."""
    import redis

    raw = redis.Redis.from_url(config.broker_url).lindex(config.queue("convert"), 0)
    message = json.loads(raw)
    args = json.loads(base64.b64decode(message["body"]))[0]
    return message["headers"]["task"], args


def test_submit_onnx_upload_stores_the_model(client, jobs, store):
    data = relu_onnx()
    response = upload(client, data, early_stopping="", batch="2")
    assert response.status_code == 202, response.get_json()
    job_id = response.get_json()["id"]
    assert store.path(f"jobs/{job_id}/model.onnx").read_bytes() == data
    doc = jobs.get(job_id)
    assert (doc["model"], doc["name"], doc["batch"]) == ("upload:model.onnx", "relu", 2)
    assert doc["early_stopping"] is None and doc["trials"] == 5


def test_select_top_zero_turns_selection_off(client, jobs):
    response = submit(client, model="resnet-18", select_top=0)
    assert response.status_code == 202, response.get_json()
    assert jobs.get(response.get_json()["id"])["select_top"] == 0


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"model": None}, "model", "missing"),
        ({"trials": "abc"}, "trials", "integer"),
        ({"trials": -1}, "trials", "between 0 and 20000"),
        ({"trials": 20001}, "trials", "between 0 and 20000"),
        ({"trials": 2.5}, "trials", "integer"),
        ({"tuner": "annealing"}, "tuner", "xgb-rank"),
        ({"model": "zoo:alexnet"}, "model", "resnet-18"),
        ({"target": "gpu-x"}, "target", "no backend for 'gpu-x'; targets that exist: cpu"),
        ({"target": "rocm -arch=gfx90a"}, "target", "no backend for 'rocm'"),
        ({"target": "cpu -arch=sm_90"}, "target", "unknown option(s) -arch; cpu takes"),
        ({"target": "vta -config=2x8x8"}, "target", "unknown VTA preset '2x8x8'"),
        ({"target": "vta"}, "quantize", "target 'vta' runs networks quantized to int8"),
        ({"target": "vta", "quantize": "int4"}, "quantize", "unknown quantization 'int4'"),
        ({"quantize": "int8"}, "quantize", "for packed targets (vta) only"),
        (
            {"target": "vta -config=1x32x32", "quantize": "int8", "policy": "sketch"},
            "policy",
            "tunes its packed convs with templates only",
        ),
        ({"target": None}, "target", "missing"),
        ({"device_key": "nope"}, "device_key", DEVICE_KEY),
        ({"batch": 65}, "batch", "between 1 and 64"),
        ({"early_stopping": 0}, "early_stopping", ">= 1"),
        ({"select_top": 9}, "select_top", "between 0 and 8"),
        ({"select_top": "two"}, "select_top", "integer"),
        ({"priority": 10}, "priority", "between 0 and 9"),
        ({"input_shapes": {"data": [1, 0]}}, "input_shapes", ">= 1"),
        ({"trial": 5}, "trial", "unknown field"),
    ],
)
def test_invalid_submission_names_the_field(client, changes, field, fragment):
    response = submit(client, **changes)
    message = assert_field_error(response, field)
    assert response.get_json()["error"] == "invalid request"
    assert fragment in message


def test_a_job_for_a_key_whose_agents_serve_another_target_is_refused(client, gateway_config):
    """The key's agents measure for their own target only: a job for another target would
    fail on every candidate, so it is refused at submission, naming both."""
    tracker = Tracker(gateway_config)
    other = tracker.register("avx2-pool", "cpu -isa=avx2")
    try:
        response = submit(client, device_key="avx2-pool", target="cpu")
        message = assert_field_error(response, "target")
        assert "'avx2-pool' is served by agents of target 'cpu -isa=avx2', not 'cpu'" in message
        ok = submit(client, device_key="avx2-pool", target="cpu   -isa=avx2")
        assert ok.status_code == 202, ok.get_json()
    finally:
        tracker.unregister(other)


def test_a_vta_job_for_a_key_of_cpu_agents_is_refused(client, gateway_config):
    """The same check for the packed flow: a vta job needs a key whose agents serve vta."""
    response = submit(client, target="vta", quantize="int8")
    message = assert_field_error(response, "target")
    assert f"{DEVICE_KEY!r} is served by agents of target 'cpu', not 'vta'" in message
    tracker = Tracker(gateway_config)
    vta = tracker.register("vta-pool", "vta")
    try:
        ok = submit(client, device_key="vta-pool", target="vta", quantize="int8")
        assert ok.status_code == 202, ok.get_json()
    finally:
        tracker.unregister(vta)


def test_several_bad_fields_are_all_reported(client):
    response = submit(client, trials="abc", tuner="x", target="gpu-x")
    assert set(response.get_json()["fields"]) == {"trials", "tuner", "target"}


def test_form_fields_are_converted_and_checked(client):
    response = upload(client, relu_onnx(), trials="abc")
    assert "integer" in assert_field_error(response, "trials")


def test_non_onnx_upload_is_400(client):
    message = assert_field_error(upload(client, b"\xff\x00 this is not a model"), "model")
    assert "not an ONNX model" in message
    empty_graph = assert_field_error(upload(client, b""), "model")
    assert "empty" in empty_graph


def test_oversize_upload_is_413(gateway_config):
    from tunefarm_services.gateway.app import create_app

    tiny = create_app(gateway_config.with_(max_upload_mb=0.001), blueprints=[]).test_client()
    response = upload(tiny, relu_onnx() + b"\0" * 4096)
    assert "over the limit" in assert_field_error(response, "model", 413)
    whole_body = upload(tiny, b"\0" * (2 << 20))  # past the request limit itself
    assert whole_body.status_code == 413
    assert "too large" in whole_body.get_json()["error"]


def test_bad_bodies_are_json_errors(client):
    bad_json = client.post(
        "/api/v1/jobs", data="{nope", content_type="application/json", headers=auth()
    )
    assert "not valid JSON" in assert_field_error(bad_json, "body")
    assert_field_error(client.post("/api/v1/jobs", json=[1, 2], headers=auth()), "body")
    plain = client.post("/api/v1/jobs", data="x", content_type="text/plain", headers=auth())
    assert_field_error(plain, "body", 415)


def test_broker_down_is_503_and_fails_the_job(gateway_config, jobs):
    from tunefarm_services.gateway.app import create_app

    config = gateway_config.with_(broker_url="redis://127.0.0.1:1/0")
    app = create_app(config, blueprints=[])
    response = submit(app.test_client())
    assert response.status_code == 503, response.get_json()
    body = response.get_json()
    assert "broker" in body["error"]
    doc = jobs.get(body["id"])
    assert doc["state"] == "failed" and "broker" in doc["error"]


# -- reading jobs ---------------------------------------------------------------------------------
def test_list_filters_by_state(client, jobs):
    done = make_job(jobs, "done")
    queued = make_job(jobs)
    listed = client.get("/api/v1/jobs?state=done", headers=auth(READ_TOKEN)).get_json()["jobs"]
    ids = [j["id"] for j in listed]
    assert done in ids and queued not in ids
    assert all(j["state"] == "done" for j in listed)
    everything = client.get("/api/v1/jobs", headers=auth(READ_TOKEN)).get_json()["jobs"]
    assert {done, queued} <= {j["id"] for j in everything}
    assert "tasks" not in everything[0] and "task_count" in everything[0]
    bad = client.get("/api/v1/jobs?state=sleeping", headers=auth(READ_TOKEN))
    assert "unknown state" in assert_field_error(bad, "state")
    assert_field_error(client.get("/api/v1/jobs?limit=0", headers=auth(READ_TOKEN)), "limit")


def test_detail_is_the_job_document(client, jobs):
    job_id = make_job(jobs)
    table = [
        {"id": 0, "task": "conv2d", "weight": 2, "latency_ms": 0.4, "gflops": 560.1, "trials": 32}
    ]
    jobs.update(job_id, tasks=table, estimated_latency_ms=0.8, state="tuning")
    doc = client.get(f"/api/v1/jobs/{job_id}", headers=auth(READ_TOKEN)).get_json()
    assert doc["state"] == "tuning"
    assert doc["tasks"] == table
    assert doc["estimated_latency_ms"] == 0.8
    assert doc["links"]["self"] == f"/api/v1/jobs/{job_id}"
    assert doc["queue"] is None  # running: no place in the search queue


def test_a_job_waiting_for_a_search_slot_shows_its_place(client, jobs, gateway_config):
    from tunefarm.distributed.fairshare import SearchAdmission

    ids = [make_job(jobs) for _ in range(3)]
    admission = SearchAdmission(gateway_config)
    for job_id in ids:
        admission.add(jobs.update(job_id, state="extracting"))
    doc = client.get(f"/api/v1/jobs/{ids[2]}", headers=auth(READ_TOKEN)).get_json()
    assert doc["queue"]["position"] >= 3 and doc["queue"]["tenant_ahead"] >= 2
    for job_id in ids:
        admission.remove(jobs.get(job_id))


@pytest.mark.parametrize("suffix", ["", "/events", "/records", "/artifact"])
def test_unknown_job_is_404(client, suffix):
    response = client.get(f"/api/v1/jobs/j-nope{suffix}", headers=auth())
    assert response.status_code == 404
    assert response.get_json() == {"error": "no job 'j-nope'"}


def test_unknown_job_cancel_is_404(client):
    response = client.post("/api/v1/jobs/j-nope/cancel", headers=auth())
    assert response.get_json() == {"error": "no job 'j-nope'"}


def test_unknown_route_and_wrong_method_are_json(client):
    missing = client.get("/api/v1/nothing-here", headers=auth())
    assert missing.status_code == 404 and "error" in missing.get_json()
    wrong = client.delete("/api/v1/jobs", headers=auth())
    assert wrong.status_code == 405 and "DELETE" in wrong.get_json()["error"]
    assert "POST" in wrong.headers["Allow"]


def test_cancel(client, jobs):
    job_id = make_job(jobs)
    response = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=auth())
    assert response.status_code == 202
    assert response.get_json()["state"] == "cancelled"
    again = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=auth())
    assert again.status_code == 409
    assert "already cancelled" in again.get_json()["error"]
    # a tuning job whose search worker is alive (it holds the lease) stops at its next poll
    tuning = make_job(jobs, "tuning")
    jobs.r.set(jobs.lease_key(tuning), "a-live-worker", px=60_000)
    flagged = client.post(f"/api/v1/jobs/{tuning}/cancel", headers=auth()).get_json()
    assert flagged["state"] == "tuning" and flagged["cancel_requested"] is True
    # one that no live worker holds (its worker died, or Redis lost the message) stops now
    orphan = make_job(jobs, "evaluating")
    stopped = client.post(f"/api/v1/jobs/{orphan}/cancel", headers=auth()).get_json()
    assert stopped["state"] == "cancelled"


# -- files ----------------------------------------------------------------------------------------
def test_records_download(client, jobs, store):
    job_id = make_job(jobs, "tuning")
    url = f"/api/v1/jobs/{job_id}/records"
    empty = client.get(url, headers=auth(READ_TOKEN))
    assert empty.status_code == 200 and empty.data == b""
    assert empty.mimetype == "application/x-ndjson"
    lines = [json.dumps({"trial": i, "gflops": 10.0 * i}) for i in range(3)]
    partial = '{"trial": 3, "gfl'  # being appended right now: not sent
    store.write_bytes(f"jobs/{job_id}/records.jsonl", ("\n".join(lines) + "\n" + partial).encode())
    response = client.get(url, headers=auth(READ_TOKEN))
    assert response.get_data(as_text=True).splitlines() == lines


def test_artifact_download(client, jobs, store):
    job_id = make_job(jobs, "tuning")
    url = f"/api/v1/jobs/{job_id}/artifact"
    early = client.get(url, headers=auth(READ_TOKEN))
    assert early.status_code == 409
    assert "no compiled network yet" in early.get_json()["error"]
    store.write_bytes(f"jobs/{job_id}/net.tfa", b"TFA\0compiled")
    response = client.get(url, headers=auth(READ_TOKEN))
    assert response.status_code == 200
    assert response.data == b"TFA\0compiled"
    assert response.mimetype == "application/octet-stream"
    assert "attachment" in response.headers["Content-Disposition"]


# -- events ---------------------------------------------------------------------------------------
def parse_sse(text: str) -> list[dict[str, str]]:
    """Events as {"id", "event", "data"} dicts; comments and `retry:` lines dropped."""
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and ": " in line)
        if "event" in fields:
            events.append(fields)
    return events


def test_events_stream_to_the_terminal_state(client, jobs):
    job_id = make_job(jobs)
    jobs.set_state(job_id, "tuning")
    batch_id = jobs.add_event(job_id, "batch", {"task": 0, "trials": 8, "best_gflops": 1.5})
    jobs.add_event(job_id, "round", {"tasks": [], "estimated_latency_ms": 3.0})
    jobs.set_state(job_id, "done")
    url = f"/api/v1/jobs/{job_id}/events"
    response = client.get(url, headers=auth(READ_TOKEN))
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    events = parse_sse(response.get_data(as_text=True))
    kinds = [e["event"] for e in events]
    assert kinds == ["state", "state", "batch", "round", "state", "end"]
    assert events[2]["id"] == batch_id
    assert json.loads(events[2]["data"])["best_gflops"] == 1.5
    assert json.loads(events[4]["data"])["state"] == "done"
    ids = [e["id"] for e in events[:-1]]
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))))

    resumed = client.get(url, headers={**auth(READ_TOKEN), "Last-Event-ID": batch_id})
    assert [e["event"] for e in parse_sse(resumed.get_data(as_text=True))] == [
        "round",
        "state",
        "end",
    ]
    via_query = client.get(f"{url}?after={batch_id}", headers=auth(READ_TOKEN))
    assert len(parse_sse(via_query.get_data(as_text=True))) == 3
    finished = client.get(url, headers={**auth(READ_TOKEN), "Last-Event-ID": events[4]["id"]})
    assert finished.status_code == 204  # tells EventSource to stop reconnecting
    bad = client.get(f"{url}?after=yesterday", headers=auth(READ_TOKEN))
    assert_field_error(bad, "after")


def test_events_wait_with_keepalives_until_terminal(gateway_app, jobs):
    state = gateway_app.extensions["tunefarm"]
    job_id = make_job(jobs, "tuning")
    state.sse_keepalive_s, saved = 0.2, state.sse_keepalive_s
    finish = threading.Timer(1.0, lambda: jobs.set_state(job_id, "failed", error="boom"))
    finish.start()
    last_id = jobs.events(job_id)[-1][0]  # only what comes next
    try:
        started = time.monotonic()
        response = gateway_app.test_client().get(
            f"/api/v1/jobs/{job_id}/events?after={last_id}", headers=auth(READ_TOKEN)
        )
        text = response.get_data(as_text=True)
    finally:
        finish.join()
        state.sse_keepalive_s = saved
    assert ": keep-alive" in text
    assert 0.9 < time.monotonic() - started < 10
    assert [e["event"] for e in parse_sse(text)] == ["state", "end"]


# -- devices and the API document -----------------------------------------------------------------
def test_devices_lists_the_registered_agent(client, device_key):
    body = client.get("/api/v1/devices", headers=auth(READ_TOKEN)).get_json()
    row = next(r for r in body["devices"] if r["key"] == device_key)
    assert row["total"] == 1 and row["free"] == 1
    assert [a["target"] for a in body["agents"] if a["key"] == device_key] == ["cpu"]


def test_readyz_names_an_unreachable_redis_without_its_address(gateway_config):
    from tunefarm_services.gateway.app import create_app

    down = "redis://127.0.0.1:1/0"
    app = create_app(gateway_config.with_(redis_url=down, broker_url=down), blueprints=[])
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["problems"] == ["redis", "broker"]  # the address: in the log
    assert app.test_client().get("/healthz").status_code == 200


def test_openapi_document_is_valid_and_covers_every_route(client, gateway_app):
    from openapi_spec_validator import validate

    response = client.get("/api/v1/openapi.json", headers=auth(READ_TOKEN))
    assert response.status_code == 200
    document = response.get_json()
    validate(document)
    for rule in gateway_app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        assert path in document["paths"], path
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert method.lower() in document["paths"][path], (method, path)


# -- the server -----------------------------------------------------------------------------------
def test_serve_runs_gunicorn(gateway_config):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = (
        "import sys; from tunefarm.distributed.config import ServiceConfig; "
        "from tunefarm_services.gateway.server import serve; "
        f"serve('127.0.0.1', {port}, 1, 2, ServiceConfig(**{_config_kwargs(gateway_config)!r}))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        body = _get_when_up(f"http://127.0.0.1:{port}/healthz", proc)
        assert json.loads(body) == {"status": "ok"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _config_kwargs(config) -> dict:
    keys = ("broker_url", "redis_url", "prefix", "tokens_file", "artifacts")
    return {k: str(getattr(config, k)) for k in keys}


def _get_when_up(url: str, proc, timeout: float = 30.0) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"gunicorn exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read()
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer within {timeout}s")
