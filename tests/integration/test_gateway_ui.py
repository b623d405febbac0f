"""The web UI's server side through Flask's test client (no browser): the login gate, the
token cookie's flags, refused logins, cross-site POSTs, safe redirects, the pages and their
security headers, and that the blueprint's templates and static files are found. The pages'
behaviour in a real browser is tests/browser/test_ui.py."""

from __future__ import annotations

import uuid

import pytest

from tunefarm.distributed.jobs import JobStore

pytestmark = pytest.mark.integration

SUBMIT_TOKEN = "ui-submit-" + uuid.uuid4().hex
READ_TOKEN = "ui-read-" + uuid.uuid4().hex
SUBMIT_ONLY_TOKEN = "ui-submit-only-" + uuid.uuid4().hex
PAGES = ("/", "/submit", "/devices")


@pytest.fixture(scope="module")
def ui_config(service_config, tmp_path_factory):
    tokens = tmp_path_factory.mktemp("ui") / "tokens"
    lines = [f"{SUBMIT_TOKEN} read,submit alice", f"{READ_TOKEN} read viewer"]
    tokens.write_text("\n".join([*lines, f"{SUBMIT_ONLY_TOKEN} submit ci", ""]))
    return service_config.with_(tokens_file=str(tokens))


@pytest.fixture(scope="module")
def app(ui_config):
    from tunefarm_services.gateway.app import create_app

    app = create_app(ui_config)  # default blueprints: the UI is found and registered
    app.testing = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


def signed_in(client, token: str = SUBMIT_TOKEN):
    reply = client.post("/login", data={"token": token})
    assert reply.status_code == 302, reply.data
    return client


def set_cookie_headers(reply) -> list[str]:
    return reply.headers.getlist("Set-Cookie")


@pytest.mark.parametrize("path", [*PAGES, "/jobs/j-anything"])
def test_pages_redirect_to_the_login_without_a_token(client, path):
    reply = client.get(path)
    assert reply.status_code == 302
    assert reply.headers["Location"].startswith("/login?next=")


def test_login_sets_a_secure_httponly_strict_cookie_named_for_the_api(client):
    reply = client.post("/login", data={"token": SUBMIT_TOKEN, "next": "/devices"})
    assert reply.status_code == 302 and reply.headers["Location"] == "/devices"
    (cookie,) = set_cookie_headers(reply)
    assert cookie.startswith(f"tunefarm_token={SUBMIT_TOKEN};")
    for flag in ("Secure", "HttpOnly", "SameSite=Strict", "Path=/"):
        assert flag in cookie
    assert client.get("/api/v1/jobs").status_code == 200, "the API accepts the UI's cookie"


@pytest.mark.parametrize(
    "token, message, status",
    [
        ("not-a-token", "invalid token", 401),
        ("", "enter your API token", 400),
        (SUBMIT_ONLY_TOKEN, "lacks the read scope", 403),
    ],
    ids=["invalid", "empty", "submit-only"],  # the same on every xdist worker: no random token
)
def test_a_refused_login_says_why_and_sets_no_cookie(client, token, message, status):
    reply = client.post("/login", data={"token": token})
    assert reply.status_code == status
    assert message in reply.get_data(as_text=True)
    assert not set_cookie_headers(reply)


def test_cross_site_login_and_logout_are_refused(client):
    evil = {"Origin": "https://evil.example"}
    reply = client.post("/login", data={"token": SUBMIT_TOKEN}, headers=evil)
    assert reply.status_code == 403 and not set_cookie_headers(reply)
    signed_in(client)
    assert client.post("/logout", headers=evil).status_code == 403
    assert client.get("/").status_code == 200, "still signed in"


def test_logout_clears_the_cookie(client):
    signed_in(client)
    assert client.get("/logout").status_code == 200, "GET only shows the button"
    assert client.get("/").status_code == 200
    reply = client.post("/logout")
    assert reply.status_code == 302 and reply.headers["Location"] == "/login"
    assert any(c.startswith("tunefarm_token=;") for c in set_cookie_headers(reply))
    assert client.get("/").status_code == 302


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil"])
def test_login_never_redirects_off_site(client, target):
    reply = client.post("/login", data={"token": SUBMIT_TOKEN, "next": target})
    assert reply.headers["Location"] == "/"


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_with_security_headers(client, path):
    reply = signed_in(client).get(path)
    assert reply.status_code == 200
    assert reply.mimetype == "text/html"
    assert "script-src 'self'" in reply.headers["Content-Security-Policy"]
    assert reply.headers["Cache-Control"] == "no-store"
    assert "alice" in reply.get_data(as_text=True), "the header names the token"


def test_the_job_page_and_an_unknown_job(client, ui_config):
    jobs = JobStore(ui_config)
    doc = jobs.create({"model": "zoo:resnet-18", "target": "cpu", "device_key": "k", "trials": 8})
    signed_in(client)
    page = client.get(f"/jobs/{doc['id']}")
    assert page.status_code == 200
    assert f'data-job-id="{doc["id"]}"' in page.get_data(as_text=True)
    assert client.get("/jobs/j-no-such-job").status_code == 404
    assert client.get("/jobs/bad%20id").status_code == 404
    jobs.delete(doc["id"])


def test_the_form_offers_the_vta_targets_and_quantize_and_the_job_page_has_their_results(
    client, ui_config
):
    """The packed (VTA) flow in the UI's server side: the form's target list carries the VTA
    presets and a quantization field whose option is int8; a vta job's page has the section
    job.js fills from the job's `packed` entry (tests/browser runs it in Chromium)."""
    import re

    form = signed_in(client).get("/submit").get_data(as_text=True)
    presets = re.search(r'id="target-options" data-presets="([^"]*)"', form).group(1)
    assert presets.split("|") == ["vta", "vta -config=1x32x32"]
    select = re.search(r'<select id="quantize" name="quantize".*?</select>', form, re.S).group(0)
    assert re.findall(r'<option value="([^"]*)"', select) == ["", "int8"]
    jobs = JobStore(ui_config)
    spec = {"model": "zoo:resnet-18", "target": "vta", "quantize": "int8", "device_key": "k"}
    doc = jobs.create({**spec, "trials": 8})
    page = client.get(f"/jobs/{doc['id']}").get_data(as_text=True)
    for element in ("packed", "packed-check", "packed-times", "packed-busy", "packed-cycles"):
        assert f'id="{element}"' in page
    jobs.delete(doc["id"])


def test_a_read_only_token_sees_submit_and_cancel_disabled(client):
    signed_in(client, READ_TOKEN)
    assert "read-only" in client.get("/submit").get_data(as_text=True)
    jobs_page = client.get("/").get_data(as_text=True)
    assert "Submit a job</a>" not in jobs_page


@pytest.mark.parametrize("name", ["ui.css", "common.js", "charts.js", "job.js", "favicon.svg"])
def test_static_files_need_no_login(client, name):
    reply = client.get(f"/ui/static/{name}")
    assert reply.status_code == 200
    reply.close()


def test_static_and_template_files_are_package_data():
    """Every file the UI serves is matched by services/pyproject.toml's package-data, so a
    non-editable install ships it."""
    import tomllib
    from pathlib import Path

    services = Path(__file__).resolve().parents[2] / "services"
    patterns = tomllib.loads((services / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["tunefarm_services"]
    ui_files = [p for p in (services / "gateway" / "ui").rglob("*") if p.is_file()]
    served = [p for p in ui_files if p.parent.name in ("templates", "static")]
    assert served
    for path in served:
        relative = path.relative_to(services).as_posix()
        assert any(Path(relative).match(pattern) for pattern in patterns), relative
