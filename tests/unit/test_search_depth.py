"""The sketch search's options for depth (issue 27): mutation kinds a state can use, local
moves around the best measured states, no measured state proposed again, and the trace and
model-quality figures the search reports."""

from __future__ import annotations

import logging
import math

import pytest

from tunefarm.schedule.sketch_state import MUTATIONS, mutate, mutation_kinds
from tunefarm.task import Task
from tunefarm.tune import sketch_search
from tunefarm.tune.sketch_search import SketchTuner

pytestmark = pytest.mark.usefixtures("build_cache")

DENSE = Task.make("dense", data=(4, 64), weight=(48, 64), epilogue=["bias", "relu"])


def test_applicable_kinds_are_those_with_decisions_and_always_change_the_state():
    tuner = SketchTuner(DENSE, seed=3, kinds="applicable")
    for state in tuner._random(12):
        d = state.d
        kinds = mutation_kinds(d)
        assert kinds and set(kinds) <= set(MUTATIONS)
        assert "rfactor" not in kinds or any(k.startswith("rf:") for k in d)
        for kind in set(MUTATIONS) - set(kinds):  # a kind without decisions changes nothing
            assert mutate(tuner.sketches[state.sketch], d, tuner.params, tuner.rng, kind) is None
        made = [tuner._mutant(state) for _ in range(10)]
        for child, origin in made:
            assert origin[4:] in kinds
            if child is not None:
                assert child != state and child.sketch == state.sketch
                assert tuner._make(child, origin) is not None  # realises and lowers


def test_local_moves_start_from_the_best_and_skip_measured_states(measure):
    tuner = SketchTuner(DENSE, seed=0, kinds="applicable", local_share=0.5, trace=True)
    tuner.tune(24, measure, batch_size=8)
    local = tuner._local(6, set())
    assert 0 < len(local) <= 6 and len(set(local)) == len(local)
    assert not set(local) & tuner.visited  # never a state measured already
    assert all(tuner.origin[i].startswith(("local", "init", "random", "mut")) for i in local)
    tuner.best_trial = -100  # stalled: part of the next batch comes from local moves
    assert tuner.stalled()
    batch = tuner.next_batch(8)
    assert len(batch) == 8 and not set(batch) & tuner.visited
    assert any(tuner.origin[i].startswith("local") for i in batch)


def test_trace_and_model_quality_describe_every_batch(measure, monkeypatch, caplog):
    monkeypatch.setattr(sketch_search, "QUALITY_EVERY", 16)
    tuner = SketchTuner(DENSE, seed=1, population=16, trace=True)
    with caplog.at_level(logging.INFO, logger=sketch_search.__name__):
        tuner.tune(32, measure, batch_size=8)
    assert "32 trials, cost model Kendall tau" in caplog.text and "top 10%" in caplog.text
    # the first batch is the default and hand-built states only (half a batch), then full
    assert [row["measured"] for row in tuner.trace] == [5, 13, 21, 29, 32]
    guided = [row for row in tuner.trace if "population" in row]
    assert guided and all(1 <= row["tile_vectors"] <= row["population"] for row in guided)
    assert sum(sum(row["origins"].values()) for row in tuner.trace) == 32
    assert all(set(row["children"]) <= {"new", "none", "measured", "duplicate"} for row in guided)
    assert tuner.trace[0]["new_bests"]  # the first measured state is a best
    quality = tuner.model_quality()
    assert quality["n"] > 0 and -1 <= quality["tau"] <= 1 or math.isnan(quality["tau"])
    assert quality["n"] == sum(1 for i, c in tuner.history if i in tuner.predicted and c < math.inf)


def test_bad_kinds_option_is_refused():
    with pytest.raises(ValueError, match="kinds"):
        SketchTuner(DENSE, kinds="some")


# -- the register tile's order and the multi-vector blocks of a blocked conv (issue 27) ------
CONV = Task.make("conv2d", data=(1, 32, 14, 14), weight=(64, 32, 3, 3), strides=1, padding=1,
                 target="cpu -isa=avx2")  # fmt: skip
CONV512 = Task.make("conv2d", data=(1, 64, 14, 14), weight=(64, 64, 3, 3), strides=1,
                    padding=1, target="cpu -isa=avx512")  # fmt: skip


def _tile(tuner: SketchTuner, k: int):
    from tunefarm.schedule.sketch import TilePlan

    return next(p for p in tuner.sketches[k].plans if isinstance(p, TilePlan))


def test_order_mutation_flips_the_register_tile_to_columns_outer():
    import numpy as np

    from tunefarm.schedule import steps as S
    from tunefarm.schedule.sketch_state import heuristic, realise, window_inner

    tuner = SketchTuner(CONV, seed=0)
    for k, sketch in enumerate(tuner.sketches):
        tile = _tile(tuner, k)
        d = heuristic(sketch, tuner.params, np.random.default_rng(0), 2, 64, columns=0)
        assert d[f"ord:{tile.stage}"] == 0 and "order" in mutation_kinds(d)
        # with a window axis unrolled, the other half reorders the reduction (window_inner)
        made = [mutate(sketch, d, tuner.params, tuner.rng, "order") for _ in range(16)]
        assert {repr(m) for m in made} == {repr({**d, f"ord:{tile.stage}": 1}),
                                           repr(window_inner(sketch, d))}  # fmt: skip
        flipped = {**d, f"ord:{tile.stage}": 1}
        orders = []
        for state in (d, flipped):
            reorder = [s for s in realise(sketch, state)
                       if isinstance(s, S.Reorder) and s.stage == tile.tiled][-1]  # fmt: skip
            orders.append([ax.split(".")[0] for ax in reorder.order[-len(tile.spatial) :]])
        spatial = [ax for ax, _ in tile.spatial]
        assert orders[0] == spatial  # n, occ, oh, ow, ocb: vector by vector
        assert orders[1] == [*spatial[-2::-1], spatial[-1]]  # ow, oh, occ, n, ocb: columns
    dense = SketchTuner(DENSE, seed=0)  # one axis before the vector: no order to decide
    assert not any(k.startswith("ord:") for s in dense._random(8) for k in s.d)


def test_a_conv_register_block_takes_its_second_vector_from_the_channel_blocks():
    """The blocked conv's last axis is one vector wide: a two- or four-vector block spans
    output-channel blocks (the template's oc_inner), and columns outer it may hold 28
    accumulators where the ISA has 32 registers (AVX-512), 16 otherwise."""
    import numpy as np

    from tunefarm.schedule.sketch_state import heuristic

    for task, most in ((CONV512, 28), (CONV, 16)):
        tuner = SketchTuner(task, seed=0)
        tile = _tile(tuner, 0)
        for vectors, columns in ((2, 1), (2, 0), (4, 1)):
            d = heuristic(tuner.sketches[0], tuner.params, np.random.default_rng(0), vectors,
                          64, columns)  # fmt: skip
            block = {ax: d[f"tile:{tile.stage}:{ax}"][2] for ax, _ in tile.spatial}
            lanes = tuner.params.lanes
            assert block["occ"] * block["ocb"] // lanes == vectors
            accumulators = np.prod([block[ax] for ax, _ in tile.spatial[:-1]])
            assert accumulators <= (most if columns else 16)
        if most == 28:  # 4 vectors x 7 columns: the template's pass tile, columns outer
            assert block["ow"] == 7 and accumulators == 28


def test_columns_outer_states_are_correct(measure):
    """Every state is checked against numpy when measured: hand-built and random states
    of both register orders give the reference output."""
    import numpy as np

    from tunefarm.schedule.sketch_state import heuristic

    tuner = SketchTuner(CONV, seed=4)
    picks = []
    for k, sketch in enumerate(tuner.sketches):
        d = heuristic(sketch, tuner.params, np.random.default_rng(k), 2, 64, columns=1)
        picks.append(tuner.state_index(k, d, "heuristic"))
    picks += [i for i in tuner._fresh(12, set(picks))
              if tuner.states[i].d.get(f"ord:{_tile(tuner, 0).stage}") == 1][:4]  # fmt: skip
    assert None not in picks and len(picks) >= 5
    results = measure.measure(tuner.inputs_for(picks))
    assert all(r.ok for r in results), [r.error_msg for r in results if not r.ok]
