"""Winograd conv2d: the transform matrices compute a correlation, the weight transform packs
what the kernel reads, ineligible convs are refused by name, the zero coefficients fold away,
a network runs each node with the faster of its direct and Winograd tasks, and without
records with the one `layout.winograd_by_default` picks (checked against ONNX Runtime).
The kernel itself is checked against numpy in test_compiled_ops."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.backends.cpu.conv2d import conv_params
from tunefarm.backends.cpu.layout import anchor_variants, untuned_variant
from tunefarm.backends.cpu.winograd import MATRICES, STRIDED_MATRICES, transform_weight
from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import MeasureInput, MeasureResult, MeasureSettings
from tunefarm.recipe import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task, TaskError
from tunefarm.tune.records import make_record


@pytest.mark.parametrize("m", sorted(MATRICES))
def test_transforms_compute_a_correlation(m: int) -> None:
    bt, g, at = MATRICES[m]
    rng = np.random.default_rng(m)
    d, k = rng.standard_normal(m + 2), rng.standard_normal(3)
    want = np.array([d[i : i + 3] @ k for i in range(m)])
    np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", sorted(STRIDED_MATRICES))
def test_strided_transforms_compute_a_stride2_correlation(m: int) -> None:
    bt, g, at = STRIDED_MATRICES[m]
    assert bt.shape == (2 * m + 1, 2 * m + 1) and g.shape == (2 * m + 1, 3)
    rng = np.random.default_rng(m)
    d, k = rng.standard_normal(2 * m + 1), rng.standard_normal(3)
    want = np.array([d[2 * i : 2 * i + 3] @ k for i in range(m)])
    np.testing.assert_allclose(at @ ((g @ k) * (bt @ d)), want, rtol=1e-12, atol=1e-12)


def test_strided_input_transform_has_integer_terms() -> None:
    """F(4, 2)'s fractions live in G (pack time), so the run-time transform has none."""
    for bt, _g, _at in STRIDED_MATRICES.values():
        np.testing.assert_array_equal(bt, np.round(bt))


def test_weight_transform_is_packed_as_the_kernel_reads_it() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((32, 8, 3, 3)).astype(np.float32)
    u = transform_weight(w, 4, ib=4, ob=16)  # [a, b, O/ob, C/ib, ib, ob]
    g = MATRICES[4][1]
    o, c = 21, 6
    want = g @ w[o, c].astype(np.float64) @ g.T
    np.testing.assert_allclose(u[:, :, o // 16, c // 4, c % 4, o % 16], want, rtol=1e-6)


@pytest.mark.parametrize(
    "params, says",
    [
        (dict(weight=(8, 8, 1, 1)), "kernel 1x1"),
        (dict(weight=(8, 8, 3, 3), strides=3), "strides [3, 3]"),
        (dict(weight=(8, 8, 3, 3), strides=(2, 1), padding=1), "strides [2, 1]"),
        # no top padding and an even height: the tiles would leave the last row unread
        (dict(weight=(8, 8, 3, 3), strides=2), "strides [2, 2]"),
        (dict(weight=(8, 8, 3, 3), dilation=2), "dilation [2, 2]"),
        (dict(weight=(8, 4, 3, 3), groups=2), "groups 2"),
    ],
)
def test_ineligible_conv_is_refused_by_name(params, says: str) -> None:
    task = Task.make("conv2d_winograd", data=(1, 8, 10, 10), **params)
    with pytest.raises(TaskError, match="needs a 3x3 kernel") as err:
        registry.config_space(task)
    assert says in str(err.value)


def test_zero_and_unit_coefficients_fold_away() -> None:
    from tunefarm.measure.types import Config

    task = Task.make("conv2d_winograd", data=(1, 16, 8, 8), weight=(16, 16, 3, 3), padding=1)
    values = registry.default_config(task).as_dict()
    code = registry.generate_source(MeasureInput(task, Config.make(values))).code
    dead = re.findall(r"\* 0\.0f|\* 1\.0f\b|(?<![-\w.])[01]\.0f \*|\+ 0\.0f", code)
    assert not dead, f"{dead[:3]} left in the transforms"


def _record(task: Task, seconds: float):
    result = MeasureResult((seconds,), MeasureErrorNo.NO_ERROR, "", 0.1, 0.0, MeasureSettings())
    return make_record(MeasureInput(task, registry.default_config(task)), result, "local")


@pytest.mark.parametrize("faster", ["conv2d_winograd", "conv2d"])
def test_network_runs_each_node_with_its_faster_alternative(faster: str, tmp_path) -> None:
    model, graph = load_model(zoo.build("resnet-18", image_size=64))
    tasks = extract_tasks(graph, "cpu")
    records = [_record(t.task, 1e-4 if t.task.op == faster else 1e-3) for t in tasks]
    compiled = compile_graph(graph, "cpu", records=records, device_key="local", optimized=True)
    used = {c.task.op for c in compiled.choices if c.task.op.startswith("conv2d")}
    assert faster in used
    if faster == "conv2d":
        assert "conv2d_winograd" not in used
    compiled.save(tmp_path / "net.tfa")
    inputs = random_inputs(graph, seed=2)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-3


def test_a_tuned_alternative_waits_for_the_untuned_one_to_have_a_record() -> None:
    """Records for the direct convs only (a search in its first round): the nodes an untuned
    compile runs with Winograd keep it, however fast the direct records read, as its default's
    time is unknown (`choose_alternative`); a Winograd record makes the comparison."""
    _, graph = load_model(zoo.build("resnet-18", image_size=64))
    tasks = extract_tasks(graph, "cpu")
    untuned = compile_graph(graph, "cpu", optimized=True)
    direct = [_record(t.task, 1e-9) for t in tasks if t.task.op == "conv2d"]
    early = compile_graph(graph, "cpu", records=direct, device_key="local", optimized=True)
    ops = [c.task.op for c in early.choices]
    assert "conv2d_winograd" in ops and ops == [c.task.op for c in untuned.choices]
    slow = [_record(t.task, 1e-3) for t in tasks if t.task.op == "conv2d_winograd"]
    both = compile_graph(graph, "cpu", records=direct + slow, device_key="local", optimized=True)
    assert "conv2d_winograd" not in [c.task.op for c in both.choices]


@pytest.mark.parametrize("size, variants", [(56, 2), (28, 2), (14, 1)])
def test_stride2_conv_gets_winograd_where_its_output_is_large(size: int, variants: int) -> None:
    """A stride-2 3x3 conv gets the alternative from a 14 x 14 output up (`winograd_pays`)."""
    task = Task.make(
        "conv2d", target="cpu -isa=avx512 -cores=1", data=(1, 64, size, size),
        weight=(64, 64, 3, 3), strides=2, padding=1,
    )  # fmt: skip
    tasks = anchor_variants(task)
    assert [t.op for t in tasks] == ["conv2d", "conv2d_winograd"][:variants]
    if variants == 2:
        assert conv_params(tasks[1])["strides"] == (2, 2)
        assert registry.default_config(tasks[1]).get("m") == 2


@pytest.mark.parametrize(
    "c, size, stride, want",
    [
        (64, 56, 1, "conv2d_winograd"),  # resnet50's first 3x3: 0.55x the direct time
        (512, 7, 1, "conv2d"),  # 4 tiles over 37.7 MB of transformed weights: 1.65x (Intel)
        (32, 7, 1, "conv2d_winograd"),  # 4 tiles, 0.6 MB of them: 0.61x
        (64, 13, 1, "conv2d_winograd"),  # 16 tiles (squeezenet's 13 x 13): 0.94x
        (16, 14, 1, "conv2d_winograd"),  # one vector of input channels: 0.47x
        (128, 56, 2, "conv2d_winograd"),  # resnet50's stride-2 3x3, 56 -> 28: 0.85x
        (512, 14, 2, "conv2d"),  # 14 -> 7: no alternative (`winograd_pays`)
        (3, 224, 2, "conv2d"),  # an RGB stem: 3 channels share no transform, 2.5x
    ],
)
def test_untuned_compile_runs_winograd_where_it_pays(c: int, size: int, stride: int, want):
    """Without records a node runs `layout.winograd_by_default`'s pick of its variants."""
    task = Task.make(
        "conv2d", target="cpu -isa=avx512 -cores=1", data=(1, c, size, size),
        weight=(64, c, 3, 3), strides=stride, padding=1,
    )  # fmt: skip
    variants = anchor_variants(task)
    assert untuned_variant(variants).op == want
    assert registry.untuned_variant(variants).op == want


def test_untuned_network_runs_winograd_and_matches_onnxruntime(tmp_path) -> None:
    """resnet-18 compiled without records runs its 3x3 convs with Winograd (the stem, 7x7,
    stays direct) and still matches ONNX Runtime to 1e-4."""
    model, graph = load_model(zoo.build("resnet-18", image_size=64))
    compiled = compile_graph(graph, "cpu", optimized=True)
    ops = [c.task.op for c in compiled.choices if c.task.op.startswith("conv2d")]
    assert "conv2d_winograd" in ops and "conv2d" in ops
    compiled.save(tmp_path / "net.tfa")
    inputs = random_inputs(graph, seed=3)
    got = GraphExecutor.load(tmp_path / "net.tfa").run(inputs)
    assert relative_error(got, onnxruntime_outputs(model, inputs)) <= 1e-4
