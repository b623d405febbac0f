"""The gradient strategy's estimate of what a trial on one task is worth: the decrease of the
network's weighted latency sum it is expected to bring (the formula is in
`tune.task_scheduler`'s docstring, which decides when it is used).

Plain functions of the scheduler's per-task bookkeeping (`best`, `trials`, `curve`, `weight`
and the tuner's `flops` and task), apart from the scheduler's choosing and booking of rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def gradient_score(
    states: Sequence[Any],
    groups: Sequence[int],
    i: int,
    trials_per_round: int,
    alpha: float,
    beta: float,
    backward_window: int,
) -> float:
    """Estimated decrease of the weighted latency sum (seconds) per trial spent on task i."""
    s = states[i]
    if not math.isfinite(s.best) or s.trials == 0:
        return 0.0
    forward = s.best / s.trials
    bound = similar_bound(states, i, beta)
    if bound < s.best:
        forward = max(forward, (s.best - bound) / trials_per_round)
    backward = backward_rate(s.curve, backward_window)
    gain = alpha * backward + (1.0 - alpha) * forward
    # Alternatives of one node count once in the objective (their fastest member): a
    # slower member's gains lower it only past the gap to the group's best.
    gap = s.best - group_best(states, groups, i)
    if gap > 0:
        gain = max(0.0, gain - gap / trials_per_round)
    return s.weight * gain


def group_best(states: Sequence[Any], groups: Sequence[int], i: int) -> float:
    """The best latency among task i's alternatives (its group), its own included."""
    g = groups[i]
    return min(s.best for j, s in enumerate(states) if groups[j] == g)


def backward_rate(curve: Sequence[tuple[int, float]], window: int) -> float:
    """How fast the best latency fell per trial over the last `window` rounds of `curve`
    ((trials, best) after each round)."""
    if len(curve) < 2:
        return 0.0
    then_trials, then_best = curve[max(0, len(curve) - 1 - window)]
    now_trials, now_best = curve[-1]
    if now_trials <= then_trials:
        return 0.0
    return max(0.0, then_best - now_best) / (now_trials - then_trials)


def similar_bound(states: Sequence[Any], i: int, beta: float) -> float:
    """beta x the latency task i would have at the best speed (FLOP/s) another task of the
    same op reached: a speed we know this kind of kernel can get to. No bound (inf) for
    kernels that only move data (a transpose counts 0 FLOPs, so FLOP/s say nothing)."""
    me = states[i]
    if me.tuner.flops <= 0:
        return math.inf
    rates = [
        s.tuner.flops / s.best
        for j, s in enumerate(states)
        if j != i
        and s.tuner.task.op == me.tuner.task.op
        and s.tuner.flops > 0
        and 0 < s.best < math.inf
    ]
    return beta * me.tuner.flops / max(rates) if rates else math.inf
