"""What the task scheduler reports: each task's result, the run's summary, and the table
printed after every round (auto_scheduler's layout), so a user sees where time goes.

Apart from the scheduler (`tune.task_scheduler`) because it only reads its bookkeeping: the
services publish the summary as a job's task table, and the progress displays
(`tune.progress`) render the table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tunefarm.measure import Config
from tunefarm.task import Task
from tunefarm.tune.rounds import BUDGET_USED

BANNER_RULE = "-" * 70
BANNER = f"{BANNER_RULE}\n{'-' * 30}  [ Task Scheduler ]\n{BANNER_RULE}"
TABLE_HEAD = "|  ID  | Latency (ms) | Speed (GFLOPS) |  Trials  |"
TABLE_RULE = "-" * 49


@dataclass
class TaskReport:
    """One task's result: what it is, how much it weighs, what was found and why it stopped."""

    index: int
    task: Task
    weight: float
    best_latency_s: float  # inf: no valid measurement
    gflops: float
    trials: int
    stop_reason: str = ""
    diagnosis: str = ""
    best_config: Config | None = None

    def to_json(self) -> dict[str, Any]:
        ok = math.isfinite(self.best_latency_s)
        return {
            "id": self.index,
            "workload_key": self.task.workload_key,
            "task": self.task.to_json(),
            "weight": self.weight,
            "best_latency_s": self.best_latency_s if ok else None,
            "gflops": self.gflops,
            "trials": self.trials,
            "stop_reason": self.stop_reason,
            "diagnosis": self.diagnosis,
            "best_config": self.best_config.to_json() if self.best_config else None,
        }


@dataclass
class SchedulerSummary:
    """What a `TaskScheduler.tune` call left behind, over all tasks."""

    tasks: list[TaskReport]
    estimated_total_latency_s: float  # sum of weight * best latency; inf while a task has none
    trials: int  # all trials spent, those loaded from a log included
    seconds: float
    strategy: str
    reuse: dict[str, Any] | None = None  # what the record store gave (recipe.reuse)

    def to_json(self) -> dict[str, Any]:
        total = self.estimated_total_latency_s
        return {
            "strategy": self.strategy,
            "estimated_total_latency_s": total if math.isfinite(total) else None,
            "trials": self.trials,
            "seconds": self.seconds,
            "tasks": [t.to_json() for t in self.tasks],
            **({"reuse": self.reuse} if self.reuse is not None else {}),
        }


def estimated_total_latency(groups: Sequence[int], states: Sequence[Any]) -> float:
    """sum_i weight_i * latency_i in seconds over the groups of alternatives, each with its
    fastest member; inf while a group has no valid result. latency_i is what the network
    compiled from the records runs: the tuner's best, or a faster record outside its space
    (`TaskScheduler.note_outside`)."""
    best: dict[int, float] = {}
    for g, s in zip(groups, states, strict=True):
        best[g] = min(best.get(g, math.inf), s.weight * s.latency)
    return sum(best.values())


def render_table(
    states: Sequence[Any], total: float, trials: int, next_id: int | None, seconds: float
) -> str:
    """The scheduler table (auto_scheduler's layout) and its summary line."""
    lines = [BANNER, TABLE_HEAD, TABLE_RULE]
    for i, s in enumerate(states):
        ok = math.isfinite(s.best)
        latency = f"{s.best * 1e3:.3f}" if ok else "-"
        speed = f"{s.tuner.best_gflops:.2f}" if ok else "-"
        lines.append(f"| {i:4d} | {latency:>12} | {speed:>14} | {s.trials:8d} |")
    lines.append(TABLE_RULE)
    total_text = f"{total * 1e3:.3f}" if math.isfinite(total) else "-"
    nxt = "-" if next_id is None else str(next_id)
    lines.append(
        f"Estimated total latency: {total_text} ms\tTrials: {trials}\t"
        f"Used time : {seconds:.0f} s\tNext ID: {nxt}"
    )
    return "\n".join(lines)


def task_report(i: int, s: Any) -> TaskReport:
    """Task i's row of the summary, from the scheduler's bookkeeping `s` for it."""
    t = s.tuner
    best_config = None
    if t.best_index is not None and math.isfinite(s.best):
        best_config = Config.make(t.space.get(t.best_index), index=t.best_index)
    why_idle = BUDGET_USED if s.trials else "no trial: the budget ran out before its turn"
    return TaskReport(
        *(i, t.task, s.weight, s.best, t.best_gflops, s.trials),
        *(s.stop_reason or why_idle, s.diagnosis, best_config),
    )
