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

A task's first batch is the template default and hand-built states, then random ones (ranked
by the model when the job's shared model is trained already), never a whole evolution; where
a task's states are slow to lower (Winograd), the evolution shrinks to `PROPOSE_BUDGET_S`.

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
from tunefarm.measure import Config, MeasureInput, MeasureResult, lowered
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.sketch import TilePlan
from tunefarm.schedule.sketch_map import nearest_state
from tunefarm.schedule.sketch_state import (
    MUTATIONS,
    Decisions,
    heuristic,
    local_elements,
    mutate,
    mutation_kinds,
    realise,
    sample,
)
from tunefarm.task import Task
from tunefarm.tune.cost_model import XGBoostCostModel
from tunefarm.tune.rank_quality import rank_report
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
# A mutation that changes nothing is drawn again up to this many times (kinds="applicable").
MUTATION_TRIES = 4
# No new best in this many trials: the search counts as stalled (local_share applies).
STALL_TRIALS = 48
# The measured states that local moves start from.
LOCAL_TOP = 8
# The cost model's tau (all, top 10%) on the last this many trials is logged this often.
QUALITY_EVERY = 64
# A task's first batch with the (shared) model trained: its random share is the best-predicted
# of this many times as many random states (`_ranked_fresh`).
FIRST_POOL = 3
# The CPU seconds a guided batch may spend lowering and featurising new states: where a task's
# states are slow to lower (a Winograd conv: ~0.3 s each, ~60 s for the ~200 states of a full
# evolution, against ~3 s on a direct conv), the population shrinks, down to MIN_POPULATION,
# and then the generations, down to one (`_evolution_size`).
PROPOSE_BUDGET_S = 8.0
MIN_POPULATION = 16
# The hand-built states of a first batch (`sketch_state.heuristic`), in order: (vector widths
# of the register block, auto-unroll, columns outer); taken round-robin over the sketches.
# First the template's kinds of tile (2 vectors by rows, in both orders: the columns-outer
# one holds up to 28 accumulators on AVX-512), then one vector by more rows, then 4 vectors.
HEURISTIC_SHAPES = (
    (2, 64, 1), (2, 64, 0), (1, 64, 0), (4, 64, 1), (2, 512, 1), (1, 0, 0), (2, 0, 1),
)  # fmt: skip


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
    per tuner when None). Options measured in docs/autoscheduler.md ("Search at depth"):
    kinds: "applicable" (only the kinds a state has decisions for, drawn again when a
    mutation changes nothing) or "any" (drawn from all kinds, as before: 45-49% of a dense's
    mutations then changed nothing); seed_share: the share of the population seeded from
    the best measured states (as before); local_share: the share of a batch taken, once the
    search stalls, from unranked mutations of the best measured states (the model orders the
    top states poorly; 0 as before); seed_default: the measured template default seeds
    evolution through its nearest sketch state (`sketch_map`; False: as before). The defaults
    are the variant that measured best.
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
        trace: bool = False,
        kinds: str = "applicable",
        seed_share: float = 0.25,
        local_share: float = 0.5,
        first: str = "heuristic",
        seed_default: bool = True,
    ):
        if first not in ("heuristic", "random"):
            raise ValueError(f"first: expected 'heuristic' or 'random', got {first!r}")
        if kinds not in ("any", "applicable"):
            raise ValueError(f"kinds: expected 'any' or 'applicable', got {kinds!r}")
        super().__init__(task, SketchSpace(), seed)
        self.sketches, self.params = registry.sketches(task)
        self.kdef = registry.base_kernel(task)
        self.evolve, self.population, self.generations = evolve, population, generations
        self.epsilon = epsilon
        self.kinds, self.seed_share, self.local_share = kinds, seed_share, local_share
        self.first = first
        self.seed_default = seed_default  # the default stands for its sketch state
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
        # where each state came from ("init", "random", "mut:<kind>") and the model's score
        # of each proposed state when it was proposed (for tau on states it had not seen)
        self.origin: dict[int, str] = {}
        self.predicted: dict[int, float] = {}
        # trace=True: one dict per batch (population diversity, mutation outcomes, new
        # bests), for benchmarks/search_depth.py; off in ordinary runs
        self.trace: list[dict[str, Any]] | None = [] if trace else None
        self._step: dict[str, Any] = {}
        # the index of the template default's nearest sketch state (`_seed_default`)
        self.default_state: int | None = None
        # what `load_default` booked: the default and its state, measured outside the search
        self.given: set[int] = set()
        # CPU seconds spent in `_featurise`, and how many states (for `_evolution_size`)
        self.featurise_s, self.featurised = 0.0, 0

    # -- states ---------------------------------------------------------------------------
    def _make(self, state: State, origin: str = "init") -> int | None:
        """Intern a state; None (and a count by reason) when it cannot be built."""
        sketch = self.sketches[state.sketch]
        d = state.d
        if local_elements(sketch, d) > self.params.max_local:
            self.invalid[f"local tile over {self.params.max_local} elements"] += 1
            return None
        steps = realise(sketch, d)
        index = self.space.index_of(registry.sketch_config(steps).as_dict())
        self.states.setdefault(index, state)
        self.origin.setdefault(index, origin)
        if index not in self.rows:
            self.rows[index] = self._featurise(index, steps)
        if self.rows[index] is None:
            self.invalid[self.reasons[index]] += 1
            return None
        return index

    def state_index(self, sketch: int, d: Decisions, origin: str = "init") -> int | None:
        """The space index of sketch number `sketch` with decisions `d`, realised and lowered
        as the search makes its own states; None (counted in `invalid` by reason) when it
        cannot be built. For benchmarks and tests that hand-pick states to measure
        (`inputs_for` turns indices into measure inputs)."""
        return self._make(State(sketch, tuple(sorted(d.items()))), origin)

    def _featurise(self, index: int, steps: list[S.Step]) -> np.ndarray | None:
        start = time.thread_time()
        try:
            return self._lower_features(index, steps)
        finally:
            self.featurise_s += time.thread_time() - start
            self.featurised += 1

    def _lower_features(self, index: int, steps: list[S.Step]) -> np.ndarray | None:
        try:
            func = lower(Schedule(self.kdef.outputs, self.kdef.inputs).apply_all(steps))
            if self.params.check_lowered is not None:  # device limits, before measuring
                self.params.check_lowered(func)
        except _INVALID as exc:
            self.reasons[index] = _reason(exc)
            return None
        # the build worker emits this state's source from the same lowering
        lowered.remember(self.inputs_for([index])[0], func)
        return statement_features(func, self.flops)

    def _random(self, n: int) -> list[State]:
        out = []
        for _ in range(n):
            k = int(self.rng.integers(len(self.sketches)))
            d = sample(self.sketches[k], self.params, self.rng)
            out.append(State(k, tuple(sorted(d.items()))))
        return out

    def _mutant(self, state: State) -> tuple[State | None, str]:
        """A mutated copy of a state (None when the kind drawn changes nothing), its origin."""
        if self.kinds == "any":
            kind = MUTATIONS[int(self.rng.integers(len(MUTATIONS)))]
            d = mutate(self.sketches[state.sketch], state.d, self.params, self.rng, kind)
            child = None if d is None else State(state.sketch, tuple(sorted(d.items())))
            return child, f"mut:{kind}"
        kinds = mutation_kinds(state.d) or list(MUTATIONS)
        for _ in range(MUTATION_TRIES):
            kind = kinds[int(self.rng.integers(len(kinds)))]
            d = mutate(self.sketches[state.sketch], state.d, self.params, self.rng, kind)
            if d is not None:
                return State(state.sketch, tuple(sorted(d.items()))), f"mut:{kind}"
        return None, f"mut:{kind}"

    # -- the tuner's verbs ----------------------------------------------------------------
    def inputs_for(self, indices: Sequence[int]) -> list[MeasureInput]:
        return [MeasureInput(self.task, Config.make(self.space.get(i))) for i in indices]

    def next_batch(self, batch_size: int) -> list[int]:
        start = time.perf_counter()
        before = sum(self.invalid.values())
        self._step = {"trials": len(self.history)}
        try:
            if self.first == "heuristic" and self.visited <= self.given:
                batch = self._first(batch_size)
            elif self.evolve and self.model.trained:
                batch = self._guided(batch_size)
            else:
                batch = self._fresh(batch_size, set())
            self._remember_scores(batch)
            return batch
        finally:
            self.overhead_s += time.perf_counter() - start
            dropped = sum(self.invalid.values()) - before
            if dropped:
                _log.info("%s: dropped %d invalid states: %s", self.task, dropped, self.why())

    def why(self) -> str:
        return ", ".join(f"{r} x {n}" for r, n in self.invalid.most_common())

    def _remember_scores(self, batch: list[int]) -> None:
        """The model's scores of a batch before it is measured (one predict call)."""
        if self.model.trained and batch:
            scores = self.model.predict(np.stack([self.rows[i] for i in batch]))
            self.predicted.update(zip(batch, map(float, scores), strict=True))

    def model_quality(self, last: int | None = None) -> dict[str, float]:
        """Kendall tau of the model's scores at proposal time against the measured
        throughputs, on all such states and on the top 10% (of the `last` trials only,
        when given): `rank_quality.rank_report`."""
        pairs = [(self.predicted[i], self.flops / c) for i, c in self.history[-(last or 0):]
                 if i in self.predicted and math.isfinite(c) and c > 0]  # fmt: skip
        return rank_report([p for p, _ in pairs], [m for _, m in pairs])

    def _fresh(self, n: int, taken: set[int], tries: int = 8, origin: str = "init") -> list[int]:
        """Up to n valid, unmeasured random states."""
        out: list[int] = []
        for _ in range(tries):
            for state in self._random(2 * (n - len(out))):
                i = self._make(state, origin)
                if i is not None and i not in self.visited and i not in taken and i not in out:
                    out.append(i)
                if len(out) >= n:
                    return out
        return out

    def _first(self, batch_size: int) -> list[int]:
        """A first batch: the template's default schedule (as every template tuner measures
        first, so the search is never behind the untuned kernel), hand-built states for half
        of the batch, and, with the job's model trained, its pick of random states for the
        rest (`_ranked_fresh`).

        With the model untrained (a job's first task) the batch stops after the hand-built
        states, half a batch, so the search holds a best sooner: blind random states are
        1.2-20x slower kernels than the hand-built ones (conv_56_64_64_3x3: 1.05-17 ms
        against 0.85-0.92) and took more than half of the batch's build CPU (conv_224_3_64_
        7x7_s2: 2.8 of 5.1 s, Zen 5), and the whole batch ended at 10-14 s where the template
        policy's ended at 6-8 s (load 6, issue 27). They would only train the model: the next
        batch evolves from the measured states, half of it random while warm (`WARM_EPSILON`).
        Measured (time_to_quality.py, Zen 5, load 5-6): the first best at 4.1, 9.1 and 8.5 s
        instead of 14.1, 10.6 and 25.5 s on conv_224_3_64_7x7_s2, conv_56_64_64_3x3 and
        conv_56_64_128_3x3_s2 (benchmarks/results-time-to-quality-r18-sketch-vs-template-zen5
        .json); the quality at 30-120 s moved within that benchmark's run-to-run noise."""
        default = self.template_default()
        out = [i for i in [default] if i is not None and i not in self.visited][:batch_size]
        want = min(batch_size, len(out) + batch_size // 2)
        tiled = [k for k, sk in enumerate(self.sketches)
                 if any(isinstance(p, TilePlan) for p in sk.plans)]  # fmt: skip
        tiled = tiled or list(range(len(self.sketches)))
        for vectors, unroll, columns in HEURISTIC_SHAPES:
            for k in tiled:
                if len(out) >= want:
                    break
                d = heuristic(self.sketches[k], self.params, self.rng, vectors, unroll, columns)
                i = self._make(State(k, tuple(sorted(d.items()))), "heuristic")
                if i is not None and i not in out:
                    out.append(i)
        if out and not self.model.trained:
            return out  # half a batch: a best sooner (see the docstring)
        return out + self._ranked_fresh(batch_size - len(out), set(out))

    def _ranked_fresh(self, n: int, taken: set[int]) -> list[int]:
        """The random share of a first batch. With a model trained already (on the job's
        other tasks: the model is shared) the n best-predicted of FIRST_POOL x n random states,
        so the batch times fewer of the slowest random kernels; untrained, the first n drawn.
        A first batch used to run the whole evolution (`_guided`) as soon as the shared model
        was trained: ~200 states lowered for 16 measured (issue 27, docs/autoscheduler.md)."""
        if n <= 0 or not (self.evolve and self.model.trained):
            return self._fresh(n, taken)
        pool = self._fresh(FIRST_POOL * n, taken)
        if len(pool) <= n:
            return pool
        scores = self.model.predict(np.stack([self.rows[i] for i in pool]))
        return [pool[k] for k in np.argsort(-scores, kind="stable")[:n]]

    def template_default(self) -> int | None:
        """The template's default schedule as a sketch config (its steps on the same compute
        definition), interned; None when the template writes its own code or the steps do not
        lower. With `seed_default` its nearest sketch state is mapped too (`default_state`).
        The first batch starts with it; benchmarks measure it beside hand-picked states."""
        if self.kdef.code is not None or not self.kdef.steps:
            return None
        steps = list(self.kdef.steps)
        index = self.space.index_of(registry.sketch_config(steps).as_dict())
        if index not in self.rows:
            self.rows[index] = self._featurise(index, steps)
        self.origin.setdefault(index, "default")
        if self.rows[index] is None:
            return None
        if self.seed_default:
            self._seed_default(index, steps)
        return index

    def load_default(self, result: MeasureResult) -> bool:
        """Book the template default config measured outside the search (`recipe.defaults`
        measures it into the log first) as this search's measurement of the template's
        default schedule: the same steps on the same compute definition, so the same kernel
        (`template_default`), which the first batch would otherwise measure again."""
        index = self.template_default()
        if index is None or index in self.visited:
            return False
        self.load_history([(index, result)])
        self.given |= {index, *([self.default_state] if self.default_state is not None else [])}
        return True

    def _seed_default(self, index: int, steps: list[S.Step]) -> None:
        """Make the default schedule evolvable: its nearest sketch state
        (`sketch_map.nearest_state`) stands for it, so once the default is measured its cost
        seeds the population and the local moves from that state. The state itself is
        marked visited: measuring it too would spend a trial on (nearly) the same kernel."""
        rng = np.random.default_rng(0)  # apart: the search's own draws stay as they were
        found = nearest_state(self.sketches, steps, self.params,
                              lambda sketch: sample(sketch, self.params, rng))  # fmt: skip
        if found is None:
            return
        k, d = found
        state = State(k, tuple(sorted(d.items())))
        mapped = self._make(state, "default")
        if mapped is None:
            return
        self.states[index] = state
        self.default_state = mapped
        if mapped != index:
            self.visited.add(mapped)

    def _guided(self, batch_size: int) -> list[int]:
        pool = self._evolve_population()
        ranked = [i for i in pool if i not in self.visited]
        eps = max(self.epsilon, WARM_EPSILON) if len(self.history) < WARM_STATES else self.epsilon
        n_random = sum(self.rng.random() < eps for _ in range(batch_size))
        n_local = min(round(self.local_share * batch_size), batch_size - n_random)
        n_local = n_local if self.stalled() else 0
        local = self._local(n_local, set(ranked[: batch_size - n_random - n_local]))
        out = ranked[: batch_size - n_random - len(local)] + local
        return out + self._fresh(batch_size - len(out), set(out), origin="random")

    def stalled(self) -> bool:
        """No new best in the last STALL_TRIALS trials (and at least that many measured)."""
        return len(self.history) - self.best_trial >= STALL_TRIALS

    def _local(self, n: int, taken: set[int], tries: int = 8) -> list[int]:
        """Up to n unmeasured states one or two mutations away from the LOCAL_TOP best
        measured states, drawn without the model (which orders the top states poorly)."""
        best = sorted((c, i) for i, c in self.history if math.isfinite(c) and i in self.states)
        tops = [self.states[i] for _, i in best[:LOCAL_TOP]]
        out: list[int] = []
        for _ in range(tries * n):
            if len(out) >= n or not tops:
                break
            state: State | None = tops[int(self.rng.integers(len(tops)))]
            origin = "local"
            for _ in range(1 + int(self.rng.integers(2))):
                state, kind = self._mutant(state) if state is not None else (None, "")
                origin = f"local:{kind[4:]}"
            i = None if state is None else self._make(state, origin)
            if i is not None and i not in self.visited and i not in taken and i not in out:
                out.append(i)
        return out

    def _evolve_population(self) -> list[int]:
        """Indices of the final generation, best predicted first."""
        population, generations = self._evolution_size()
        members: dict[int, State] = {}
        for state in self.seeds_of_population() + self._random(population):
            i = self._make(state)
            if i is not None:
                members[i] = state
        outcome: Counter = Counter()
        for _ in range(generations):
            children = {}
            for state in list(members.values()):
                child, origin = self._mutant(state)
                i = None if child is None else self._make(child, origin)
                outcome[_outcome(i, members, children, self.visited)] += 1
                if i is not None and child is not None:
                    children[i] = child
            members.update(children)
            members = dict(self._top(members, population))
        if self.trace is not None:
            self._step.update(self._diversity(members), children=dict(outcome))
        return [i for i, _ in self._top(members, len(members))]

    def _evolution_size(self) -> tuple[int, int]:
        """(population, generations) of the next evolution: as configured, unless lowering
        this task's states is so slow (mean CPU per state so far) that the ~population x
        (generations + 1) new states would cost more than PROPOSE_BUDGET_S; then the
        population shrinks first (not below MIN_POPULATION), then the generations (not
        below one). A batch's 16 measurements then wait on ~10 s of proposal, not ~60."""
        if not self.featurised:
            return self.population, self.generations
        per_state = self.featurise_s / self.featurised
        afford = PROPOSE_BUDGET_S / max(per_state, 1e-9)  # states lowered per batch
        population = min(self.population, max(MIN_POPULATION, int(afford / (self.generations + 1))))
        generations = min(self.generations, max(1, int(afford / population) - 1))
        return population, generations

    def seeds_of_population(self) -> list[State]:
        """The states of the best measured configs that start each population (the template
        default's stands for it through its nearest sketch state: `_seed_default`)."""
        best = sorted((c, i) for i, c in self.history if math.isfinite(c) and i in self.states)
        return [self.states[i] for _, i in best[: int(self.population * self.seed_share)]]

    def _diversity(self, members: dict[int, State]) -> dict[str, int]:
        """Distinct states, sketches and tile vectors of a final generation; how many of
        its members were measured already."""
        tiles = {
            tuple(kv for kv in s.decisions if kv[0].startswith("tile:")) for s in members.values()
        }
        return {
            "population": len(members),
            "sketches": len({s.sketch for s in members.values()}),
            "tile_vectors": len(tiles),
            "measured_members": sum(i in self.visited for i in members),
        }

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
        if self.trace is not None:
            self._trace_batch(indices)
        n = len(self.history)
        if indices and n // QUALITY_EVERY > (n - len(indices)) // QUALITY_EVERY:
            q = self.model_quality(QUALITY_EVERY)
            _log.info(
                "%s: %d trials, cost model Kendall tau %.2f on the last %d states, %.2f on "
                "their top 10%%",
                self.task, n, q["tau"], q["n"], q["tau_top10"],
            )  # fmt: skip

    def _trace_batch(self, indices: Sequence[int]) -> None:
        """One trace row: the batch's origins, new bests (and where they came from), tau."""
        done = self.history[-len(indices) :] if indices else []
        earlier = self.history[: len(self.history) - len(done)]
        before = min((c for _, c in earlier), default=math.inf)
        bests = []
        for i, c in done:
            if c < before:
                before = c
                bests.append(self.origin.get(i, "seed"))
        self._step.update(
            measured=len(self.history),
            origins=dict(Counter(self.origin.get(i, "seed") for i in indices)),
            new_bests=bests,
            best_gflops=self.best_gflops,
            model=self.model_quality(),
            model_last=self.model_quality(len(indices)),
        )
        self.trace.append(self._step)  # type: ignore[union-attr]
        self._step = {}

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


def _outcome(i: int | None, members: dict, children: dict, visited: set[int]) -> str:
    """What one mutation gave: nothing (no change or invalid), a state measured already, one
    already in the population, or a new one."""
    if i is None:
        return "none"
    if i in visited:
        return "measured"
    return "duplicate" if i in members or i in children else "new"


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
