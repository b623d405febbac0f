"""The explicit unroll of a conv's kernel-window loop in a sketch state (`rur:`, issue 27):
the template's tuned winner on conv_7_512_512_3x3 (padding inlined, `kw` unrolled) mapped to
a sketch state that left `kw` rolled ran at 48 GFLOP/s against the template's 124; with the
decision the mapped state keeps the unroll. Sampled, mutated and hand-built states carry it
where a stage has a short reduce axis before its innermost one, and only there."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.backends.base import parse_target
from tunefarm.backends.cpu.target import host_isa
from tunefarm.measure import MeasureInput
from tunefarm.schedule import steps as S
from tunefarm.schedule.sketch import TilePlan
from tunefarm.schedule.sketch_map import nearest_state
from tunefarm.schedule.sketch_state import heuristic, mutate, realise, sample, window_axes
from tunefarm.task import Task
from tunefarm.tune.sketch_search import SketchTuner

CONV3 = Task.make("conv2d", data=(1, 64, 7, 7), weight=(64, 64, 3, 3), strides=1, padding=1,
                  target="cpu -isa=avx512 -cores=1")  # fmt: skip
DENSE = Task.make("dense", data=(16, 64), weight=(96, 64), target="cpu -isa=avx512 -cores=1")


def _tile(sketch) -> TilePlan:
    return next(p for p in sketch.plans if isinstance(p, TilePlan))


def _window_unrolls(steps: list[S.Step]) -> list[str]:
    return [s.axis for s in steps if isinstance(s, S.Unroll) and s.axis.split(".")[0] == "kw"]


def _template_steps(task: Task, **knobs) -> list[S.Step]:
    tpl = registry.template(task)
    target = parse_target(task.target)
    config = {**tpl.default_config(task, target), **knobs}
    return list(tpl.instantiate(task, config, target).steps)


@pytest.mark.parametrize("unroll_kw", [True, False])
def test_a_template_schedule_maps_with_its_kernel_window_unroll(unroll_kw):
    tuner = SketchTuner(CONV3, seed=0)
    steps = _template_steps(CONV3, pad="inline", unroll_kw=unroll_kw)
    assert bool(_window_unrolls(steps)) == unroll_kw
    rng = np.random.default_rng(0)
    k, d = nearest_state(tuner.sketches, steps, tuner.params,
                         lambda sk: sample(sk, tuner.params, rng))  # fmt: skip
    tile = _tile(tuner.sketches[k])
    kw = [ax for ax, _ in tile.reduce].index("kw")
    assert d[f"rur:{tile.stage}"] == (kw if unroll_kw else -1)
    assert _window_unrolls(realise(tuner.sketches[k], d)) == (["kw.1"] if unroll_kw else [])


@pytest.mark.usefixtures("build_cache")
def test_a_state_with_the_window_unrolled_is_correct(measure):
    # measured: the ISA this host runs (avx512, else avx2 on a Zen 3)
    isa = "avx512" if host_isa() == "avx512" else "avx2"
    conv = Task.make("conv2d", data=(1, 64, 7, 7), weight=(64, 64, 3, 3), strides=1, padding=1,
                     target=f"cpu -isa={isa} -cores=1")  # fmt: skip
    tuner = SketchTuner(conv, seed=0)
    rng = np.random.default_rng(1)
    states = []
    for sketch in tuner.sketches:  # padding inlined and at root
        tile = _tile(sketch)
        for k in window_axes(tile, tuner.params):
            d = {**heuristic(sketch, tuner.params, rng, 4, 64, 1), f"rur:{tile.stage}": k}
            states.append(registry.sketch_config(realise(sketch, d)))
    assert len(states) >= 4  # kh and kw on two sketches or more
    results = measure.measure([MeasureInput(conv, c) for c in states])  # against numpy
    assert all(r.ok for r in results), [r.error_msg for r in results if not r.ok]


def test_the_window_unroll_is_sampled_mutated_and_hand_built_only_where_there_is_a_window():
    tuner = SketchTuner(CONV3, seed=0)
    params, rng = tuner.params, np.random.default_rng(0)
    sketch = tuner.sketches[0]
    tile = _tile(sketch)
    window = window_axes(tile, params)
    # the short reduce axes before the innermost (icb): 4 channel blocks and the 3 x 3 window
    assert [tile.reduce[k][0] for k in window] == ["icc", "kh", "kw"]
    key = f"rur:{tile.stage}"
    seen = {sample(sketch, params, rng)[key] for _ in range(40)}
    assert seen == {-1, *window}
    assert heuristic(sketch, params, rng, 2, 64, 1)[key] == window[-1]  # kw, as the template
    d = {**sample(sketch, params, rng), key: -1}
    moved = set()
    for _ in range(200):
        out = mutate(sketch, d, params, rng, "unroll")
        if out is not None and out[key] != d[key]:
            assert {k for k in out if out[k] != d[k]} == {key}  # nothing else changed
            moved.add(out[key])
    assert moved == set(window)
    # without the key (states recorded before it) a state realises as it did: no unroll
    old = {k: v for k, v in d.items() if k != key}
    assert _window_unrolls(realise(sketch, old)) == []
    dense = SketchTuner(DENSE, seed=0)  # one reduce axis, the innermost: no key anywhere
    assert not any(k.startswith("rur:") for s in dense._random(16) for k in s.d)
