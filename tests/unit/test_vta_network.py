"""The VTA tutorial's network flow: graph_pack a resnet-18 (64x64 input, to stay fast), extract
its packed convs, tune them, compile with the best records and run the network split between
the CPU and the simulated accelerator; its output equals the int8 CPU reference (the packed
graph on the numpy interpreter, same shift requantization) bit for bit."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.cli.main import main
from tunefarm.compiler.cpu_segments import compile_segments
from tunefarm.compiler.packed import PackedNetwork
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph, GraphError, Node, Value, random_inputs
from tunefarm.graph.passes.graph_pack import (
    PackOptions,
    graph_pack,
    node_task,
    packed_tasks,
    tuning_task,
)
from tunefarm.graph.shapes import infer_shapes
from tunefarm.ir import layouts
from tunefarm.measure import (
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
)
from tunefarm.recipe.packed import PackedJobOptions, pack_for_target, run_packed_job
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest
from tunefarm.tune.records import make_record


@pytest.fixture(scope="module")
def resnet():
    return load_model(zoo.build("resnet-18", image_size=64))[1]


@pytest.fixture(scope="module")
def packed(resnet):
    return graph_pack(resnet)


def ops(graph) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n in graph.nodes:
        counts[n.op] = counts.get(n.op, 0) + 1
    return counts


# -- the packed graph ops -----------------------------------------------------------------------
def packed_conv_graph(data, weight, **attrs) -> Graph:
    rng = np.random.default_rng(0)
    g = Graph("g", [Value("x", data, "int8")], ["y"], [], {}, {"x": Value("x", data, "int8")})
    w = g.add_param("w", rng.integers(-128, 128, weight, dtype=np.int8))
    b = g.add_param("b", rng.integers(-5000, 5000, weight[0] * weight[4], dtype=np.int32))
    g.nodes.append(Node("conv", "conv2d_packed", ["x", w, b], ["y"], attrs))
    return g


def test_packed_conv_op_matches_the_backends_reference():
    """The graph op's numpy kernel (the int8 CPU reference of packed networks) agrees with
    the vta template's oracle, bias, shift and clip included."""
    attrs = dict(strides=[2, 2], padding=[1, 1, 1, 1], shift=9, clip=[-128, 127])
    g = infer_shapes(packed_conv_graph((1, 2, 9, 9, 1, 16), (3, 2, 3, 3, 16, 16), **attrs))
    assert g.shape("y") == (1, 3, 5, 5, 1, 16)
    x = np.random.default_rng(1).integers(-128, 128, (1, 2, 9, 9, 1, 16), dtype=np.int8)
    got = run_graph(g, {"x": x})["y"]
    task = Task.make("conv2d_packed", target="vta", data=(1, 32, 9, 9), weight=(48, 32, 3, 3),
                     strides=2, padding=1, shift=9, clip=(-128, 127), bias=True)  # fmt: skip
    logical = {
        "data": layouts.transform(x, "NCHW1n16c", "NCHW"),
        "weight": layouts.transform(g.params["w"], "OIHW16o16i", "OIHW"),
        "bias": g.params["b"],
    }
    want = registry.template(task).reference(task, logical)
    assert np.array_equal(layouts.transform(got, "NCHW1n16c", "NCHW"), want)


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        (dict(shift=40, clip=[0, 127]), "shift 40 must be in"),
        (dict(shift=8, clip=[0, 300]), "clip [0, 300] must be"),
    ],
)
def test_packed_conv_op_errors_name_the_node(attrs, message):
    with pytest.raises(GraphError, match=f"conv.*{re.escape(message)}"):
        infer_shapes(packed_conv_graph((1, 2, 4, 4, 1, 16), (1, 2, 1, 1, 16, 16), **attrs))


def test_int8_add_saturates():
    v = Value("a", (4,), "int8")
    g = Graph("g", [v, Value("b", (4,), "int8")], ["c"], [], {}, {"a": v, "b": v})
    g.values["b"] = Value("b", (4,), "int8")
    g.nodes.append(Node("add", "int8_add", ["a", "b"], ["c"], {"clip": [0, 127]}))
    a, b = np.array([100, -100, 5, 127], np.int8), np.array([100, 50, -10, 1], np.int8)
    assert run_graph(infer_shapes(g), {"a": a, "b": b})["c"].tolist() == [127, 0, 0, 127]


# -- graph_pack ---------------------------------------------------------------------------------
def test_graph_pack_packs_between_the_stems_pool_and_the_last_pool(resnet, packed):
    counts = ops(packed)
    assert counts["conv2d_packed"] == 19  # every conv but the stem
    assert counts["int8_add"] == 8  # the residual adds
    assert counts["conv2d"] == 1 and counts["dense"] == 1  # stem and head stay float
    assert counts["quantize"] == counts["dequantize"] == 1  # one edge each way
    assert counts["layout_transform"] == 2
    names = [n.op for n in packed.nodes]
    assert names.index("quantize") == names.index("pool2d") + 1  # starts after the stem's pool
    assert names.index("global_pool2d") == names.index("dequantize") + 1  # stops at the last
    conv = next(n for n in packed.nodes if n.op == "conv2d_packed")
    assert conv.name == "layer1.0.conv1"  # the float conv's name
    assert packed.shape(conv.inputs[0]) == (1, 4, 16, 16, 1, 16)  # NCHW1n16c
    assert packed.shape(conv.inputs[1]) == (4, 4, 3, 3, 16, 16)  # OIHW16o16i
    assert packed.params[conv.inputs[2]].dtype == np.int32  # the folded batch norm's bias


def test_graph_pack_keeps_what_the_network_computes(resnet, packed):
    x = random_inputs(resnet, 3)
    want, got = run_graph(resnet, x)["output"], run_graph(packed, x)["output"]
    cosine = float(want.ravel() @ got.ravel() / np.linalg.norm(want) / np.linalg.norm(got))
    assert cosine > 0.99
    assert want.argmax() == got.argmax()


def test_graph_pack_larger_blocks(resnet):
    packed = graph_pack(resnet, PackOptions(blocks=(1, 32, 32)))
    conv = next(n for n in packed.nodes if n.op == "conv2d_packed")
    assert packed.shape(conv.inputs[0]) == (1, 2, 16, 16, 1, 32)
    assert pack_for_target(resnet, "vta -config=1x32x32").shape(conv.inputs[0])[-1] == 32


def test_graph_pack_errors_name_the_problem(resnet):
    with pytest.raises(GraphError, match="power-of-two activation scale"):
        graph_pack(resnet, PackOptions(global_scale=6.0))
    with pytest.raises(GraphError, match="layer1.0.conv1.*not multiples of the blocks 128"):
        graph_pack(resnet, PackOptions(blocks=(1, 128, 128)))  # layer1 has 64 channels
    with pytest.raises(GraphError, match="only vta does"):
        pack_for_target(resnet, "cpu")
    mobilenet = load_model(zoo.build("mobilenet-v2", image_size=64))[1]
    with pytest.raises(GraphError, match="grouped or dilated"):  # its depthwise convs
        graph_pack(mobilenet)


def test_tiny_weights_keep_the_bias_within_int32(resnet):
    """Weights near zero would take a shift of 20+; the bias at that accumulator scale would
    wrap int32, so the shift stops where the bias stays below 2**30."""
    g = resnet.copy()
    g.params = dict(g.params)
    g.params["layer1.0.conv1.weight_bn"] = g.params["layer1.0.conv1.weight_bn"] * 1e-5
    g.params["layer1.0.conv1.bias_bn"] = g.params["layer1.0.conv1.bias_bn"] + 100.0
    packed = graph_pack(g)
    conv = next(n for n in packed.nodes if n.name == "layer1.0.conv1")
    bias = packed.params[conv.inputs[2]].astype(np.int64)
    assert 2**29 <= np.abs(bias).max() < 2**30
    assert (bias > 0).all()  # every bias ~ +100, none wrapped


def test_packed_tasks_share_one_task_per_shape(packed):
    tasks = packed_tasks(packed, "vta")
    assert len(tasks) == 10 and sum(n for _, n in tasks) == 19
    for task, _ in tasks:
        assert task.args["shift"] == 8 and list(task.args["clip"]) == [0, 127]
        assert task.args["bias"] is True
        registry.config_space(task)  # a valid conv2d_packed task
    node = next(n for n in packed.nodes if n.op == "conv2d_packed")
    own = node_task(packed, node, "vta")
    assert tuning_task(own).workload_key == tasks[0][0].workload_key


# -- compile and run ----------------------------------------------------------------------------
def test_network_on_the_simulator_equals_the_cpu_reference(tmp_path, resnet, packed):
    """Default configs and, for every task, a random valid config as if a record chose it:
    the split CPU + simulator run equals the packed graph's numpy run bit for bit."""
    x = random_inputs(resnet, 1)
    want = run_graph(packed, x)["output"]
    untuned = PackedNetwork(packed, "vta", None, tmp_path / "a")
    got, timing = untuned.run(x)
    assert np.array_equal(got["output"], want)
    assert timing.accel_s > 0 and timing.cpu_s > 0
    rng = np.random.default_rng(0)
    settings = MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=60)
    records = []
    for task, _ in packed_tasks(packed, "vta"):
        space = registry.config_space(task)
        while True:
            index = int(rng.integers(len(space)))
            try:
                registry.instantiate(task, space.get(index))
                break
            except ValueError:  # does not fit a buffer: draw again
                continue
        config = Config.make(space.get(index), index=index)
        result = MeasureResult((1e-3,), MeasureErrorNo.NO_ERROR, "", 0.0, 0.0, settings)
        records.append(make_record(MeasureInput(task, config), result))
    history = ApplyHistoryBest(records)
    tuned = PackedNetwork(packed, "vta", history, tmp_path / "b")
    assert all(k["source"] == "record" for k in tuned.summary())
    got, _ = tuned.run(x)
    assert np.array_equal(got["output"], want)


def test_native_cpu_segments(tmp_path, resnet, packed):
    """The float stem and head compiled for the host: the network equals the same network with
    its packed convs on numpy bit for bit, and the CPU time is the compiled kernels'."""
    segments = compile_segments(packed, tmp_path / "cpu")
    assert [[n.name for n in s.nodes] for s in segments] == [
        ["conv1", "maxpool"],
        ["avgpool", "flatten", "fc"],
    ]
    net = PackedNetwork(packed, "vta", None, tmp_path / "k", segments)
    x = random_inputs(resnet, 2)
    got, timing = net.run(x)
    want, _ = net.run(x, on_cpu=True)
    assert np.array_equal(got["output"], want["output"])
    assert {"resnet-18.cpu0", "resnet-18.cpu1"} <= set(timing.nodes)


def test_the_tutorials_flow_tunes_compiles_and_runs(tmp_path, resnet):
    settings = MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=60)
    opts = PackedJobOptions(target="vta", trials=24, tuner="random", settings=settings,
                            trials_per_round=8)  # fmt: skip
    log = str(tmp_path / "r18.jsonl")
    result = run_packed_job(resnet, opts, log, out=open(tmp_path / "out.txt", "w"))
    assert result.exact
    assert result.top1 == result.float_top1
    assert sum(k["source"] == "record" for k in result.kernels) >= 1
    assert result.tuned.accel_s <= result.untuned.accel_s * 1.0001
    assert result.tuned.cpu_s > 0


# -- the CLI ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "r18.onnx"
    zoo.save("resnet-18", str(path), image_size=64)
    return str(path)


def test_cli_tasks_lists_the_packed_convs(model_file, capsys):
    assert main(["tasks", model_file, "--target", "vta", "--quantize", "int8", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["tasks"]) == 10
    assert {(t["op"], t["dtype"]) for t in doc["tasks"]} == {("conv2d_packed", "int8")}


def test_cli_tune_prints_top1_and_time(model_file, tmp_path, capsys):
    log = str(tmp_path / "r.jsonl")
    argv = ["tune", model_file, "--target", "vta", "--quantize", "int8", "--trials", "16",
            "--tuner", "random", "--log", log, "--trials-per-round", "8"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "top-1 class:" in out
    assert "equal bit for bit" in out
    assert "accelerator simulated at 100 MHz" in out
    # --resume: the 16 trials are in the log, so nothing more is measured; --json on stdout
    assert main([*argv, "--resume", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["bit_exact"] and doc["top1"] == doc["float_top1"]
    assert doc["scheduler"]["trials"] == 16
    assert sum(1 for _ in open(log)) == 16


def test_cli_tasks_quantize_on_cpu_says_where_to_go(model_file, capsys):
    assert main(["tasks", model_file, "--quantize", "int8"]) == 2
    assert "the packed flow of the vta target" in capsys.readouterr().err
