"""Channels padded to whole vectors: a conv whose channel count has only a small block
(shufflenet_v2's 58, 116 and 232: blocks of 2, 4 and 8) runs padded, the network holds its
activations padded, and transforms pad and drop the channels. Pinned to AVX2 (8 lanes), so
the same channels pad on any x86 host."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.conv2d import padded_channels
from tunefarm.backends.cpu.layout import anchor_variants
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.compiler import compile_graph
from tunefarm.compiler.layouts import physical_shape, same_memory
from tunefarm.frontend.models import load_model
from tunefarm.graph.ir import random_inputs
from tunefarm.ir.layouts import transform_padded
from tunefarm.measure import MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task

TARGET = "cpu -isa=avx2 -cores=1"
CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0, rtol=0.0, atol_rel=1e-6
)


@pytest.mark.parametrize(
    ("isa", "channels", "want"),
    [
        ("avx512", 58, 64),  # block 2
        ("avx512", 116, 128),  # block 4
        ("avx512", 232, 240),  # block 8: half a vector
        ("avx512", 24, 24),  # block 8, but 32 would be a third more work
        ("avx512", 1000, 1008),  # block 8
        ("avx512", 1024, 1024),
        ("avx2", 58, 64),  # block 2 of 8 lanes
        ("avx2", 116, 120),  # block 4: half a vector
        ("avx2", 120, 120),
        ("avx2", 30, 32),
        ("avx2", 14, 14),  # 16 would be 1/7 more work
        ("avx2", 3, 3),  # RGB input: odd
        ("avx512", 64, 64),
    ],
)
def test_which_channel_counts_pad(isa: str, channels: int, want: int) -> None:
    assert padded_channels(channels, vector_lanes(parse_target(f"cpu -isa={isa}"))) == want


def test_conv_tasks_pad_their_channels() -> None:
    """A 1x1 conv 30 -> 30 and a depthwise conv on 30 channels run as 32-channel convs in
    blocks of 8; a grouped conv is left to its own blocks."""
    dense = Task.make("conv2d", target=TARGET, data=(1, 30, 7, 7), weight=(30, 30, 1, 1))
    (task,) = anchor_variants(dense)
    assert tuple(task.args["data"]) == (1, 32, 7, 7)
    assert tuple(task.args["weight"]) == (32, 32, 1, 1)
    assert tuple(task.args["blocks"]) == (8, 8)
    dw = Task.make(
        "conv2d", target=TARGET, data=(1, 30, 7, 7), weight=(30, 1, 3, 3), groups=30, padding=1
    )
    (task,) = anchor_variants(dw)
    assert tuple(task.args["weight"]) == (32, 1, 3, 3) and task.args["groups"] == 32
    grouped = Task.make(
        "conv2d", target=TARGET, data=(1, 30, 7, 7), weight=(30, 10, 1, 1), groups=3
    )
    assert all(tuple(t.args["data"]) == (1, 30, 7, 7) for t in anchor_variants(grouped))


def test_padded_shapes_and_memory() -> None:
    assert physical_shape((1, 30, 5, 5), "NCHW8c") == (1, 4, 5, 5, 8)
    assert physical_shape((1, 32, 5, 5), "NCHW8c") == (1, 4, 5, 5, 8)
    # a flatten of a 1x1 map is a view only where no channel is padded
    assert same_memory((1, 32, 1, 1), "NCHW8c", None)
    assert not same_memory((1, 30, 1, 1), "NCHW8c", None)


def test_transform_padded_in_numpy() -> None:
    x = np.arange(2 * 10 * 3 * 2, dtype=np.float32).reshape(2, 10, 3, 2)
    blocked = transform_padded(x, "NCHW", "NCHW8c", 10)
    assert blocked.shape == (2, 2, 3, 2, 8)
    assert np.array_equal(blocked[:, 1, :, :, 2:], np.zeros((2, 3, 2, 6), np.float32))
    assert np.array_equal(blocked[:, 1, :, :, 1], x[:, 9])
    assert np.array_equal(transform_padded(blocked, "NCHW8c", "NCHW", 10), x)
    two = transform_padded(x, "NCHW", "NCHW2c", 10)
    assert np.array_equal(transform_padded(two, "NCHW2c", "NCHW8c", 10), blocked)


def run_checked(tmp_path, task: Task) -> None:
    """Build and run the default config; the runner compares the output with the task's
    numpy reference."""
    inputs = [MeasureInput(task, registry.default_config(task))]
    with registry.local_builder(n_parallel=1, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        (result,) = runner.run(inputs, builds)
    assert result.error_no == MeasureErrorNo.NO_ERROR, result.error_msg[:300]


@pytest.mark.parametrize(
    ("shape", "src", "dst", "offset"),
    [
        ((2, 10, 3, 5), "NCHW", "NCHW8c", 0),  # pads 10 -> 16 with zeros
        ((1, 2, 3, 5, 8), "NCHW8c", "NCHW", 0),  # drops the 6 padded channels
        ((1, 5, 3, 5, 2), "NCHW2c", "NCHW8c", 0),
        ((1, 2, 3, 5, 8), "NCHW8c", "NCHW2c", 0),
        ((1, 23, 3, 5), "NCHW", "NCHW8c", 13),  # channels 13..22, a split's second part
    ],
)
def test_padded_layout_transform_kernels(tmp_path, shape, src, dst, offset) -> None:
    """The compiled transform against `transform_padded` (the runner compares every
    output); its output shape is the padded one."""
    more = {"offset": offset} if offset else {}
    task = Task.make(
        "layout_transform", target=TARGET, shape=shape, src=src, dst=dst, channels=10, **more
    )
    out_shape = registry.instantiate(task, registry.default_config(task)).outputs[0].shape
    assert tuple(out_shape) == transform_padded(np.zeros(shape), src, dst, 10, offset).shape
    run_checked(tmp_path, task)


def test_concat_reads_blocked_inputs(tmp_path) -> None:
    """A logical concat of a padded NCHW8c input (10 channels in 16), a logical one and an
    NCHW2c one: the reference against numpy, the kernel against the reference."""
    rng = np.random.default_rng(5)
    logical = [rng.standard_normal((1, c, 3, 4)).astype(np.float32) for c in (10, 3, 6)]
    blocked = [
        transform_padded(logical[0], "NCHW", "NCHW8c", 10),
        logical[1],
        transform_padded(logical[2], "NCHW", "NCHW2c", 6),
    ]
    task = Task.make(
        "concat",
        target=TARGET,
        shapes=[x.shape for x in blocked],
        axis=1,
        layouts=["NCHW8c", None, "NCHW2c"],
        channels=[10, 3, 6],
    )
    ref = registry.template(task).reference(task, {f"x{i}": x for i, x in enumerate(blocked)})
    assert np.array_equal(ref, np.concatenate(logical, axis=1))
    run_checked(tmp_path, task)


def test_channel_shuffle_kernel(tmp_path) -> None:
    """A concat of a padded NCHW8c input and a logical one, shuffled in 2 groups (output
    channel c is concat channel (c % 2) * 10 + c // 2): the reference against numpy, the
    kernel against the reference."""
    rng = np.random.default_rng(8)
    a, b = (rng.standard_normal((1, 10, 3, 4)).astype(np.float32) for _ in range(2))
    task = Task.make(
        "channel_shuffle",
        target=TARGET,
        shapes=[(1, 2, 3, 4, 8), (1, 10, 3, 4)],
        layouts=["NCHW8c", None],
        channels=[10, 10],
        groups=2,
    )
    inputs = {"x0": transform_padded(a, "NCHW", "NCHW8c", 10), "x1": b}
    ref = registry.template(task).reference(task, inputs)
    want = np.empty((1, 20, 3, 4), np.float32)
    want[:, 0::2], want[:, 1::2] = a, b
    assert np.array_equal(ref, want)
    run_checked(tmp_path, task)


def _shuffle_unit_model() -> bytes:
    """A ShuffleNet v2 unit at 30 channels: a stem conv and max pool, a branch of 1x1,
    depthwise 3x3 and 1x1 convs (then a ReLU and a per-channel constant), the concat, the
    channel shuffle (reshape, transpose, reshape), the split, a conv on one half added to
    the other, a global pool and a classifier."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def arr(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    def const(name: str, values) -> onnx.TensorProto:
        return numpy_helper.from_array(np.array(values, dtype=np.int64), name)

    params = [arr("w0", 30, 3, 3, 3), arr("b0", 30), arr("w1", 30, 30, 1, 1)]
    params += [arr("wd", 30, 1, 3, 3), arr("w2", 30, 30, 1, 1), arr("b2", 30)]
    params += [arr("k", 1, 30, 1, 1), arr("w3", 30, 30, 1, 1), arr("fc", 10, 30)]
    params += [const("s5", [1, 2, 30, 8, 8]), const("s4", [1, 60, 8, 8])]
    params += [const("sizes", [30, 30]), const("flat", [1, 30])]
    node = helper.make_node
    nodes = [
        node("Conv", ["x", "w0", "b0"], ["a"], pads=[1] * 4, name="stem"),
        node("Relu", ["a"], ["ar"], name="stem_relu"),
        node("MaxPool", ["ar"], ["p"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4),
        node("Conv", ["p", "w1"], ["b1"], name="pw1"),
        node("Relu", ["b1"], ["b1r"], name="pw1_relu"),
        node("Conv", ["b1r", "wd"], ["d"], group=30, pads=[1] * 4, name="dw"),
        node("Conv", ["d", "w2", "b2"], ["b2o"], name="pw2"),
        node("Relu", ["b2o"], ["b2r"], name="pw2_relu"),
        node("Mul", ["b2r", "k"], ["bk"], name="scale"),  # after the ReLU: not folded
        node("Concat", ["p", "bk"], ["cat"], axis=1, name="cat"),
        node("Reshape", ["cat", "s5"], ["r5"], name="r5"),
        node("Transpose", ["r5"], ["t5"], perm=[0, 2, 1, 3, 4], name="t5"),
        node("Reshape", ["t5", "s4"], ["sh"], name="r4"),
        node("Split", ["sh", "sizes"], ["x1", "x2"], axis=1, name="split"),
        node("Conv", ["x2", "w3"], ["c3"], name="pw3"),
        node("Add", ["x1", "c3"], ["sum"], name="add"),
        node("GlobalAveragePool", ["sum"], ["g"], name="gap"),
        node("Reshape", ["g", "flat"], ["gf"], name="flatten"),
        node("Gemm", ["gf", "fc"], ["y"], transB=1, name="fc"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])
    model = helper.make_model(
        helper.make_graph(nodes, "shuffle_unit", [x], [y], params),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def test_shuffle_unit_runs_padded_and_matches_onnxruntime(tmp_path) -> None:
    """The convs on 30 channels run as 32-channel convs; the max pool, the per-channel
    multiply and the classifier read the padded activations; the concat and the shuffle
    are one kernel that reads the branch output padded, the split writes the half a conv
    reads straight into its layout (a transform, no slice); ONNX Runtime's output."""
    model = _shuffle_unit_model()
    _, graph = load_model(model)
    compiled = compile_graph(graph, TARGET)
    convs = [c.task for c in compiled.choices if c.task.op == "conv2d"]
    assert len(convs) == 5
    assert all(t.args["weight"][0] == 32 for t in convs)
    kernels = [c.kernel.split("_", 1)[1] for c in compiled.plan.calls]
    assert kernels.count("pool2d") == 1 and kernels.count("elementwise") >= 1
    assert kernels.count("slice") == 1  # x1; x2 goes straight into NCHW8c
    assert "channel_shuffle" in kernels and "concat" not in kernels and "transpose" not in kernels
    labels = [c.node for c in compiled.plan.calls if "layout_transform" in c.kernel]
    assert not any(label.startswith("cat") for label in labels)
    assert "split" in labels
    compiled.save(tmp_path / "unit.tfa")
    inputs = random_inputs(graph, seed=4)
    got = GraphExecutor.load(tmp_path / "unit.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-4


def _nan_model(kind: str) -> bytes:
    """Two convs to 30 channels, then a "div" (a over b, b ~ 5 on the real channels) or a
    "sqrt" (of sigmoid(a) - hard_sigmoid(b), >= 0 on the real channels: a ~ 10), then a
    1x1 conv to 8 channels. Held padded, the padded lanes would be 0 / 0 or sqrt(0.5 - 0.6),
    NaNs that the head conv's zero weights pass on."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(6)

    def arr(name: str, array: np.ndarray) -> onnx.TensorProto:
        return numpy_helper.from_array(array.astype(np.float32), name)

    small = 0.01  # a's and b's weights: a ~ 10 (sqrt), b ~ 5 (div) on the real channels
    params = [
        arr("wa", rng.standard_normal((30, 3, 1, 1)) * small),
        arr("ba", np.full(30, 10.0) if kind == "sqrt" else rng.standard_normal(30)),
        arr("wb", rng.standard_normal((30, 3, 1, 1)) * small),
        arr("bb", rng.standard_normal(30) * (0.1 if kind == "div" else 1.0) + (kind == "div") * 5),
        arr("wc", rng.standard_normal((8, 30, 1, 1))),
    ]
    node = helper.make_node
    nodes = [
        node("Conv", ["x", "wa", "ba"], ["a"], name="conv_a"),
        node("Conv", ["x", "wb", "bb"], ["b"], name="conv_b"),
    ]
    if kind == "div":
        nodes.append(node("Div", ["a", "b"], ["r"], name="divide"))
    else:
        nodes.append(node("Sigmoid", ["a"], ["sa"], name="sig"))
        nodes.append(node("HardSigmoid", ["b"], ["hb"], alpha=0.1, beta=0.6, name="hsig"))
        nodes.append(node("Sub", ["sa", "hb"], ["d"], name="diff"))
        nodes.append(node("Sqrt", ["d"], ["r"], name="root"))
    nodes.append(node("Conv", ["r", "wc"], ["y"], name="head"))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 6, 6])
    model = helper.make_model(
        helper.make_graph(nodes, kind, [x], [y], params),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


@pytest.mark.parametrize("kind", ["div", "sqrt"])
def test_ops_that_could_make_padded_lanes_nan_run_logical(tmp_path, kind: str) -> None:
    """A Div or a Sqrt of values held padded runs logical: the output is finite and ONNX
    Runtime's."""
    model = _nan_model(kind)
    _, graph = load_model(model)
    compiled = compile_graph(graph, TARGET)
    convs = [c.task for c in compiled.choices if c.task.op == "conv2d"]
    assert {t.args["weight"][0] for t in convs} == {32, 8}  # conv_a, conv_b padded
    compiled.save(tmp_path / "nan.tfa")
    inputs = random_inputs(graph, seed=7)
    got = GraphExecutor.load(tmp_path / "nan.tfa").run(inputs)
    assert np.isfinite(got["y"]).all()
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-4
