"""`tunefarm quantize MODEL -o q.onnx`: the int8 graph as a QDQ ONNX model that onnx.checker
accepts, ONNX Runtime runs close to our int8 output, and tunefarm re-imports into the same
int8 conv tasks (a fused residual add comes back as a separate `qadd`)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from ort_int8 import ORT_U8S8_EXACT

from tunefarm.cli.main import main
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.frontend.qdq_export import ExportError, export_qdq
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph, Node, Value, random_inputs
from tunefarm.graph.passes.quantize import QuantizeOptions, quantize_graph
from tunefarm.graph.quant_ops import qconv_task


def conv_tasks(graph: Graph) -> Counter:
    return Counter(str(qconv_task(graph.shape, n, "cpu")) for n in graph.nodes if n.op == "qconv2d")


def geometry(graph: Graph) -> Counter:
    """The int8 convs' shapes and strides, whatever their epilogues."""
    convs = [n for n in graph.nodes if n.op == "qconv2d"]
    return Counter(
        (graph.shape(n.inputs[0]), graph.shape(n.inputs[1]), tuple(n.attrs["strides"]))
        for n in convs
    )


def output_step(model: onnx.ModelProto) -> float:
    """The scale of the last QuantizeLinear's output that reaches the float tail."""
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    last = [n for n in model.graph.node if n.op_type == "DequantizeLinear"][-1]
    return float(inits[last.input[1]])


@pytest.mark.parametrize("name", ["resnet-18", "mobilenet-v2"])
def test_export_runs_in_onnxruntime_and_reimports(name: str, tmp_path) -> None:
    _, graph = load_model(zoo.build(name, image_size=32))
    qgraph, _ = quantize_graph(graph, QuantizeOptions(num_random=2))
    model = export_qdq(qgraph)  # checked inside (full check, shape inference)
    ops = Counter(n.op_type for n in model.graph.node)
    assert ops["QuantizeLinear"] >= qgraph.op_counts()["qconv2d"]
    path = tmp_path / "q.onnx"
    onnx.save(model, path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = random_inputs(graph, 5)
    ours = next(iter(run_graph(qgraph, x).values()))
    theirs = session.run(None, x)[0]
    float_out = next(iter(run_graph(graph, x).values()))
    # the same int8 network: far closer to each other than either is to float. Without VNNI
    # ONNX Runtime's u8 x s8 sums saturate (tests/unit/ort_int8.py) and its error spreads
    # through the network: there it must only stay within the quantisation error's size.
    bound = 0.5 if ORT_U8S8_EXACT else 1.5
    assert np.abs(ours - theirs).max() <= bound * np.abs(ours - float_out).max()
    _, again = load_model(str(path))
    have, want = conv_tasks(again), conv_tasks(qgraph)
    residual = sum(n.attrs.get("residual") is not None for n in qgraph.nodes if n.op == "qconv2d")
    # every residual add comes back as a QDQ Add, which folds into one of its two convs
    # with ONNX Runtime's float rounding: the two convs around it change tasks, no other
    assert sum((have & want).values()) >= sum(want.values()) - 2 * residual
    assert geometry(again) == geometry(qgraph)
    again_convs = [n for n in again.nodes if n.op == "qconv2d"]
    assert sum(n.attrs.get("residual_rule") == "float" for n in again_convs) == residual
    assert again.op_counts().get("qadd", 0) == 0
    assert "conv2d" in again.op_counts()  # the first conv stays float, as quantized
    reimported = next(iter(run_graph(again, x).values()))
    assert np.abs(reimported - theirs).max() <= np.abs(ours - theirs).max() + 1e-6


def test_cli_quantize_writes_qdq_onnx_or_npz(tmp_path, capsys) -> None:
    model = tmp_path / "r18.onnx"
    zoo.save("resnet-18", model, image_size=32)
    q = tmp_path / "q.onnx"
    assert main(["quantize", str(model), "-o", str(q), "--random", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["written"] == str(q) and doc["accuracy"]["cosine"] > 0.99
    onnx.checker.check_model(onnx.load(q), full_check=True)
    assert main(["tasks", str(q), "--json"]) == 0
    ops = {t["op"] for t in json.loads(capsys.readouterr().out)["tasks"]}
    assert "conv2d_int8" in ops
    assert main(["quantize", str(model), "-o", str(tmp_path / "q.bin")]) != 0
    assert ".onnx (QDQ model) or .npz" in capsys.readouterr().err


def test_op_without_export_is_named() -> None:
    x, y = Value("x", (1, 4, 2, 2), "float32"), Value("y", (1, 4, 2, 2), "float32")
    node = Node("sm", "softmax", ["x"], ["y"], {"axis": 1})
    g = Graph("g", [x], ["y"], [node], {}, {"x": x, "y": y})
    with pytest.raises(ExportError, match="node 'sm' \\(softmax\\).*no QDQ ONNX export"):
        export_qdq(g)
