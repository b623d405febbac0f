"""Model-guided search (like AutoTVM's XGBTuner): a cost model proposes, measurement decides.

The loop:

1. Until `warmup` configs are measured (a quarter of a plan) and the model has learnt
   something, batches are uniformly random: a model trained on a handful of points ranks
   no better than chance and costs time.
2. Then each `next_batch` runs simulated annealing over `ConfigSpace.neighbors` on the
   model's predictions: `n_chains` parallel chains start from the best measured configs
   and random ones, a step moves every chain to a random neighbour (always accepted if
   predicted better, else with probability exp(delta / T), T decaying linearly to 0), and
   a heap keeps the `plan_size` best-predicted configs never measured. The batch is taken
   from that plan, each slot replaced by a random unvisited config with probability
   `epsilon` so a wrong model cannot trap the search.
3. `update` refits the model on all history (the base loop has already booked the results).

Features are computed by `tunefarm.tune.features` and cached per config; the model is
`XGBoostCostModel`. Loop features cost milliseconds each (a lowering), so annealing with
them uses fewer, shorter chains by default. The seconds spent fitting and proposing are
summed in `overhead_s`, which benchmarks compare to the tuning wall time.

`transfer_from(records)` adds measurements of other workloads to the training set: with
loop features any task's records can be featurised (transfer learning); knob features
only mean something within one space, so only records of the same workload are used.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from tunefarm.measure import Config, MeasureResult
from tunefarm.schedule.space import ConfigSpace, SpaceError
from tunefarm.task import Task
from tunefarm.tune.cost_model import XGBoostCostModel
from tunefarm.tune.features import FEATURE_TYPES, featurize, loop_features
from tunefarm.tune.random_tuner import TunerArgumentError, check_batch_size
from tunefarm.tune.tuner import Tuner

# (chains, steps) of one annealing run per feature kind: knob features cost ~10 us, loop
# features ~2 ms, and the whole proposal should stay well under 10% of tuning time.
SA_DEFAULTS = {"knob": (64, 100), "loop": (8, 16)}
SA_PATIENCE = 20  # steps without a new entry in the plan before annealing stops early


class RecordLike(Protocol):
    """What `transfer_from` reads of a `tunefarm.tune.records.Record`."""

    task: Task
    config: Config

    @property
    def ok(self) -> bool: ...

    @property
    def cost(self) -> float: ...


def normalised_throughput(costs: Sequence[float]) -> np.ndarray:
    """1/cost divided by the best one, so 1 = fastest and 0 = failed (inf cost)."""
    arr = np.asarray(costs, dtype=np.float64)
    good = np.isfinite(arr) & (arr > 0)
    thr = np.zeros(len(arr))
    thr[good] = 1.0 / arr[good]
    top = thr.max(initial=0.0)
    return thr / top if top > 0 else thr


class XGBTuner(Tuner):
    """Simulated annealing on an XGBoost cost model; see the module docstring.

    loss: "rank" or "reg" (see `XGBoostCostModel`). feature_type: "knob" or "loop".
    plan_size: configs kept per annealing run (and 4x the random warm-up). epsilon: share
    of random picks. sa_iters / n_chains: annealing steps and chains (defaults depend on
    the feature type, `SA_DEFAULTS`). nthread: xgboost threads (1 is fastest for the
    few-thousand-sample fits of a tuning run and leaves the cores to builds).
    """

    name = "xgb"

    def __init__(
        self,
        task: Task,
        space: ConfigSpace | None = None,
        seed: int = 0,
        loss: str = "rank",
        feature_type: str = "knob",
        plan_size: int = 64,
        epsilon: float = 0.05,
        sa_iters: int | None = None,
        n_chains: int | None = None,
        nthread: int | None = 1,
    ):
        super().__init__(task, space, seed)
        if feature_type not in FEATURE_TYPES:
            raise TunerArgumentError(f"feature_type must be one of {FEATURE_TYPES}")
        if not isinstance(plan_size, int) or isinstance(plan_size, bool) or plan_size < 1:
            raise TunerArgumentError(f"plan_size must be a positive int, got {plan_size!r}")
        if not 0.0 <= epsilon <= 1.0:
            raise TunerArgumentError(f"epsilon must be in [0, 1], got {epsilon!r}")
        chains, steps = SA_DEFAULTS[feature_type]
        self.feature_type = feature_type
        self.plan_size, self.epsilon = plan_size, float(epsilon)
        self.sa_iters = steps if sa_iters is None else max(0, int(sa_iters))
        self.n_chains = chains if n_chains is None else max(1, int(n_chains))
        self.warmup = max(1, math.ceil(plan_size / 4))
        self.model = XGBoostCostModel(loss, feature_type, seed=seed, nthread=nthread)
        self.overhead_s = 0.0  # seconds in model fits and proposals (and transfer set-up)
        self.plans = 0  # annealing runs so far: 0 while every batch is random
        self._rows: dict[int, np.ndarray] = {}  # feature row of each config index seen
        self._transfer: list[tuple[np.ndarray, np.ndarray]] = []  # (xs, ys) per workload
        self._plan: list[int] = []
        self._plan_fit = -1  # model.fit_count when the plan was made

    # -- the three verbs ------------------------------------------------------------------
    def next_batch(self, batch_size: int) -> list[int]:
        """Up to `batch_size` unvisited configs: random during warm-up, then model picks."""
        check_batch_size(batch_size)
        start = time.perf_counter()
        try:
            if not self._guided():
                return self.space.sample(self.rng, batch_size, exclude=self.visited)
            if self._plan_fit != self.model.fit_count:
                self._plan, self._plan_fit = self._anneal(), self.model.fit_count
            return self._take(batch_size)
        finally:
            self.overhead_s += time.perf_counter() - start

    def update(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        """Refit the model on every measurement so far (the base class booked them)."""
        start = time.perf_counter()
        self._fit()
        self.overhead_s += time.perf_counter() - start

    def transfer_from(self, records: Iterable[RecordLike]) -> int:
        """Add earlier measurements to the training set and refit; returns how many were used.

        Loop features: every record, featurised with its own task and config, throughput
        normalised per (workload, target, device). Knob features: only records of this
        workload whose config fits this space. Groups with a single record teach nothing
        and are dropped. The records are training data only: they are not marked visited
        (use `load_history` to resume a tuning run of this very task).
        """
        start = time.perf_counter()
        groups: dict[tuple[str, str, str], list[tuple[np.ndarray, float]]] = {}
        for rec in records:
            row = self._record_row(rec)
            if row is not None:
                key = (rec.task.workload_key, rec.task.target, getattr(rec, "device_key", ""))
                groups.setdefault(key, []).append((row, rec.cost if rec.ok else math.inf))
        used = 0
        for pairs in groups.values():
            if len(pairs) >= 2:
                xs = np.stack([row for row, _ in pairs])
                self._transfer.append((xs, normalised_throughput([c for _, c in pairs])))
                used += len(pairs)
        if used:
            self._fit()
        self.overhead_s += time.perf_counter() - start
        return used

    # -- model ------------------------------------------------------------------------------
    def _guided(self) -> bool:
        """Use the model once it is trained on enough of this task (or on transferred data)."""
        return self.model.trained and (len(self.history) >= self.warmup or bool(self._transfer))

    def features(self, indices: Sequence[int]) -> np.ndarray:
        """Feature rows of configs of this task's space, computed once per config."""
        missing = [i for i in dict.fromkeys(indices) if i not in self._rows]
        if missing:
            rows = featurize(self.task, self.space, missing, self.feature_type)
            self._rows.update(zip(missing, rows, strict=True))
        return np.stack([self._rows[i] for i in indices])

    def _record_row(self, rec: RecordLike) -> np.ndarray | None:
        values = rec.config.as_dict()
        if self.feature_type == "loop":
            try:
                return loop_features(rec.task, values)
            except ValueError:  # an op or workload this version cannot instantiate
                return None
        if rec.task.workload_key != self.task.workload_key:
            return None
        try:
            return self.features([self.space.index_of(values)])[0]
        except SpaceError:  # same workload, other target: a different space
            return None

    def _fit(self) -> None:
        xs, ys, groups = [], [], []
        if self.history:
            indices, costs = zip(*self.history, strict=True)
            xs.append(self.features(indices))
            ys.append(normalised_throughput(costs))
            groups.append(len(indices))
        for txs, tys in self._transfer:
            xs.append(txs)
            ys.append(tys)
            groups.append(len(tys))
        if xs:
            self.model.fit(np.concatenate(xs), np.concatenate(ys), groups)

    # -- proposal ---------------------------------------------------------------------------
    def _take(self, batch_size: int) -> list[int]:
        """Pop the plan's best unvisited configs; each slot random with probability epsilon."""
        plan = [i for i in self._plan if i not in self.visited]
        out: list[int] = []
        for _ in range(batch_size):
            if plan and self.rng.random() >= self.epsilon:
                out.append(plan.pop(0))
                continue
            pick = self.space.sample(self.rng, 1, exclude=self.visited | set(out) | set(plan))
            if not pick and plan:  # only plan members are left unvisited
                pick = [plan.pop(0)]
            out += pick
        self._plan = plan
        return out

    def _starts(self) -> list[int]:
        """Chain starting points: the best measured configs, then random ones."""
        measured = sorted((c, i) for i, c in self.history if math.isfinite(c))
        best = [i for _, i in measured[: self.n_chains // 2]]
        rest = self.space.sample(self.rng, self.n_chains - len(best), exclude=best)
        return best + rest

    def _anneal(self) -> list[int]:
        """The plan: up to `plan_size` unvisited configs with the best predictions."""
        self.plans += 1
        points = self._starts()
        scores = self.model.predict(self.features(points))
        heap: list[tuple[float, int]] = []  # min-heap of (score, index) of unvisited configs
        members: set[int] = set()
        self._offer(heap, members, points, scores)
        scale = float(np.std(scores)) or 1.0  # temperature in units of the score spread
        quiet = 0
        for step in range(self.sa_iters):
            moved = [self._neighbor(p) for p in points]
            new_scores = self.model.predict(self.features(moved))
            quiet = 0 if self._offer(heap, members, moved, new_scores) else quiet + 1
            temp = scale * (1.0 - step / self.sa_iters)
            gain = np.minimum(new_scores - scores, 0.0) / max(temp, 1e-12)
            accept = self.rng.random(len(points)) < np.exp(gain)
            points = [m if a else p for p, m, a in zip(points, moved, accept, strict=True)]
            scores = np.where(accept, new_scores, scores)
            if quiet >= SA_PATIENCE:
                break
        return [i for _, i in sorted(heap, reverse=True)]

    def _neighbor(self, index: int) -> int:
        found = self.space.neighbors(index, self.rng, 1)
        return found[0] if found else index

    def _offer(
        self, heap: list[tuple[float, int]], members: set[int], indices: Sequence[int], scores: Any
    ) -> bool:
        """Push unvisited candidates into the bounded heap; True if any got in."""
        changed = False
        for index, score in zip(indices, scores, strict=True):
            if index in self.visited or index in members:
                continue
            item = (float(score), index)
            if len(heap) < self.plan_size:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                members.discard(heapq.heapreplace(heap, item)[1])
            else:
                continue
            members.add(index)
            changed = True
        return changed
