"""Whole networks: every zoo model compiled with default configs gives ONNX Runtime's output,
resnet-18's tasks are what its structure implies, compile reports its fallbacks, and layout
transforms appear only at the edges."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import MeasureInput, MeasureResult, MeasureSettings
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.tune.records import make_record

TOLERANCE = 1e-3  # max abs error <= 1e-3 * max |output|
SIZES = {"vgg-16": 224, "inception-v3": 299}


# the CNNs; bert-tiny is compiled against ONNX Runtime in test_transformer_import.py
@pytest.mark.parametrize("name", [n for n in zoo.names() if not n.startswith("bert")])
def test_zoo_model_matches_onnxruntime(name: str, tmp_path) -> None:
    model, graph = load_model(zoo.build(name, image_size=SIZES.get(name, 224)))
    compiled = compile_graph(graph, "cpu", optimized=True)
    compiled.save(tmp_path / "net.tfa")
    inputs = random_inputs(graph, seed=1)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= TOLERANCE


def test_batch_two_matches_onnxruntime(tmp_path) -> None:
    model, graph = load_model("zoo:mobilenet-v1", batch=2)
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "net.tfa")
    inputs = random_inputs(graph)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    assert got["output"].shape == (2, 1000)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= TOLERANCE


def test_resnet18_tasks_follow_its_structure() -> None:
    _, graph = load_model("zoo:resnet-18")
    tasks = extract_tasks(graph, "cpu -isa=avx512")  # 16 lanes on any host: blocks of 16
    # stem; per stage: conv1 (+relu) and conv2 (+residual, relu) of each block, stride-2
    # conv1 and 1x1 downsample in the first block of stages 2-4; the classifier
    direct = [t for t in tasks if t.task.op != "conv2d_winograd"]
    assert len(direct) == 16
    assert sum(t.weight for t in direct) == 21  # 20 convs + 1 dense
    # the eight distinct 3x3 stride-1 convs, and the stride-2 ones of stages 2 and 3 (28x28
    # and 14x14 outputs; not stage 4's 7x7: `layout.winograd_pays`), also have a Winograd
    # alternative, grouped with their direct task
    alternatives = [t for t in tasks if t.task.op == "conv2d_winograd"]
    assert len(alternatives) == 10 and len(tasks) == 26
    strided = {t.describe(graph) for t in alternatives if t.task.args["strides"] == (2, 2)}
    assert len(strided) == 2 and all("s2 p1" in d for d in strided)
    assert all(tasks[t.group].nodes == t.nodes for t in alternatives)
    by_desc = {t.describe(graph): t.weight for t in tasks}
    assert by_desc["conv2d 1x64x56x56 * 64x64x3x3 s1 p1 +bias,relu [16c->16c]"] == 2
    assert by_desc["conv2d 1x64x56x56 * 64x64x3x3 s1 p1 +bias,residual,relu [16c->16c]"] == 2
    assert by_desc["conv2d 1x512x7x7 * 512x512x3x3 s1 p1 +bias,residual,relu [16c->16c]"] == 2
    assert by_desc["conv2d 1x512x7x7 * 512x512x3x3 s1 p1 +bias,relu [16c->16c]"] == 1
    assert by_desc["conv2d 1x256x14x14 * 512x256x1x1 s2 p0 +bias [16c->16c]"] == 1
    assert by_desc["dense 1x512 * 1000x512 +bias"] == 1
    assert len({t.task.workload_key for t in tasks}) == 26


def test_compile_says_why_each_task_fell_back() -> None:
    _, graph = load_model(zoo.build("resnet-18", image_size=64))
    every = extract_tasks(graph, "cpu")
    algorithms = Counter(t.group for t in every)
    # nodes with one algorithm: without a record of its own, a 3x3 conv would run Winograd
    tasks = [t for t in every if algorithms[t.group] == 1]
    first = tasks[0].task
    other_target = type(first)(first.op, first.params, "cpu -isa=avx2 -cores=1")
    result = MeasureResult((1e-3,), MeasureErrorNo.NO_ERROR, "", 0.1, 0.0, MeasureSettings())

    def record(task, device):
        return make_record(MeasureInput(task, registry.default_config(task)), result, device)

    records = [
        record(first, "local"),
        record(tasks[1].task, "other-box"),
        record(other_target, "local"),
    ]
    compiled = compile_graph(graph, "cpu", records=records, device_key="local", optimized=True)
    reasons = {c.task.workload_key: c.reason for c in compiled.choices}
    assert reasons[first.workload_key] == "record"
    assert "device key other-box" in reasons[tasks[1].task.workload_key]
    assert "no record for workload" in reasons[tasks[2].task.workload_key]
    assert compiled.plan.manifest["tuned_tasks"] == 1
    assert len(compiled.fallbacks()) == len(algorithms) - 1  # one task runs each group


def test_layout_transforms_only_at_the_edges() -> None:
    _, graph = load_model("zoo:resnet-18")
    plan = compile_graph(graph, "cpu", optimized=True).plan
    transforms = [c for c in plan.calls if "layout_transform" in c.kernel]
    # the stem reads the RGB input as NCHW1c (= NCHW) and the body keeps one block
    assert not transforms, [c.node for c in transforms]
    assert not any("copy" in c.kernel for c in plan.calls)


def test_buffers_are_reused() -> None:
    from tunefarm.runtime.memory import plan_memory

    _, graph = load_model("zoo:mobilenet-v2")
    memory = plan_memory(compile_graph(graph, "cpu", optimized=True).plan)
    assert memory.arena_bytes < memory.naive_bytes / 3


def test_identical_kernels_are_compiled_once() -> None:
    _, graph = load_model("zoo:resnet-34")
    plan = compile_graph(graph, "cpu", optimized=True).plan
    assert len(plan.kernels) < len(plan.calls) / 2
    assert np.all([c.kernel in {k.name for k in plan.kernels} for c in plan.calls])


def test_grouped_conv_with_fused_epilogue_matches_onnxruntime(tmp_path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((8, 2, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], group=4, pads=[1, 1, 1, 1], name="g"),
        helper.make_node("Add", ["c", "x"], ["s"], name="res"),
        helper.make_node("Relu", ["s"], ["y"], name="relu"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 9, 9])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 9, 9])
    model = helper.make_model(
        helper.make_graph(nodes, "g", [x], [y], [w, b]),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    _, graph = load_model(model.SerializeToString())
    assert [n.op for n in graph.nodes] == ["conv2d"]
    assert graph.nodes[0].attrs["epilogue"] == ["bias", "residual", "relu"]
    compile_graph(graph, "cpu", optimized=True).save(tmp_path / "g.tfa")
    inputs = random_inputs(graph)
    got = GraphExecutor.load(tmp_path / "g.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= TOLERANCE


def _se_block_model(channels: int) -> bytes:
    """conv -> squeeze-excite (global pool, 1x1 convs, sigmoid) -> x * gate, then x * a
    per-channel constant [1, C, 1, 1], a per-channel divisor on the other side and a
    [C, 1, 1] shift."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    c = channels

    def arr(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    params = [arr("w", c, 3, 3, 3), arr("w1", 4, c, 1, 1), arr("w2", c, 4, 1, 1)]
    params.append(numpy_helper.from_array(rng.uniform(0.5, 2, (1, c, 1, 1)).astype("f4"), "k"))
    params.append(arr("k3", c, 1, 1))
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["p"], name="pool"),
        helper.make_node("Conv", ["p", "w1"], ["f1"], name="fc1"),
        helper.make_node("Relu", ["f1"], ["f1r"], name="fc1_relu"),
        helper.make_node("Conv", ["f1r", "w2"], ["f2"], name="fc2"),
        helper.make_node("Sigmoid", ["f2"], ["gate"], name="gate"),
        helper.make_node("Mul", ["gate", "r"], ["s"], name="excite"),  # the gate first
        helper.make_node("Mul", ["s", "k"], ["sk"], name="scale"),
        helper.make_node("Div", ["k", "sk"], ["d"], name="divide"),
        helper.make_node("Add", ["d", "k3"], ["d3"], name="shift"),  # a [C, 1, 1] constant
        helper.make_node("Conv", ["d3", "w1"], ["y"], name="head"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 12, 12])
    model = helper.make_model(
        helper.make_graph(nodes, "se", [x], [y], params),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def test_per_channel_multiply_stays_blocked(tmp_path) -> None:
    """A squeeze-excite gate and per-channel constants multiply a blocked activation in its
    own layout: no layout transform around them, and ONNX Runtime's output."""
    model = _se_block_model(32)
    _, graph = load_model(model)
    compiled = compile_graph(graph, "cpu", optimized=True)
    assert [n.op for n in graph.nodes].count("mul") == 2 and "add" in [n.op for n in graph.nodes]
    transforms = [c.node for c in compiled.plan.calls if "layout_transform" in c.kernel]
    assert transforms == ["y->NCHW"]  # only the network's output, to the logical layout
    compiled.save(tmp_path / "se.tfa")
    inputs = random_inputs(graph, seed=2)
    got = GraphExecutor.load(tmp_path / "se.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= TOLERANCE


def test_conv_split_into_bands_stays_blocked_and_matches_onnxruntime(tmp_path) -> None:
    """DeepLabV3's ASPP at rate 12 on a 14x14 map: split into bands (graph.passes.conv_taps),
    whose slices along H and W and concats read and write the blocked layout."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    w0 = numpy_helper.from_array(rng.standard_normal((32, 3, 3, 3)).astype(np.float32), "w0")
    w1 = numpy_helper.from_array(rng.standard_normal((16, 32, 3, 3)).astype(np.float32), "w1")
    b1 = numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b1")
    nodes = [
        helper.make_node("Conv", ["x", "w0"], ["a"], pads=[1, 1, 1, 1], name="stem"),
        helper.make_node(
            "Conv", ["a", "w1", "b1"], ["c"], pads=[12] * 4, dilations=[12, 12], name="aspp"
        ),  # fmt: skip
        helper.make_node("Relu", ["c"], ["y"], name="relu"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 14, 14])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 14, 14])
    model = helper.make_model(
        helper.make_graph(nodes, "aspp", [x], [y], [w0, w1, b1]),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    _, graph = load_model(model.SerializeToString())
    compiled = compile_graph(graph, "cpu")
    kernels = [c.kernel.split("_", 1)[1] for c in compiled.plan.calls]
    assert kernels.count("conv2d") == 10 and "slice" in kernels and "concat" in kernels
    transforms = [c.node for c in compiled.plan.calls if "layout_transform" in c.kernel]
    assert transforms == ["y->NCHW"]
    compiled.save(tmp_path / "aspp.tfa")
    inputs = random_inputs(graph, seed=3)
    got = GraphExecutor.load(tmp_path / "aspp.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model.SerializeToString(), inputs)) <= TOLERANCE
