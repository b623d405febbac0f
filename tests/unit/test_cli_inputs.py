"""Every CLI command's bad inputs give one line naming the file, option or node and the fix,
with exit status 2 and no traceback; and what a newcomer runs first (`--version`, `doctor`)
works. All in-process and before any tuning, so the whole file takes seconds."""

from __future__ import annotations

import json
import os
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

from tunefarm.cli._checks import run_checks
from tunefarm.cli.main import main


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("inputs")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    relu = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    onnx.save(helper.make_model(relu), d / "relu.onnx")
    value = helper.make_tensor("v", TensorProto.FLOAT, [1, 4], [1.0, 2.0, 3.0, 4.0])
    const = helper.make_node("Constant", [], ["c"], value=value)
    no_inputs = helper.make_graph(
        [const, helper.make_node("Relu", ["c"], ["y"])], "constant", [], [y]
    )
    onnx.save(helper.make_model(no_inputs), d / "constant.onnx")
    (d / "empty.onnx").write_bytes(b"")
    (d / "text.onnx").write_text("not a model\n")
    (d / "adir").mkdir()
    (d / "records.jsonl").write_text("")
    return d


def run_cli(capsys: pytest.CaptureFixture[str], cwd: Path, *argv: str) -> tuple[int, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(list(argv))
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out + err


TUNE = ["tune", "relu.onnx", "--trials", "1"]
TUNE_LOG = [*TUNE, "--log", "l.jsonl"]
CASES = [
    # missing file
    (["tasks", "missing.onnx"], "missing.onnx: no such model file"),
    (["compile", "relu.onnx", "--log", "no.jsonl", "-o", "n.tfa"], "no such records file"),
    (["run", "missing.tfa", "--random-inputs", "1"], "missing.tfa: no such artifact file"),
    (["tune-tasks", "no.json", "--trials", "2", "--log", "l.jsonl"], "'no.json' not found"),
    # a directory
    (["tasks", "adir"], "MODEL 'adir' is a directory"),
    (["compile", "relu.onnx", "-o", "adir"], "-o 'adir' is a directory; give a file name, e.g."),
    ([*TUNE, "--log", "adir"], "--log 'adir' is a directory"),
    ([*TUNE_LOG, "-o", "adir"], "-o 'adir' is a directory"),
    (["run", "adir", "--random-inputs", "1"], "adir is a directory; expected an artifact"),
    (["bench", "adir"], "adir is a directory; expected an artifact file (.tfa)"),
    # an empty file, or not a model
    (["tasks", "empty.onnx"], "MODEL 'empty.onnx' is empty"),
    (["compile", "text.onnx", "-o", "n.tfa"], "text.onnx: not a valid ONNX model"),
    # wrong extension: an output that would replace an input, or land in a model's name
    (["compile", "relu.onnx", "-o", "relu.onnx"], "-o 'relu.onnx' is also MODEL"),
    (["compile", "relu.onnx", "-o", "net.onnx"], "use a .tfa name (e.g. 'net.tfa')"),
    (["compile", "relu.onnx", "--log", "records.jsonl", "-o", "records.jsonl"], "is also --log"),
    ([*TUNE, "--log", "x.tfa"], "records go to a .jsonl file"),
    # a model with no inputs
    (["tasks", "constant.onnx"], "MODEL 'constant.onnx' has no inputs"),
    # an unknown target
    ([*TUNE_LOG, "--target", "gpu"], "targets that exist: cpu"),
    (["op", "dense", "--target", "tpu"], "no backend for 'tpu'"),
    # conflicting options
    ([*TUNE_LOG, "-q", "-v"], "not allowed with argument -q/--quiet"),
    ([*TUNE_LOG, "--log-format", "xml"], "invalid choice: 'xml'"),
    (["tasks", "zoo:resnet-18", "--input-shape", "x"], "expected NAME:D1,D2,..."),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_one_line_naming_what_and_the_fix(argv, message, files, capsys) -> None:
    code, text = run_cli(capsys, files, *argv)
    assert code == 2, text
    assert message in text, text
    assert "Traceback" not in text and len(text.strip().splitlines()) <= 2, text
    assert not (files / "relu.onnx").stat().st_size == 0  # never overwritten


def test_tune_of_a_network_without_tunable_ops_compiles_it(files, tmp_path, capsys) -> None:
    log = tmp_path / "relu.jsonl"
    code, text = run_cli(capsys, files, "tune", "relu.onnx", "--trials", "2", "--log", str(log))
    assert code == 0, text
    assert "nothing to tune" in text and (tmp_path / "relu.tfa").is_file()


def test_version_names_the_package_and_its_libraries(capsys) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tunefarm 0.1.0")
    for lib in ("Python 3.", "numpy ", "onnx ", "onnxruntime ", "xgboost "):
        assert lib in out


def test_doctor_on_this_machine_prints_every_check(capsys) -> None:
    code = main(["doctor", "--json"])
    doc = json.loads(capsys.readouterr().out)
    names = [c["name"] for c in doc["checks"]]
    assert names[:3] == ["python", "C compiler", "OpenMP"] and "Redis" in names
    assert all(c["status"] in ("ok", "warn", "missing") for c in doc["checks"])
    assert all(c["fix"] for c in doc["checks"] if c["status"] != "ok")
    assert code == (1 if any(c["status"] == "missing" for c in doc["checks"]) else 0)


def by_name(env: dict[str, str]) -> dict[str, object]:
    return {c.name: c for c in run_checks(env)}


def test_doctor_without_gcc_redis_pocl_names_each_with_its_fix(tmp_path) -> None:
    """A machine without them: an empty PATH and a broker URL where nothing listens."""
    env = {"PATH": str(tmp_path), "TUNEFARM_BROKER_URL": "redis://127.0.0.1:9/0"}
    checks = by_name(env)
    for name, fix in (
        ("C compiler", "apt-get install -y gcc"),
        ("OpenMP", "apt-get install -y gcc"),
        ("OpenCL", "apt-get install -y pocl-opencl-icd ocl-icd-opencl-dev clinfo"),
        ("Redis", "apt-get install -y redis-server"),
        ("Chromium", "apt-get install -y chromium"),
        ("kubectl", "install kubectl"),
        ("nvcc", ""),  # the toolkit, or /usr/local/cuda/bin on PATH where it is
    ):
        assert checks[name].status == "missing", checks[name]
        assert checks[name].fix and fix in checks[name].fix, checks[name]
        assert checks[name].needed_by, checks[name]
    assert "redis://127.0.0.1:9/0 does not answer" in checks["Redis"].detail


def test_doctor_says_where_the_record_store_is_and_what_it_holds(tmp_path) -> None:
    absent = by_name({"TUNEFARM_STORE": str(tmp_path / "r.sqlite")})["record store"]
    assert absent.status == "ok" and "created by the first tune" in absent.detail
    from tunefarm.store.db import open_store

    open_store(str(tmp_path / "r.sqlite")).close()  # an empty store at the current schema
    empty = by_name({"TUNEFARM_STORE": str(tmp_path / "r.sqlite")})["record store"]
    assert empty.status == "ok" and "0 records of 0 workloads" in empty.detail, empty
    down = by_name({"TUNEFARM_STORE": "postgresql://x@127.0.0.1:9/db"})["record store"]
    assert down.status == "missing" and "unreachable" in down.detail, down
    assert "TUNEFARM_STORE=none" in down.fix
    assert by_name({"TUNEFARM_STORE": "none"})["record store"].detail.startswith("off")


def test_quiet_tune_prints_only_the_result(files, tmp_path, capsys) -> None:
    log = tmp_path / "quiet.jsonl"
    argv = ["tune", "relu.onnx", "--trials", "2", "--log", str(log), "--quiet"]
    code, text = run_cli(capsys, files, *argv)
    assert code == 0, text
    assert text.startswith("compiled: ") and "End-to-end latency" in text
    assert "inputs x[1, 4]" not in text and "nothing to tune" not in text
