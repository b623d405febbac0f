"""The quantization pass and quantized networks: quantize zoo resnet-18 (random weights, a
small image), check the int8 graph against the float one (cosine similarity on held-out
random inputs), compile it to real int8 kernels and check the compiled network against the
int8 graph's numpy interpreter and the float network."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph, GraphError, Node, Value, random_inputs
from tunefarm.graph.passes.quantize import (
    QuantizeError,
    QuantizeOptions,
    qparams,
    quantize_graph,
    weight_qparams,
)
from tunefarm.graph.shapes import infer_shapes
from tunefarm.runtime.executor import GraphExecutor


def small_resnet() -> Graph:
    return load_model(zoo.build("resnet-18", image_size=64))[1]


@pytest.fixture(scope="module")
def resnet():
    graph = small_resnet()
    qgraph, report = quantize_graph(graph, QuantizeOptions(num_random=2))
    return graph, qgraph, report


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def only(outputs: dict) -> np.ndarray:
    (value,) = outputs.values()
    return value


def test_resnet18_int8_graph_is_close_to_float(resnet) -> None:
    graph, qgraph, report = resnet
    assert report.kept_float == {"conv1": "first conv (kept float by default)"}
    ops = qgraph.op_counts()
    assert ops["qconv2d"] == 19 and ops["conv2d"] == 1
    assert ops["quantize"] == 1 and ops["dequantize"] == 1  # only at the edges
    for seed in (100, 101):  # held out: calibration used seeds 0 and 1
        x = random_inputs(graph, seed)
        assert cosine(only(run_graph(qgraph, x)), only(run_graph(graph, x))) >= 0.99


def test_compiled_int8_network_matches_its_graph(resnet, tmp_path) -> None:
    graph, qgraph, _ = resnet
    compile_graph(qgraph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    x = random_inputs(graph, 7)
    got = only(GraphExecutor.load(tmp_path / "q.tfa").run(x))
    want = only(run_graph(qgraph, x))
    # the float stem's rounding can move a value across a quantization step; nothing more
    assert cosine(got, want) > 0.9999
    assert cosine(got, only(run_graph(graph, x))) >= 0.99


def test_global_scale_and_skips() -> None:
    graph = small_resnet()
    opts = QuantizeOptions(global_scale=8.0, skip=("layer4.1.conv2", 1), num_random=1)
    qgraph, report = quantize_graph(graph, opts)
    convs = [n.name for n in graph.nodes if n.op == "conv2d"]
    assert "layer4.1.conv2" in convs
    assert set(report.kept_float) == {convs[0], convs[1], "layer4.1.conv2"}
    x = random_inputs(graph, 5)
    assert np.isfinite(only(run_graph(qgraph, x))).all()


def test_qparams_and_weights() -> None:
    assert qparams(0.0, 2.55) == (pytest.approx(0.01), 0)
    scale, zero = qparams(-1.0, 3.0)
    assert zero == 64 and scale == pytest.approx(4 / 255)
    w = np.array([[[[0.5]], [[-1.0]]], [[[0.0]], [[0.0]]]], np.float32)
    q, s = weight_qparams(w)
    assert q[0].ravel().tolist() == [64, -127] and s[1] == 1.0


@pytest.mark.parametrize(
    "opts, message",
    [
        (QuantizeOptions(method="kl"), "calibration method"),
        (QuantizeOptions(percentile=20.0), "percentile"),
        (QuantizeOptions(global_scale=0.0), "global_scale"),
    ],
)
def test_bad_options_are_named(opts: QuantizeOptions, message: str) -> None:
    graph = small_resnet()
    with pytest.raises(QuantizeError, match=message):
        quantize_graph(graph, opts)


@pytest.mark.parametrize(
    "attrs, message",
    [
        ({"scale": 0.0, "zero_point": 0}, "scale must be positive"),
        ({"scale": -0.5, "zero_point": 0}, "scale must be positive"),
        ({"scale": 0.1, "zero_point": 300}, "outside [0, 255]"),
    ],
)
def test_bad_quantize_node_names_the_node(attrs: dict, message: str) -> None:
    node = Node("q1", "quantize", ["x"], ["y"], {**attrs, "dtype": "uint8"})
    g = Graph("g", [Value("x", (1, 4))], ["y"], [node], {}, {"x": Value("x", (1, 4))})
    with pytest.raises(GraphError, match="node 'q1' \\(quantize\\)") as info:
        infer_shapes(g)
    assert message in str(info.value)


def test_cli_quantize_compile_run_report_accuracy(tmp_path, capsys) -> None:
    import json

    from tunefarm.cli.main import main

    model = tmp_path / "r18.onnx"
    zoo.save("resnet-18", model, image_size=32)
    calib = tmp_path / "calib.npz"
    rng = np.random.default_rng(3)
    np.savez(calib, data=rng.uniform(-1, 1, (2, 1, 3, 32, 32)).astype(np.float32))
    q = tmp_path / "q.npz"
    argv = ["quantize", str(model), "-o", str(q), "--calibration", str(calib), "--json"]
    assert main([*argv, "--method", "percentile", "--skip", "layer1.0.conv1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kept_float"]["layer1.0.conv1"] == "skipped by option"
    assert doc["accuracy"]["cosine"] > 0.99
    net = tmp_path / "q.tfa"
    argv = ["compile", str(model), "--quantize", "int8", "--calibration", str(calib)]
    assert main([*argv, "-o", str(net), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["quantization"]["compiled_accuracy"]["cosine"] > 0.99
    assert main(["run", str(net), "--random-inputs", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["quantization"]["scheme"] == "int8"
    assert 0 <= doc["quantization"]["accuracy"]["max_rel_error"] < 0.1
    assert main(["compile", str(q), "-o", str(tmp_path / "q2.tfa")]) == 0  # the saved graph
    capsys.readouterr()
    assert main(["tasks", str(q), "--json"]) == 0
    dtypes = {t["op"]: t["dtype"] for t in json.loads(capsys.readouterr().out)["tasks"]}
    assert dtypes["conv2d_int8"] == "int8" and dtypes["conv2d"] == "float32"


def test_cli_tune_quantize_int8_tunes_int8_tasks(tmp_path, capsys) -> None:
    import json

    from tunefarm.cli.main import main

    model = tmp_path / "r18.onnx"
    zoo.save("resnet-18", model, image_size=32)
    log = tmp_path / "t.jsonl"
    argv = ["tune", str(model), "--quantize", "int8", "--random", "2", "--trials", "4"]
    assert main([*argv, "--log", str(log), "--bench-repeat", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ops = {t["op"] for t in doc["tasks"]}
    assert "conv2d_int8" in ops and doc["quantization"]["accuracy"]["cosine"] > 0.99
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records and {r["task"]["op"] for r in records} <= {
        "conv2d_int8",
        "conv2d",
        "dense",
    }


@pytest.mark.parametrize("name", ["mobilenet-v2", "resnet-50"])
def test_other_zoo_networks_quantize_and_compile(name: str, tmp_path) -> None:
    """Depthwise convs, ReLU6 (an upper clip on the output grid), bottlenecks."""
    graph = load_model(zoo.build(name, image_size=32))[1]
    qgraph, report = quantize_graph(graph, QuantizeOptions(num_random=2))
    assert len(report.kept_float) == 1 and qgraph.op_counts()["qconv2d"] > 30
    compile_graph(qgraph, "cpu", optimized=True).save(tmp_path / "q.tfa", jobs=2)
    x = random_inputs(graph, 9)
    got = only(GraphExecutor.load(tmp_path / "q.tfa").run(x))
    assert cosine(got, only(run_graph(qgraph, x))) > 0.9999
    assert cosine(got, only(run_graph(graph, x))) >= 0.99
