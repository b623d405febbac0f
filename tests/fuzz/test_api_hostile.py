"""Hand-written hostile requests against the gateway, one for each way it was found to break
(issue 18): each must get a clear 4xx (or a safe redirect), never a 500 or a traceback, and
the gateway must stay healthy. The connection-level cases (slow headers, slow bodies, many
event streams, streams longer than Redis' socket timeout) run against the real server."""

from __future__ import annotations

import io
import json
import socket
import threading
import time

import pytest
import requests
from api_tokens import DEVICE_KEY, READ_TOKEN, TOKEN

pytestmark = pytest.mark.integration

JOB = {"model": "zoo:resnet-18", "target": "cpu", "device_key": DEVICE_KEY, "trials": 4}


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(fuzz_app):
    return fuzz_app.test_client()


def assert_clean(response, status: int | tuple[int, ...] = 400) -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    body = response.get_data(as_text=True)
    assert response.status_code in statuses, (response.status_code, body[:300])
    assert "Traceback" not in body


# -- requests that gave a 500 -----------------------------------------------------------------
def test_deeply_nested_json_is_a_400(client):
    body = "[" * 100_000 + "]" * 100_000
    response = client.post(
        "/api/v1/jobs", data=body, headers=auth(), content_type="application/json"
    )
    assert_clean(response)
    nested = '{"input_shapes": ' + '{"a": ' * 50_000 + "1" + "}" * 50_000 + "}"
    assert_clean(
        client.post("/api/v1/jobs", data=nested, headers=auth(), content_type="application/json")
    )


def test_nested_input_shapes_in_a_form_is_a_400(client):
    form = {**{k: str(v) for k, v in JOB.items()}, "input_shapes": "[" * 100_000 + "]" * 100_000}
    response = client.post("/api/v1/jobs", data=form, headers=auth())
    assert_clean(response)
    assert "input_shapes" in response.get_json()["fields"]


@pytest.mark.parametrize("field", ["trials", "batch", "select_top", "early_stopping"])
def test_a_form_integer_of_thousands_of_digits_is_a_400(client, field):
    form = {**{k: str(v) for k, v in JOB.items()}, field: "9" * 5000}
    response = client.post("/api/v1/jobs", data=form, headers=auth())
    assert_clean(response)
    assert "digits" in response.get_json()["fields"][field]
    huge = client.get("/api/v1/jobs?limit=" + "9" * 5000, headers=auth())
    assert_clean(huge)


def test_event_ids_above_2_to_the_64_are_a_400(client, fuzz_config):
    from tunefarm.distributed.jobs import JobStore

    job_id = JobStore(fuzz_config).create({**JOB, "tenant": "default"})["id"]
    big = str(2**64)
    for query, headers in ((f"?after={big}-0", {}), ("", {"Last-Event-ID": f"1-{big}"})):
        response = client.get(f"/api/v1/jobs/{job_id}/events{query}", headers={**auth(), **headers})
        assert_clean(response)
        assert "event id" in response.get_json()["fields"]["after"]


@pytest.mark.parametrize(
    "next_url",
    ["/%0d%0aSet-Cookie:x=1", "/jobs%0a", "/\r\nLocation: //evil.example", "/%09/evil.example",
     "/\t/evil.example", "//evil.example", "/\\evil.example", "https://evil.example/",
     "/ /evil.example", "/" + "a" * 5000],
)  # fmt: skip
def test_login_next_never_redirects_off_site_nor_fails(client, next_url):
    client.set_cookie("tunefarm_token", TOKEN)
    response = client.get("/login", query_string={"next": next_url})
    assert_clean(response, (200, 302, 303))
    location = response.headers.get("Location", "")
    stripped = "".join(c for c in location if c not in "\t\r\n ")
    assert not stripped.startswith("//") and "://" not in stripped and "\\" not in stripped
    assert "\r" not in location and "\n" not in location


def test_uploads_over_the_tensor_budget_are_refused_before_conversion(client):
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1024, 1024, 1024])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [5, 1024, 1024, 1024])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "huge", [x], [y])
    data = helper.make_model(graph).SerializeToString()
    onnx.checker.check_model(onnx.load_from_string(data))
    fields = {**{k: str(v) for k, v in JOB.items() if k != "model"}}
    fields["model"] = (io.BytesIO(data), "huge.onnx")
    response = client.post(
        "/api/v1/jobs", data=fields, headers=auth(), content_type="multipart/form-data"
    )
    assert_clean(response)
    message = response.get_json()["fields"]["model"]
    assert "input 'x'" in message and "TUNEFARM_MAX_TENSOR_BYTES" in message


def test_every_answer_carries_nosniff_and_no_framing(client):
    paths = ["/healthz", "/readyz", "/metrics", "/api/v1/jobs", "/api/v1/nowhere", "/login",
             "/ui/static/ui.css", "/"]  # fmt: skip
    for path in paths:
        response = client.get(path, headers=auth())
        assert response.headers.get("X-Content-Type-Options") == "nosniff", path
        assert response.headers.get("X-Frame-Options") == "DENY", path


def test_a_job_of_another_tenant_or_an_id_no_job_can_have_is_a_404(client):
    for job_id in ("../../etc/passwd", "x" * 5000, "j-%00", "%2e%2e"):
        assert_clean(client.get(f"/api/v1/jobs/{job_id}", headers=auth()), 404)


# -- the real server: connections ---------------------------------------------------------------
def test_the_gateway_listens_on_localhost_by_default():
    from tunefarm.cli.main import build_parser

    args = build_parser().parse_args(["serve", "gateway"])
    assert args.host == "127.0.0.1"


def test_half_sent_headers_do_not_starve_the_gateway(live_gateway):
    sockets = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", live_gateway.port))
        s.sendall(b"GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        sockets.append(s)
    try:
        start = time.monotonic()
        assert requests.get(live_gateway.url + "/healthz", timeout=5).ok
        jobs = requests.get(live_gateway.url + "/api/v1/jobs", headers=auth(READ_TOKEN), timeout=5)
        assert jobs.ok and time.monotonic() - start < 5
        # and each half-open connection is closed by the header deadline (3 s here)
        sockets[0].settimeout(10)
        try:
            rest = sockets[0].recv(100)
        except ConnectionResetError:
            rest = b""
        assert rest == b"" or rest.startswith(b"HTTP/1.1 4"), rest
        assert time.monotonic() - start < 9
    finally:
        for s in sockets:
            s.close()


def test_a_body_that_never_arrives_is_cut_off(live_gateway):
    s = socket.create_connection(("127.0.0.1", live_gateway.port))
    s.settimeout(15)
    head = (
        "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Length: 1000\r\n\r\n"
    )
    start = time.monotonic()
    s.sendall(head.encode() + b'{"model": ')
    reply = s.recv(4096)
    s.close()
    assert time.monotonic() - start < 10, "the slow body held the connection"
    assert reply.startswith(b"HTTP/1.1 408") or reply == b"", reply[:200]
    assert requests.get(live_gateway.url + "/healthz", timeout=5).ok


def test_many_event_streams_leave_the_api_answering(live_gateway, fuzz_config):
    from tunefarm.distributed.jobs import JobStore

    job_id = JobStore(fuzz_config).create({**JOB, "tenant": "default"})["id"]
    url = f"{live_gateway.url}/api/v1/jobs/{job_id}/events"
    streams = [
        requests.get(url, headers=auth(READ_TOKEN), stream=True, timeout=30) for _ in range(24)
    ]
    try:
        assert all(r.status_code == 200 for r in streams)
        start = time.monotonic()
        assert requests.get(live_gateway.url + "/healthz", timeout=5).ok
        response = requests.get(
            f"{live_gateway.url}/api/v1/jobs/{job_id}", headers=auth(), timeout=5
        )
        assert response.ok and time.monotonic() - start < 5
    finally:
        for r in streams:
            r.close()


def test_an_event_stream_outlives_redis_socket_timeout(live_gateway, fuzz_config):
    """A quiet job's stream waits in XREAD BLOCK for 15 s between keep-alives: longer than
    redis-py's default 5 s socket timeout, which used to cut it."""
    from tunefarm.distributed.jobs import JobStore

    jobs = JobStore(fuzz_config)
    job_id = jobs.create({**JOB, "tenant": "default"})["id"]
    url = f"{live_gateway.url}/api/v1/jobs/{job_id}/events"
    seen: list[bytes] = []
    with requests.get(url, headers=auth(READ_TOKEN), stream=True, timeout=30) as r:

        def later() -> None:
            time.sleep(17)
            jobs.set_state(job_id, "failed", error="stopped by the test")

        threading.Thread(target=later, daemon=True).start()
        for line in r.iter_lines():
            seen.append(line)
    text = b"\n".join(seen).decode()
    assert "keep-alive" in text and "event: end" in text, text[-500:]
    log = live_gateway.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-2000:]


def test_redis_down_is_a_503_not_a_500(fuzz_config, tmp_path):
    from stack_env import free_port
    from tunefarm_services.gateway.app import create_app

    dead = f"redis://127.0.0.1:{free_port()}/0"
    app = create_app(fuzz_config.with_(redis_url=dead, broker_url=dead))
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 503
    for path in ("/api/v1/jobs", "/api/v1/jobs/j-1", "/api/v1/devices"):
        response = client.get(path, headers=auth())
        assert_clean(response, 503)
        assert "unavailable" in json.loads(response.data)["error"]
    client.set_cookie("tunefarm_token", TOKEN)
    assert_clean(client.get("/jobs/j-20260101-000000-00000000"), 503)
    submitted = client.post("/api/v1/jobs", json=JOB, headers=auth())
    assert_clean(submitted, 503)


def test_uploads_with_external_data_are_refused(client):
    from onnx import TensorProto, helper

    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    weight.data_location = TensorProto.EXTERNAL
    weight.ClearField("float_data")
    entry = weight.external_data.add()
    entry.key, entry.value = "location", "../../job.json"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])], "ext", [x], [y], [weight]
    )
    fields = {**{k: str(v) for k, v in JOB.items() if k != "model"}}
    fields["model"] = (io.BytesIO(helper.make_model(graph).SerializeToString()), "ext.onnx")
    response = client.post(
        "/api/v1/jobs", data=fields, headers=auth(), content_type="multipart/form-data"
    )
    assert_clean(response)
    assert "external file" in response.get_json()["fields"]["model"]


def test_the_converter_runs_under_an_address_space_limit(monkeypatch, tmp_path):
    """A model whose conversion needs more memory than the limit fails in one line naming
    the limit; the converter (this process) is untouched."""
    from onnx import TensorProto, helper

    from tunefarm.distributed.convert import ConversionError, load_isolated

    # a 1.5 GiB constant folded by the importer: within a raised tensor budget, over the
    # converter's address space
    shape = helper.make_tensor("s", TensorProto.INT64, [2], [384, 1 << 20])
    const = helper.make_node("ConstantOfShape", ["s"], ["big"])
    out = helper.make_node("ReduceSum", ["big"], ["y"], keepdims=0)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    graph = helper.make_graph([const, out], "blowup", [], [y], [shape])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "blowup.onnx"
    path.write_bytes(model.SerializeToString())
    monkeypatch.setenv("TUNEFARM_MAX_TENSOR_BYTES", str(8 << 30))
    monkeypatch.setenv("TUNEFARM_CONVERT_MEMORY_MB", "1024")
    with pytest.raises(ConversionError, match="1024 MiB") as err:
        load_isolated(str(path))
    assert "\n" not in str(err.value)
