"""The alert rules and dashboards, checked by the real tools: `promtool check rules` and
`promtool test rules` (deploy/prometheus/alerts_test.yml) on the rules, every dashboard
panel's query parsed by promtool, and every metric the dashboards and rules name defined by
tunefarm. (tests/integration/test_prometheus_dashboards.py runs the queries against a real
Prometheus scraping a live farm.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = ROOT / "deploy" / "prometheus"
DASHBOARDS = sorted((ROOT / "deploy" / "grafana" / "dashboards").glob("*.json"))
# Metrics Prometheus itself adds; everything else named tunefarm_* must be ours.
OURS = re.compile(r"\b(tunefarm_[a-z_]+)")
SUFFIXES = ("_bucket", "_count", "_sum", "_total")


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus)")
    return path


def panel_queries() -> list[tuple[str, str, str]]:
    """(dashboard, panel title, expr) for every target of every panel."""
    out = []
    for path in DASHBOARDS:
        for panel in json.loads(path.read_text())["panels"]:
            for target in panel["targets"]:
                out.append((path.name, panel["title"], target["expr"]))
    return out


def defined_metrics() -> set[str]:
    """Names tunefarm exports: the shared metrics and the Redis state collector's."""
    from tunefarm import metrics

    names = set()
    for metric in vars(metrics).values():
        describe = getattr(metric, "describe", None)
        if callable(describe) and hasattr(metric, "_name"):
            names.update(m.name for m in describe())
    text = (ROOT / "shared/tunefarm/distributed/state_metrics.py").read_text()
    names.update(re.findall(r'"(tunefarm_[a-z_]+)"', text))
    return names


def test_promtool_checks_and_unit_tests_the_alert_rules():
    tool = promtool()
    for args in (["check", "rules", "alerts.yml"], ["test", "rules", "alerts_test.yml"]):
        out = subprocess.run([tool, *args], cwd=PROMETHEUS, capture_output=True, text=True,
                             timeout=60, check=False)  # fmt: skip
        assert out.returncode == 0, f"promtool {' '.join(args)}:\n{out.stdout}\n{out.stderr}"
        assert "SUCCESS" in out.stdout


def test_every_alert_has_a_unit_test():
    rules = yaml.safe_load((PROMETHEUS / "alerts.yml").read_text())
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"]}
    tests = yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text())
    tested = {
        case["alertname"]
        for t in tests["tests"]
        for case in t.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert alerts == tested


def test_every_panel_query_parses(tmp_path):
    tool = promtool()
    queries = panel_queries()
    assert len(queries) >= 15
    rules = {"groups": [{"name": "panels", "rules": [
        {"record": f"panel:{i}", "expr": expr.replace("$job", ".*")}
        for i, (_, _, expr) in enumerate(queries)
    ]}]}  # fmt: skip
    path = tmp_path / "panels.yml"
    path.write_text(yaml.safe_dump(rules))
    out = subprocess.run([tool, "check", "rules", str(path)], capture_output=True, text=True,
                         timeout=60, check=False)  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr


def test_dashboards_and_rules_name_only_metrics_tunefarm_exports():
    defined = defined_metrics()
    texts = [expr for _, _, expr in panel_queries()]
    texts.append((PROMETHEUS / "alerts.yml").read_text())
    for text in texts:
        for name in OURS.findall(text):
            base = next((name[: -len(s)] for s in SUFFIXES if name.endswith(s)), name)
            assert name in defined or base in defined, f"{name} is not a tunefarm metric"


def test_dashboards_are_provisioned_in_compose_and_kubernetes():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    mounts = compose["services"]["grafana"]["volumes"]
    assert "../deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro" in mounts
    kustomization = yaml.safe_load((ROOT / "deploy/grafana/kustomization.yaml").read_text())
    (dashboards,) = [g for g in kustomization["configMapGenerator"]
                     if g["name"] == "grafana-dashboards"]  # fmt: skip
    assert sorted(dashboards["files"]) == sorted(f"dashboards/{p.name}" for p in DASHBOARDS)
    base = yaml.safe_load((ROOT / "deploy/base/kustomization.yaml").read_text())
    assert "../grafana" in base["resources"]
