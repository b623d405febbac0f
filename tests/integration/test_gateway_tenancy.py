"""Tenants, scopes and expiry of the gateway's tokens, and the tokens file reloaded on change:
a job belongs to the submitting token's tenant; other tenants' tokens neither list nor read
nor cancel it (404, as if it did not exist) unless they are `admin`; refusals are logged
with the token's name, never the token."""

from __future__ import annotations

import logging
import time
import uuid

import pytest

from tunefarm.distributed.jobs import JobStore
from tunefarm.distributed.tracker import Tracker

pytestmark = pytest.mark.integration

VISION = "vision-" + uuid.uuid4().hex
VISION_READ = "vision-read-" + uuid.uuid4().hex
AUDIO = "audio-" + uuid.uuid4().hex
ADMIN = "admin-" + uuid.uuid4().hex
EXPIRED = "expired-" + uuid.uuid4().hex
KEY = "tenancy-key"
JOB = {"model": "zoo:resnet-18", "target": "cpu", "device_key": KEY, "trials": 4}


@pytest.fixture(scope="module")
def tokens_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tenancy") / "tokens"
    path.write_text(
        f"{VISION} read,submit tenant=vision ci vision\n"
        f"{VISION_READ} read tenant=vision expires=2999-01-01 dashboard\n"
        f"{AUDIO} read,submit tenant=audio ci audio\n"
        f"{ADMIN} read,submit,admin operations\n"
        f"{EXPIRED} read tenant=vision expires=2001-01-01T00:00Z old key\n"
    )
    return path


@pytest.fixture(scope="module")
def app(service_config, tokens_file):
    from tunefarm_services.gateway.app import create_app

    config = service_config.with_(tokens_file=str(tokens_file))
    app = create_app(config, blueprints=None)
    app.testing = True
    tracker = Tracker(config)
    info = tracker.register(KEY, "cpu")
    yield app
    tracker.unregister(info)


@pytest.fixture
def client(app):
    return app.test_client()


def call(client, method: str, path: str, token: str, **kw):
    headers = {"Authorization": f"Bearer {token}"}
    return client.open(f"/api/v1{path}", method=method, headers=headers, **kw)


def submit(client, token: str) -> str:
    response = call(client, "POST", "/jobs", token, json=JOB)
    assert response.status_code == 202, response.get_json()
    return response.get_json()["id"]


def test_a_job_records_its_tenant_and_submitter(client, app, service_config):
    job_id = submit(client, VISION)
    doc = JobStore(service_config).get(job_id)
    assert (doc["tenant"], doc["submitted_by"]) == ("vision", "ci vision")


def test_other_tenants_see_nothing_of_a_job(client):
    job_id = submit(client, VISION)
    for path in ("", "/records", "/artifact", "/events"):
        assert call(client, "GET", f"/jobs/{job_id}{path}", AUDIO).status_code == 404, path
        assert call(client, "GET", f"/jobs/{job_id}{path}", VISION_READ).status_code != 404
    assert call(client, "POST", f"/jobs/{job_id}/cancel", AUDIO).status_code == 404
    audio_ids = {j["id"] for j in call(client, "GET", "/jobs", AUDIO).get_json()["jobs"]}
    vision_ids = {j["id"] for j in call(client, "GET", "/jobs", VISION_READ).get_json()["jobs"]}
    assert job_id not in audio_ids and job_id in vision_ids
    assert all(j["tenant"] == "vision" for j in call(client, "GET", "/jobs", VISION).json["jobs"])


def test_admin_sees_and_cancels_every_tenants_jobs(client):
    vision, audio = submit(client, VISION), submit(client, AUDIO)
    ids = {j["id"] for j in call(client, "GET", "/jobs", ADMIN).get_json()["jobs"]}
    assert {vision, audio} <= ids
    assert call(client, "GET", f"/jobs/{audio}", ADMIN).status_code == 200
    assert call(client, "POST", f"/jobs/{vision}/cancel", ADMIN).status_code == 202


def test_the_ui_hides_other_tenants_jobs(client):
    job_id = submit(client, VISION)
    client.set_cookie("tunefarm_token", AUDIO)
    assert client.get(f"/jobs/{job_id}").status_code == 404
    client.set_cookie("tunefarm_token", VISION_READ)
    assert client.get(f"/jobs/{job_id}").status_code == 200


def test_an_expired_token_is_refused(client):
    response = call(client, "GET", "/jobs", EXPIRED)
    assert response.status_code == 401
    assert "expired" in response.get_json()["error"]


def test_refusals_are_logged_by_name_never_by_secret(client, caplog):
    job_id = submit(client, VISION)
    with caplog.at_level(logging.WARNING, logger="tunefarm.gateway.auth"):
        call(client, "GET", f"/jobs/{job_id}", AUDIO)
        call(client, "POST", "/jobs", VISION_READ, json=JOB)
        call(client, "GET", "/jobs", EXPIRED)
        call(client, "GET", "/jobs", "not-a-token-" + uuid.uuid4().hex)
    text = caplog.text
    assert "'ci audio'" in text and "another tenant" in text
    assert "'dashboard'" in text and "submit" in text
    assert "'old key'" in text and "expired" in text
    assert "unknown token" in text
    for secret in (VISION, VISION_READ, AUDIO, EXPIRED, "not-a-token-"):
        assert secret not in text


def test_the_tokens_file_is_reloaded_on_change(service_config, tmp_path):
    from tunefarm_services.gateway.app import create_app

    path = tmp_path / "tokens"
    first, second = "first-" + uuid.uuid4().hex, "second-" + uuid.uuid4().hex
    path.write_text(f"{first} read one\n")
    client = create_app(service_config.with_(tokens_file=str(path)), blueprints=[]).test_client()
    assert call(client, "GET", "/jobs", first).status_code == 200
    assert call(client, "GET", "/jobs", second).status_code == 401
    path.write_text(f"{second} read two\n")  # revoke one, add the other: no restart
    deadline = time.monotonic() + 5
    while call(client, "GET", "/jobs", second).status_code != 200:
        assert time.monotonic() < deadline, "the new token was not picked up"
        time.sleep(0.2)
    assert call(client, "GET", "/jobs", first).status_code == 401
    path.write_text("broken-line-without-scopes\n")  # malformed later: refuse every token
    deadline = time.monotonic() + 5
    while call(client, "GET", "/jobs", second).status_code != 401:
        assert time.monotonic() < deadline, "a malformed file kept old tokens working"
        time.sleep(0.2)


def test_tokens_file_options_are_checked():
    from tunefarm_services.gateway import auth

    s1 = "s1-" + "x" * 16
    ring = auth.parse_tokens(f"{s1} read,admin tenant=x expires=2030-01-01 a name\n")
    token = ring.find(s1)
    assert (token.tenant, token.name, token.admin, token.allows("read")) == (
        "x",
        "a name",
        True,
        True,
    )
    assert not token.allows("submit")
    with pytest.raises(auth.TokensFileError, match="line 1.*expires"):
        auth.parse_tokens("s-xxxxxxxxxxxxxxxx read expires=soon\n")
    with pytest.raises(auth.TokensFileError, match="line 2.*tenant"):
        auth.parse_tokens("a-xxxxxxxxxxxxxxxx read\ns-xxxxxxxxxxxxxxxx read tenant=a/b\n")
