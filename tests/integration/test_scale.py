"""The scale harness at CI size (`benchmarks/scale.py --ci`): 50 simulated agents, 10 jobs of
3 tenants, 8 simulated build workers, the real gateway, Redis and Celery. Every candidate is
measured exactly once, dispatch stays fast and the gateway answers throughout."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from stack_env import redis_ok

pytestmark = pytest.mark.integration
SCALE = Path(__file__).resolve().parents[2] / "benchmarks" / "scale.py"


def load_harness():
    spec = importlib.util.spec_from_file_location("tunefarm_scale_harness", SCALE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_harness_at_ci_size_loses_and_duplicates_nothing(tmp_path):
    if not redis_ok(9):
        pytest.skip("the scale harness needs Redis")
    harness = load_harness()
    spec = harness.ScaleSpec.ci()
    report = harness.run(spec, tmp_path, log=lambda *_: None)
    assert report["expected"] == spec.jobs * spec.batch * spec.rounds == 240
    # every 50th candidate (by hash) is a simulated build error, the rest are measured
    assert 0 < report["errors"] < 20
    assert report["measured_ok"] + report["errors"] == report["expected"]
    assert report["lost"] == 0 and report["duplicated"] == 0
    assert report["dispatched"] == report["measured_ok"]
    # loose bounds: CI hosts are loaded; the figures at full size are in docs/scaling.md
    assert report["measure_dispatch_p50_s"] < 1.0
    assert report["gateway_healthz_p99_s"] < 2.0
    assert 0 < report["redis_bytes_per_agent"] < 64_000
    assert report["efficiency"] > 0.2
