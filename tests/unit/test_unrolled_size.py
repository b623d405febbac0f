"""The count of what a lowered CPU kernel unrolls into (`backends/cpu/unrolled_size`), checked
against the C the emitter really writes, and the sketch search dropping states over it."""

from __future__ import annotations

import dataclasses

import pytest

from tunefarm.backends import registry
from tunefarm.backends.cpu import unrolled_size
from tunefarm.codegen.lower import lower
from tunefarm.measure import MeasureInput
from tunefarm.schedule.schedule import Schedule
from tunefarm.task import Task
from tunefarm.tune.sketch_search import SketchTuner

CONV = Task.make("conv2d", data=(1, 16, 14, 14), weight=(32, 16, 3, 3), strides=1, padding=1,
                 target="cpu -isa=avx512")  # fmt: skip


def _lowered(task: Task, config):
    kdef = registry.instantiate(task, config)
    return lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps))


def test_the_count_follows_the_emitted_source():
    """Bytes of C per counted node stay within a small band while the counts span orders of
    magnitude: the count is the unrolled size, not the loop nest's."""
    tuner = SketchTuner(CONV, seed=3)
    counts, ratios = [], []
    for state in tuner._random(24):
        index = tuner._make(state)
        if index is None:
            continue
        config = tuner.space.get(index)
        nodes = unrolled_size.emitted_nodes(_lowered(CONV, config))
        code = registry.generate_source(MeasureInput(CONV, config)).code
        counts.append(nodes)
        ratios.append(len(code) / nodes)
    assert len(counts) >= 8
    assert max(counts) >= 20 * min(counts)
    big = [r for n, r in zip(counts, ratios, strict=True) if n >= 2000]
    assert big and all(0.5 <= r <= 12 for r in big), big


def test_check_names_the_limit_and_the_search_drops_the_state():
    tuner = SketchTuner(CONV, seed=0)
    assert tuner.params.check_lowered is unrolled_size.check  # the CPU's sketch params
    config = tuner.space.get(next(i for s in tuner._random(8) if (i := tuner._make(s))))
    func = _lowered(CONV, config)
    unrolled_size.check(func, limit=unrolled_size.emitted_nodes(func))  # at the limit: fine
    with pytest.raises(ValueError, match="unrolled body over 10 expression nodes"):
        unrolled_size.check(func, limit=10)

    tuner.params = dataclasses.replace(
        tuner.params, check_lowered=lambda f: unrolled_size.check(f, limit=10)
    )
    tuner.rows.clear()
    states = tuner._random(8)
    assert all(tuner._make(s) is None for s in states)
    assert tuner.invalid == {"ValueError: unrolled body over 10 expression nodes": len(states)}
