"""The prepared device script runs end to end without a GPU: every section on pocl at tiny
sizes, PyTorch and the gpu-marked tests skipped with the reason, the JSON written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # the device check itself, end to end on pocl (about 60 s on 2 cores)
def test_gpu_check_runs_end_to_end_on_pocl(tmp_path):
    out = tmp_path / "out"
    cmd = [str(ROOT / "benchmarks" / "gpu_check.sh"), str(out), "--mode", "pocl"]
    cmd += ["--builds", "2", "--rate-trials", "2", "--trials", "2", "--conv-trials", "2"]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        env={
            "PYTHON": sys.executable,
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(Path.home()),
        },
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    table = proc.stdout.strip().splitlines()
    assert table[0].split()[:2] == ["section", "seconds"]
    doc = json.loads((out / "gpu_check.json").read_text())
    assert doc["mode"] == "pocl" and doc["target"] == "opencl"
    assert "no CUDA device" in doc["gpu_tests"]["skipped"]
    assert doc["build_speed"]["median_nvrtc_cpu_s"] > 0 and doc["build_speed"]["candidates"] >= 1
    assert doc["trials"]["tune_trials_per_s"] > 0 and doc["trials"]["measure_speedup"] > 0
    net, tuned = doc["network"], doc["tuned"]
    assert net["untuned_ms"] > 0 and net["relative_error"] < 1e-4 and net["slowest"]
    assert tuned["tuned_ms"] > 0 and tuned["relative_error"] < 1e-4
    assert "skipped" in net["torch"] and "skipped" in tuned["torch"]
    assert doc["convs"]["layers"][0]["tunefarm_ms"] > 0
