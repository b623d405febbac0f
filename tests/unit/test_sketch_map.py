"""The template default's nearest sketch state (issue 27): the same register block as the
template's kernel, correct against numpy on both ISAs, and the state evolution starts from
once the default is measured (never measured a second time)."""

from __future__ import annotations

import pytest

from tunefarm.backends.cpu.target import host_isa
from tunefarm.schedule.sketch_map import nearest_state
from tunefarm.task import Task
from tunefarm.tune.sketch_search import SketchTuner

pytestmark = pytest.mark.usefixtures("build_cache")

CONVS = {  # (data, weight, strides, padding): a 1x1 stride-2 conv and a 3x3 "pass" tile
    "1x1_s2": ((1, 32, 28, 28), (64, 32, 1, 1), 2, 0),
    "3x3": ((1, 64, 7, 7), (64, 64, 3, 3), 1, 1),
}


def _conv(shape: str, isa: str) -> Task:
    data, weight, strides, padding = CONVS[shape]
    return Task.make("conv2d", data=data, weight=weight, strides=strides, padding=padding,
                     target=f"cpu -isa={isa} -cores=1")  # fmt: skip


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
@pytest.mark.parametrize("shape", sorted(CONVS))
def test_the_default_maps_to_its_register_block_and_is_correct(measure, shape, isa):
    tuner = SketchTuner(_conv(shape, isa), seed=0)
    default = tuner._first(4)[0]
    mapped = tuner.default_state
    assert mapped is not None and mapped != default and mapped in tuner.visited
    assert tuner.states[default] == tuner.states[mapped]  # the default stands for the state
    d = tuner.states[mapped].d
    steps = list(tuner.kdef.steps)
    # the template's register tile: its unrolled output-column and channel-block loops
    local = [s for s in steps if s.stage == "conv.local" and s.kind == "unroll"]
    assert {s.axis.split(".")[0] for s in local} >= {"ow", "occ"}
    assert d["tile:conv:ocb"][2] == tuner.params.lanes  # one vector of output channels
    assert d["tile:conv:ow"][2] * d["tile:conv:occ"][2] > 1
    assert d["ord:conv"] == 1  # the template computes its tile columns outer
    if isa == "avx512" and host_isa() != "avx512":
        return  # an AVX2-only host (a Zen 3) cannot run these kernels; avx2 measures both
    results = measure.measure(tuner.inputs_for([default, mapped]))  # checked against numpy
    assert all(r.ok for r in results), [r.error_msg for r in results if not r.ok]


def test_the_mapped_state_seeds_the_population_once_the_default_is_measured(measure):
    tuner = SketchTuner(_conv("1x1_s2", "avx512" if host_isa() == "avx512" else "avx2"), seed=0)
    tuner.tune(8, measure, batch_size=8)
    default = next(i for i, _ in tuner.history if tuner.origin.get(i) == "default")
    state = tuner.states[default]
    assert state in tuner.seeds_of_population()
    assert tuner.default_state not in {i for i, _ in tuner.history}  # not measured twice
    batch = tuner.next_batch(8)
    assert tuner.default_state not in batch and not set(batch) & tuner.visited


def test_a_dense_whose_register_tile_splits_the_vector_axis_maps_to_nothing():
    """The dense template unrolls 3 vectors of 16 columns over a weight packed in blocks of
    16: one sketch level would vectorise all 48 across the blocks (a gather)."""
    tuner = SketchTuner(Task.make("dense", data=(16, 64), weight=(96, 64),
                                  target="cpu -isa=avx512"), seed=0)  # fmt: skip
    steps = list(tuner.kdef.steps)
    if sum(s.kind == "unroll" and s.stage == "dense.local" for s in steps) < 2:
        pytest.skip("this dense's default has no split vector axis")
    assert nearest_state(tuner.sketches, steps, tuner.params) is None
