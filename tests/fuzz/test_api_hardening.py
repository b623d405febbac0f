"""Hostile-tenant requests of issue 25 (hardening, round 2): each test failed on the main it
was written against. The gateway must answer each with a clear 4xx, never a 500, and its
memory must stay flat (the last test reads the served gateway's peak resident size)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import requests
from api_tokens import DEVICE_KEY, METRICS_TOKEN, TOKEN

pytestmark = pytest.mark.integration

JOB = {"model": "zoo:resnet-18", "target": "cpu", "device_key": DEVICE_KEY, "trials": 4}
PEAK_RSS_MB = 300  # the bound for the gateway through the hostile suite


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(fuzz_app):
    return fuzz_app.test_client()


@pytest.fixture
def agent(fuzz_config):
    """A live agent of the session's device key (the session's own registration lapses
    after the heartbeat TTL, so a test that needs one registers it)."""
    from tunefarm.distributed.tracker import Tracker

    tracker = Tracker(fuzz_config)
    info = tracker.register(DEVICE_KEY, "cpu")
    yield info
    tracker.unregister(info)


def assert_clean(response, status: int | tuple[int, ...] = 400) -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    body = response.get_data(as_text=True)
    assert response.status_code in statuses, (response.status_code, body[:300])
    assert "Traceback" not in body


def worker_rss_mb(live_gateway, field: str = "VmHWM") -> float:
    """The largest resident size of the gateway's worker processes: now (VmRSS) or at its
    peak (VmHWM)."""
    children = Path(f"/proc/{live_gateway.pid}/task/{live_gateway.pid}/children")
    sizes = []
    for pid in children.read_text().split():
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                sizes.append(int(line.split()[1]) / 1024)
    assert sizes, "no gateway worker process found"
    return max(sizes)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def inflating_model(count: int) -> bytes:
    """A model whose int64 initializer holds `count` zeros packed one byte each: `count`
    bytes on the wire, 8 x `count` and more once parsed. Encoded by hand, so the test
    process never parses it either."""
    from onnx import GraphProto, ModelProto, TensorProto, helper

    tensor = TensorProto(name="w", data_type=TensorProto.INT64, dims=[count])
    tensor_bytes = tensor.SerializeToString() + b"\x3a" + _varint(count) + bytes(count)
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [count])
    graph = GraphProto(name="inflate", node=[helper.make_node("Identity", ["w"], ["y"])])
    graph.output.append(y)
    graph_bytes = graph.SerializeToString() + b"\x2a" + _varint(len(tensor_bytes)) + tensor_bytes
    model = ModelProto(ir_version=8, opset_import=[helper.make_opsetid("", 13)])
    return model.SerializeToString() + b"\x3a" + _varint(len(graph_bytes)) + graph_bytes


# -- 1: an upload is parsed in a memory-limited child, never in the gateway ------------------
def test_an_inflating_upload_is_refused_and_the_gateway_stays_small(live_gateway):
    data = inflating_model(20 << 20)  # 20 MiB on the wire, ~400 MiB parsed
    before = worker_rss_mb(live_gateway, "VmRSS")
    fields = {k: str(v) for k, v in JOB.items() if k != "model"}
    response = requests.post(
        f"{live_gateway.url}/api/v1/jobs",
        data=fields,
        files={"model": ("inflate.onnx", data)},
        headers=auth(),
        timeout=120,
    )
    assert response.status_code in (400, 413), (response.status_code, response.text[:300])
    assert "MiB of memory" in response.json()["fields"]["model"]
    assert worker_rss_mb(live_gateway, "VmRSS") - before < 50
    assert worker_rss_mb(live_gateway) < PEAK_RSS_MB  # the body's copies, never its parse


def test_external_data_inside_a_function_is_refused(client):
    from onnx import TensorProto, helper

    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    weight.data_location = TensorProto.EXTERNAL
    weight.ClearField("float_data")
    entry = weight.external_data.add()
    entry.key, entry.value = "location", "../../job.json"
    const = helper.make_node("Constant", [], ["c"], value=weight)
    add = helper.make_node("Add", ["a", "c"], ["b"])
    function = helper.make_function("local", "AddW", ["a"], ["b"], [const, add],
                                    [helper.make_opsetid("", 13)])  # fmt: skip
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    node = helper.make_node("AddW", ["x"], ["y"], domain="local")
    graph = helper.make_graph([node], "fn", [x], [y])
    model = helper.make_model(graph, functions=[function], opset_imports=[
        helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])  # fmt: skip
    fields = {k: str(v) for k, v in JOB.items() if k != "model"}
    fields["model"] = (io.BytesIO(model.SerializeToString()), "fn.onnx")
    response = client.post(
        "/api/v1/jobs", data=fields, headers=auth(), content_type="multipart/form-data"
    )
    assert_clean(response)
    message = response.get_json()["fields"]["model"]
    assert "function 'AddW'" in message and "external file" in message


def test_onnx_is_recent_enough_to_refuse_paths_outside_the_model(tmp_path):
    from importlib.metadata import version

    from packaging.version import Version

    assert Version(version("onnx")) >= Version("1.21.0")
    pyproject = (Path(__file__).parents[2] / "shared" / "pyproject.toml").read_text()
    assert '"onnx>=1.21.0"' in pyproject


# -- 2: a target given over the API never reads a file -----------------------------------------
def test_a_target_never_names_a_file_over_the_api(client, tmp_path):
    """Every path gets the same answer, without reading it: no existence oracle, no leaked
    key, no UnicodeDecodeError (a 500) for a binary file. (/dev/zero is not tried: before the
    fix it was read until the process ran out of memory.)"""
    secret = tmp_path / "secret.json"
    secret.write_text('{"hunter2-key": 1}')
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00\x81" * 64)
    messages = set()
    for path in ("/nonexistent/x.json", "/etc/shadow", str(secret), str(binary), "/dev/null",
                 "relative.json"):  # fmt: skip
        response = client.post(
            "/api/v1/jobs", json={**JOB, "target": f"vta -config={path}"}, headers=auth()
        )
        assert_clean(response)
        message = response.get_json()["fields"]["target"]
        assert "hunter2" not in message
        messages.add(message.replace(path, "PATH"))
    assert len(messages) == 1, messages
    assert "not a file path" in messages.pop()


def test_an_unknown_target_is_refused_before_its_options(client):
    response = client.post(
        "/api/v1/jobs", json={**JOB, "target": "nosuch -config=/dev/zero"}, headers=auth()
    )
    assert_clean(response)
    assert "no backend for 'nosuch'" in response.get_json()["fields"]["target"]


def test_a_preset_target_still_works_over_the_api(client):
    response = client.post(
        "/api/v1/jobs", json={**JOB, "target": "vta -config=1x32x32"}, headers=auth()
    )
    # no agent serves vta (and the session's agent may have lapsed): a 400, never about
    # the config
    assert_clean(response)
    fields = response.get_json()["fields"]
    assert "file path" not in str(fields)
    assert "target" not in fields or "served by agents" in fields["target"]


# -- 6: -cores -----------------------------------------------------------------------------------
@pytest.mark.parametrize("cores", ["²", "9" * 5000, "٣", "99999999"])
def test_a_bad_cores_value_is_a_400(client, cores):
    response = client.post(
        "/api/v1/jobs", json={**JOB, "target": f"cpu -cores={cores}"}, headers=auth()
    )
    assert_clean(response)
    assert "-cores=" in response.get_json()["fields"]["target"]
    from tunefarm.backends import TargetError, parse_target

    with pytest.raises(TargetError, match="integer from 0"):
        parse_target(f"cpu -cores={cores}")


# -- 3: the JSON cap counts bytes, whatever the framing ----------------------------------------
def test_a_chunked_json_body_over_the_cap_is_a_413(live_gateway):
    def chunks():
        yield b'{"name": "'
        for _ in range(40):
            yield b"x" * (64 << 10)  # 2.5 MiB in all, over the 1 MiB cap
        yield b'"}'

    response = requests.post(
        f"{live_gateway.url}/api/v1/jobs",
        data=chunks(),  # a generator: Transfer-Encoding: chunked, no Content-Length
        headers={**auth(), "Content-Type": "application/json"},
        timeout=30,
    )
    assert response.status_code == 413, (response.status_code, response.text[:300])
    assert "at most" in response.json()["fields"]["body"]


# -- 4: event streams are bounded, and their token is checked while they run -------------------
def _job(config) -> str:
    from tunefarm.distributed.jobs import JobStore

    return JobStore(config).create({**JOB, "tenant": "default"})["id"]


def test_event_streams_are_capped_per_token_and_in_all(fuzz_config):
    from api_tokens import READ_TOKEN
    from tunefarm_services.gateway.app import create_app

    app = create_app(fuzz_config.with_(max_streams=3, max_streams_per_token=2), blueprints=[])
    client = app.test_client()
    url = f"/api/v1/jobs/{_job(fuzz_config)}/events"
    held = [client.get(url, headers=auth(), buffered=False) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    third = client.get(url, headers=auth(), buffered=False)
    assert_clean(third, 429)
    assert int(third.headers["Retry-After"]) > 0 and "TUNEFARM_MAX_STREAMS_PER_TOKEN" in third.text
    held.append(client.get(url, headers=auth(READ_TOKEN), buffered=False))
    assert held[-1].status_code == 200
    over = client.get(url, headers=auth(READ_TOKEN), buffered=False)
    assert_clean(over, 429)
    assert "(TUNEFARM_MAX_STREAMS)" in over.text
    held.pop(0).close()  # a closed stream frees its slot
    again = client.get(url, headers=auth(), buffered=False)
    assert again.status_code == 200
    for response in [*held, again]:
        response.close()
    assert app.extensions["tunefarm"].stream_slots.total() == 0


def test_the_redis_pools_are_bounded_and_fit_every_allowed_stream(fuzz_app, fuzz_config):
    """Each stream blocks on a connection of its own: the pool holds as many as streams are
    allowed (and not unboundedly more); a command past it waits instead of failing."""
    import redis

    state = fuzz_app.extensions["tunefarm"]
    pool = state.streams.connection_pool
    assert fuzz_config.max_streams <= pool.max_connections <= fuzz_config.max_streams + 64
    assert isinstance(pool, redis.BlockingConnectionPool)
    assert isinstance(state.redis.connection_pool, redis.BlockingConnectionPool)


def test_a_stream_ends_when_its_token_is_revoked(fuzz_config, tmp_path):
    from tunefarm_services.gateway.app import create_app

    tokens = tmp_path / "tokens"
    secret = "revoke-me-" + "x" * 16
    tokens.write_text(f"{secret} read doomed\n{TOKEN} read,submit keeper\n")
    app = create_app(fuzz_config.with_(tokens_file=str(tokens)), blueprints=[])
    state = app.extensions["tunefarm"]
    state.sse_keepalive_s = state.stream_recheck_s = 0.2
    client = app.test_client()
    response = client.get(f"/api/v1/jobs/{_job(fuzz_config)}/events", headers=auth(secret),
                          buffered=False)  # fmt: skip
    assert response.status_code == 200
    chunks = iter(response.response)
    assert next(chunks).startswith(b"retry:")
    tokens.write_text(f"{TOKEN} read,submit keeper\n")  # revoked
    state.token_source._checked = 0.0  # the next look reads the file (no 1 s wait)
    text = b""
    for _, chunk in zip(range(50), chunks, strict=False):  # keep-alives come every 0.2 s
        text += chunk if isinstance(chunk, bytes) else chunk.encode()
    assert b"event: end" in text and b"revoked" in text
    response.close()


# -- 5: lists and metrics cost what they return, not every job ---------------------------------
def _hget_calls(r) -> int:
    return int(r.info("commandstats").get("cmdstat_hget", {}).get("calls", 0))


def test_a_list_page_and_a_scrape_read_no_more_than_they_show(fuzz_config, tmp_path):
    import uuid

    from tunefarm_services.gateway.app import create_app

    from tunefarm.distributed.jobs import JobStore

    config = fuzz_config.with_(prefix=f"tfpage-{uuid.uuid4().hex[:8]}", artifacts=tmp_path)
    jobs = JobStore(config)
    ids = [jobs.create({**JOB, "tenant": "default"})["id"] for _ in range(120)]
    jobs.set_state(ids[0], "failed", error="x")
    client = create_app(config, blueprints=[]).test_client()
    r = config.redis()
    seen, cursor, before = [], None, _hget_calls(r)
    for _ in range(3):
        query = "?limit=5" + (f"&cursor={cursor}" if cursor else "")
        body = client.get("/api/v1/jobs" + query, headers=auth()).get_json()
        seen += [job["id"] for job in body["jobs"]]
        cursor = body["next"]
    assert _hget_calls(r) - before <= 3 * 5 + 5  # the pages' documents, not 120
    assert seen == ids[::-1][:15]  # newest first, no gap, no repeat
    assert body["counts"]["queued"] == 119 and body["counts"]["failed"] == 1
    before = _hget_calls(r)
    scrape = client.get("/metrics", headers=auth(METRICS_TOKEN))
    assert 'tunefarm_jobs{state="queued"} 119.0' in scrape.text
    assert _hget_calls(r) - before <= 2
    assert_clean(client.get("/api/v1/jobs?cursor=nan~x", headers=auth()))


# -- 5: quotas and a rate limit per tenant, set in the tokens file ----------------------------
def test_quotas_from_the_tokens_file_answer_429(fuzz_config, tmp_path, agent):
    import uuid

    from tunefarm_services.gateway.app import create_app

    tag = uuid.uuid4().hex[:8]
    burst, daily, single = (f"quota-{name}-{tag}-" + "x" * 8 for name in ("b", "d", "s"))
    tokens = tmp_path / "tokens"
    tokens.write_text(
        f"{burst} read,submit tenant=burst-{tag} submits_per_minute=0 bursty\n"
        f"{daily} read,submit tenant=daily-{tag} trials_per_day=5 daily\n"
        f"{single} read,submit tenant=single-{tag} max_running=1 single\n"
    )
    client = create_app(fuzz_config.with_(tokens_file=str(tokens)), blueprints=[]).test_client()

    def submit(token):
        return client.post("/api/v1/jobs", json=JOB, headers=auth(token))

    for token, first_ok, bound in ((burst, False, "submits_per_minute=0"),
                                   (daily, True, "trials_per_day=5"),
                                   (single, True, "max_running=1")):  # fmt: skip
        if first_ok:
            assert submit(token).status_code == 202
        refused = submit(token)
        assert_clean(refused, 429)
        assert bound in refused.get_json()["error"]
        assert int(refused.headers["Retry-After"]) > 0


# -- 8: the tokens file ------------------------------------------------------------------------
def test_the_tokens_file_refuses_what_would_weaken_or_leak(tmp_path):
    from tunefarm_services.gateway import auth

    secret = "Zr8u2kQ0vX4mT1pL9aB3"
    bad = {
        f"read,submit {secret} ci\n": "first column is the token",
        f"{secret} {secret}x ci\n": "unknown scope",
        "short-secret read\n": "at least 16",
        "change-me-admin-0123456789 read,submit,admin\n": "example token",
        f"{secret} read tenant=a tenant=b\n": "given twice",
        f"{secret} read expires=2030-01-01 expires=2031-01-01\n": "given twice",
        f"{secret} read tennant=a\n": "unknown option 'tennant'",
    }
    for text, expected in bad.items():
        with pytest.raises(auth.TokensFileError, match=expected) as err:
            auth.parse_tokens(text)
        assert secret not in str(err.value)
    path = tmp_path / "tokens"
    path.write_bytes(("\ufeff" + f"{secret} read tenant=a max_running=3 first\n").encode())
    token = auth.load_tokens(str(path)).find(secret)
    assert token is not None and token.quotas.max_running == 3  # the BOM is not in the secret


def test_a_same_size_rewrite_of_the_tokens_file_is_picked_up(tmp_path):
    import os

    from tunefarm_services.gateway import auth

    path = tmp_path / "tokens"
    old, new = "A" * 20, "B" * 20
    path.write_text(f"{old} read\n")
    stat = path.stat()
    source = auth.TokenSource(str(path))
    path.write_text(f"{new} read\n")  # same size; same mtime below (a coarse clock)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    source._checked = 0.0  # look now, not a second later
    ring = source.ring()
    assert ring.find(new) is not None and ring.find(old) is None


# -- 9: what a request puts in the log cannot forge a line -------------------------------------
def test_a_line_break_in_the_path_cannot_forge_a_log_line(client, caplog):
    import logging

    forged = "/api/v1/jobs/x%0a2026-01-01 INFO tunefarm.gateway job j-1 submitted by admin"
    with caplog.at_level(logging.INFO, logger="tunefarm.gateway"):
        assert_clean(client.get(forged), 401)  # no token: refused, and logged
        assert_clean(client.get("/api/v1/jobs", headers=auth("unknown-" + "x" * 16)), 401)
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 2 and "no token" in refusals[0]
    assert all("\n" not in message for message in refusals), refusals
    assert "\\n2026-01-01 INFO" in refusals[0]


# -- 10: what the gateway shows to whom ----------------------------------------------------------
def test_metrics_need_the_metrics_scope_and_readyz_names_no_address(fuzz_config, tmp_path):
    from tunefarm_services.gateway.app import create_app

    scraper, reader = "scraper-" + "x" * 16, "reader-" + "x" * 16
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{scraper} metrics prometheus\n{reader} read dashboard\n")
    client = create_app(fuzz_config.with_(tokens_file=str(tokens)), blueprints=[]).test_client()
    assert_clean(client.get("/metrics"), 401)
    assert_clean(client.get("/metrics", headers=auth(reader)), 403)
    assert client.get("/metrics", headers=auth(scraper)).status_code == 200
    assert client.get("/api/v1/jobs", headers=auth(scraper)).status_code == 403
    down = "redis://127.0.0.1:1/0"
    app = create_app(fuzz_config.with_(redis_url=down, broker_url=down), blueprints=[])
    ready = app.test_client().get("/readyz")
    assert_clean(ready, 503)
    assert "127.0.0.1" not in ready.text and ":1/" not in ready.text


def test_device_hosts_are_for_admins_and_answers_are_not_cached(fuzz_config, tmp_path, agent):
    from tunefarm_services.gateway.app import create_app

    admin, tenant = "admin-" + "x" * 16, "tenant-" + "x" * 16
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{admin} read,admin ops\n{tenant} read tenant=other reader\n")
    client = create_app(fuzz_config.with_(tokens_file=str(tokens)), blueprints=[]).test_client()
    seen = client.get("/api/v1/devices", headers=auth(tenant))
    assert seen.get_json()["agents"]
    assert all("host" not in a and "pid" not in a for a in seen.get_json()["agents"])
    full = client.get("/api/v1/devices", headers=auth(admin)).get_json()["agents"]
    assert all("host" in a and "pid" in a for a in full)
    for path in ("/api/v1/jobs", "/api/v1/devices", "/api/v1/nowhere"):
        response = client.get(path, headers=auth(admin))
        assert response.headers.get("Cache-Control") == "no-store", path
