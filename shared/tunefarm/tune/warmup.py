"""Warm-up planning: every task gets `warmup_rounds` rounds before a strategy compares them
(a task never measured has no figure to compare). While tasks wait for theirs, the budget
left is shared among them, so a small budget still measures every task, and their rounds are
measured together (`tune.rounds`), one unit of several tasks.

Plain functions of the scheduler's per-task bookkeeping (`rounds`, `trials`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def cold_tasks(
    states: Sequence[Any], alive: Sequence[int], warmup_rounds: int, trials_per_round: int
) -> list[int]:
    """The tasks of `alive` still waiting for their warm-up round(s), in order."""
    warm = warmup_rounds * trials_per_round
    return [j for j in alive if states[j].rounds < warmup_rounds and states[j].trials < warm]


def plan_rounds(
    i: int, cold: Sequence[int], left: int, trials_per_round: int
) -> list[tuple[int, int]]:
    """(task, trials) of the rounds to measure together, `left` trials of budget left: task
    i's, and while i waits for its warm-up round, the warm-up round of every task after it
    in `cold` (the scheduler would take them in this order), each its share of what is left."""
    if i not in cold:
        return [(i, min(trials_per_round, left))]
    plan = []
    for k, j in enumerate(cold[cold.index(i) :]):
        if left <= 0:
            break
        n = max(1, min(trials_per_round, left // (len(cold) - k)))
        plan.append((j, n))
        left -= n
    return plan
