"""Every dashboard panel's query, and the alert rules, against a real Prometheus server
(Debian's `prometheus`) scraping a live simulated farm (the scale harness at a small size:
the real gateway, build workers and agents serving /metrics, jobs sending candidates)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml
from stack_env import free_port, redis_ok, wait_for
from test_scale import load_harness

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = sorted((ROOT / "deploy" / "grafana" / "dashboards").glob("*.json"))


def panel_queries() -> list[tuple[str, str]]:
    return [
        (f"{path.name}: {panel['title']}", target["expr"].replace("$job", ".*"))
        for path in DASHBOARDS
        for panel in json.loads(path.read_text())["panels"]
        for target in panel["targets"]
    ]


class Prometheus:
    """A Prometheus server scraping `targets` every second, with the farm's alert rules."""

    def __init__(self, tmp: Path, token: str) -> None:
        self.tmp, self.port, self.proc, self.token = tmp, free_port(), None, token

    def start(self, targets: list[str]) -> None:
        """`targets[0]` is the gateway, whose /metrics needs a token with the metrics scope."""
        shutil.copy(ROOT / "deploy" / "prometheus" / "alerts.yml", self.tmp / "alerts.yml")
        gateway = {"job_name": "gateway", "static_configs": [{"targets": targets[:1]}],
                   "authorization": {"credentials": self.token}}  # fmt: skip
        workers = {"job_name": "tunefarm", "static_configs": [{"targets": targets[1:]}]}
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": ["alerts.yml"],
            "scrape_configs": [gateway, workers],
        }
        (self.tmp / "prometheus.yml").write_text(yaml.safe_dump(config))
        log = open(self.tmp / "prometheus.log", "wb")  # noqa: SIM115 (the child owns it)
        self.proc = subprocess.Popen(
            [shutil.which("prometheus"), f"--config.file={self.tmp / 'prometheus.yml'}",
             f"--storage.tsdb.path={self.tmp / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_for(lambda: self.get("/-/ready"), 30, "Prometheus to be ready")

    def get(self, path: str) -> dict | bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as resp:
            body = resp.read()
        return json.loads(body) if path.startswith("/api/") else body

    def query(self, expr: str) -> list:
        reply = self.get("/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        assert reply["status"] == "success", (expr, reply)
        return reply["data"]["result"]

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def test_every_dashboard_query_returns_series_from_a_live_farm(tmp_path):
    if shutil.which("prometheus") is None:
        pytest.skip("the Prometheus server is not installed (Debian: apt-get install prometheus)")
    if not redis_ok(9):
        pytest.skip("the farm needs Redis")
    harness = load_harness()
    spec = harness.ScaleSpec(agents=8, jobs=3, tenants=2, build_workers=4, build_s=0.05,
                             measure_s=0.2, batch=4, rounds=12, agents_per_process=8,
                             builders_per_process=4, sender_processes=1, fail_every=4,
                             metrics=True)  # fmt: skip
    prometheus = Prometheus(tmp_path, harness.ADMIN_TOKEN)
    missing: dict[str, str] = {}

    def check() -> dict:
        """While the farm still runs: every query answers with at least one series."""
        queries = panel_queries()
        deadline = time.monotonic() + 30
        while True:
            missing.clear()
            for title, expr in queries:
                if not prometheus.query(expr):
                    missing[title] = expr
            if not missing or time.monotonic() > deadline:
                break
            time.sleep(1)
        rules = prometheus.get("/api/v1/rules")["data"]["groups"]
        targets = prometheus.get("/api/v1/targets")["data"]["activeTargets"]
        return {"rules": [r["name"] for g in rules for r in g["rules"]],
                "health": [t["health"] for t in targets], "queries": len(queries)}  # fmt: skip

    try:
        report = harness.run(spec, tmp_path / "farm", log=lambda *_: None,
                             on_ready=prometheus.start, before_stop=check)  # fmt: skip
    finally:
        prometheus.stop()
    assert not missing, f"panels without series: {json.dumps(missing, indent=1)}"
    checked = report["checked"]
    assert checked["queries"] >= 15
    assert set(checked["health"]) == {"up"}, checked["health"]
    assert len(checked["rules"]) == 6  # the alert rules loaded in a real server
    assert report["lost"] == 0 and report["duplicated"] == 0
