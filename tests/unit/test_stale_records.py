"""Records that match no task of the network (tune/stale.py): after the network compiler
changed its tasks (channel padding of shufflenet, mobilenet_v3, regnet, squeezenet), the
records tuned for the old tasks are stale; compile and `tune --resume` say so, with how
many and of which ops, instead of ignoring them silently."""

from __future__ import annotations

import io

import pytest

from tunefarm.backends import registry
from tunefarm.cli.compile import report_choices
from tunefarm.compiler import compile_graph
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.measure import MeasureInput
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import MeasureResult, MeasureSettings
from tunefarm.recipe.job import tune_network
from tunefarm.task import Task
from tunefarm.tune.records import append_records, make_record
from tunefarm.tune.stale import StaleRecords

# tasks of no resnet-18: what padding left behind in the log
OLD = [
    Task.make("conv2d", data=(1, 58, 28, 28), weight=(58, 58, 3, 3), padding=1),
    Task.make("conv2d", data=(1, 58, 28, 28), weight=(116, 58, 1, 1)),
    Task.make("depthwise_conv2d", data=(1, 58, 28, 28), weight=(58, 1, 3, 3), padding=1, groups=58),
]


@pytest.fixture(scope="module")
def graph():
    return load_model(zoo.build("resnet-18", image_size=64))[1]


def _record(task: Task, cost: float = 1e-4):
    config = registry.default_config(task)
    result = MeasureResult((cost,), MeasureErrorNo.NO_ERROR, "", 0.1, 0.0, MeasureSettings())
    return make_record(MeasureInput(task, config), result, "local")


def _records(graph) -> list:
    first = extract_tasks(graph, "cpu")[0].task
    return [
        _record(first),
        _record(OLD[0]),
        _record(OLD[0], 2e-4),
        _record(OLD[1]),
        _record(OLD[2]),
    ]


def test_compile_reports_the_records_no_task_matches(graph):
    compiled = compile_graph(graph, "cpu", _records(graph), optimized=True)
    assert sum(c.tuned for c in compiled.choices) == 1
    assert compiled.stale == StaleRecords(4, (("conv2d", 3), ("depthwise_conv2d", 1)))
    out = io.StringIO()
    report_choices(compiled, out)
    assert "4 record(s) match no task of this network (conv2d x3, depthwise_conv2d x1): " \
        "stale: the network's tasks changed" in out.getvalue()  # fmt: skip


def test_records_that_all_match_are_not_reported(graph):
    compiled = compile_graph(graph, "cpu", _records(graph)[:1], optimized=True)
    assert compiled.stale is None
    out = io.StringIO()
    report_choices(compiled, out)
    assert "stale" not in out.getvalue()
    assert compile_graph(graph, "cpu", None, optimized=True).stale is None  # untuned


def test_resume_reports_the_records_no_task_matches(graph, tmp_path):
    log = tmp_path / "log.jsonl"
    append_records(log, _records(graph))
    tasks = extract_tasks(graph, "cpu")
    out = io.StringIO()
    tune_network(tasks, 1, log, resume=True, stream=out)  # the loaded trial spends the budget
    text = out.getvalue()
    assert "resumed: 1 trial(s) loaded" in text
    assert "resumed: 4 record(s) match no task of this network (conv2d x3, " in text
