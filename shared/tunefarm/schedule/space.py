"""Config spaces: the knobs a schedule template declares and the tuners search.

Design, in short:

* A knob is a small frozen dataclass holding its *entities*, the finite, ordered tuple of
  values it may take. Entities are plain JSON data (ints, strings, bools, tuples) so a knob
  serialises to JSON and back without losing anything; the policy that generated them (and
  any filter callable) is provenance only, never re-run on load.
* A `ConfigSpace` is the cartesian product of its knobs, in definition order. Each config is
  one Python int in mixed radix, first knob varying fastest. Tuners therefore work on
  integers (cheap to hash, store and exclude) and only templates see value dicts.
* Nothing ever enumerates a big space: sizes are Python ints (they overflow int64 easily),
  sampling draws random digits, and neighbours are computed from digits. Only a small,
  mostly-excluded space is listed explicitly, so that sampling always terminates.
* Bad input is a `SpaceError` (a `ValueError`) that names the knob and shows valid values,
  because a template author reading it should not need a debugger.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, ClassVar, TypeVar

import numpy as np

KnobValue = Any  # a normalised JSON value: int, float, str, bool, None or a tuple of those
FORMAT_VERSION = 1
ANNOTATIONS = ("none", "unroll", "vec", "parallel")  # stable one-hot order for features
_ENUMERATE_LIMIT = 1 << 21  # spaces up to this size may be listed when sampling stalls
_MAX_REORDER_AXES = 8  # 8! = 40320 permutations; beyond that give candidates
_MAX_ANNOTATE_AXES = 12


class SpaceError(ValueError):
    """A knob definition or a config value that does not fit the space."""


def normalise(value: Any) -> KnobValue:
    """Turn lists into tuples and numpy scalars into Python ones, so values hash and compare."""
    if isinstance(value, (list, tuple)):
        return tuple(normalise(v) for v in value)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise SpaceError(f"non-finite float {value!r} cannot be a knob value")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise SpaceError(f"{value!r} ({type(value).__name__}) is not a JSON scalar or list")


def to_jsonable(value: KnobValue) -> Any:
    """Inverse of `normalise` for JSON output: tuples become lists."""
    if isinstance(value, tuple):
        return [to_jsonable(v) for v in value]
    return value


def _key(value: KnobValue) -> Any:
    """Type-tagged lookup key: 1, 1.0 and True hash alike in Python but are distinct values."""
    if isinstance(value, tuple):
        return ("tuple", tuple(_key(v) for v in value))
    return (type(value).__name__, value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class KnobBase:
    """Common behaviour of all knobs: normalised, distinct, checked entities and lookup."""

    name: str
    entities: tuple[KnobValue, ...]
    kind: ClassVar[str] = ""
    _positions: dict[Any, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpaceError(f"knob name must be a non-empty string, got {self.name!r}")
        try:
            entities = tuple(normalise(e) for e in self.entities)
        except SpaceError as err:
            raise SpaceError(f"knob {self.name!r}: {err}") from None
        if not entities:
            raise SpaceError(f"knob {self.name!r} has no entities")
        positions: dict[Any, int] = {}
        for pos, entity in enumerate(entities):
            self._check(entity)
            if positions.setdefault(_key(entity), pos) != pos:
                raise SpaceError(f"knob {self.name!r}: duplicate entity {entity!r}")
        object.__setattr__(self, "entities", entities)
        object.__setattr__(self, "_positions", positions)

    def _check(self, entity: KnobValue) -> None:
        """Raise SpaceError if `entity` cannot belong to this knob; subclasses override."""

    def _fail(self, message: str) -> SpaceError:
        return SpaceError(f"knob {self.name!r} ({self.kind}): {message}")

    def __len__(self) -> int:
        return len(self.entities)

    def position(self, value: Any) -> int:
        """Index of `value` among the entities; SpaceError naming the knob if absent."""
        try:
            pos = self._positions.get(_key(normalise(value)))
        except SpaceError as err:
            raise self._fail(str(err)) from None
        if pos is None:
            shown = ", ".join(repr(e) for e in self.entities[:6])
            more = f", ... ({len(self.entities)} in all)" if len(self.entities) > 6 else ""
            raise self._fail(f"value {value!r} is not in the space; valid: {shown}{more}")
        return pos

    def feature(self, value: Any) -> list[float]:
        """Numeric features of a chosen value; the default is its position."""
        return [float(self.position(value))]

    def to_json(self) -> dict[str, Any]:
        """Name, kind, entities and generation parameters as plain JSON data."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        for f in fields(self):
            if f.init and f.name not in ("name", "entities"):
                out[f.name] = getattr(self, f.name)
        out["entities"] = [to_jsonable(e) for e in self.entities]
        return out


@dataclass(frozen=True)
class SplitKnob(KnobBase):
    """Tilings of one axis: tuples of `num_outputs` factors, outer first, product == extent."""

    extent: int
    num_outputs: int
    policy: str = "candidate"
    max_factor: int | None = None
    kind: ClassVar[str] = "split"

    def __post_init__(self) -> None:
        if not _is_int(self.extent) or self.extent < 1:
            raise SpaceError(f"split {self.name!r}: extent must be a positive int")
        if not _is_int(self.num_outputs) or self.num_outputs < 1:
            raise SpaceError(f"split {self.name!r}: num_outputs must be a positive int")
        if self.max_factor is not None and (not _is_int(self.max_factor) or self.max_factor < 1):
            raise SpaceError(f"split {self.name!r}: max_factor must be a positive int or None")
        super().__post_init__()

    def _check(self, entity: KnobValue) -> None:
        if not isinstance(entity, tuple) or len(entity) != self.num_outputs:
            raise self._fail(f"{entity!r} is not a tuple of {self.num_outputs} factors")
        if not all(_is_int(f) and f >= 1 for f in entity):
            raise self._fail(f"{entity!r} has a factor that is not a positive int")
        if math.prod(entity) != self.extent:
            raise self._fail(f"factors {entity!r} do not multiply to extent {self.extent}")
        if self.max_factor is not None and any(f > self.max_factor for f in entity[1:]):
            raise self._fail(f"{entity!r} has an inner factor above max_factor")

    def feature(self, value: Any) -> list[float]:
        """log2 of every factor: tile sizes matter multiplicatively."""
        return [math.log2(f) for f in self.entities[self.position(value)]]

    @classmethod
    def create(
        cls,
        name: str,
        extent: int,
        num_outputs: int = 2,
        policy: str = "factors",
        max_factor: int | None = None,
        candidate: Iterable[Any] | None = None,
        filter: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> SplitKnob:
        """Generate entities by policy ("factors", "power2", "candidate"), then filter."""
        if policy == "candidate":
            if candidate is None:
                raise SpaceError(f"split {name!r}: policy 'candidate' needs a candidate list")
            try:
                entities = [normalise(c) for c in candidate]
            except SpaceError as err:
                raise SpaceError(f"split {name!r}: {err}") from None
        elif policy in ("factors", "power2"):
            if candidate is not None:
                raise SpaceError(f"split {name!r}: candidate given with policy {policy!r}")
            if not _is_int(extent) or extent < 1 or not _is_int(num_outputs) or num_outputs < 1:
                raise SpaceError(f"split {name!r}: extent and num_outputs must be positive ints")
            bound = extent if max_factor is None else max_factor
            inner = _inner_factors(extent, num_outputs - 1, bound, policy == "power2")
            entities = [(extent // math.prod(fs), *fs) for fs in inner]
        else:
            raise SpaceError(f"split {name!r}: unknown policy {policy!r}")
        if filter is not None:
            entities = [e for e in entities if filter(e)]
        if not entities:
            raise SpaceError(f"split {name!r}: no factorization of {extent} is left")
        return cls(name, tuple(entities), extent, num_outputs, policy, max_factor)


@lru_cache(maxsize=1024)
def _divisors(n: int, power2: bool) -> tuple[int, ...]:
    """Divisors of n in ascending order (only powers of two when `power2`)."""
    if power2:
        return tuple(1 << k for k in range((n & -n).bit_length()))
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(sorted(set(small + [n // d for d in small])))


def _inner_factors(rest: int, count: int, bound: int, power2: bool) -> list[tuple[int, ...]]:
    """All tuples of `count` factors (each <= bound) whose product divides `rest`, in lex order."""
    if count == 0:
        return [()]
    out: list[tuple[int, ...]] = []
    for d in _divisors(rest, power2):
        if d > bound:
            break
        out.extend((d, *tail) for tail in _inner_factors(rest // d, count - 1, bound, power2))
    return out


@dataclass(frozen=True)
class ReorderKnob(KnobBase):
    """Loop orders: permutations of axis indices 0..num_axes-1, the identity first for "all"."""

    num_axes: int
    policy: str = "candidate"
    kind: ClassVar[str] = "reorder"

    def _check(self, entity: KnobValue) -> None:
        if not isinstance(entity, tuple) or not all(_is_int(a) for a in entity):
            raise self._fail(f"{entity!r} is not a tuple of axis indices")
        if sorted(entity) != list(range(self.num_axes)):
            raise self._fail(f"{entity!r} is not a permutation of range({self.num_axes})")

    def feature(self, value: Any) -> list[float]:
        """The permutation itself: where each loop slot's axis comes from."""
        return [float(a) for a in self.entities[self.position(value)]]

    @classmethod
    def create(
        cls, name: str, num_axes: int, policy: str = "all", candidate: Iterable[Any] | None = None
    ) -> ReorderKnob:
        """Generate entities by policy: "all" permutations, or an explicit "candidate" list."""
        if not _is_int(num_axes) or num_axes < 1:
            raise SpaceError(f"reorder {name!r}: num_axes must be a positive int")
        if policy == "all" and candidate is None:
            if num_axes > _MAX_REORDER_AXES:
                raise SpaceError(f"reorder {name!r}: {num_axes} axes is too many for 'all'")
            entities = tuple(itertools.permutations(range(num_axes)))
        elif policy == "candidate" and candidate is not None:
            entities = tuple(candidate)
        else:
            raise SpaceError(f"reorder {name!r}: bad policy {policy!r} / candidate combination")
        return cls(name, entities, num_axes, policy)


@dataclass(frozen=True)
class AnnotateKnob(KnobBase):
    """Per-axis annotations such as ("none", "unroll", "vec"); all "none" first."""

    num_axes: int
    policy: str = "candidate"
    kind: ClassVar[str] = "annotate"
    _vocab: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        extra = sorted({a for e in self.entities for a in e} - set(ANNOTATIONS))
        object.__setattr__(self, "_vocab", ANNOTATIONS + tuple(extra))

    def _check(self, entity: KnobValue) -> None:
        if not isinstance(entity, tuple) or len(entity) != self.num_axes:
            raise self._fail(f"{entity!r} is not a tuple of {self.num_axes} annotations")
        if not all(isinstance(a, str) and a for a in entity):
            raise self._fail(f"{entity!r} has an annotation that is not a non-empty string")

    def feature(self, value: Any) -> list[float]:
        """One-hot per axis over a fixed vocabulary, so features line up across spaces."""
        out = [0.0] * (self.num_axes * len(self._vocab))
        for axis, ann in enumerate(self.entities[self.position(value)]):
            out[axis * len(self._vocab) + self._vocab.index(ann)] = 1.0
        return out

    @classmethod
    def create(
        cls, name: str, num_axes: int, policy: str, candidate: Iterable[Any] | None = None
    ) -> AnnotateKnob:
        """Generate entities: "try_unroll", "try_vec" (last axis only), "try_unroll_vec"."""
        if not _is_int(num_axes) or not 1 <= num_axes <= _MAX_ANNOTATE_AXES:
            raise SpaceError(f"annotate {name!r}: num_axes must be in 1..{_MAX_ANNOTATE_AXES}")
        outer = ("none", "unroll") if policy in ("try_unroll", "try_unroll_vec") else ("none",)
        last = {"try_unroll": ("none", "unroll"), "try_vec": ("none", "vec")}.get(
            policy, ("none", "unroll", "vec")
        )
        if policy == "candidate" and candidate is not None:
            entities = tuple(candidate)
        elif policy in ("try_unroll", "try_vec", "try_unroll_vec") and candidate is None:
            # The last axis varies slowest so that entity 0 is all "none".
            entities = tuple(
                (*rest, ann)
                for ann in last
                for rest in itertools.product(outer, repeat=num_axes - 1)
            )
        else:
            raise SpaceError(f"annotate {name!r}: bad policy {policy!r} / candidate combination")
        return cls(name, entities, num_axes, policy)


@dataclass(frozen=True)
class OtherKnob(KnobBase):
    """Any list of JSON values (lists stored as tuples), e.g. unroll depth or a layout flag."""

    kind: ClassVar[str] = "other"
    _numeric: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        numeric = all(isinstance(e, (int, float)) for e in self.entities)
        object.__setattr__(self, "_numeric", numeric)

    def feature(self, value: Any) -> list[float]:
        """The value when every entity is a number, else its position."""
        pos = self.position(value)
        return [float(self.entities[pos]) if self._numeric else float(pos)]


Knob = SplitKnob | ReorderKnob | AnnotateKnob | OtherKnob
K = TypeVar("K", SplitKnob, ReorderKnob, AnnotateKnob, OtherKnob)
_KNOB_CLASSES: dict[str, type[KnobBase]] = {
    c.kind: c for c in (SplitKnob, ReorderKnob, AnnotateKnob, OtherKnob)
}


def knob_from_json(data: Mapping[str, Any]) -> Knob:
    """Rebuild a knob from `KnobBase.to_json` output; entities are re-checked, not regenerated."""
    try:
        cls = _KNOB_CLASSES[data["kind"]]
        kwargs = {f.name: data[f.name] for f in fields(cls) if f.init}
    except (KeyError, TypeError) as err:
        raise SpaceError(f"malformed knob record {dict(data)!r}: missing {err}") from None
    return cls(**kwargs)  # type: ignore[return-value]


class ConfigSpace:
    """The cartesian product of a template's knobs; configs are ints in mixed radix.

    Mutable only while the template defines knobs; tuners treat it as read-only.
    """

    def __init__(self) -> None:
        self._knobs: dict[str, Knob] = {}

    # -- definition ---------------------------------------------------------------------
    def add(self, knob: K) -> K:
        """Append a ready-made knob; a repeated name is a template bug, so it raises."""
        if knob.name in self._knobs:
            raise SpaceError(f"knob {knob.name!r} is already defined")
        self._knobs[knob.name] = knob
        return knob

    def define_split(
        self,
        name: str,
        extent: int,
        num_outputs: int = 2,
        policy: str = "factors",
        max_factor: int | None = None,
        candidate: Iterable[Any] | None = None,
        filter: Callable[[tuple[int, ...]], bool] | None = None,
    ) -> SplitKnob:
        """Define a split knob; see `SplitKnob.create` for the policies."""
        self._free(name)
        return self.add(
            SplitKnob.create(name, extent, num_outputs, policy, max_factor, candidate, filter)
        )

    def define_reorder(
        self, name: str, num_axes: int, policy: str = "all", candidate: Iterable[Any] | None = None
    ) -> ReorderKnob:
        """Define a loop-order knob over `num_axes` axes."""
        self._free(name)
        return self.add(ReorderKnob.create(name, num_axes, policy, candidate))

    def define_annotate(
        self, name: str, num_axes: int, policy: str, candidate: Iterable[Any] | None = None
    ) -> AnnotateKnob:
        """Define a per-axis annotation knob (unroll / vectorise choices)."""
        self._free(name)
        return self.add(AnnotateKnob.create(name, num_axes, policy, candidate))

    def define_knob(self, name: str, values: Iterable[Any]) -> OtherKnob:
        """Define a knob over arbitrary JSON values."""
        self._free(name)
        if isinstance(values, (str, bytes, Mapping)):
            raise SpaceError(f"knob {name!r}: values must be a list, got {type(values).__name__}")
        return self.add(OtherKnob(name, tuple(values)))

    def _free(self, name: str) -> None:
        # Checked before generating entities so the error names the real problem.
        if name in self._knobs:
            raise SpaceError(f"knob {name!r} is already defined")

    # -- shape --------------------------------------------------------------------------
    @property
    def knobs(self) -> dict[str, Knob]:
        """Knobs by name in definition order (a copy)."""
        return dict(self._knobs)

    @property
    def dims(self) -> list[int]:
        """Number of entities of each knob, in order: the radices of a config index."""
        return [len(k) for k in self._knobs.values()]

    @property
    def size(self) -> int:
        """Number of configs as an unbounded Python int (1 for a space without knobs)."""
        return math.prod(self.dims)

    def __len__(self) -> int:
        """Same as `size`; Python's len() raises OverflowError above 2**63 - 1, use `size`."""
        return self.size

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConfigSpace) and self._knobs == other._knobs

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}:{k.kind}[{len(k)}]" for n, k in self._knobs.items())
        return f"ConfigSpace({inner}; size={self.size})"

    # -- index <-> values ---------------------------------------------------------------
    def digits(self, index: int) -> list[int]:
        """Per-knob entity positions of a config index (first knob varies fastest)."""
        index = self._check_index(index)
        out = []
        for dim in self.dims:
            index, pos = divmod(index, dim)
            out.append(pos)
        return out

    def index_from_digits(self, digits: Iterable[int]) -> int:
        """Inverse of `digits`; useful for crossover of per-knob positions."""
        digits = list(digits)
        dims = self.dims
        if len(digits) != len(dims) or not all(
            0 <= int(d) < n for d, n in zip(digits, dims, strict=True)
        ):
            raise SpaceError(f"digits {digits!r} do not fit dims {dims!r}")
        index = 0
        for d, n in zip(reversed(digits), reversed(dims), strict=True):
            index = index * n + int(d)
        return index

    def get(self, index: int) -> dict[str, KnobValue]:
        """The values dict of config `index`."""
        return {
            name: knob.entities[pos]
            for (name, knob), pos in zip(self._knobs.items(), self.digits(index), strict=True)
        }

    def validate(self, values: Mapping[str, Any]) -> dict[str, KnobValue]:
        """Normalised copy of a full values dict (lists become tuples), in knob order."""
        return {n: self._knobs[n].entities[p] for n, p in self._positions(values).items()}

    def index_of(self, values: Mapping[str, Any]) -> int:
        """Config index of a full values dict; SpaceError names any bad or missing knob."""
        return self.index_from_digits(self._positions(values).values())

    def default(self, preferred: Mapping[str, Any] | None = None) -> dict[str, KnobValue]:
        """A full values dict: the template's preferred values, entity 0 for other knobs."""
        preferred = dict(preferred or {})
        unknown = sorted(set(preferred) - set(self._knobs))
        if unknown:
            raise SpaceError(f"unknown knob(s) {unknown!r}; known: {list(self._knobs)!r}")
        return {
            name: knob.entities[knob.position(preferred[name]) if name in preferred else 0]
            for name, knob in self._knobs.items()
        }

    def _positions(self, values: Mapping[str, Any]) -> dict[str, int]:
        if not isinstance(values, Mapping):
            raise SpaceError(f"config values must be a mapping, got {type(values).__name__}")
        unknown = sorted(set(values) - set(self._knobs), key=str)
        missing = [n for n in self._knobs if n not in values]
        if unknown or missing:
            raise SpaceError(f"unknown knob(s) {unknown!r}, missing knob(s) {missing!r}")
        return {name: knob.position(values[name]) for name, knob in self._knobs.items()}

    def _check_index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise SpaceError(f"config index must be an int, got {index!r}")
        index = int(index)
        if not 0 <= index < self.size:
            raise SpaceError(f"config index {index} out of range [0, {self.size})")
        return index

    # -- search helpers -----------------------------------------------------------------
    def sample(
        self, rng: np.random.Generator, n: int, exclude: Iterable[int] = frozenset()
    ) -> list[int]:
        """Up to `n` distinct random config indices not in `exclude`, in random order.

        Draws random indices and rejects repeats, so a space of 1e12 configs costs nothing.
        A small space that is mostly excluded is listed instead, and the number of draws is
        bounded, so this always terminates; fewer than `n` come back only when the space is
        exhausted (or, for a huge space, almost entirely excluded).
        """
        size = self.size
        excluded = {int(i) for i in exclude if 0 <= i < size}
        target = min(int(n), size - len(excluded))
        if target <= 0:
            return []
        if size <= _ENUMERATE_LIMIT and 2 * (len(excluded) + target) > size:
            return self._sample_listed(rng, target, excluded)
        chosen = self._sample_drawn(rng, target, excluded)
        if len(chosen) < target and size <= _ENUMERATE_LIMIT:
            chosen += self._sample_listed(rng, target - len(chosen), excluded | set(chosen))
        return chosen

    def _sample_drawn(self, rng: np.random.Generator, target: int, excluded: set[int]) -> list[int]:
        chosen: list[int] = []
        seen = set(excluded)
        budget = 32 * target + 64  # enough when at least half the space is free
        while len(chosen) < target and budget > 0:
            batch = min(budget, max(16, 2 * (target - len(chosen))))
            budget -= batch
            for idx in self._random_indices(rng, batch):
                if idx not in seen:
                    seen.add(idx)
                    chosen.append(idx)
                    if len(chosen) == target:
                        break
        return chosen

    def _random_indices(self, rng: np.random.Generator, count: int) -> list[int]:
        size = self.size
        if size < 1 << 62:
            return rng.integers(0, size, size=count, dtype=np.int64).tolist()
        # Too big for int64: draw each knob's position and combine in Python ints.
        columns = [rng.integers(0, dim, size=count).tolist() for dim in self.dims]
        return [self.index_from_digits(row) for row in zip(*columns, strict=True)]

    def _sample_listed(
        self, rng: np.random.Generator, target: int, excluded: set[int]
    ) -> list[int]:
        free = np.ones(self.size, dtype=bool)
        if excluded:
            free[np.fromiter(excluded, dtype=np.int64, count=len(excluded))] = False
        remaining = np.flatnonzero(free)
        count = min(target, len(remaining))
        return [int(i) for i in rng.choice(remaining, size=count, replace=False)]

    def neighbors(self, index: int, rng: np.random.Generator, n: int) -> list[int]:
        """Up to `n` distinct indices that differ from `index` in exactly one knob.

        Chosen uniformly among all such neighbours (a knob with more entities is picked more
        often), which is what a mutation step in a genetic or annealing tuner wants.
        """
        digits = self.digits(index)
        dims = self.dims
        total = sum(d - 1 for d in dims)
        count = min(int(n), total)
        if count <= 0:
            return []
        out = []
        for r in rng.choice(total, size=count, replace=False).tolist():
            for k, dim in enumerate(dims):
                if r < dim - 1:
                    new = list(digits)
                    new[k] = r if r < digits[k] else r + 1  # skip the current position
                    out.append(self.index_from_digits(new))
                    break
                r -= dim - 1
        return out

    def features(self, index: int) -> np.ndarray:
        """Concatenated knob features of a config; the length depends only on the space."""
        values = self.get(index)
        parts = [knob.feature(values[name]) for name, knob in self._knobs.items()]
        return np.asarray([x for part in parts for x in part], dtype=np.float64)

    # -- serialisation ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Versioned, JSON-serialisable description of every knob and its entities."""
        return {"version": FORMAT_VERSION, "knobs": [k.to_json() for k in self._knobs.values()]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ConfigSpace:
        """Rebuild a space from `to_json` output (also after json.dumps / json.loads)."""
        if not isinstance(data, Mapping) or data.get("version") != FORMAT_VERSION:
            raise SpaceError(f"not a version-{FORMAT_VERSION} config space record")
        space = cls()
        for knob_data in data.get("knobs", []):
            space.add(knob_from_json(knob_data))
        return space
