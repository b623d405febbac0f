"""Winograd conv2d: the transform matrices compute a correlation, the weight transform packs
what the kernel reads, ineligible convs are refused by name, the zero coefficients fold away,
and a network runs each node with the faster of its direct and Winograd tasks (checked
against ONNX Runtime). The kernel itself is checked against numpy in test_compiled_ops."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.backends.cpu.winograd import MATRICES, transform_weight
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
