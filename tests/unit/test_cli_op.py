"""`tunefarm op` and `tunefarm.oprun`: real builds and measurements of a tiny conv2d.

The CLI runs in-process through `main([...])` (so capsys sees its output) and once as
`python -m tunefarm`, which is what users type. Shapes are tiny and timing short, so each
measured call costs well under a second.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tunefarm.backends import registry
from tunefarm.cli.main import main
from tunefarm.cli.op import parse_params, parse_value
from tunefarm.measure import MeasureSettings
from tunefarm.oprun import ConfigError, OpRun, parse_config, plan_configs, run_op, sort_runs
from tunefarm.task import Task

SHARED = Path(__file__).resolve().parents[2] / "shared"
CONV = ["conv2d", "--param", "data=1,16,8,8", "--param", "weight=16,16,3,3", "--param", "padding=1"]
FAST = ["--min-repeat-ms", "5", "--repeat", "2"]


@pytest.fixture(autouse=True)
def build_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> str:
    """One throwaway build cache for the module, so tests neither read nor fill ~/.cache."""
    path = str(tmp_path_factory.getbasetemp() / "tunefarm-build-cache")
    monkeypatch.setenv("TUNEFARM_CACHE", path)
    return path


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["op", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def conv_task() -> Task:
    return Task.make("conv2d", data=(1, 16, 8, 8), weight=(16, 16, 3, 3), padding=1)


# -- parsing, no builds ----------------------------------------------------------------------
def test_param_values_are_typed_from_text() -> None:
    assert parse_value("1,64,56,56") == (1, 64, 56, 56)
    assert parse_value("3") == 3 and parse_value("0.5") == 0.5
    assert parse_value("true") is True and parse_value("False") is False
    assert parse_value("bias,relu") == ("bias", "relu") and parse_value("max") == "max"
    assert parse_value("relu,") == ("relu",)
    assert parse_value("[[1,3],[1,3]]") == [[1, 3], [1, 3]]
    assert parse_value("1,3;1,3") == ((1, 3), (1, 3))
    params = parse_params(["epilogue=relu", "shapes=1,64", "strides=2", "kind=avg"])
    assert params == {"epilogue": ("relu",), "shapes": ((1, 64),), "strides": 2, "kind": "avg"}


def test_parse_config_accepts_json_objects_only() -> None:
    cfg = parse_config('{"tile_ow": [4, 14], "unroll_kw": true}')
    assert cfg == {"tile_ow": [4, 14], "unroll_kw": True}
    with pytest.raises(ConfigError, match="JSON object"):
        parse_config("[1, 2]")
    with pytest.raises(ConfigError, match="not valid JSON"):
        parse_config("{tile_ow: 1}")


def test_plan_validates_knobs_and_sweeps_distinct_configs() -> None:
    task = conv_task()
    space = registry.config_space(task)
    default = registry.default_config(task)
    plan = plan_configs(task, space, None, sweep=5, seed=1)
    assert plan[0] == default and len({c.index for c in plan}) == 6
    assert plan == plan_configs(task, space, None, sweep=5, seed=1)  # seeded
    one = plan_configs(task, space, [{"unroll_kw": False}])
    assert one[0].get("unroll_kw") is False and one[0].get("tile_ic") == default.get("tile_ic")
    with pytest.raises(ConfigError, match=r"knob 'tile_ow'.*valid values: \[8, 1\]"):
        plan_configs(task, space, [{"tile_ow": [3, 3]}])
    with pytest.raises(ConfigError, match="unknown knob.*'nope'.*tile_ic"):
        plan_configs(task, space, [{"nope": 1}])


def test_oprun_json_roundtrip_and_sorting() -> None:
    ok = OpRun((("a", (1, 2)),), 3, "NO_ERROR", "", 1e-3, 2e-3, 2e-3, 1.0, 2.0, 0.1)
    fast = OpRun((("a", (2, 1)),), 4, "NO_ERROR", "", 1e-4, 2e-4, 2e-4, 10.0, 20.0, 0.1)
    inf = float("inf")
    bad = OpRun((("a", (4, 0)),), None, "BUILD_ERROR", "gcc", inf, inf, inf, 0.0, 0.0, 0.2)
    for run in (ok, bad):
        text = json.dumps(run.to_json(), allow_nan=False)  # strict JSON: no Infinity
        assert OpRun.from_json(json.loads(text)) == run
    assert sort_runs([bad, ok, fast]) == [fast, ok, bad]


def test_show_space_and_code_and_list_ops(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, *CONV, "--show-space")
    assert code == 0 and "tile_ow" in out and "1920 configs" in out and "pad" in out
    code, out, _ = run_cli(capsys, *CONV, "--show-code")
    assert code == 0 and "tf_entry" in out
    code, out, _ = run_cli(capsys, "--list-ops")
    assert code == 0 and "conv2d" in out.split()


# -- measured ---------------------------------------------------------------------------------
def test_default_config_prints_an_ok_row(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *CONV, *FAST)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("conv2d(") and "FLOPs=" in lines[0]
    assert lines[1].split()[:3] == ["#", "config", "status"]
    default = registry.default_config(conv_task())
    assert lines[2].split()[0] == str(default.index) and " OK " in lines[2]
    assert lines[-1].startswith(f"best: #{default.index}")


def test_json_output_sweep_and_config(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *CONV, *FAST, "--json", "--sweep", "3")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["task"]["op"] == "conv2d" and doc["flops"] == registry.flops(conv_task())
    assert len(doc["runs"]) == 4 and len({r["index"] for r in doc["runs"]}) == 4
    assert doc["best"]["gflops_median"] > 0 and doc["best"]["error"] == "NO_ERROR"
    assert doc["runs"][0] == doc["best"]  # sorted: fastest valid run first

    given = {"tile_ow": [4, 2], "unroll_kw": False}
    code, out, err = run_cli(capsys, *CONV, *FAST, "--json", "--config", json.dumps(given))
    assert code == 0, err
    (run,) = json.loads(out)["runs"]
    assert run["config"]["tile_ow"] == [4, 2] and run["config"]["unroll_kw"] is False
    assert run["error"] == "NO_ERROR" and run["gflops_best"] >= run["gflops_median"] > 0


def test_run_op_api_reports_failures_as_rows() -> None:
    # A measurement that cannot finish in time is an error row, not an exception.
    settings = MeasureSettings(repeat=2, min_repeat_ms=5, timeout_s=0.001)
    runs = run_op(conv_task(), [{}], settings=settings)
    assert len(runs) == 1 and not runs[0].ok
    assert runs[0].error == "RUN_TIMEOUT" and runs[0].error_msg


BAD_INPUT = [
    (["--config", '{"tile_ow": [3, 3]}'], "knob 'tile_ow'"),
    (["--config", '{"tile_ow": '], "not valid JSON"),
    (["--target", "gpu -isa=avx2"], "target 'gpu -isa=avx2'"),
    (["--target", "cpu -isa=sse9"], "-isa=sse9 is not one of avx512, avx2, sse4, generic"),
    (["--target", "rocm -arch=gfx90a"], "no backend for 'rocm'; targets that exist: cpu [-isa="),
    (["--param", "strides"], "bad --param 'strides'"),
    (["--param", "groups=[1,"], "bad --param 'groups=[1,'"),
    (["--param", "padding=2"], "padding is given twice"),
    (["--repeat", "0"], "--repeat"),
]


@pytest.mark.parametrize(("extra", "message"), BAD_INPUT)
def test_bad_input_exits_2_with_one_clear_line(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, *CONV, *extra)
    assert code == 2 and out == ""
    assert err.startswith("tunefarm op: error: ") and message in err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["conv3d", "--param", "data=1,16,8,8"], "unknown op 'conv3d'"),
        (["conv2d", "--param", "weight=16,16,3,3"], "missing param 'data'"),
        (["conv2d", "--param", "data=1,16,8", "--param", "weight=16,16,3,3"], "data must be"),
        (["conv2d", "--param", "data=1,16,8,8", "--param", "weight=16,8,3,3"], "does not match"),
        ([], "missing OP"),
    ],
)
def test_bad_task_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_python_dash_m_tunefarm(build_cache: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(SHARED), "TUNEFARM_CACHE": build_cache}
    proc = subprocess.run(
        [sys.executable, "-m", "tunefarm", "op", *CONV, *FAST],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert " OK " in proc.stdout and "best: #" in proc.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "tunefarm", "op", "conv2d", "--param", "oops"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("tunefarm op: error: bad --param 'oops'")
