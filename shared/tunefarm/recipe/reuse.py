"""Ask the record store before tuning: reuse a task's best, or start its search warm.

`--reuse best`: a task with at least `min_trials` measured trials in the store for this
target and device key is not tuned again; its store records go into the job's log, so the
compile and in-network selection use them like the job's own.
`--reuse warm` (the default): every task's tuner starts from the store's records of its
workload (never measured again; they count for the task's share, not the run's budget),
measures the best configs of the nearest workloads of the same op first, and its cost
model learns from the fleet's records of the target (`fleet_records`).
`--reuse off`: the store is only written to.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from tunefarm.store import RecordStore, StoreError
from tunefarm.tune.records import Record

REUSE_MODES = ("best", "warm", "off")
DEFAULT_MIN_TRIALS = 64
WARM_TOP_K = 64  # records of a task's own workload loaded into its tuner
SIMILAR_WORKLOADS, SIMILAR_K = 3, 4  # nearest workloads and configs of each measured first
FLEET_PER_WORKLOAD, FLEET_MAX = 128, 8192  # the fleet model's training set
_log = logging.getLogger(__name__)


@dataclass
class TaskReuse:
    """What the store held for one task and what the job did with it."""

    index: int
    workload_key: str
    trials_in_store: int = 0
    best_gflops: float = 0.0
    reused: bool = False  # not tuned: the store's best is used
    warm: int = 0  # store records loaded into its tuner
    seeded: int = 0  # configs of similar workloads measured first

    def describe(self) -> str:
        text = f"{self.trials_in_store} trials in store, best {self.best_gflops:.1f} GFLOP/s"
        if self.reused:
            return f"{text}: reused, not tuned"
        if self.warm or self.seeded:
            return f"{text}: warm start ({self.warm} loaded, {self.seeded} seeded)"
        return text

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "message": self.describe()}


@dataclass
class ReuseReport:
    """The store's part in a job: per task, and the fleet model's training set."""

    mode: str
    store: str
    tasks: list[TaskReuse] = field(default_factory=list)
    fleet_records: int = 0
    trials_saved: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "store": self.store,
            "fleet_records": self.fleet_records,
            "trials_saved": self.trials_saved,
            "tasks": [t.to_json() for t in self.tasks],
        }

    def print(self, stream: TextIO | None) -> None:
        print(f"record store {self.store} (--reuse {self.mode}):", file=stream)
        for t in self.tasks:
            print(f"  task {t.index}: {t.describe()}", file=stream)
        if self.fleet_records:
            print(f"  fleet cost model: {self.fleet_records} record(s)", file=stream)


# -- the fleet model's training set, cached by the store's revision ---------------------------
_FLEET: dict[tuple[str, str, str], tuple[int, list[Record]]] = {}
_FLEET_LOCK = threading.Lock()


def fleet_records(store: RecordStore, target: str, device_key: str) -> list[Record]:
    """Every workload's first records on this target and device (up to FLEET_MAX): what a
    new task's cost model starts from. Cached per store revision, so jobs in one process
    (the search worker) read the store again only when records have arrived."""
    key = (store.url, target, device_key)
    revision = store.revision()
    with _FLEET_LOCK:
        cached = _FLEET.get(key)
        if cached is not None and cached[0] == revision:
            return cached[1]
    found = store.training(target, device_key, FLEET_PER_WORKLOAD)[:FLEET_MAX]
    with _FLEET_LOCK:
        _FLEET[key] = (revision, found)
    return found


def refresh_fleet_async(store: RecordStore, target: str, device_key: str) -> threading.Thread:
    """Rebuild the cached fleet set in the background (after a job adds records)."""

    def run() -> None:
        try:
            fleet_records(store, target, device_key)
        except StoreError as exc:  # the next job reads it in the foreground instead
            _log.warning("fleet model refresh failed: %s", exc)

    thread = threading.Thread(target=run, name="fleet-refresh", daemon=True)
    thread.start()
    return thread


# -- planning a job ---------------------------------------------------------------------------
def plan(
    scheduler: Any,
    store: RecordStore,
    mode: str,
    device_key: str,
    min_trials: int = DEFAULT_MIN_TRIALS,
    keep: int = 8,
) -> tuple[ReuseReport, list[Record]]:
    """Apply `mode` to the scheduler's tasks; returns the report and the store records the
    job's log must hold (reused tasks' `keep` best, warm tasks' loaded records)."""
    if mode not in REUSE_MODES:
        raise ValueError(f"--reuse must be one of {', '.join(REUSE_MODES)}, got {mode!r}")
    report = ReuseReport(mode, store.where)
    tasks = scheduler.tasks
    if mode == "off" or not tasks:
        return report, []
    target = tasks[0].target
    keys = [t.workload_key for t in tasks]
    counts = store.trials(keys, target, device_key)
    reused = [i for i, t in enumerate(tasks) if _enough(counts.get(t.workload_key), min_trials)]
    if mode == "best" and reused:
        best = store.top_k([keys[i] for i in reused], target, device_key, keep)
    else:
        reused, best = [], {}
    warm = {}
    if mode == "warm":
        warm = store.top_k(keys, target, device_key, WARM_TOP_K)
    to_log: list[Record] = []
    for i, t in enumerate(tasks):
        have = counts.get(t.workload_key)
        row = TaskReuse(
            i, t.workload_key, have.trials if have else 0, have.best_gflops if have else 0.0
        )
        report.tasks.append(row)
        if i in reused:
            row.reused = True
            records = best.get(t.workload_key, [])
            row.warm = scheduler.load_records(records, device_key, budget=False, only=[i])
            scheduler.retire(i, f"reused from the store ({row.trials_in_store} trials)")
            report.trials_saved += row.trials_in_store
            to_log += records
        elif mode == "warm":
            records = warm.get(t.workload_key, [])
            row.warm = scheduler.load_records(records, device_key, budget=False, only=[i])
            similar = store.similar(t, device_key, SIMILAR_WORKLOADS, SIMILAR_K)
            row.seeded = scheduler.states[i].tuner.seed([r.config for r in similar])
            to_log += records
    if mode == "warm":
        fleet = fleet_records(store, target, device_key)
        report.fleet_records = scheduler.transfer_records(fleet) if fleet else 0
    return report, to_log


def _enough(have: Any, min_trials: int) -> bool:
    return have is not None and have.trials >= min_trials and math.isfinite(have.best_cost)


def store_callback(put: Any, device_key: str) -> Any:
    """A tuner callback writing every measured batch to the store (via `put`); a store that
    fails is reported once and the job goes on: its log still holds every record."""
    from tunefarm.tune.records import make_record

    failed: list[str] = []

    def callback(tuner: Any, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        if failed:
            return
        try:
            put([make_record(i, r, device_key) for i, r in zip(inputs, results, strict=True)])
        except StoreError as exc:
            failed.append(str(exc))
            _log.warning("record store: %s; this job's records stay in its log only", exc)

    return callback
