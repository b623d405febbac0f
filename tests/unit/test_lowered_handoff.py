"""The featuriser's lowering shipped to the build worker (issue 27, `measure.lowered`):
the source built from it is byte-identical to the worker's own lowering, and a state never
gets another state's lowering."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tunefarm.backends import registry
from tunefarm.codegen.lower import lower
from tunefarm.measure import LocalBuilder, MeasureInput, lowered
from tunefarm.schedule.schedule import Schedule
from tunefarm.task import Task
from tunefarm.tune.sketch_search import SketchTuner

pytestmark = pytest.mark.usefixtures("build_cache")

DENSE = Task.make("dense", data=(4, 64), weight=(48, 64), epilogue=["bias", "relu"])
WINOGRAD = Task.make(
    "conv2d_winograd", data=(1, 8, 10, 10), weight=(8, 8, 3, 3), padding=(1, 1, 1, 1)
)


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    lowered.forget_all()
    yield
    lowered.forget_all()


def featurised(task: Task, n: int, seed: int = 0) -> list[MeasureInput]:
    """Inputs of `n` distinct states the search featurised (and so remembered)."""
    tuner = SketchTuner(task, seed=seed)
    indices: list[int] = []
    while len(indices) < n:
        for state in tuner._random(2 * n):
            i = tuner._make(state)
            if i is not None and i not in indices:
                indices.append(i)
    return tuner.inputs_for(indices[:n])


@pytest.mark.parametrize(
    "task",
    [DENSE, pytest.param(WINOGRAD, marks=pytest.mark.slow)],
    ids=["dense", "winograd"],
)
def test_source_from_the_shipped_lowering_is_byte_identical(task: Task):
    for inp in featurised(task, 4):
        payload = lowered.pickled_for(lowered.key(inp))
        assert payload is not None, "the featuriser did not remember its lowering"
        with lowered.handed(inp, payload):
            assert lowered.handed_for(inp) is not None
            shipped = registry.generate_source(inp).code
        assert lowered.handed_for(inp) is None  # only for the job it came with
        assert shipped == registry.generate_source(inp).code


def test_a_different_state_never_gets_a_remembered_lowering():
    a, b = featurised(DENSE, 2)
    lowered.forget_all()
    kdef = registry.instantiate(a.task, a.config)
    lowered.remember(a, lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps)))
    assert lowered.pickled_for(lowered.key(b)) is None
    other_task = MeasureInput(Task.make("dense", data=(4, 64), weight=(40, 64)), a.config)
    assert lowered.pickled_for(lowered.key(other_task)) is None
    payload = lowered.pickled_for(lowered.key(a))
    assert payload is not None
    copy = MeasureInput(a.task, a.config)  # equal, but not this job's input
    with lowered.handed(a, payload):
        assert lowered.handed_for(b) is None and lowered.handed_for(copy) is None
    with lowered.handed(a, b"not a pickle"):  # unreadable: the worker lowers it itself
        assert lowered.handed_for(a) is None


def test_the_memory_is_bounded():
    inputs = featurised(DENSE, lowered.MAX_REMEMBERED + 3)
    lowered.forget_all()
    for i, inp in enumerate(inputs):
        lowered.remember(inp, f"lowering {i}")
    assert lowered.pickled_for(lowered.key(inputs[2])) is None
    assert lowered.pickled_for(lowered.key(inputs[0])) is None  # the oldest went
    assert lowered.pickled_for(lowered.key(inputs[3])) is not None
    assert lowered.pickled_for(lowered.key(inputs[-1])) is not None


def test_a_worker_builds_each_state_from_its_own_shipped_lowering(tmp_path: Path):
    # dense states: the shipping is the same for every op, and random Winograd states took
    # gcc 24-94 s each on an AVX-512 host at load 14 (their source is the byte-identical
    # test's business above)
    inputs = featurised(DENSE, 3, seed=1)
    with LocalBuilder(registry.generate_source, n_parallel=1, cache_dir=tmp_path / "a") as b:
        shipped = b.build(inputs)
    lowered.forget_all()
    with LocalBuilder(registry.generate_source, n_parallel=1, cache_dir=tmp_path / "b") as b:
        own = b.build(inputs)
    assert all(r.ok for r in shipped + own), [r.error_msg for r in shipped + own]
    names = [Path(r.artifact).name for r in shipped]
    assert names == [Path(r.artifact).name for r in own]  # same source digests
    assert len(set(names)) == len(names)
