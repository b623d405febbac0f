"""Tests for template config spaces: indexing, policies, sampling, mutation, serialisation."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from tunefarm.schedule.space import (
    AnnotateKnob,
    ConfigSpace,
    OtherKnob,
    ReorderKnob,
    SpaceError,
    SplitKnob,
)


def small_space() -> ConfigSpace:
    space = ConfigSpace()
    space.define_split("tile_y", 12, num_outputs=2)
    space.define_split("tile_x", 16, num_outputs=3, policy="power2", max_factor=4)
    space.define_reorder("order", 3)
    space.define_annotate("ann", 2, "try_unroll_vec")
    space.define_knob("unroll", [0, 16, 64])
    space.define_knob("mixed", [True, "a", [1, 2], None])
    return space


def big_space() -> ConfigSpace:
    space = ConfigSpace()
    space.define_split("tile_k", 1024, num_outputs=4)
    space.define_split("tile_n", 2048, num_outputs=4, max_factor=64)
    space.define_reorder("order", 6)
    space.define_annotate("ann", 6, "try_unroll_vec")
    return space


def huge_space() -> ConfigSpace:
    """More configs than int64 can hold: exercises the Python-int paths."""
    space = ConfigSpace()
    for i in range(22):
        space.define_knob(f"k{i}", list(range(10)))
    return space


def test_size_is_product_of_dims() -> None:
    space = small_space()
    assert space.dims == [len(k) for k in space.knobs.values()]
    assert len(space) == space.size == math.prod(space.dims)
    assert big_space().size > 10**9
    assert huge_space().size == huge_space().__len__() == 10**22  # len() itself caps at 2**63
    assert ConfigSpace().size == 1 and ConfigSpace().get(0) == {}


def test_round_trip_every_index_of_small_space() -> None:
    space = small_space()
    seen = set()
    for index in range(space.size):
        values = space.get(index)
        assert space.index_of(values) == index
        seen.add(tuple(values.values()))
    assert len(seen) == space.size


def test_first_knob_varies_fastest() -> None:
    space = small_space()
    first = space.knobs["tile_y"]
    assert space.get(1)["tile_y"] == first.entities[1]
    assert space.get(len(first))["tile_x"] == space.knobs["tile_x"].entities[1]


@pytest.mark.parametrize("make", [big_space, huge_space])
def test_round_trip_random_indices_of_big_space(make) -> None:
    space = make()
    rng = np.random.default_rng(1)
    for index in space.sample(rng, 300) + [0, space.size - 1]:
        assert space.index_of(space.get(index)) == index
        assert space.index_from_digits(space.digits(index)) == index


def test_get_out_of_range() -> None:
    space = small_space()
    for bad in (-1, space.size, 2**80):
        with pytest.raises(SpaceError, match="out of range"):
            space.get(bad)
    with pytest.raises(SpaceError):
        space.get(True)


@pytest.mark.parametrize(
    ("extent", "parts", "policy", "max_factor"),
    [
        (12, 2, "factors", None),
        (64, 3, "factors", 8),
        (48, 3, "power2", None),
        (96, 4, "power2", 4),
    ],
)
def test_split_entities_respect_policy(extent, parts, policy, max_factor) -> None:
    knob = SplitKnob.create("t", extent, parts, policy=policy, max_factor=max_factor)
    assert knob.entities[0] == (extent,) + (1,) * (parts - 1)
    for entity in knob.entities:
        assert len(entity) == parts and math.prod(entity) == extent
        for inner in entity[1:]:
            if policy == "power2":
                assert inner & (inner - 1) == 0
            if max_factor is not None:
                assert inner <= max_factor
    # "factors" without a bound must list every ordered factorization.
    if policy == "factors" and max_factor is None:
        brute = [
            f
            for f in itertools.product(range(1, extent + 1), repeat=parts)
            if math.prod(f) == extent
        ]
        assert sorted(knob.entities) == sorted(brute)


def test_split_candidate_and_filter() -> None:
    knob = SplitKnob.create("t", 32, 2, policy="candidate", candidate=[[4, 8], (32, 1)])
    assert knob.entities == ((4, 8), (32, 1))
    with pytest.raises(SpaceError, match="multiply"):
        SplitKnob.create("t", 32, 2, policy="candidate", candidate=[[4, 4]])
    with pytest.raises(SpaceError, match="max_factor"):
        SplitKnob.create("t", 32, 2, policy="candidate", candidate=[[1, 32]], max_factor=8)
    filtered = SplitKnob.create("t", 32, 2, filter=lambda f: f[1] >= 4)
    assert all(f[1] >= 4 for f in filtered.entities) and len(filtered) == 4
    with pytest.raises(SpaceError, match="no factorization"):
        SplitKnob.create("t", 32, 2, filter=lambda f: False)


def test_reorder_and_annotate_policies() -> None:
    assert len(ReorderKnob.create("r", 4)) == 24
    assert ReorderKnob.create("r", 3).entities[0] == (0, 1, 2)
    with pytest.raises(SpaceError, match="permutation"):
        ReorderKnob.create("r", 3, policy="candidate", candidate=[(0, 0, 1)])
    vec = AnnotateKnob.create("a", 3, "try_vec")
    assert vec.entities == (("none", "none", "none"), ("none", "none", "vec"))
    unroll = AnnotateKnob.create("a", 3, "try_unroll")
    assert len(unroll) == 8 and unroll.entities[0] == ("none",) * 3
    assert len(AnnotateKnob.create("a", 3, "try_unroll_vec")) == 12
    with pytest.raises(SpaceError):
        AnnotateKnob.create("a", 2, "sometimes")


def test_define_errors() -> None:
    space = small_space()
    with pytest.raises(SpaceError, match="already defined"):
        space.define_knob("unroll", [1])
    with pytest.raises(SpaceError, match="no entities"):
        space.define_knob("empty", [])
    with pytest.raises(SpaceError, match="duplicate"):
        space.define_knob("dup", [1, 2, 1])
    with pytest.raises(SpaceError, match="must be a list"):
        space.define_knob("text", "abc")
    with pytest.raises(SpaceError, match="JSON"):
        space.define_knob("obj", [{"a": 1}])
    assert OtherKnob("b", (1, True, 1.0)).position(True) == 1  # 1, True and 1.0 stay distinct


def test_sample_distinct_in_range_and_not_excluded() -> None:
    space = big_space()
    rng = np.random.default_rng(0)
    exclude = frozenset(space.sample(rng, 50))
    picks = space.sample(rng, 200, exclude=exclude)
    assert len(picks) == 200 == len(set(picks))
    assert all(0 <= i < space.size and i not in exclude for i in picks)
    assert all(isinstance(i, int) for i in picks)


def test_sample_terminates_when_exhausted() -> None:
    space = small_space()
    rng = np.random.default_rng(2)
    everything = set(range(space.size))
    assert space.sample(rng, 10, exclude=everything) == []
    left = {5, space.size - 1}
    got = space.sample(rng, 10, exclude=everything - left)
    assert sorted(got) == sorted(left)
    assert sorted(space.sample(rng, space.size + 5)) == list(range(space.size))
    # A nearly exhausted space larger than one draw batch still fills the request.
    many = set(rng.choice(space.size, size=space.size - 300, replace=False).tolist())
    got = space.sample(rng, 250, exclude=many)
    assert len(set(got)) == 250 and not set(got) & many


def test_sample_huge_space() -> None:
    space = huge_space()
    picks = space.sample(np.random.default_rng(3), 100)
    assert len(set(picks)) == 100 and all(0 <= i < space.size for i in picks)
    assert max(picks) > 2**63  # draws really cover the whole range


def test_neighbors_differ_in_one_knob() -> None:
    space = small_space()
    rng = np.random.default_rng(4)
    index = space.sample(rng, 1)[0]
    base = space.digits(index)
    total = sum(d - 1 for d in space.dims)
    for n in (5, total + 10):
        found = space.neighbors(index, rng, n)
        assert len(found) == len(set(found)) == min(n, total)
        for other in found:
            assert sum(a != b for a, b in zip(base, space.digits(other), strict=True)) == 1


def test_bad_values_name_the_knob() -> None:
    space = small_space()
    values = space.get(7)
    with pytest.raises(SpaceError, match="'tile_y'.*valid"):
        space.index_of({**values, "tile_y": (5, 5)})
    with pytest.raises(SpaceError, match="'unroll'"):
        space.validate({**values, "unroll": 17})
    missing = dict(values)
    del missing["order"]
    with pytest.raises(SpaceError, match="'order'"):
        space.index_of(missing)
    with pytest.raises(SpaceError, match="'nope'"):
        space.index_of({**values, "nope": 1})
    # Lists and numpy scalars are normalised, not rejected.
    as_lists = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    as_lists["unroll"] = np.int64(values["unroll"])
    assert space.validate(as_lists) == values
    assert space.index_of(as_lists) == 7


def test_default_uses_preferred_values() -> None:
    space = small_space()
    default = space.default({"unroll": 16, "tile_y": [3, 4]})
    assert default["unroll"] == 16 and default["tile_y"] == (3, 4)
    assert default["order"] == (0, 1, 2) and default["ann"] == ("none", "none")
    assert space.index_of(default) >= 0
    with pytest.raises(SpaceError, match="'unroll'"):
        space.default({"unroll": 5})
    with pytest.raises(SpaceError, match="unknown"):
        space.default({"nope": 5})


def test_features_have_fixed_length() -> None:
    space = small_space()
    rng = np.random.default_rng(5)
    lengths = {space.features(i).shape for i in space.sample(rng, 50)}
    assert len(lengths) == 1
    values = space.get(0)
    split = space.knobs["tile_y"].feature(values["tile_y"])
    assert split == [math.log2(f) for f in values["tile_y"]]
    assert space.knobs["unroll"].feature(64) == [64.0]
    assert space.knobs["mixed"].feature([1, 2]) == [2.0]  # non-numeric: the position


def test_json_round_trip() -> None:
    space = small_space()
    space.define_split("cand", 8, policy="candidate", candidate=[[2, 4], [8, 1]])
    text = json.dumps(space.to_json())
    back = ConfigSpace.from_json(json.loads(text))
    assert back == space and back.dims == space.dims
    rng = np.random.default_rng(6)
    for index in space.sample(rng, 20):
        assert back.get(index) == space.get(index)
        assert np.array_equal(back.features(index), space.features(index))
    filtered = ConfigSpace()
    filtered.define_split("f", 64, filter=lambda f: f[1] % 4 == 0)
    again = ConfigSpace.from_json(json.loads(json.dumps(filtered.to_json())))
    assert again == filtered  # filtered entities are stored, the callable is not needed
    with pytest.raises(SpaceError):
        ConfigSpace.from_json({"version": 99, "knobs": []})
