"""Share one trial budget among the tasks of a network (like auto_scheduler's TaskScheduler).

The goal is the end-to-end latency, estimated as sum_i weight_i * latency_i, where latency_i
is the best time found so far for task i and weight_i how often it occurs in the network.
Tasks given the same `groups` id are alternatives for the same nodes (e.g. a direct and a
Winograd conv): the group counts once, with its fastest member.
Time goes out in rounds of `trials_per_round` trials to one task at a time:

- "round-robin": the task with the fewest trials next, so every task gets the same share;
- "gradient": after `warmup_rounds` rounds per task, the task whose next trial is expected to
  cut the objective most. For task i (weight w, best latency L, t trials) that estimate is
      w * (alpha * backward + (1 - alpha) * forward)
  backward: how fast L actually fell per trial over its last `backward_window` rounds;
  forward: an optimistic guess of how fast it can fall, L / t per trial (if another t trials
  gained as much again), or faster when another task of the same op already runs much faster
  per FLOP: reaching a `beta`-times-slower version of that speed in the next round would save
  (L - beta * flops_i / best_rate) in one round. A task with no valid result yet is tried once
  more before any other; a task whose tuner has stopped (space exhausted, early stopping,
  every candidate failing) is skipped.

After every round a table like auto_scheduler's is printed, so a user sees where time goes
(or a live display, or a line per round: see `tunefarm.tune.progress`); the table and the
summary are drawn by `tunefarm.tune.scheduler_report`.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from tunefarm.backends import registry
from tunefarm.measure import MeasureResult
from tunefarm.task import Task, TaskError
from tunefarm.tune.factory import TUNER_NAMES, make_tuner
from tunefarm.tune.gradient import gradient_score
from tunefarm.tune.progress import AutoTVMReporter, Reporter
from tunefarm.tune.records import history_for, load_records
from tunefarm.tune.rounds import BUDGET_USED, Round, run_rounds
from tunefarm.tune.scheduler_report import (
    SchedulerSummary,
    TaskReport,
    estimated_total_latency,
    render_table,
    task_report,
)
from tunefarm.tune.tuner import Callback, MeasureOption, Tuner, diagnose
from tunefarm.tune.warmup import cold_tasks, plan_rounds

__all__ = ["STRATEGIES", "SchedulerSummary", "TaskReport", "TaskScheduler"]

TunerFactory = Callable[[Task, int], Tuner]
STRATEGIES = ("gradient", "round-robin")
FAILED_ROUNDS = 2  # rounds without one valid result after which a task is given up


@dataclass
class _TaskState:
    """The scheduler's bookkeeping for one task (the tuner keeps its own)."""

    tuner: Tuner
    weight: float
    trials: int = 0  # measured here plus loaded from a log
    rounds: int = 0
    curve: list[tuple[int, float]] = field(default_factory=list)  # (trials, best) per round
    stop_reason: str = ""  # set once the task is out of the running
    diagnosis: str = ""
    retried: bool = False  # used its one extra round without a valid result
    outside: float = math.inf  # best of the records its tuner's space cannot hold

    @property
    def best(self) -> float:
        return self.tuner.best_cost

    @property
    def latency(self) -> float:
        """What a network compiled from the records runs: the best record, searched or not."""
        return min(self.tuner.best_cost, self.outside)


def _default_values(task: Task) -> dict[str, Any] | None:
    """The knob values of the task's template default config (None if it has none)."""
    try:
        return registry.default_config(task).as_dict()
    except (TaskError, ValueError):
        return None


def _positive_int(name: str, value: Any, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def _check_weights(weights: Sequence[float] | None, n: int) -> list[float]:
    if weights is None:
        return [1.0] * n
    weights = list(weights)
    if len(weights) != n:
        raise ValueError(f"got {len(weights)} weights for {n} tasks")
    for i, w in enumerate(weights):
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 < w < math.inf:
            raise ValueError(f"weight of task {i} must be a number > 0, got {w!r}")
    return [float(w) for w in weights]


def _factory(tuner_factory: TunerFactory | str) -> TunerFactory:
    if not isinstance(tuner_factory, str):
        return tuner_factory
    if tuner_factory not in TUNER_NAMES:
        raise ValueError(f"unknown tuner {tuner_factory!r}; known tuners: {', '.join(TUNER_NAMES)}")
    return lambda task, seed: make_tuner(tuner_factory, task, seed)


class TaskScheduler:
    """Tunes several tasks under one trial budget; see the module docstring for the policy.

    tuner_factory: a tuner name (see `TUNER_NAMES`) or `f(task, seed) -> Tuner`; task i gets
    seed `seed + i`. early_stopping_per_task: stop a task after that many trials without
    improvement. stream: where the table and progress go (default: stdout at print time).
    reporter: what is shown while tuning (`tunefarm.tune.progress`; default: the AutoTVM lines
    and the table after every round, on `stream`).
    """

    def __init__(
        self,
        tasks: Sequence[Task],
        weights: Sequence[float] | None = None,
        tuner_factory: TunerFactory | str = "xgb",
        strategy: str = "gradient",
        seed: int = 0,
        warmup_rounds: int = 1,
        backward_window: int = 3,
        alpha: float = 0.2,
        beta: float = 2.0,
        early_stopping_per_task: int | None = None,
        stream: TextIO | None = None,
        groups: Sequence[int] | None = None,
        reporter: Reporter | None = None,
    ) -> None:
        tasks = list(tasks)
        if not tasks:
            raise ValueError("the task scheduler needs at least one task")
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGIES)}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {alpha!r}")
        if not 0.0 < beta < math.inf:
            raise ValueError(f"beta must be a number > 0, got {beta!r}")
        self.warmup_rounds = _positive_int("warmup_rounds", warmup_rounds, 0)
        self.backward_window = _positive_int("backward_window", backward_window)
        if early_stopping_per_task is not None:
            _positive_int("early_stopping_per_task", early_stopping_per_task)
        self.early_stopping = early_stopping_per_task
        self.strategy, self.alpha, self.beta, self.stream = strategy, alpha, beta, stream
        self.reporter = reporter if reporter is not None else AutoTVMReporter(stream)
        make = _factory(tuner_factory)
        weights = _check_weights(weights, len(tasks))
        self.tasks = tasks
        self.states = [
            _TaskState(make(t, seed + i), w)
            for i, (t, w) in enumerate(zip(tasks, weights, strict=True))
        ]
        self.groups = list(groups) if groups is not None else list(range(len(tasks)))
        if len(self.groups) != len(tasks):
            raise ValueError(f"got {len(self.groups)} groups for {len(tasks)} tasks")
        self._warm_order = untuned_first(tasks, self.groups)
        self.trials = 0  # spent, loaded ones included
        self._last = -1  # the task tuned last (round robin continues after it)

    # -- resume --------------------------------------------------------------------------------
    def load_log(
        self, path: str, device_key: str | None = None, errors: list[str] | None = None
    ) -> int:
        """Replay a records file into the tuners: what it holds is never measured again, its
        best is each task's starting point, and its trials count as spent. Returns how many
        records were used; unreadable lines go to `errors` (see `records.load_records`)."""
        return self.load_records(load_records(path, errors), device_key)

    def load_records(
        self, records: Sequence[Any], device_key: str | None = None, budget: bool = True,
        only: Sequence[int] | None = None,
    ) -> int:  # fmt: skip
        """Replay records (of a log, or of the store) into the tuners of tasks `only` (all by
        default). With `budget`, they count as trials of this run (a resumed log); without,
        they count for each task's share (the scheduler spends less where the store already
        holds many trials) but not against the run's budget. Returns the records used."""
        used = 0
        for i, s in enumerate(self.states):
            if only is not None and i not in only:
                continue
            by_index: dict[int, MeasureResult] = {}
            for index, result in history_for(s.tuner.task, records, device_key, s.tuner.space):
                old = by_index.get(index)
                if old is None or (result.ok and (not old.ok or result.median < old.median)):
                    by_index[index] = result
            fresh = [(i, r) for i, r in by_index.items() if i not in s.tuner.visited]
            s.tuner.load_history(fresh)
            s.trials += len(fresh)
            self.trials += len(fresh) if budget else 0
            used += len(fresh)
            if fresh and math.isfinite(s.best):
                s.curve.append((s.trials, s.best))
        return used

    def note_outside(self, records: Sequence[Any], device_key: str | None = None) -> int:
        """Take note of each task's best ranked record among `records`, those its tuner's space
        cannot hold included: under the sketch policy the template default measured by
        `recipe.defaults` is not a sketch, yet the network compiled from the records runs it
        wherever no sketch beats it, and the first sketches (the bare compute definition) run
        10-100x slower. The estimated total latency counts it, and a tuner that would measure
        the same kernel first takes its result instead (`Tuner.load_default`); it is no
        trial. Returns the records noted."""
        used = 0
        for s in self.states:
            task = s.tuner.task
            default = _default_values(task)
            for r in records:
                if r.workload_key != task.workload_key or r.target != task.target:
                    continue
                if device_key is not None and r.device_key != device_key:
                    continue
                if r.ranked:
                    s.outside, used = min(s.outside, r.result.median), used + 1
                if r.ok and r.config.as_dict() == default:
                    s.tuner.load_default(r.result)
        return used

    def retire(self, i: int, reason: str) -> None:
        """Take task i out of the running (e.g. its best comes from the record store)."""
        self.states[i].stop_reason = reason

    def transfer_from(self, path: str, errors: list[str] | None = None) -> int:
        """Train the tuners' cost models on earlier records (other tasks, other jobs and
        networks) as well; tuners without a model ignore them. Returns the records used."""
        return self.transfer_records(load_records(path, errors))

    def transfer_records(self, records: Sequence[Any]) -> int:
        """`transfer_from` for records already read (the record store's fleet set)."""
        used = 0
        seen: set[int] = set()
        for s in self.states:
            transfer = getattr(s.tuner, "transfer_from", None)
            shared = id(getattr(s.tuner, "shared", s.tuner))
            if transfer is not None and shared not in seen:
                seen.add(shared)
                used = max(used, transfer(records))
        return used

    # -- choosing the next task ---------------------------------------------------------------
    def _alive(self) -> list[int]:
        return [i for i, s in enumerate(self.states) if not s.stop_reason]

    def _choose(self, trials_per_round: int) -> int | None:
        """The next task to tune, or None when every task has stopped."""
        alive = self._alive()
        if not alive:
            return None
        cold = self._cold(trials_per_round)
        if cold:
            return cold[0]
        if self.strategy == "round-robin":
            n = len(self.states)
            return min(alive, key=lambda i: (self.states[i].trials, (i - self._last - 1) % n))
        for i in alive:
            s = self.states[i]
            if not math.isfinite(s.best) and not s.retried:
                s.retried = True
                return i
        scores = {i: self.score(i, trials_per_round) for i in alive}
        return max(alive, key=lambda i: (scores[i], -i))

    def score(self, i: int, trials_per_round: int = 64) -> float:
        """Estimated decrease of the weighted latency sum (seconds) per trial spent on task i
        (`tune.gradient`)."""
        return gradient_score(
            self.states, self.groups, i, trials_per_round,
            self.alpha, self.beta, self.backward_window,
        )  # fmt: skip

    # -- tuning --------------------------------------------------------------------------------
    def tune(
        self,
        total_trials: int,
        measure_option: MeasureOption,
        trials_per_round: int = 64,
        batch_size: int = 16,
        callbacks: Sequence[Callback] = (),
        log_file: str | None = None,
        device_key: str = "local",
        on_round: Callable[[SchedulerSummary], Any] | None = None,
    ) -> SchedulerSummary:
        """Tune until `total_trials` trials are spent (loaded ones count) or every task has
        stopped. Callable again with a larger budget to continue. `on_round` gets the summary
        after each round (the services publish it as the job's task table)."""
        _positive_int("total_trials", total_trials)
        _positive_int("trials_per_round", trials_per_round)
        _positive_int("batch_size", batch_size)
        start = time.perf_counter()
        callbacks = list(callbacks)
        if log_file is not None:
            from tunefarm.tune.records import log_to_file

            callbacks.insert(0, log_to_file(log_file, device_key))  # first: nothing is lost
        current = self._choose(trials_per_round) if self.trials < total_trials else None
        self.reporter.start(self, total_trials)

        def ended(next_id: int | None) -> None:  # after each round: the table, the callback
            self.reporter.round_end(self, next_id, time.perf_counter() - start)
            if on_round is not None:
                on_round(self.summary(time.perf_counter() - start))

        def more(rounds: Sequence[Round]) -> Round | None:
            return self._next_round(rounds, trials_per_round, total_trials)

        if current is None and on_round is not None:  # nothing to tune (a spent log, every
            on_round(self.summary(0.0))  # task from the record store): still publish the table
        try:
            while current is not None:
                cold, left = self._cold(trials_per_round), total_trials - self.trials
                plan = plan_rounds(current, cold, left, trials_per_round)
                unit = max(batch_size, int(getattr(measure_option.builder, "n_parallel", 1)))
                rounds = [Round(i, n, self.states[i].tuner) for i, n in plan]
                run_rounds(
                    rounds, measure_option, batch_size, unit, callbacks, self.early_stopping,
                    lambda r: ended(self._book_round(r, trials_per_round, total_trials)), more,
                )  # fmt: skip
                done = self.trials >= total_trials
                current = None if done else self._choose(trials_per_round)
        finally:
            self.reporter.close()  # a live display gives the terminal back, even on Ctrl-C
        self.reporter.end(self, time.perf_counter() - start)  # a resumed, spent log: says why
        return self.summary(time.perf_counter() - start)

    def _cold(self, trials_per_round: int) -> list[int]:
        """Tasks still waiting for their warm-up round(s) (`tune.warmup`), each group's
        untuned alternative first (`untuned_first`)."""
        alive = set(self._alive())
        order = [i for i in self._warm_order if i in alive]
        return cold_tasks(self.states, order, self.warmup_rounds, trials_per_round)

    def _next_round(
        self, rounds: Sequence[Round], trials_per_round: int, total_trials: int
    ) -> Round | None:
        """The round to start while `rounds` finish measuring (`run_rounds`' `more`): the
        task `_choose` picks from every result booked so far, the open rounds' trials
        counted as spent (without a gain yet), sized from the budget they leave. None (the
        caller chooses again once they are booked) when that is a task of an open round or
        one waiting for its warm-up."""
        open_ = [r for r in rounds if not r.done]
        promised = {r.task: max(0, r.want - r.summary.trials) for r in open_}
        left = total_trials - self.trials - sum(promised.values())
        if left <= 0:
            return None
        retried, last = [s.retried for s in self.states], self._last
        for k, n in promised.items():
            self.states[k].trials += n
        self._last = open_[-1].task if open_ else last
        try:
            i = self._choose(trials_per_round)
            cold = self._cold(trials_per_round)
        finally:
            for k, n in promised.items():
                self.states[k].trials -= n
            self._last = last
        if i is None or i in promised or i in cold:
            for s, flag in zip(self.states, retried, strict=True):
                s.retried = flag  # not taken: its retry is still to come
            return None
        return Round(i, min(trials_per_round, left), self.states[i].tuner)

    def _peek(self, trials_per_round: int, total_trials: int) -> int | None:
        """The task `_choose` would pick next (for the table), changing nothing."""
        if self.trials >= total_trials:
            return None
        retried = [s.retried for s in self.states]
        try:
            return self._choose(trials_per_round)
        finally:
            for s, flag in zip(self.states, retried, strict=True):
                s.retried = flag

    def _book_round(self, r: Round, trials_per_round: int, total_trials: int) -> int | None:
        """A round has ended: report it, count its trials and decide whether its task stops.
        Returns the next task (for the table): another open round's, else the next choice."""
        s, summary = self.states[r.task], r.summary
        self.reporter.round_start(self, r.task, s.tuner.trials - summary.trials + r.want)
        if r.results:
            self.reporter.batch(self, r.task, r.results)
        self._last = r.task
        s.rounds += 1
        s.trials += summary.trials
        self.trials += summary.trials
        if math.isfinite(s.best):
            s.curve.append((s.trials, s.best))
        s.diagnosis = summary.diagnosis or s.diagnosis
        if summary.stop_reason != BUDGET_USED or summary.trials == 0:
            s.stop_reason = summary.stop_reason or "the tuner has no new candidates"
        elif not s.tuner.has_next():
            s.stop_reason = "space exhausted"
        elif not math.isfinite(s.best) and s.rounds >= FAILED_ROUNDS and r.results:
            s.stop_reason, s.diagnosis = "every candidate failed", diagnose(r.results)
        if r.next_task is not None:
            return r.next_task
        return self._peek(trials_per_round, total_trials)

    # -- reporting (tune.scheduler_report) ------------------------------------------------------
    def estimated_total_latency(self) -> float:
        """sum_i weight_i * best latency_i in seconds (see `scheduler_report`)."""
        return estimated_total_latency(self.groups, self.states)

    def table(self, next_id: int | None, seconds: float) -> str:
        """The scheduler table (auto_scheduler's layout) and its summary line."""
        total = self.estimated_total_latency()
        return render_table(self.states, total, self.trials, next_id, seconds)

    def print_table(self, next_id: int | None, seconds: float) -> None:
        out = self.stream if self.stream is not None else sys.stdout
        print(self.table(next_id, seconds), file=out, flush=True)

    def summary(self, seconds: float) -> SchedulerSummary:
        reports = [task_report(i, s) for i, s in enumerate(self.states)]
        total = self.estimated_total_latency()
        return SchedulerSummary(reports, total, self.trials, seconds, self.strategy)


def untuned_first(tasks: Sequence[Task], groups: Sequence[int]) -> list[int]:
    """Task indices in order, but each group's untuned alternative (`registry.untuned_
    variant`) before its siblings: the compiler keeps a group's untuned alternative until it
    has a record (`graph.extract.choose_alternative`), so a warm-up round that reached the
    siblings first would improve nothing in the network. resnet-18's Winograd convs follow
    their direct twins in task order; the network is tuned only once they are measured."""
    members: dict[int, list[int]] = {}
    for i, g in enumerate(groups):
        members.setdefault(g, []).append(i)
    order: list[int] = []
    for i, g in enumerate(groups):
        if i != members[g][0]:
            continue
        group = members[g]
        first = registry.untuned_variant([tasks[k] for k in group]) if len(group) > 1 else None
        order += sorted(group, key=lambda k: tasks[k] != first)
    return order
