"""Kernels that users' models lean on, against numpy: dense with row tiles that do not
divide the rows (ViT's 197 tokens), on the host's own vector width, with every epilogue
input kind.
"""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.dense import register_tile
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.task import Task, TaskError

CHECK = MeasureSettings(
    min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0, rtol=0.0, atol_rel=2e-5
)


def run_checked(tmp_path, task: Task, configs: list[Config]) -> None:
    """Build and run each config; the runner compares every output with the numpy oracle."""
    inputs = [MeasureInput(task, c) for c in configs]
    with registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=tmp_path) as b:
        builds = b.build(inputs)
    with registry.local_runner(CHECK) as runner:
        results = runner.run(inputs, builds)
    bad = [(i.config.as_dict(), r.error_msg[:300]) for i, r in zip(inputs, results, strict=True)]
    assert all(r.error_no == MeasureErrorNo.NO_ERROR for r in results), bad


@pytest.mark.parametrize("target", ["cpu", "cpu -isa=avx2"])
def test_dense_row_tiles_need_not_divide_rows(tmp_path, target: str) -> None:
    """13 rows (prime) in tiles of 4, 5 and 8: the last tile computes padded rows that the
    output crops; bias and residual read the real rows only. On the host's ISA and on AVX2
    (8 lanes, another default tile)."""
    task = Task.make(
        "dense", target=target, data=(13, 48), weight=(32, 48), epilogue=("bias", "residual")
    )
    space = registry.config_space(task)
    assert {4, 5, 8} <= set(space.knobs["tile_n"].entities)
    base = registry.default_config(task).as_dict()
    assert base["tile_n"] > 1
    configs = [Config.make(dict(base, tile_n=t, tile_o=(2, 2, 8))) for t in (4, 5, 8)]
    run_checked(tmp_path, task, [registry.default_config(task), *configs])


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_default_dense_tile_fills_the_registers(isa: str) -> None:
    """ViT's 197 x 768 -> 3072: the default tile keeps rows x vectors accumulators within
    the ISA's register file and wastes at most a row of the last tile."""
    lanes = vector_lanes(parse_target(f"cpu -isa={isa}"))
    rows, inner = register_tile(197, 3072 // lanes, lanes)
    assert rows > 1 and inner > 1
    assert rows * inner <= (24 if lanes >= 16 else 10)
    assert -(-197 // rows) * rows - 197 <= 3
    assert register_tile(1, 3072 // lanes, lanes)[0] == 1
    rows, inner = register_tile(128, 768 // lanes, lanes)
    if lanes >= 16:  # BERT's 128 rows: a full register file whose row tile divides them
        assert 128 % rows == 0 and rows * inner == 24  # (8 x 3, not 6 x 4: 132 rows)
    else:  # 16 registers: 10 accumulators, 5 x 2 (4 x 3 left too few for the rest)
        assert (rows, inner) == (5, 2)


@pytest.mark.parametrize(
    "params",
    [
        dict(a=(3, 13, 8), b=(3, 8, 19)),  # attention P V at odd sizes
        dict(a=(2, 11, 12), b=(2, 21, 12), transpose_b=True),  # Q K^T with K untransposed
        dict(a=(1, 7, 5), b=(4, 5, 19)),  # a batch of one broadcasts
        dict(a=(4, 7, 5), b=(1, 5, 19)),
    ],
)
def test_batch_matmul_tiles_against_numpy(tmp_path, params) -> None:
    """The register-tiled batch matmul pads rows (clamped) and columns (zero) to whole tiles
    and crops them; every config here must match numpy."""
    task = Task.make("batch_matmul", **params)
    base = registry.default_config(task).as_dict()
    configs = [registry.default_config(task)]
    configs += [Config.make(dict(base, tile_n=t, tile_o=o)) for t, o in ((3, 2), (4, 1))]
    run_checked(tmp_path, task, configs)


def conv(data, weight, groups, **kw) -> Task:
    return Task.make("conv2d", data=data, weight=weight, groups=groups, **kw)


@pytest.mark.parametrize(
    "task",
    [
        # two groups of 4 per block of 8 (ResNeXt's first stage, scaled down)
        conv((1, 16, 9, 9), (16, 4, 3, 3), 4, padding=1, blocks=[8, 8]),
        # a group of 16 spans two blocks of 8, stride 2, bias + relu epilogue
        conv(
            (1, 32, 10, 10),
            (32, 16, 3, 3),
            2,
            padding=1,
            strides=2,
            blocks=[8, 8],
            epilogue=["bias", "relu"],
        ),
        # 4 inputs -> 8 outputs per group (C != O), dilation 2, residual
        conv(
            (1, 32, 9, 9),
            (64, 4, 3, 3),
            8,
            padding=2,
            dilation=2,
            blocks=[4, 8],
            epilogue=["residual"],
        ),
        # a 1x1 grouped conv, RegNet-like 8 per group, no padding
        conv((2, 24, 5, 5), (24, 8, 1, 1), 3, blocks=[8, 8]),
    ],
    ids=["packed_groups", "group_spans_blocks", "c_ne_o_dilated", "grouped_1x1"],
)
def test_group_conv_nchwc_against_numpy(tmp_path, task: Task) -> None:
    """Grouped convs in the blocked layout, groups packed, default config and the other
    loop order, every output checked against numpy."""
    assert registry.template(task).op == "group_conv2d_nchwc"
    base = registry.default_config(task).as_dict()
    other = Config.make(dict(base, order="icb_outer", unroll_kw=False))
    run_checked(tmp_path, task, [registry.default_config(task), other])


def test_group_conv_blocks_that_split_a_group_fall_back() -> None:
    """3 channels per group fit no vector block: the generic NCHW template runs it, and a
    pinned block that splits a group is refused with the reason."""
    task = conv((1, 24, 8, 8), (24, 3, 3, 3), 8, padding=1)
    assert registry.template(task).op == "group_conv2d"
    pinned = conv((1, 32, 8, 8), (32, 4, 3, 3), 8, padding=1, blocks=[8, 8])
    assert registry.template(pinned).op == "group_conv2d_nchwc"
    bad = Task.make("group_conv2d_nchwc", **{**pinned.args, "blocks": [16, 8]})
    with pytest.raises(TaskError, match="input block 16"):
        registry.template(bad).validate(bad)
    split = Task.make("group_conv2d_nchwc", **{**task.args, "blocks": [8, 8]})
    with pytest.raises(TaskError, match="whole groups"):
        registry.template(split).validate(split)


def resnext_block(c: int = 32, width: int = 32, groups: int = 8):
    """A ResNeXt bottleneck as ONNX: 1x1 reduce, grouped 3x3 + relu, 1x1 expand + residual."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)

    def init(name: str, *shape: int):
        scale = 1.0 / np.sqrt(np.prod(shape[1:]))
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype("f4"), name)

    inits = [
        init("w1", width, c, 1, 1),
        init("w2", width, width // groups, 3, 3),
        init("w3", c, width, 1, 1),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], name="reduce"),
        helper.make_node("Relu", ["a"], ["ar"]),
        helper.make_node("Conv", ["ar", "w2"], ["b"], group=groups, pads=[1] * 4, name="grouped"),
        helper.make_node("Relu", ["b"], ["br"]),
        helper.make_node("Conv", ["br", "w3"], ["e"], name="expand"),
        helper.make_node("Add", ["e", "x"], ["y"]),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, 10, 10])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, 10, 10])
    model = helper.make_model(
        helper.make_graph(nodes, "resnext", [x], [y], inits),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    model.ir_version = 8
    return model


@pytest.mark.parametrize("target", ["cpu", "cpu -isa=avx2"])
def test_grouped_conv_network_keeps_the_blocked_layout(tmp_path, target: str) -> None:
    """A ResNeXt bottleneck compiles with its grouped conv in the blocked layout (no layout
    transform between the convs) and matches ONNX Runtime, with 16 lanes (two groups of 4
    per block on an AVX-512 host) and 8."""
    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.ir import random_inputs
    from tunefarm.recipe import onnxruntime_outputs, relative_error
    from tunefarm.runtime.executor import GraphExecutor

    model = resnext_block()
    _, graph = load_model(model.SerializeToString())
    compiled = compile_graph(graph, target, optimized=True)
    names = [k.name for k in compiled.plan.kernels]
    # NCHW -> blocked at the input, back at the output; none around the grouped conv
    assert sum("layout_transform" in n for n in names) == 2, names
    compiled.save(tmp_path / "g.tfa")
    inputs = random_inputs(graph)
    got = GraphExecutor.load(tmp_path / "g.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-4
