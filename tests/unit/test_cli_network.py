"""The network commands end to end on a small zoo model (tasks, tune, compile, run, bench)
and the clear errors for bad models, options and files."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tunefarm.cli.main import main
from tunefarm.frontend import zoo
from tunefarm.recipe import onnxruntime_outputs

FAST = ["--min-repeat-ms", "5", "--repeat", "1"]


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("net") / "squeeze.onnx"
    zoo.save("squeezenet-1.1", str(path), image_size=64)
    return str(path)


def run_json(capsys, *argv: str) -> dict:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_tasks_json_lists_the_fused_convs(model_path, capsys) -> None:
    doc = run_json(capsys, "tasks", model_path, "--json")
    tasks = doc["tasks"]
    direct = [t for t in tasks if t["op"] == "conv2d"]
    assert len(direct) == 18  # 26 convs, 8 pairs of repeated fire-module convs
    assert sum(t["weight"] for t in direct) == 26
    assert all(t["flops"] > 0 for t in tasks)
    # each 3x3 stride-1 conv (the fire modules' expand3x3) also has a Winograd alternative,
    # in the same group as its direct task and for the same nodes
    winograd = [t for t in tasks if t["op"] == "conv2d_winograd"]
    eligible = [
        t
        for t in direct
        if t["params"]["weight"][2:] == [3, 3] and t["params"]["strides"] == [1, 1]
    ]
    assert len(winograd) == len(eligible) == 4
    for alt in winograd:
        first = tasks[alt["group"]]
        assert first["op"] == "conv2d" and first["nodes"] == alt["nodes"]
        assert first["params"] == alt["params"]
    assert main(["tasks", model_path]) == 0
    assert "Workload key" in capsys.readouterr().out


def test_tune_compile_run_bench(model_path, tmp_path, capsys) -> None:
    log, net = tmp_path / "t.jsonl", tmp_path / "t.tfa"
    argv = ["tune", model_path, "--trials", "12", "--log", str(log), "-o", str(net), *FAST]
    doc = run_json(capsys, *argv, "--bench-repeat", "2", "--json")
    assert doc["relative_error"] < 1e-3
    assert set(doc["latency_ms"]) == {"onnxruntime", "untuned", "tuned"}
    assert doc["scheduler"]["trials"] == 12 and len(log.read_text().splitlines()) == 12
    assert net.is_file()
    # a second run refuses to mix into the log unless asked to resume
    assert main(argv) == 2 and "--resume" in capsys.readouterr().err

    compiled = run_json(capsys, "compile", model_path, "--log", str(log), "-o", str(net), "--json")
    tuned = [t for t in compiled["tasks"] if t["tuned"]]
    assert tuned and all(t["reason"] == "record" for t in tuned)
    assert any("no record for workload" in t["reason"] for t in compiled["tasks"])

    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 64, 64)).astype(np.float32)
    np.savez(tmp_path / "in.npz", data=x)
    out = tmp_path / "out.npz"
    assert main(["run", str(net), "--inputs", str(tmp_path / "in.npz"), "-o", str(out)]) == 0
    want = onnxruntime_outputs(onnx.load(model_path), {"data": x})["output"]
    got = np.load(out)["output"]
    assert "argmax" in capsys.readouterr().out
    assert np.abs(got - want).max() <= 1e-3 * np.abs(want).max()

    bench = run_json(
        capsys, "bench", str(net), "--repeat", "2", "--min-repeat-ms", "5", "--profile", "--json"
    )
    assert bench["benchmark"]["median_ms"] > 0 and bench["profile"]
    assert bench["manifest"]["tuned_tasks"] == len(tuned)


def test_run_names_missing_inputs(model_path, tmp_path, capsys) -> None:
    net = tmp_path / "n.tfa"
    assert main(["compile", model_path, "-o", str(net)]) == 0
    np.savez(tmp_path / "bad.npz", image=np.zeros((1, 3, 64, 64), np.float32))
    assert main(["run", str(net), "--inputs", str(tmp_path / "bad.npz")]) == 2
    err = capsys.readouterr().err
    assert "missing ['data']" in err and "unknown ['image']" in err and "[1, 3, 64, 64]" in err


def _model(nodes, inputs, outputs, path) -> str:
    graph = helper.make_graph(nodes, "m", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    return str(path)


def test_unsupported_op_names_the_node(tmp_path, capsys) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    path = _model(
        [helper.make_node("Selu", ["x"], ["y"], name="my_selu")], [x], [y], tmp_path / "selu.onnx"
    )
    assert main(["tasks", path]) == 2
    err = capsys.readouterr().err
    assert "my_selu" in err and "Selu" in err and "supported" in err and "Traceback" not in err


def test_dynamic_dim_needs_input_shape(tmp_path, capsys) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
    path = _model(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [y], tmp_path / "dyn.onnx"
    )
    assert main(["compile", path, "-o", str(tmp_path / "d.tfa")]) == 2
    assert "--input-shape" in capsys.readouterr().err
    assert main(["compile", path, "--input-shape", "x:2,4", "-o", str(tmp_path / "d.tfa")]) == 0
    assert main(["compile", path, "--input-shape", "x=2", "-o", "d.tfa"]) == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["tasks", "{tmp}/garbage.onnx"], "not a valid ONNX model"),
        (["tasks", "{tmp}/missing.onnx"], "no such model file"),
        (["tasks", "zoo:resnet-19"], "resnet-18"),
        (["tasks", "zoo:resnet-18", "--target", "cpu -isa=sse9"], "isa"),
        (
            [
                "tune",
                "zoo:resnet-18",
                "--trials",
                "8",
                "--log",
                "{tmp}/r.jsonl",
                "--target",
                "rocm",
            ],
            "--target: target 'rocm': no backend for 'rocm'; targets that exist: cpu",
        ),
        (
            ["compile", "zoo:resnet-18", "-o", "x.tfa", "--target", "vta"],
            "--target 'vta': the vta backend runs networks quantized to int8 and packed",
        ),
        (
            [
                "tune-tasks",
                "x.json",
                "--trials",
                "4",
                "--log",
                "{tmp}/t.jsonl",
                "--target",
                "cpu -x=1",
            ],
            "unknown option(s) -x",
        ),
        (
            ["compile", "zoo:resnet-18", "--log", "{tmp}/none.jsonl", "-o", "{tmp}/x.tfa"],
            "no such records file",
        ),
        (["run", "{tmp}/garbage.onnx", "--random-inputs", "0"], "artifact"),
        (["bench", "{tmp}/missing.tfa"], "missing.tfa"),
    ],
)
def test_bad_input_is_one_clear_line(argv, message, tmp_path, capsys) -> None:
    (tmp_path / "garbage.onnx").write_bytes(b"\x08\x07garbage" * 10)
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
