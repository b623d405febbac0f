"""Re-time a would-be new best (or a near miss, `Tuner.recheck_margin`) against the
incumbent before the search believes it.

Why: on a shared host one lucky measurement (a quiet moment, a neighbour that paused) makes
an ordinary candidate look like a new best; the search then breeds from it and reports it.
Timing the two again back to back, in alternating order over a few rounds, puts the same
load on both; the candidate is believed only if its median over the rounds beats the
incumbent's. The figures of the rounds replace the candidate's costs (they are the fairer
ones), the batch's own figures stay in its `Recheck`, and the tuner takes the incumbent's
fresh median as the bar to beat from then on.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Protocol

from tunefarm.measure import Builder, MeasureInput, MeasureResult, Recheck, Runner

DEFAULT_ROUNDS = 3  # alternating rounds: candidate first in even rounds, incumbent first in odd


class HasBuilderAndRunner(Protocol):
    """A `MeasureOption` (kept structural so that this module does not import the tuner)."""

    builder: Builder
    runner: Runner


def recheck(
    option: HasBuilderAndRunner,
    incumbent: MeasureInput,
    incumbent_index: int,
    candidate: MeasureInput,
    first: MeasureResult,
    rounds: int = DEFAULT_ROUNDS,
) -> tuple[MeasureResult, float] | None:
    """(the candidate's result with its `Recheck`, the incumbent's median over the rounds), or
    None where either could not be built or measured again (the batch's figure then stands).

    Both are built again (a build cache hit for a local builder) and measured one at a time,
    alternating which goes first, `rounds` times."""
    builds = option.builder.build([incumbent, candidate])
    if not all(b.ok for b in builds):
        return None
    inc_costs: list[float] = []
    cand_costs: list[float] = []
    last = first
    for r in range(rounds):
        order = [(1, candidate), (0, incumbent)] if r % 2 == 0 else [(0, incumbent), (1, candidate)]
        for which, inp in order:
            (res,) = option.runner.run([inp], [builds[which]])
            if not res.ok:
                return None
            (cand_costs if which else inc_costs).append(res.median)
            if which:
                last = res
    inc_median = statistics.median(inc_costs)
    believed = statistics.median(cand_costs) < inc_median
    record = Recheck(incumbent_index, tuple(cand_costs), tuple(inc_costs), first.costs, believed)
    checked = replace(first, costs=tuple(cand_costs), settings=last.settings, recheck=record)
    return checked, inc_median
