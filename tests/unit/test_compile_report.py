"""`tunefarm compile --report`: the op histogram, what was fused, which kernels fall back to
the generic template and why, and the estimated shares, on a small hand-built model with a
grouped conv whose 3 channels per group fit no vector block and a softmax."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.backends import registry
from tunefarm.cli.main import main
from tunefarm.compiler.report import compile_report
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.measure import MeasureErrorNo, MeasureInput, MeasureResult, MeasureSettings
from tunefarm.tune.records import append_records, make_record


def _model() -> onnx.ModelProto:
    rng = np.random.default_rng(0)

    def init(name: str, *shape: int):
        return numpy_helper.from_array(rng.standard_normal(shape).astype("f4") * 0.1, name)

    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["a"], name="expand"),
        helper.make_node("Relu", ["a"], ["ar"], name="relu1"),
        helper.make_node("Conv", ["ar", "w2"], ["g"], group=8, pads=[1] * 4, name="grouped"),
        helper.make_node("Relu", ["g"], ["gr"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["gr"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flat"),
        helper.make_node("Softmax", ["f"], ["y"], axis=1, name="softmax"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 12, 12])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 24])
    inits = [init("w1", 24, 16, 1, 1), init("b1", 24), init("w2", 24, 3, 3, 3)]
    model = helper.make_model(
        helper.make_graph(nodes, "report", [x], [y], inits),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    return model


@pytest.fixture(scope="module")
def model_path(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("report") / "m.onnx"
    onnx.save(_model(), str(path))
    return str(path)


def test_report_names_fusions_fallbacks_and_shares(model_path) -> None:
    model, graph = load_model(model_path)
    report = compile_report(graph, "cpu", model)
    assert report.model_ops["Conv"] == 2 and report.model_ops["Relu"] == 2
    assert sum(report.model_ops.values()) == 7
    assert report.fused == {"conv2d+bias+relu": 1, "conv2d+relu": 1}
    assert sum(k.share for k in report.kernels) == pytest.approx(1.0)
    assert [k.share for k in report.kernels] == sorted(
        (k.share for k in report.kernels), reverse=True
    )
    generic = {k.template: k for k in report.kernels if k.generic}
    grouped = generic["group_conv2d"]
    assert grouped.nodes == ("grouped",)
    assert "3 in / 3 out per group" in grouped.why and "whole groups" in grouped.why
    # the generic grouped conv, x10 on its FLOPs, outweighs the larger dense 1x1 conv
    dense = next(k for k in report.kernels if k.template == "conv2d")
    assert grouped.share > dense.share
    assert "softmax" in generic and "no template of its own" in generic["softmax"].why
    text = "\n".join(report.lines())
    assert "generic fallbacks: 2 kernels" in text and "(grouped): grouped conv" in text
    # the transforms into and out of NCHW around the generic grouped conv are counted
    assert "layout transforms: 3 kernels" in text


def test_compile_report_on_the_command_line(model_path, tmp_path, capsys) -> None:
    net = str(tmp_path / "m.tfa")
    assert main(["compile", model_path, "-o", net, "--report"]) == 0
    out = capsys.readouterr().out
    assert "model ops: Conv 2, Relu 2" in out and "fused: conv2d+bias+relu 1" in out
    assert "GENERIC group_conv2d" in out
    assert main(["compile", model_path, "-o", net, "--report", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {k["template"] for k in doc["report"]["kernels"] if k["generic"]} >= {"group_conv2d"}


def _qdq_conv(act: str) -> onnx.ModelProto:
    """DQ -> Conv -> `act` -> Q -> DQ: folds into int8 with Relu or LeakyRelu, stays float
    with Tanh."""
    rng = np.random.default_rng(2)
    o, c = 8, 4
    ws = rng.uniform(0.002, 0.02, o).astype(np.float32)
    arrays = {
        "sx": np.float32(0.05), "zx": np.uint8(100),
        "w": rng.integers(-127, 128, (o, c, 3, 3)).astype(np.int8),
        "ws": ws, "wz": np.zeros(o, np.int8),
        "sy": np.float32(0.03), "zy": np.uint8(0),
    }  # fmt: skip
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd"], ["v"], name="conv", pads=[1] * 4),
        helper.make_node(act, ["v"], ["g"]),
        helper.make_node("QuantizeLinear", ["g", "sy", "zy"], ["gq"]),
        helper.make_node("DequantizeLinear", ["gq", "sy", "zy"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, o, 6, 6])],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in arrays.items()],
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def test_report_names_what_stays_float_in_a_qdq_model() -> None:
    model = _qdq_conv("Tanh")
    _, graph = load_model(model.SerializeToString())
    report = compile_report(graph, "cpu", model)
    assert [n for n, _ in report.stays_float] == ["conv"]
    assert "tanh" in report.stays_float[0][1] and "LeakyRelu" in report.stays_float[0][1]
    assert "float between Q/DQ pairs: 1" in "\n".join(report.lines())
    for act in ("Relu", "LeakyRelu"):
        folded = _qdq_conv(act)
        _, graph = load_model(folded.SerializeToString())
        assert compile_report(graph, "cpu", folded).stays_float == []


def _conv3x3() -> onnx.ModelProto:
    """One 16 -> 16 3x3 conv on 14x14: an untuned compile runs it by Winograd."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((16, 16, 3, 3)).astype("f4") * 0.1, "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1] * 4, name="conv3")],
        "wino",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 14, 14])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 14, 14])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def _conv_line(kernels) -> dict:
    (line,) = [k for k in kernels if "conv3" in k["nodes"]]
    return line


def test_the_share_is_estimated_from_the_kernel_the_plan_runs(tmp_path, capsys) -> None:
    """A 3x3 conv from 16 in-channels runs by Winograd untuned, and by the direct kernel where
    its record beats the Winograd one's: the report's line is the kernel the plan runs."""
    model = _conv3x3()
    path = tmp_path / "c.onnx"
    onnx.save(model, str(path))
    _, graph = load_model(str(path))
    direct, wino = [t.task for t in extract_tasks(graph, "cpu")]
    assert (direct.op, wino.op) == ("conv2d", "conv2d_winograd")
    lines = {k.template: k for k in compile_report(graph, "cpu", model).kernels}
    assert "conv2d_winograd" in lines and "conv2d" not in lines  # the untuned plan's
    ran = compile_report(graph, "cpu", model, runs={direct}).kernels
    assert [k.template for k in ran if k.nodes == ("conv3",)] == ["conv2d"]
    assert lines["conv2d_winograd"].cost != next(k.cost for k in ran if k.template == "conv2d")
    net = str(tmp_path / "c.tfa")
    assert main(["compile", str(path), "-o", net, "--report", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (task,) = [t for t in doc["tasks"] if "conv3" in t["nodes"]]
    assert task["op"] == _conv_line(doc["report"]["kernels"])["template"] == "conv2d_winograd"
    log = tmp_path / "log.jsonl"
    result = MeasureResult((1e-6,), MeasureErrorNo.NO_ERROR, "", 1.0, 1.7e9, MeasureSettings())
    slower = replace(result, costs=(1e-3,))
    records = [make_record(MeasureInput(t, registry.default_config(t)), r)
               for t, r in ((direct, result), (wino, slower))]  # fmt: skip
    append_records(log, records)
    args = ["compile", str(path), "-o", net, "--log", str(log), "--report", "--json"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    (task,) = [t for t in doc["tasks"] if "conv3" in t["nodes"]]
    assert task["op"] == _conv_line(doc["report"]["kernels"])["template"] == "conv2d"
