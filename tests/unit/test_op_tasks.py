"""Every op becomes a task: under the sketch and auto policies a network's non-anchor kernels
(pools, concats, elementwise ops, batch matmuls, ...) are tuning tasks, exactly as the
compiler calls them, weighted by their calls; the compiler applies their records and reports
their fallbacks; the template policy's tasks and default kernels are unchanged."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from tunefarm.backends import registry
from tunefarm.cli.main import main
from tunefarm.compiler import compile_graph
from tunefarm.compiler.tasks import is_op_task, kernel_bytes, network_tasks, op_tasks
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import MeasureInput, MeasureResult, MeasureSettings
from tunefarm.recipe import JobOptions, onnxruntime_outputs, relative_error, run_job
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.schedule.sketch_state import realise, sample
from tunefarm.task import Task, TaskError
from tunefarm.tune.records import make_record

CPU = "cpu -isa=avx2 -cores=2"


def small_net(seed: int = 0) -> bytes:
    """A conv stem (max pool, a 1x1 and a 3x3 branch, channel concat, swish, average and
    global pools, a dense layer) then a self-attention-like tail (transpose, two batch
    matmuls, softmax, residual add, mean): every kind of light kernel in a few nodes."""
    rng = np.random.default_rng(seed)

    def w(name, *shape):
        array = (rng.standard_normal(shape) * 0.2).astype(np.float32)
        return numpy_helper.from_array(array, name)

    inits = [w("w1", 16, 3, 3, 3), w("b1", 16), w("w2", 16, 16, 1, 1), w("w3", 16, 16, 3, 3)]
    inits += [w("fc", 64, 32), w("fcb", 64)]
    inits.append(numpy_helper.from_array(np.array([1, 4, 16], np.int64), "shape3"))
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        n("Relu", ["c1"], ["r1"]),
        n("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        n("Conv", ["p1", "w2"], ["a"]),
        n("Conv", ["p1", "w3"], ["b"], pads=[1, 1, 1, 1]),
        n("Concat", ["a", "b"], ["cat"], axis=1),
        n("Sigmoid", ["cat"], ["sig"]),
        n("Mul", ["cat", "sig"], ["swish"]),
        n("AveragePool", ["swish"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        n("GlobalAveragePool", ["ap"], ["gp"]),
        n("Flatten", ["gp"], ["flat"]),
        n("Gemm", ["flat", "fc", "fcb"], ["h"], transB=1),
        n("Reshape", ["h", "shape3"], ["q"]),
        n("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
        n("MatMul", ["q", "qt"], ["s"]),
        # over the queries, not the keys: not attention, so the batch matmuls and the
        # softmax stay kernels of their own (graph.passes.attention fuses the other axis)
        n("Softmax", ["s"], ["att"], axis=1),
        n("MatMul", ["att", "q"], ["ctx"]),
        n("Add", ["ctx", "q"], ["res"]),
        n("ReduceMean", ["res"], ["y"], axes=[2], keepdims=0),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "small_net", [x], [y], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.fixture(scope="module")
def net():
    return load_model(small_net())


def _ops(tasks) -> list[str]:
    return [t.task.op for t in tasks if is_op_task(t)]


# ----------------------------------------------------------------------------- extraction
def test_template_policy_extracts_the_anchors_as_before(net) -> None:
    _, graph = net
    assert network_tasks(graph, CPU, "template") == extract_tasks(graph, CPU)


def test_sketch_policy_adds_every_kernel_the_network_runs(net) -> None:
    _, graph = net
    tasks = network_tasks(graph, CPU, "sketch", min_share=0.0)
    anchors = extract_tasks(graph, CPU)
    assert tasks[: len(anchors)] == anchors
    assert _ops(tasks) == [
        "pool2d", "concat", "elementwise", "pool2d", "global_pool2d",
        "transpose", "batch_matmul", "softmax", "batch_matmul", "elementwise", "reduce_mean",
    ]  # fmt: skip
    by_op = {t.describe(graph): t for t in tasks if is_op_task(t)}
    # in the layouts the compiled network holds the values in: the pools in the conv's
    # channel block, the concat and the SiLU (Sigmoid and Mul fused) on NCHW8c tensors,
    # seen as rows of 8-lane vectors ([1, C/8 * H * W, 8])
    assert "pool2d 1x16x16x16 block=8 " in next(d for d in by_op if d.startswith("pool2d")) + " "
    assert "concat 1x128x8,1x128x8 axis=1" in by_op
    assert "elementwise 1x256x8 fn=silu" in by_op
    assert "batch_matmul 1x4x16 * 1x16x4" in by_op
    # each its own group, after the anchors' groups
    groups = [t.group for t in tasks if is_op_task(t)]
    assert groups == list(range(len(anchors), len(tasks)))


def test_tasks_are_the_kernels_the_compiler_calls(net) -> None:
    """Every extracted task, given a config, is reported by the compiler as used: the
    extraction and the compiler agree on the exact Task of every call."""
    _, graph = net
    ops = op_tasks(graph, CPU)
    overrides = {t.task: registry.default_config(t.task) for t in ops}
    compiled = compile_graph(graph, CPU, optimized=True, overrides=overrides)
    used = {c.task: len(c.nodes) for c in compiled.choices if is_op(c.task)}
    assert used == {t.task: t.weight for t in ops}


def is_op(task: Task) -> bool:
    return "weight" not in task.args


def test_repeated_kernels_are_weighted_and_tiny_ones_left_out() -> None:
    _, graph = load_model(zoo.build("squeezenet-1.1", image_size=64))
    every = {t.describe(graph): t.weight for t in network_tasks(graph, CPU, "sketch", 0.0)}
    assert every["concat 1x1800x8,1x1800x8 axis=1"] == 2  # two fire modules alike
    _, graph = load_model("zoo:resnet-18")
    every = network_tasks(graph, CPU, "sketch", 0.0)
    # resnet-18's max pool (~1% of its estimated cost) is kept; its global pool over
    # 512x7x7 (~0.02%) is not worth a trial
    assert _ops(every) == ["pool2d", "global_pool2d"]
    assert _ops(network_tasks(graph, CPU, "sketch")) == ["pool2d"]


def test_a_gather_costs_the_rows_it_reads_not_its_table() -> None:
    """bert-tiny's embedding lookup: 128 rows of a 30522x128 table (15.6 MB) read, 64 KB
    written; counting the table made it 44% of the network's estimated cost."""
    lookup = Task.make(
        "gather", target=CPU, data=(30522, 128), indices=(1, 128), indices_dtype="int64", axis=0
    )
    rows = 128 * 128 * 4
    assert kernel_bytes(lookup) == rows + 128 * 8 + rows  # written, indices, rows read
    add = Task.make("elementwise", target=CPU, fn="add", shapes=[(1, 128, 128)] * 2)
    assert kernel_bytes(add) == 3 * rows  # other ops read all of their inputs


def test_auto_policy_keeps_templates_with_a_choice(net) -> None:
    _, graph = net
    auto = _ops(network_tasks(graph, CPU, "auto", min_share=0.0))
    # a blocked global pool has one config under its template: nothing to tune
    assert "global_pool2d" not in auto and "pool2d" in auto and "softmax" in auto


def test_a_pool_block_must_divide_its_channels() -> None:
    task = Task.make("global_pool2d", data=(1, 24, 5, 5), kind="avg", block=16)
    with pytest.raises(TaskError, match="global_pool2d: block must be a divisor of the 24"):
        registry.default_config(task)
    pinned = Task.make("global_pool2d", data=(1, 24, 5, 5), kind="avg", block=8)
    assert registry.instantiate(pinned, registry.default_config(pinned)).notes["data_layout"] == (
        "NCHW8c"
    )


# ------------------------------------------------------------------------------ compiling
def _sketch_record(task: Task, seed: int, device: str = "local"):
    sketches, params = registry.sketches(task)
    rng = np.random.default_rng(seed)
    sketch = sketches[seed % len(sketches)]
    config = registry.sketch_config(realise(sketch, sample(sketch, params, rng)))
    result = MeasureResult((1e-4,), MeasureErrorNo.NO_ERROR, "", 0.1, 0.0, MeasureSettings())
    return make_record(MeasureInput(task, config), result, device)


def test_sketch_records_of_light_ops_compile_and_match_onnxruntime(net, tmp_path) -> None:
    model, graph = net
    ops = op_tasks(graph, CPU)
    records = [_sketch_record(t.task, i) for i, t in enumerate(ops[1:], start=1)]
    records.append(_sketch_record(ops[0].task, 0, device="other-box"))
    compiled = compile_graph(graph, CPU, records, device_key="local", optimized=True)
    reasons = {c.task: c.reason for c in compiled.choices if is_op(c.task)}
    assert all(reasons[t.task] == "record" for t in ops[1:])
    assert "device key other-box" in reasons[ops[0].task]  # reported like an anchor's
    compiled.save(tmp_path / "net.tfa")
    inputs = random_inputs(graph, seed=2)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-3


def test_without_records_light_ops_are_not_listed(net) -> None:
    _, graph = net
    compiled = compile_graph(graph, CPU, optimized=True)
    assert not [c for c in compiled.choices if is_op(c.task)]
    assert len(compiled.choices) == len({t.group for t in extract_tasks(graph, CPU)})


# ---------------------------------------------------------------------------- end to end
def test_cli_tasks_lists_the_light_ops(tmp_path, capsys) -> None:
    path = tmp_path / "small.onnx"
    path.write_bytes(small_net())
    assert main(["tasks", str(path), "--policy", "sketch", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ops = {t["op"]: t for t in doc["tasks"]}
    assert {"pool2d", "concat", "batch_matmul", "elementwise"} <= set(ops)
    assert ops["concat"]["weight"] == 1 and ops["concat"]["params"]["axis"] == 1
    assert main(["tasks", str(path), "--json"]) == 0
    assert "concat" not in {t["op"] for t in json.loads(capsys.readouterr().out)["tasks"]}


def attention(seed: int = 0) -> bytes:
    """small_net's tail alone: no anchors, six light kernels."""
    n = helper.make_node
    nodes = [
        n("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
        n("MatMul", ["q", "qt"], ["s"]),
        # over the queries, not the keys: not attention, so the batch matmuls and the
        # softmax stay kernels of their own (graph.passes.attention fuses the other axis)
        n("Softmax", ["s"], ["att"], axis=1),
        n("MatMul", ["att", "q"], ["ctx"]),
        n("Add", ["ctx", "q"], ["res"]),
        n("ReduceMean", ["res"], ["y"], axes=[2], keepdims=0),
    ]
    q = helper.make_tensor_value_info("q", TensorProto.FLOAT, [2, 24, 40])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    model = helper.make_model(
        helper.make_graph(nodes, "attention", [q], [y]),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    return model.SerializeToString()


def test_tiny_sketch_tune_tunes_the_light_ops(tmp_path) -> None:
    model, graph = load_model(attention())
    settings = MeasureSettings(number=1, repeat=1, min_repeat_ms=2)
    options = JobOptions(trials=8, target=CPU, policy="sketch", settings=settings,
                         select_top=0, bench_repeat=2)  # fmt: skip
    out = io.StringIO()
    result = run_job(model, graph, options, tmp_path / "t.jsonl", tmp_path / "t.tfa", stream=out)
    assert result.ok, out.getvalue()
    tuned = [c for c in result.compiled.choices if is_op(c.task) and c.tuned]
    assert len(result.tasks) == 6 and not result.builds.tuned.fallbacks()
    assert len(tuned) == 6, [(c.task.op, c.reason) for c in result.compiled.choices]
    assert "non-anchor kernels" in out.getvalue()


def test_tasks_json_is_what_tune_tasks_reads(tmp_path, capsys) -> None:
    path, doc = tmp_path / "att.onnx", tmp_path / "tasks.json"
    path.write_bytes(attention())
    assert main(["tasks", str(path), "--policy", "sketch", "--json"]) == 0
    doc.write_text(capsys.readouterr().out)
    argv = ["tune-tasks", str(doc), "--policy", "sketch", "--trials", "1"]
    assert main([*argv, "--log", str(tmp_path / "t.jsonl"), "--min-repeat-ms", "1"]) == 0
