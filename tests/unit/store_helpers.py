"""Records for the record-store tests, and the PostgreSQL server they use
($TUNEFARM_TEST_POSTGRES, default the local PostgreSQL on 5432)."""

from __future__ import annotations

import os
from dataclasses import replace

from tunefarm.backends import registry
from tunefarm.measure import (
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
    Recheck,
)
from tunefarm.task import Task
from tunefarm.tune.records import Record, make_record

SETTINGS = MeasureSettings(repeat=1, min_repeat_ms=1)
CONV = Task.make("conv2d", data=(1, 8, 8, 8), weight=(8, 8, 3, 3), padding=1)
NEAR = Task.make("conv2d", data=(1, 8, 8, 8), weight=(16, 8, 3, 3), padding=1)
FAR = Task.make("conv2d", data=(1, 64, 32, 32), weight=(64, 64, 3, 3), padding=1)
DENSE = Task.make("dense", data=(4, 32), weight=(16, 32))
SERVER = os.environ.get("TUNEFARM_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432")


def rec(index: int, cost: float | None, task: Task = CONV, device: str = "local") -> Record:
    """A record of config `index` of `task`: `cost` seconds, or a build error when None."""
    config = Config.make(registry.config_space(task).get(index), index=index)
    error = MeasureErrorNo.NO_ERROR if cost is not None else MeasureErrorNo.BUILD_ERROR
    costs = (cost, cost * 1.1, cost * 0.9) if cost is not None else ()
    result = MeasureResult(
        costs, error, "" if cost else "gcc: error", 0.25, 1.7e9 + index, SETTINGS
    )
    return make_record(MeasureInput(task, config), result, device)


def refuted(record: Record, against: int) -> Record:
    """`record` as a recheck against config `against` left it: refuted, its costs (those of
    the rounds it lost) still the lowest of its workload's."""
    cost = record.cost
    check = Recheck(against, (cost,) * 3, (cost * 0.9,) * 3, (cost,), False)
    return replace(record, result=replace(record.result, recheck=check))
