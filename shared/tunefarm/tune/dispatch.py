"""Which config to use for a task: the best tuning record, or the default config with the
reason there was no usable record (so compile steps can say why they fell back).

`ApplyHistoryBest` is a context manager; while active it is the innermost entry of a
per-thread dispatch stack that `current_history()` returns.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from tunefarm.backends import registry
from tunefarm.measure import Config
from tunefarm.task import Task
from tunefarm.tune.records import (
    PathLike,
    Record,
    as_records,
)
from tunefarm.tune.stale import StaleRecords, find_stale

_local = threading.local()


def _stack() -> list[ApplyHistoryBest]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current_history() -> ApplyHistoryBest | None:
    """The innermost active ApplyHistoryBest of this thread, or None outside any."""
    stack = _stack()
    return stack[-1] if stack else None


class ApplyHistoryBest:
    """Answer "which config for this task" from records (like autotvm.apply_history_best).

    `query` returns the fastest valid record's config that still fits the task's config
    space, with "record"; otherwise the template's default config and the reason, so that a
    user who expected a tuned kernel learns why they did not get one. Used as a context
    manager it becomes this thread's `current_history()` until the block ends.
    device_key: if given, only records measured on that device count.
    """

    def __init__(self, records: Iterable[Record] | PathLike, device_key: str | None = None) -> None:
        self.errors: list[str] = []  # skipped-line messages when loaded from a path
        self.device_key = device_key
        self._by_workload: dict[str, list[Record]] = {}
        for r in as_records(records, self.errors):
            self._by_workload.setdefault(r.workload_key, []).append(r)
        self._answers: dict[tuple[Task, str | None], tuple[Config, str]] = {}
        self._asked: set[str] = set()  # workload keys of the tasks asked about (`stale`)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_workload.values())

    def __enter__(self) -> ApplyHistoryBest:
        _stack().append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _stack().remove(self)

    def knows(self, task: Task) -> bool:
        """Whether any record (of any target or device, ok or not) names the task's workload."""
        self._asked.add(task.workload_key)
        return task.workload_key in self._by_workload

    def query(self, task: Task, device_key: str | None = None) -> tuple[Config, str]:
        """(config, "record") from the best usable record, else (default config, reason)."""
        device = device_key if device_key is not None else self.device_key
        self._asked.add(task.workload_key)
        key = (task, device)
        if key not in self._answers:
            self._answers[key] = self._answer(task, device)
        return self._answers[key]

    def _answer(self, task: Task, device: str | None) -> tuple[Config, str]:
        wkey, target = task.workload_key, task.target
        records = self._by_workload.get(wkey, [])
        if not records:
            return registry.default_config(task), f"no record for workload {wkey}"
        same = [r for r in records if r.target == target]
        if not same:
            have = ", ".join(sorted({r.target for r in records}))
            reason = f"records exist for workload {wkey} but not for target {target} (have: {have})"
            return registry.default_config(task), reason
        if device is not None:
            devices = sorted({r.device_key for r in same})
            same = [r for r in same if r.device_key == device]
            if not same:
                reason = f"records for {wkey}/{target} are for device key {', '.join(devices)}"
                return registry.default_config(task), f"{reason}, not {device}"
        ranked = self._rank(task, same)
        if ranked:
            return ranked[0][0], "record"
        if not any(r.ok for r in same):
            return registry.default_config(task), f"every record for {wkey} failed"
        reason = f"no valid record for {wkey}/{target} fits the current config space"
        return registry.default_config(task), reason

    def ranked(self, task: Task, device_key: str | None = None) -> list[tuple[Config, float]]:
        """Every distinct valid config measured for this task on its target (and device key),
        fastest first, with its cost: for callers that re-rank them (the network compiler's
        in-network selection)."""
        device = device_key if device_key is not None else self.device_key
        self._asked.add(task.workload_key)
        records = [
            r
            for r in self._by_workload.get(task.workload_key, [])
            if r.target == task.target and (device is None or r.device_key == device)
        ]
        return self._rank(task, records)

    def stale(self, workload_keys: Iterable[str] = ()) -> StaleRecords | None:
        """The records of workloads neither in `workload_keys` nor asked about so far
        (`knows`, `query`, `ranked`): after a network's compile, those that match none of
        its tasks."""
        records = (r for rs in self._by_workload.values() for r in rs)
        return find_stale(records, self._asked | set(workload_keys))

    @staticmethod
    def _rank(task: Task, records: list[Record]) -> list[tuple[Config, float]]:
        """Valid configs fastest first. A record whose recheck refuted it (`tune.recheck`: it
        lost the alternating rounds against the incumbent) is left out: its costs are those
        rounds', taken beside a faster incumbent whose own record holds its earlier, often
        noisier figure, so by cost alone it could outrank the config that beat it (bert-base's
        attention, one core: refuted 0.759 ms against the default's 0.787 ms record and 0.737
        ms in the same rounds; re-timed, 0.681 against 0.632 ms)."""
        space = registry.config_space(task)
        out: dict[int | str, tuple[Config, float]] = {}
        usable = (r for r in records if r.ranked)
        for r in sorted(usable, key=lambda r: r.cost):
            if registry.is_sketch(r.config):  # a step list: valid for any template space
                out.setdefault(repr(r.config.values), (Config.make(r.config.as_dict()), r.cost))
                continue
            try:
                values = space.validate(r.config.as_dict())
            except ValueError:
                continue  # the template's space changed since this was measured
            index = space.index_of(values)
            out.setdefault(index, (Config.make(values, index=index), r.cost))
        return list(out.values())
