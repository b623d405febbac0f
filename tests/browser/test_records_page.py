"""The Records page in a real headless Chromium against a real gateway (in a thread, on a
private Redis database) with a real SQLite record store: a user sees, per target, the
workloads of the store with their trials and best GFLOP/s, and only their tenant's."""

from __future__ import annotations

import sys
import threading
import uuid
from pathlib import Path

import pytest
from stack_env import REDIS_HOST, REDIS_PORT, free_port

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from store_helpers import CONV, DENSE, rec, refuted  # noqa: E402

from tunefarm.backends import registry  # noqa: E402
from tunefarm.distributed.config import ServiceConfig  # noqa: E402
from tunefarm.store import open_store  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.integration]

CHROMIUM = "/usr/bin/chromium"
DB = 15
TOKEN = f"records-{uuid.uuid4().hex}"
OTHER = f"other-{uuid.uuid4().hex}"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


@pytest.fixture(scope="module")
def gateway_url(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    pytest.importorskip("playwright.sync_api")
    from tunefarm_services.gateway.app import create_app
    from werkzeug.serving import make_server

    tmp = tmp_path_factory.mktemp("records-ui")
    (tmp / "tokens").write_text(f"{TOKEN} read tenant=vision viewer\n{OTHER} read tenant=audio\n")
    store = str(tmp / "records.sqlite")
    with open_store(store, "vision") as s:
        s.put([rec(i, (i + 1) * 1e-4) for i in range(5)] + [rec(0, 2e-5, DENSE)])
        s.put([rec(0, 1e-5, DENSE, device="other-key")])
        s.put([refuted(rec(5, 1e-5), against=0)])  # lost its recheck: not the best
    url = f"redis://{REDIS_HOST}:{REDIS_PORT}/{DB}"
    config = ServiceConfig(
        broker_url=url,
        redis_url=url,
        prefix=f"tfui-{uuid.uuid4().hex[:8]}",
        artifacts=tmp / "artifacts",
        tokens_file=str(tmp / "tokens"),
        store=store,
    )
    server = make_server("127.0.0.1", free_port(), create_app(config), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture
def page(gateway_url):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        ctx = browser.new_context(base_url=gateway_url)
        ctx.set_default_timeout(15_000)
        yield ctx.new_page()
        browser.close()


def login(page, token: str, then: str) -> None:
    page.goto(f"/login?next={then}")
    page.get_by_label("API token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/login" not in url)


def test_records_page_lists_the_tenants_workloads_per_target(page) -> None:
    from playwright.sync_api import expect

    login(page, TOKEN, "/records")
    expect(page.locator("#records-summary")).to_contain_text("8 records of 2 workloads")
    conv = page.locator(f"tr[data-workload='{CONV.workload_key}']")
    expect(conv).to_contain_text("conv2d")
    expect(conv.locator("td").nth(1)).to_have_text("6")  # trials, the refuted one too
    best = registry.flops(CONV) / 1e-4 / 1e9  # config 0's, not the refuted 10x faster one
    expect(conv.locator("td").nth(2)).to_have_text(f"{best:,.2f}")
    expect(conv).to_contain_text("ago")  # last improved
    dense = page.locator(f"tr[data-workload='{DENSE.workload_key}']")
    expect(dense.locator("td").nth(1)).to_have_text("2")  # both device keys count
    expect(page.get_by_role("link", name="Records")).to_have_attribute("aria-current", "page")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "records.png"), full_page=True)
    page.context.clear_cookies()
    login(page, OTHER, "/records")
    expect(page.locator("#records-empty")).to_be_visible()  # another tenant's: nothing
    expect(page.locator("#records-summary")).to_contain_text("0 records")
