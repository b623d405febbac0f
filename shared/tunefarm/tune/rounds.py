"""Several tasks' rounds measured as one stream, so a network tune keeps the builders busy.

A round of the task scheduler is `want` trials of one task. Run one after another, a
network's warm-up rounds leave the build pool idle: at a small budget each is one or two
trials (64 trials over 26 tasks), so a pool of 16 workers builds one or two candidates, the
measurer then times them, and the next task's proposal waits for both. `run_rounds` takes
several rounds at once (the scheduler gives it the warm-up round of every task not tuned
yet) and measures them as a stream of *units*: a unit is a batch from each of several
rounds, about `unit` candidates in all, handed to `MeasureOption.measure` at once, so the
pool builds them together and a device's measurer times each as its build ends.

Where `tuner.proposes_ahead` (a device's persistent measurer, the services' runner of a
device's agents; as for `tuner._Ahead`), the next unit is proposed in a thread while this
one is built and measured; with the local pool its builds are queued behind this unit's
(`tune.build_ahead`), so they start as soon as this unit's builds end, while its last
kernels are timed and booked; in the services they are sent to the build farm as soon as
the unit is proposed, so the farm builds it while the agents measure this one. Host
kernels get the proposal while the unit builds (`MeasureOption.builds_then_runs`: all
builds end before the first timing), joined before any kernel is timed, so the search's
CPU never runs beside a timed kernel; a host whose builds overlap its timings in idle
priority keeps propose, measure, learn in turn, as does TUNEFARM_OVERLAP_BATCHES=0
everywhere.

What stays as it was: each round's batches come from its own tuner, at most `batch_size`
at a time; a unit takes the rounds with nothing in flight first (their tuners have seen all
their results), and proposes ahead for a round whose batch is in flight only once that
tuner has results, counting the batch in flight as visited (`Tuner.propose_after`). Every
batch is booked (`Tuner.book`: recheck, observe, learn, records log, callbacks) in the
calling thread, in unit order, and never while a proposal runs (the sketch tuners of a job
share one cost model). The records log is written after each unit, so a kill loses at most
the unit in flight and a resumed log measures nothing twice.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tunefarm.measure import MeasureInput, MeasureResult
from tunefarm.tune import build_ahead
from tunefarm.tune.tuner import (
    ENV_OVERLAP_BATCHES,
    Callback,
    MeasureOption,
    Tuner,
    TuneSummary,
    proposes_ahead,
)

BUDGET_USED = "trial budget used"
More = Callable[[Sequence["Round"]], "Round | None"]  # the next round to start, or None


@dataclass
class Round:
    """One task's share of a stream of rounds: what it asked for and what it has got."""

    task: int  # the scheduler's task index
    want: int  # trials asked for
    tuner: Tuner
    summary: TuneSummary = field(default_factory=TuneSummary)
    results: list[MeasureResult] = field(default_factory=list)  # booked, in order
    flying: list[int] = field(default_factory=list)  # proposed, not booked yet
    batches: int = 0
    done: bool = False
    empty: bool = False  # its tuner proposed nothing with nothing in flight: it ends
    next_task: int | None = None  # once done: the task of a round still open then, if any

    @property
    def left(self) -> int:
        """Trials still to propose (the ones in flight count as proposed)."""
        return self.want - self.summary.trials - len(self.flying)


@dataclass
class _Part:
    """One round's batch within a unit."""

    round: Round
    indices: list[int]
    inputs: list[MeasureInput]
    builds: list[Any] | None = None  # queued with `build_ahead` (one handle each)


def _propose_unit(
    rounds: list[Round],
    unit: int,
    batch_size: int,
    skip: Sequence[Round] = (),
    more: More | None = None,
) -> list[_Part]:
    """The next unit: a batch from each open round but `skip`, those with nothing in flight
    first, until about `unit` candidates; when every open round is wholly proposed and the
    unit has room, a batch of the round `more` starts (appended to `rounds`). A round's batch
    is never cut to fit the unit (the search's batch size stays `batch_size`)."""
    parts: list[_Part] = []
    size = 0
    open_ = [
        r
        for r in rounds
        if not r.done and not r.empty and r.left > 0 and all(r is not k for k in skip)
    ]
    if not open_ and size < unit and more is not None:
        if all(r.done or r.empty or r.left <= 0 for r in rounds):
            new = more(rounds)
            if new is not None:
                rounds.append(new)
                open_ = [new]
    for r in sorted(open_, key=lambda r: bool(r.flying)):
        if size >= unit:
            break
        if r.flying and not r.tuner.history:  # as `_Ahead`: not before the tuner has results
            continue
        want = min(batch_size, r.left)
        if r.flying:
            indices = r.tuner.propose_after(r.flying, want)[:want]
        else:
            indices = r.tuner.propose(want)[:want]
        if indices:
            parts.append(_Part(r, indices, r.tuner.inputs_for(indices)))
            r.flying += indices
            size += len(indices)
        elif not r.flying:
            r.empty = True
    return parts


def _propose_and_build(
    rounds: list[Round],
    unit: int,
    batch_size: int,
    more: More | None,
    builds: build_ahead.Ahead | None,
) -> list[_Part]:
    """The next unit (`_propose_unit`), its builds queued behind this unit's when `builds`."""
    parts = _propose_unit(rounds, unit, batch_size, more=more)
    if builds is not None:
        builds.submit(parts)
    return parts


def _land(parts: list[_Part]) -> list[_Part]:
    """A unit proposed ahead, as it stands once the unit before it is booked: batches of
    rounds that stopped meanwhile are dropped (their candidates were never measured)."""
    kept = []
    for p in parts:
        if p.round.done:
            p.round.flying = [i for i in p.round.flying if i not in p.indices]
            continue
        kept.append(p)
    return kept


def _book(
    rounds: Sequence[Round],
    parts: list[_Part],
    measured: list[MeasureResult],
    option: MeasureOption,
    callbacks: Sequence[Callback],
    early_stopping: int | None,
    finish: Callable[[Round], None],
) -> None:
    """Book each part's results with its tuner; `finish` every round that is now done."""
    at = 0
    for p in parts:
        r, results = p.round, measured[at : at + len(p.indices)]
        at += len(p.indices)
        r.flying = [i for i in r.flying if i not in p.indices]
        if r.done:  # stopped by a part booked before (it cannot be: one part per round)
            continue
        r.results += r.tuner.book(option, p.indices, p.inputs, results, r.summary, callbacks)
        r.batches += 1
        stop = r.tuner.should_stop(r.summary, r.batches, r.results, early_stopping)
        if stop:
            r.summary.stop_reason, r.summary.diagnosis = stop
        elif r.summary.trials >= r.want:
            r.summary.stop_reason = BUDGET_USED
        elif not r.tuner.has_next():
            r.summary.stop_reason = "space exhausted"
        if r.summary.stop_reason:
            _close(r, rounds, finish)


def _close(r: Round, rounds: Sequence[Round], finish: Callable[[Round], None]) -> None:
    r.done = True
    r.next_task = next((q.task for q in rounds if not q.done), None)
    t = r.tuner
    r.summary.best_index, r.summary.best_cost, r.summary.best_gflops = (
        t.best_index,
        t.best_cost,
        t.best_gflops,
    )
    finish(r)


def _give_up(option: MeasureOption, parts: list[_Part]) -> None:
    """Where to cut a hopeless candidate's timing short (`Tuner._give_up`): at its tuner's
    threshold when the unit is one task's; off for a unit of several tasks (the runner
    takes one threshold, and each task's incumbent differs)."""
    tuners = list({id(p.round.tuner): p.round.tuner for p in parts}.values())
    if len(tuners) == 1:
        tuners[0]._give_up(option)
        return
    give_up = getattr(option.runner, "give_up_after", None)
    if give_up is not None:
        give_up(0.0)


def _close_idle(rounds: Sequence[Round], finish: Callable[[Round], None]) -> None:
    """End the rounds that have nothing in flight and nothing more to propose."""
    for r in rounds:
        if r.done or r.flying or (r.left > 0 and not r.empty):
            continue
        if r.summary.trials >= r.want:
            r.summary.stop_reason = BUDGET_USED
        elif not r.tuner.has_next():
            r.summary.stop_reason = "space exhausted"
        else:
            r.summary.stop_reason = "the tuner has no new candidates"
        _close(r, rounds, finish)


def run_rounds(
    rounds: Sequence[Round],
    option: MeasureOption,
    batch_size: int,
    unit: int,
    callbacks: Sequence[Callback] = (),
    early_stopping: int | None = None,
    finish: Callable[[Round], None] = lambda r: None,
    more: More | None = None,
) -> None:
    """Measure `rounds` as a stream of units of about `unit` candidates (see the module
    docstring); `finish(round)` is called as each round ends, in the order they end, with
    its summary (stop_reason as `Tuner.tune` would give it) and results. `more(rounds)`, asked
    once every round is wholly proposed, gives the next round to stream on (the task
    scheduler's next choice, made while the last batches are measured), or None."""
    ahead = proposes_ahead(option)
    off = os.environ.get(ENV_OVERLAP_BATCHES, "").strip() == "0"
    pool = None if off else ThreadPoolExecutor(1, thread_name_prefix="tunefarm-rounds")
    builds = build_ahead.make(option)
    rounds = list(rounds)
    try:
        ready = _propose_unit(rounds, unit, batch_size, more=more)
        while True:
            if not ready:  # nothing in flight, nothing more proposed: every round ends
                for r in rounds:
                    r.empty = True
            _close_idle(rounds, finish)
            if not ready:
                return
            inputs = [inp for p in ready for inp in p.inputs]
            beside_builds = pool is not None and not ahead and option.builds_then_runs(inputs)
            following: Future | None = None
            nxt: list[_Part] = []
            if builds is not None:  # this unit's builds queued before the next one's
                builds.submit(ready)
            if pool is not None and (ahead or beside_builds):
                args = (rounds, unit, batch_size, more, builds)
                following = pool.submit(_propose_and_build, *args)
            _give_up(option, ready)
            try:
                if beside_builds:  # host kernels: the proposal ends before any timing starts
                    built = option.builder.build(inputs)
                    nxt, following = following.result() if following else [], None
                    measured = option.runner.run(inputs, built)
                elif builds is not None:  # timed as built; the next unit builds meanwhile
                    measured = builds.measure(ready)
                else:
                    measured = option.measure(inputs)
            finally:
                # the tuners belong to the proposer until it is done (even on an error here)
                if following is not None:
                    nxt = following.result()
            _book(rounds, ready, measured, option, callbacks, early_stopping, finish)
            ready = _land(nxt)  # topped up with rounds it has no batch of
            room = unit - sum(len(p.indices) for p in ready)
            ready += _propose_unit(rounds, room, batch_size, [p.round for p in ready], more)
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
        if builds is not None:
            builds.close()
