"""Evolutionary search over sketch states, ranked by a learned cost model.

`SketchTuner` plugs into the ordinary tuner loop (`Tuner.tune`): its "space" is an interning
table of the states it has made (`SketchSpace`), so the loop's bookkeeping (visited states
are never measured again, early stopping, diagnosis, callbacks, records) is the one every
tuner shares. Each batch:

1. the population: states sampled at random from every sketch, plus mutations of the best
   measured states;
2. a few generations: every member mutated (tile sizes, parallel granularity, auto-unroll,
   compute location), the cost model scoring parents and children, the best kept;
3. the batch: the best-scored states never measured, with an epsilon-greedy share drawn at
   random from the valid states instead (half the batch until `WARM_STATES` are measured).

Invalid states are dropped before they reach the builder, counted by reason (`invalid`), and
the counts are logged once per batch. A record stores the state's steps only; a resumed run
reads them back as measured (never re-measured) and as training data for the model.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends import registry
from tunefarm.codegen.lower import lower
from tunefarm.measure import Config, MeasureInput, MeasureResult
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.sketch_state import Decisions, local_elements, mutate, realise, sample
from tunefarm.task import Task
from tunefarm.tune.cost_model import XGBoostCostModel
from tunefarm.tune.sketch_features import statement_features
from tunefarm.tune.tuner import Tuner
from tunefarm.tune.xgb_tuner import normalised_throughput

_log = logging.getLogger(__name__)
_INVALID = (ValueError, KeyError, IndexError, ZeroDivisionError)
# While a task has fewer measured states than this, half of each batch is random: a model fit
# on one or two batches ranks held-out states with Kendall tau ~0.5 at best and steers the
# whole batch into one sketch, which lost to blind random sampling on a dense at 24-48 trials
# (2 of 3 seeds at 24; with half random, 1 of 3: docs/autoscheduler.md).
WARM_STATES = 32
WARM_EPSILON = 0.5


class SketchSpace:
    """The states a sketch tuner has seen, by index: a step list per index."""

    size = 1 << 62  # unbounded for the loop's `has_next`

    def __init__(self) -> None:
        self.values: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}

    @staticmethod
    def key(values: dict[str, Any]) -> str:
        return repr(values[S.SKETCH_KNOB])

    def index_of(self, values: dict[str, Any]) -> int:
        """The index of a state, interned on first sight; ValueError for a template config."""
        if S.SKETCH_KNOB not in values:
            raise ValueError("not a sketch config (template knob values)")
        k = self.key(values)
        if k not in self._index:
            self._index[k] = len(self.values)
            self.values.append(dict(values))
        return self._index[k]

    def get(self, index: int) -> dict[str, Any]:
        return self.values[index]


class SharedModel:
    """One cost model for every task of a job: each task's measured states are its own rank
    group (throughput normalised per task), and every fit uses all groups, so what one task
    taught ranks the states of the next (the features are task-independent)."""

    def __init__(self, seed: int = 0, nthread: int | None = 1):
        self.model = XGBoostCostModel("rank", "statement", seed=seed, nthread=nthread)
        self.groups: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def update(self, key: str, rows: list[np.ndarray], costs: list[float]) -> None:
        if len(rows) >= 2:
            self.groups[key] = (np.stack(rows), normalised_throughput(costs))
        if self.groups:
            xs = np.concatenate([x for x, _ in self.groups.values()])
            ys = np.concatenate([y for _, y in self.groups.values()])
            self.model.fit(xs, ys, [len(y) for _, y in self.groups.values()])


@dataclass(frozen=True)
class State:
    sketch: int
    decisions: tuple[tuple[str, Any], ...]

    @property
    def d(self) -> Decisions:
        return dict(self.decisions)


class SketchTuner(Tuner):
    """Evolutionary search (or, with `evolve=False`, random sampling) of sketch states.

    population: states per generation; generations: rounds of mutation; epsilon: share of
    random picks in a batch; nthread: xgboost threads; shared: the job's cost model (one
    per tuner when None).
    """

    name = "sketch"
    default_first = False

    def __init__(
        self,
        task: Task,
        seed: int = 0,
        evolve: bool = True,
        population: int = 48,
        generations: int = 3,
        epsilon: float = 0.1,
        nthread: int | None = 1,
        shared: SharedModel | None = None,
    ):
        super().__init__(task, SketchSpace(), seed)
        self.sketches, self.params = registry.sketches(task)
        self.kdef = registry.base_kernel(task)
        self.evolve, self.population, self.generations = evolve, population, generations
        self.epsilon = epsilon
        # rank loss on throughput normalised per task: the search needs an order, and one
        # model's scale then never mixes tasks (measured Kendall tau 0.53 against 0.46 for
        # squared error on held-out dense states)
        self.shared = shared if shared is not None else SharedModel(seed, nthread)
        self.model = self.shared.model
        self.states: dict[int, State] = {}  # index -> the state that made it (this run's)
        self.rows: dict[int, np.ndarray | None] = {}  # index -> features (None: invalid)
        self.reasons: dict[int, str] = {}
        self.invalid: Counter = Counter()  # reason -> states dropped before measurement
        self.overhead_s = 0.0

    # -- states ---------------------------------------------------------------------------
    def _make(self, state: State) -> int | None:
        """Intern a state; None (and a count by reason) when it cannot be built."""
        sketch = self.sketches[state.sketch]
        d = state.d
        if local_elements(sketch, d) > self.params.max_local:
            self.invalid[f"local tile over {self.params.max_local} elements"] += 1
            return None
        steps = realise(sketch, d)
        index = self.space.index_of(registry.sketch_config(steps).as_dict())
        self.states.setdefault(index, state)
        if index not in self.rows:
            self.rows[index] = self._featurise(index, steps)
        if self.rows[index] is None:
            self.invalid[self.reasons[index]] += 1
            return None
        return index

    def _featurise(self, index: int, steps: list[S.Step]) -> np.ndarray | None:
        try:
            func = lower(Schedule(self.kdef.outputs, self.kdef.inputs).apply_all(steps))
            if self.params.check_lowered is not None:  # device limits, before measuring
                self.params.check_lowered(func)
        except _INVALID as exc:
            self.reasons[index] = _reason(exc)
            return None
        return statement_features(func, self.flops)

    def _random(self, n: int) -> list[State]:
        out = []
        for _ in range(n):
            k = int(self.rng.integers(len(self.sketches)))
            d = sample(self.sketches[k], self.params, self.rng)
            out.append(State(k, tuple(sorted(d.items()))))
        return out

    def _mutant(self, state: State) -> State | None:
        d = mutate(self.sketches[state.sketch], state.d, self.params, self.rng)
        return None if d is None else State(state.sketch, tuple(sorted(d.items())))

    # -- the tuner's verbs ----------------------------------------------------------------
    def inputs_for(self, indices: Sequence[int]) -> list[MeasureInput]:
        return [MeasureInput(self.task, Config.make(self.space.get(i))) for i in indices]

    def next_batch(self, batch_size: int) -> list[int]:
        start = time.perf_counter()
        before = sum(self.invalid.values())
        try:
            if self.evolve and self.model.trained:
                return self._guided(batch_size)
            return self._fresh(batch_size, set())
        finally:
            self.overhead_s += time.perf_counter() - start
            dropped = sum(self.invalid.values()) - before
            if dropped:
                _log.info("%s: dropped %d invalid states: %s", self.task, dropped, self.why())

    def why(self) -> str:
        return ", ".join(f"{r} x {n}" for r, n in self.invalid.most_common())

    def _fresh(self, n: int, taken: set[int], tries: int = 8) -> list[int]:
        """Up to n valid, unmeasured random states."""
        out: list[int] = []
        for _ in range(tries):
            for state in self._random(2 * (n - len(out))):
                i = self._make(state)
                if i is not None and i not in self.visited and i not in taken and i not in out:
                    out.append(i)
                if len(out) >= n:
                    return out
        return out

    def _guided(self, batch_size: int) -> list[int]:
        pool = self._evolve_population()
        ranked = [i for i in pool if i not in self.visited]
        eps = max(self.epsilon, WARM_EPSILON) if len(self.history) < WARM_STATES else self.epsilon
        n_random = sum(self.rng.random() < eps for _ in range(batch_size))
        out = ranked[: batch_size - n_random]
        return out + self._fresh(batch_size - len(out), set(out))

    def _evolve_population(self) -> list[int]:
        """Indices of the final generation, best predicted first."""
        members: dict[int, State] = {}
        best = sorted((c, i) for i, c in self.history if math.isfinite(c) and i in self.states)
        seeds = [self.states[i] for _, i in best[: self.population // 4]]
        for state in seeds + self._random(self.population):
            i = self._make(state)
            if i is not None:
                members[i] = state
        for _ in range(self.generations):
            children = {}
            for state in list(members.values()):
                child = self._mutant(state)
                i = None if child is None else self._make(child)
                if i is not None and child is not None:
                    children[i] = child
            members.update(children)
            members = dict(self._top(members, self.population))
        return [i for i, _ in self._top(members, len(members))]

    def _top(self, members: dict[int, State], n: int) -> list[tuple[int, State]]:
        """The n members with the best predictions; measured ones count with their rank too."""
        items = list(members.items())
        scores = self.model.predict(np.stack([self.rows[i] for i, _ in items]))
        order = np.argsort(-scores, kind="stable")
        return [items[k] for k in order[:n]]

    def update(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        start = time.perf_counter()
        rows, costs = [], []
        for i, c in self.history:
            row = self._row(i)
            if row is not None:
                rows.append(row)
                costs.append(c)
        self.shared.update(f"{self.task.workload_key}|{self.task.target}", rows, costs)
        self.overhead_s += time.perf_counter() - start

    def transfer_from(self, records: Sequence[Any]) -> int:
        """Train the (shared) model on earlier sketch records of any task as well: each
        workload is its own rank group. Returns how many records were used; they are not
        marked measured (`load_history` resumes a run of this very task)."""
        groups: dict[str, tuple[list[np.ndarray], list[float]]] = {}
        kernels: dict[Task, Any] = {}
        for rec in records:
            if not registry.is_sketch(rec.config):
                continue
            key = f"{rec.task.workload_key}|{rec.task.target}|{rec.device_key}"
            try:
                kdef = kernels.setdefault(rec.task, registry.base_kernel(rec.task))
                steps = [S.step_from_list(x) for x in rec.config.get(S.SKETCH_KNOB)]
                func = lower(Schedule(kdef.outputs, kdef.inputs).apply_all(steps))
            except _INVALID:
                continue
            rows, costs = groups.setdefault(key, ([], []))
            rows.append(statement_features(func, registry.flops(rec.task)))
            costs.append(rec.cost if rec.ok else math.inf)
        used = 0
        for key, (rows, costs) in groups.items():
            if len(rows) >= 2 and any(math.isfinite(c) for c in costs):
                self.shared.groups[f"history:{key}"] = (
                    np.stack(rows),
                    normalised_throughput(costs),
                )
                used += len(rows)
        if used:
            self.shared.update("", [], [])
        return used

    def _row(self, index: int) -> np.ndarray | None:
        """Features of a measured state (one read back from records is featurised here)."""
        if index not in self.rows:
            values = self.space.get(index)
            steps = [S.step_from_list(s) for s in values[S.SKETCH_KNOB]]
            self.rows[index] = self._featurise(index, steps)
        return self.rows[index]


def _reason(exc: Exception) -> str:
    """The kind of a failure without the state's particulars: 'step 3 (...): msg; detail'
    -> the message up to its first detail."""
    text = str(exc)
    if "): " in text:
        text = text.split("): ", 1)[1]
    for cut in (";", " (", ":"):
        text = text.split(cut, 1)[0]
    return f"{type(exc).__name__}: {text.strip()[:80]}"


def random_states(task: Task, n: int, seed: int = 0) -> list[Config]:
    """n distinct valid sketch states of a task drawn at random, as configs to measure."""
    tuner = SketchTuner(task, seed=seed, evolve=False)
    return [Config.make(tuner.space.get(i)) for i in tuner._fresh(n, set())]
