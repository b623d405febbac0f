"""The web UI in a real headless Chromium (Playwright) against a real local stack: gateway,
converter, extractor, search, build farm, a CPU and a VTA device agent as processes on Redis db 14.

A user signs in with a token, submits a zoo network through the form and watches its job page
fill in live (task table, GFLOPS chart) until the measured latency shows; cancels another
job; downloads the records log; sees a bad upload refused next to the upload field; sees the
agent on the devices page; submits a network for the VTA agent (target vta, int8 chosen for
it) and sees its accelerator results (bit-exact check, time split, module busy shares).
Screenshots of every page go to build/screenshots/ (printed at the end of the run) and the
finished job page also to docs/images/job-page.png.

Needs Debian's chromium (/usr/bin/chromium: Playwright cannot download its own browser here)
and Redis on 127.0.0.1:6379 (TUNEFARM_TEST_REDIS_PORT for another); skips with the reason otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import urllib.request
import uuid
from pathlib import Path

import pytest
from stack_env import REDIS_HOST, REDIS_PORT, free_port, stack_env, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.integration]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
DB = 14
KEY = "ui-key"
VTA_KEY = "ui-vta"  # an agent measuring on the VTA simulator
SUBMIT_TOKEN = f"ui-submit-{uuid.uuid4().hex}"
READ_TOKEN = f"ui-read-{uuid.uuid4().hex}"
# 22 tasks (18 convs, 4 of them with a Winograd alternative), 8 trials a round: 200 trials
# measure every task (176) and then give a few estimates of the end-to-end latency.
NETWORK, TRIALS = "squeezenet-1.1", 200
REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "build" / "screenshots"
README_IMAGE = REPO / "docs" / "images" / "job-page.png"
WIDE = {"width": 1366, "height": 900}  # a laptop screen
NARROW = {"width": 420, "height": 900}
# 200 trials, compile and evaluate: ~4 min at load 12 on a 2-core machine others share
JOB_TIMEOUT_S = 480


# -- skipping -----------------------------------------------------------------------------------
def _redis():
    import redis

    return redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=DB, socket_connect_timeout=2)


def _missing() -> str | None:
    """Why these tests cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright)"
    try:
        _redis().ping()
    except Exception as exc:
        return f"no Redis at {REDIS_HOST}:{REDIS_PORT}/{DB}: {exc}"
    return None


# -- the stack ----------------------------------------------------------------------------------
def _stack_env(tmp: Path) -> dict[str, str]:
    tokens = {f"{SUBMIT_TOKEN}": "read,submit,admin ui-tester", f"{READ_TOKEN}": "read ui-viewer"}
    return stack_env(tmp, DB, tokens, TUNEFARM_VISIBILITY_TIMEOUT="20")


def api(stack, path: str, method: str = "GET", body: dict | None = None) -> dict:
    """The JSON API with the submit token (for setting up and checking, not for the UI)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(stack.url + "/api/v1" + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {SUBMIT_TOKEN}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.loads(reply.read())


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The whole stack with one agent, on our own Redis database, flushed at the end."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("ui-stack")
    _redis().flushdb()
    agents = [(KEY, "cpu"), (VTA_KEY, "vta")]
    spec = StackSpec(port=free_port(), agents=agents, build_concurrency=2)
    running = LocalStack(spec, _stack_env(tmp), tmp / "logs").start()
    running.url = f"http://127.0.0.1:{spec.port}"
    try:
        wait_for(lambda: urllib.request.urlopen(running.url + "/readyz", timeout=2), 60, "/readyz")
        wait_for(lambda: len(api(running, "/devices")["agents"]) == 2, 60, "the agents")
        running.check_alive()
        yield running
    finally:
        running.stop()
        _redis().flushdb()


@pytest.fixture(scope="module")
def browser(stack):
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser, stack):
    ctx = browser.new_context(base_url=stack.url, viewport=WIDE, accept_downloads=True)
    ctx.set_default_timeout(15_000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    return context.new_page()


def login(page, token: str = SUBMIT_TOKEN, then: str = "/") -> None:
    page.goto(f"/login?next={then}")
    page.get_by_label("API token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)


def shot(page, name: str, full_page: bool = True) -> Path:
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def submit_zoo_job(page, network: str, trials: int, name: str) -> str:
    """Fill the submit form for a zoo network; returns the new job's id from the page URL."""
    page.goto("/submit")
    page.get_by_label("Zoo network").select_option(f"zoo:{network}")
    page.get_by_label("Job name").fill(name)
    expect_option(page, "#device_key", KEY)
    page.get_by_label("Device key").select_option(KEY)
    page.get_by_label("Trial budget").fill(str(trials))
    page.get_by_label("Tuner").select_option("xgb")
    page.get_by_role("button", name="Submit job").click()
    page.wait_for_url("**/jobs/*")
    return page.url.rsplit("/", 1)[-1]


def expect_option(page, select: str, value: str) -> None:
    page.wait_for_selector(f"{select} option[value='{value}']", state="attached")


# -- tests --------------------------------------------------------------------------------------
def test_pages_need_a_login_and_a_wrong_token_is_refused(page, context):
    from playwright.sync_api import expect

    page.goto("/devices")
    assert "/login?next=" in page.url, "a page without a login goes to the login form"
    page.get_by_label("API token").fill("not-a-token")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#token-error")).to_have_text("invalid token")
    expect(page.get_by_label("API token")).to_have_attribute("aria-invalid", "true")
    assert not context.cookies(), "a refused login must not set a cookie"
    shot(page, "login")

    page.get_by_label("API token").fill(SUBMIT_TOKEN)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/devices")
    cookie = next(c for c in context.cookies() if c["name"] == "tunefarm_token")
    assert cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Strict"

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login")
    page.goto("/")
    assert "/login" in page.url


def test_devices_page_lists_the_agent(page):
    from playwright.sync_api import expect

    login(page, SUBMIT_TOKEN, "/devices")  # an admin token: agents' hosts are for admins
    row = page.locator(f"#keys-table tbody tr[data-key='{KEY}']")
    expect(row).to_contain_text("1")
    agent = page.locator("#agents-table tbody tr", has_text=KEY).first
    expect(agent).to_contain_text(KEY)
    expect(agent).to_contain_text("cpu")
    expect(agent).to_contain_text(socket.gethostname())
    expect(agent).to_contain_text("ago")
    shot(page, "devices")


def test_a_bad_upload_is_refused_next_to_the_upload_field(page):
    from playwright.sync_api import expect

    login(page, then="/submit")
    expect_option(page, "#device_key", KEY)
    page.get_by_label("Upload ONNX").check()
    page.get_by_label("ONNX file").set_input_files(
        {"name": "notes.onnx", "mimeType": "application/octet-stream", "buffer": b"just text\n"}
    )
    page.get_by_label("Trial budget").fill("-3")
    page.get_by_role("button", name="Submit job").click()
    upload_error = page.locator("#model-file-error")
    expect(upload_error).to_be_visible()
    expect(upload_error).to_contain_text("not an ONNX model")
    expect(page.get_by_label("ONNX file")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#trials-error")).to_contain_text("must be between 0 and")
    expect(page.locator("#form-summary")).to_contain_text("2 fields need attention")
    assert page.url.endswith("/submit"), "a refused submission stays on the form"
    shot(page, "submit-errors")


def test_cancel_a_job_from_its_page(page, stack):
    from playwright.sync_api import expect

    job = api(
        stack,
        "/jobs",
        "POST",
        {"model": f"zoo:{NETWORK}", "target": "cpu", "device_key": KEY, "trials": 2000},
    )
    login(page, then=f"/jobs/{job['id']}")
    page.get_by_role("button", name="Cancel job").click()
    page.get_by_role("button", name="Yes, cancel job").click()
    expect(page.locator("#job-state")).to_have_attribute("data-state", "cancelled", timeout=60_000)
    expect(page.get_by_role("button", name="Cancel job")).to_be_disabled()
    assert api(stack, f"/jobs/{job['id']}")["state"] == "cancelled"


@pytest.mark.timeout(JOB_TIMEOUT_S + 300)  # the waits before the job's end, too
def test_a_submitted_job_updates_live_until_its_latency_is_measured(page, context, stack):
    from playwright.sync_api import expect

    login(page, then="/submit")
    job_id = submit_zoo_job(page, NETWORK, TRIALS, "squeezenet ui")
    page.evaluate("window.__samePage = true")  # gone if anything reloads the page

    # the task table and the GFLOPS chart fill in while the job runs
    rows = page.locator("#tasks-table tbody tr")
    wait_for(lambda: rows.count() > 0, 90, "the task table")
    wait_for(lambda: _measured_rows(page) >= 4, 90, "task rows with trials > 0")
    wait_for(
        lambda: page.locator("#gflops-chart circle.chart__point").count() > 0, 30, "chart points"
    )
    expect(page.locator("#gflops-chart svg")).to_contain_text("Best GFLOPS")
    expect(page.locator("#gflops-chart svg")).to_contain_text("Trials (per task)")
    shot(page, "job-live")

    expect(page.locator("#job-state")).to_have_attribute(
        "data-state", "done", timeout=JOB_TIMEOUT_S * 1000
    )
    assert page.evaluate("window.__samePage === true"), "the page reloaded"
    result = page.locator("#result")
    expect(result).to_be_visible()
    tuned = _ms(result.locator(".bar[data-kind='tuned'] .bar__value").inner_text())
    untuned = _ms(result.locator(".bar[data-kind='untuned'] .bar__value").inner_text())
    doc = api(stack, f"/jobs/{job_id}")
    assert tuned == pytest.approx(doc["latency_ms"]["tuned"], rel=0.01)
    assert untuned == pytest.approx(doc["latency_ms"]["untuned"], rel=0.01)
    selection_note = expect(page.locator("#result-error"))  # a sentence only if it changed any
    if doc["selection"]["changed"]:
        selection_note.to_contain_text(f"of {doc['selection']['tasks']} switched config")
    else:
        selection_note.not_to_contain_text("switched config")
    expect(page.locator("#latency-chart circle.chart__point").first).to_be_attached()
    expect(page.locator("#latency-chart svg")).to_contain_text("Estimated latency (ms)")
    expect(page.locator("#download-artifact")).to_have_attribute(
        "href", f"/api/v1/jobs/{job_id}/artifact"
    )
    shot(page, "job-done")
    page_shot = shot(page, "job-page", full_page=False)
    if os.environ.get("TUNEFARM_UPDATE_README_IMAGE") == "1":  # else a test run dirties git
        README_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page_shot, README_IMAGE)

    _download_records(page, doc)
    page.set_viewport_size(NARROW)
    page.wait_for_timeout(300)  # charts redraw at the new width
    shot(page, "job-narrow")
    page.set_viewport_size(WIDE)

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Jobs").click()
    job_row = page.locator(f"#jobs-table tr[data-job-id='{job_id}']")
    expect(job_row).to_contain_text("squeezenet ui")
    expect(job_row).to_contain_text("done")
    expect(job_row).to_contain_text(f"{TRIALS} / {TRIALS}")
    shot(page, "jobs")
    page.get_by_role("link", name="cancelled").click()
    expect(page.locator(f"#jobs-table tr[data-job-id='{job_id}']")).to_have_count(0)
    for row in page.locator("#jobs-table tr[data-job-id]").all_inner_texts():
        assert "cancelled" in row  # the filter shows only cancelled jobs (if any ran before)


def test_a_vta_job_shows_its_accelerator_results(page, stack, tmp_path):
    """Upload a small resnet-18 for the VTA agent: choosing its key fills in target vta and
    quantization int8; the finished job's page shows the bit-exact check, the time split
    (the same numbers as the job document) and each module's busy share."""
    from playwright.sync_api import expect

    from tunefarm.frontend import zoo

    model = tmp_path / "r18-64.onnx"
    zoo.save("resnet-18", str(model), image_size=64)
    login(page, then="/submit")
    expect_option(page, "#device_key", VTA_KEY)
    expect_option(page, "#target-options", "vta -config=1x32x32")
    page.get_by_label("Upload ONNX").check()
    page.get_by_label("ONNX file").set_input_files(str(model))
    page.get_by_label("Device key").select_option(VTA_KEY)
    expect(page.locator("#target")).to_have_value("vta")
    expect(page.get_by_label("Quantization")).to_have_value("int8")
    page.get_by_label("Trial budget").fill("16")
    page.get_by_label("Tuner").select_option("random")
    page.get_by_role("button", name="Submit job").click()
    page.wait_for_url("**/jobs/*")
    job_id = page.url.rsplit("/", 1)[-1]
    expect(page.locator("#job-state")).to_have_attribute(
        "data-state", "done", timeout=JOB_TIMEOUT_S * 1000
    )
    doc = api(stack, f"/jobs/{job_id}")
    packed = page.locator("#packed")
    expect(packed).to_be_visible()
    expect(page.locator("#packed-check")).to_contain_text("Bit-exact")
    expect(page.locator("#packed-check")).to_contain_text(f"Top-1 class {doc['packed']['top1']}")
    tuned = page.locator("#packed-times tr[data-build='tuned'] td")
    assert _ms(tuned.nth(0).inner_text()) == pytest.approx(
        doc["packed"]["tuned"]["accel_ms"], abs=1e-3
    )
    expect(page.locator("#packed-busy .bar")).to_have_count(3)
    expect(page.locator("#packed-busy .bar[data-module='compute']")).to_contain_text("%")
    expect(page.locator("#stat-target")).to_have_text("vta · int8")
    shot(page, "job-vta")


def _measured_rows(page) -> int:
    trials = page.locator("#tasks-table tbody tr td:last-child").all_inner_texts()
    return sum(1 for t in trials if int(t.replace(",", "") or 0) > 0)


def _ms(text: str) -> float:
    return float(text.replace("ms", "").replace(",", "").strip())


def _download_records(page, doc: dict) -> None:
    """The records link downloads the log: JSON lines, one per trial."""
    with page.expect_download() as info:
        page.get_by_role("link", name="Records log").click()
    download = info.value
    assert download.suggested_filename.endswith(".jsonl")
    lines = Path(download.path()).read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert len(records) == doc["trials_done"] > 0
    assert all({"workload_key", "config"} <= set(r) for r in records)
