"""The tuner loop: propose a batch (`next_batch`), measure it, learn from it (`update`).

A new tuner overrides `next_batch` (and `update` if it learns). The loop only talks to the
`Builder`/`Runner` interfaces in a `MeasureOption`, so it runs unchanged on the local
process pool or on Celery queues. It stops at the trial budget, when the space is exhausted,
on early stopping (no improvement for K trials), or when every candidate of the first
batches failed — then with a diagnosis (the most common error codes with one message each)
instead of a wall of zero-GFLOPS lines.
"""

from __future__ import annotations

import math
import queue
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tunefarm.backends import registry
from tunefarm.measure import (
    Builder,
    BuildResult,
    Config,
    MeasureErrorNo,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
    Recheck,
    Runner,
)
from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task
from tunefarm.tune.recheck import DEFAULT_ROUNDS, recheck

Callback = Callable[["Tuner", Sequence[MeasureInput], Sequence[MeasureResult]], None]
DIAGNOSE_AFTER = 2  # batches: when all of the first ones failed, stop and explain
ENV_OVERLAP_BATCHES = "TUNEFARM_OVERLAP_BATCHES"  # "0": no proposal ahead (`_Ahead`)


@dataclass(frozen=True)
class MeasureOption:
    """Where candidates are built and measured (like autotvm.measure_option)."""

    builder: Builder
    runner: Runner

    @staticmethod
    def local(
        settings: MeasureSettings | None = None,
        n_parallel: int | None = None,
        build_timeout_s: float = 30.0,
        kind: str = "cpu",
    ) -> MeasureOption:
        """Build in a local process pool, measure on this machine's device of `kind`."""
        return MeasureOption(
            registry.local_builder(n_parallel=n_parallel, timeout_s=build_timeout_s),
            registry.local_runner(settings or MeasureSettings(), kind),
        )

    def measure(self, inputs: Sequence[MeasureInput]) -> list[MeasureResult]:
        """Build and measure one batch. A runner that can start measuring a candidate as soon
        as its build is done (the Celery runner chains them) overrides `measure_batch`."""
        pipelined = getattr(self.runner, "measure_batch", None)
        if pipelined is not None:
            return pipelined(inputs, self.builder)
        if getattr(self.runner, "overlaps_builds", False) and len(inputs) > 1:
            chunk = max(1, int(getattr(self.builder, "n_parallel", 4)))
            return build_while_measuring(self.builder, self.runner, inputs, chunk)
        if len(inputs) > 1 and self._idle_overlap():
            return measure_as_built(self.builder, self.runner, inputs)
        return self.runner.run(inputs, self.builder.build(inputs))

    def builds_then_runs(self, inputs: Sequence[MeasureInput]) -> bool:
        """Whether `measure(inputs)` builds them all and only then measures them (host
        kernels on a busy host): the time of the builds is then free for the search's CPU
        (`tune.rounds` proposes the next unit meanwhile), none of a timing's."""
        if getattr(self.runner, "measure_batch", None) is not None:
            return False
        if getattr(self.runner, "overlaps_builds", False) and len(inputs) > 1:
            return False
        return not (len(inputs) > 1 and self._idle_overlap())

    def _idle_overlap(self) -> bool:
        """Whether host builds can go on under host measurement in idle priority."""
        overlaps = getattr(self.runner, "overlaps_idle_builds", None)
        if overlaps is None or not getattr(self.builder, "can_background", False):
            return False
        return bool(overlaps(int(getattr(self.builder, "n_parallel", 1)) + 2))

    def close(self) -> None:
        for part in (self.builder, self.runner):
            close = getattr(part, "close", None)
            if close is not None:
                close()


def _young_builds(builder: Builder, builds: Any) -> bool:
    """Wait, at normal priority, while a build in flight has used a quarter of its time
    limit (a wall-clock limit: a long compile must not also lose time to idle priority);
    whether builds are still in flight after that."""
    limit = getattr(builder, "timeout_s", 30.0) / 4
    while not builds.done() and builder.oldest_build_s() > limit:  # type: ignore[attr-defined]
        time.sleep(0.02)
    return not builds.done()


def build_while_measuring(
    builder: Builder, runner: Runner, inputs: Sequence[MeasureInput], chunk: int
) -> list[MeasureResult]:
    """Measure each candidate while the others build.

    For a device runner (a GPU's kernels are timed on the device, not on the cores the
    builds use). A builder that reports each build as it ends (`streams_results`: the
    local pool) gets the whole batch at once, so every worker stays busy, and each
    candidate is measured as soon as its build is done; any other builder is fed in chunks
    of `chunk` candidates, chunk i measured while chunk i+1 builds. Results come back in
    input order."""
    if getattr(builder, "streams_results", False):
        return measure_as_built(builder, runner, inputs, background=False)
    from concurrent.futures import ThreadPoolExecutor

    parts = [list(inputs[i : i + chunk]) for i in range(0, len(inputs), chunk)]
    results: list[MeasureResult] = []
    with ThreadPoolExecutor(1, thread_name_prefix="tunefarm-build") as pool:
        pending = pool.submit(builder.build, parts[0])
        for i, part in enumerate(parts):
            builds = pending.result()
            if i + 1 < len(parts):
                pending = pool.submit(builder.build, parts[i + 1])
            results += runner.run(part, builds)
    return results


def measure_as_built(
    builder: Builder,
    runner: Runner,
    inputs: Sequence[MeasureInput],
    background: bool = True,
) -> list[MeasureResult]:
    """Measure each host candidate as soon as its build ends, while the rest of the batch
    builds in idle priority (`LocalBuilder.background`): the builds use only the CPU time
    the measurement leaves free, and are back at the normal policy whenever no kernel is
    being timed. Every build starts at once, so the build pool balances long and short
    compiles as in a plain batch build. Results come back in input order.

    background=False: a device's candidates (`build_while_measuring`), timed on the device,
    while the builds keep their priority (on pocl they are most of a trial's work)."""
    from concurrent.futures import ThreadPoolExecutor

    done: queue.SimpleQueue[tuple[int, BuildResult]] = queue.SimpleQueue()
    results: dict[int, MeasureResult] = {}
    waiting = set(range(len(inputs)))
    with ThreadPoolExecutor(1, thread_name_prefix="tunefarm-build") as pool:
        builds = pool.submit(builder.build, inputs, lambda i, r: done.put((i, r)))
        while waiting:
            try:
                index, build = done.get(timeout=0.5)
            except queue.Empty:
                if builds.done() and done.empty():  # no more callbacks can come
                    final = builds.result()  # raises what the build thread raised
                    for i in sorted(waiting):  # builds that ended without a callback
                        done.put((i, final[i]))
                continue
            if index not in waiting:
                continue
            waiting.discard(index)
            more = background and not builds.done() and _young_builds(builder, builds)
            if more:
                builder.background(True)  # type: ignore[attr-defined]
            try:
                results[index] = runner.run([inputs[index]], [build])[0]
            finally:
                if more:
                    builder.background(False)  # type: ignore[attr-defined]
        builds.result()
    return [results[i] for i in range(len(inputs))]


@dataclass
class TuneSummary:
    """What one `tune` call did and found."""

    trials: int = 0
    best_index: int | None = None
    best_cost: float = math.inf  # seconds (median of repeats)
    best_gflops: float = 0.0
    errors: Counter = field(default_factory=Counter)  # error name -> count
    stop_reason: str = ""
    diagnosis: str = ""
    seconds: float = 0.0


def diagnose(results: Iterable[MeasureResult]) -> str:
    """The most common error codes among failed results, with one full message each."""
    by_code: dict[int, list[str]] = {}
    for r in results:
        if not r.ok:
            by_code.setdefault(int(r.error_no), []).append(r.error_msg)
    if not by_code:
        return ""
    ranked = sorted(by_code.items(), key=lambda kv: -len(kv[1]))
    total = sum(len(v) for v in by_code.values())
    lines = [f"all {total} candidates failed:"]
    for code, msgs in ranked[:3]:
        lines.append(f"  {MeasureErrorNo(code).name} x {len(msgs)}, e.g.: {msgs[0][:1500]}")
    return "\n".join(lines)


class Tuner:
    """Base tuner: bookkeeping and the loop. Subclasses implement `next_batch`."""

    name = "base"
    default_first = True  # measure the template's default config in the first batch
    # alternating rounds in which a would-be new best is re-timed against the incumbent
    # before it is believed (tune.recheck); 0 believes the batch's figure as it stands
    recheck_rounds = DEFAULT_ROUNDS
    max_rechecks = 3  # per batch: the next-best candidates get one if the best is refuted
    # a candidate whose batch figure is within this fraction above the bar is rechecked too
    # (`_recheck`): the recheck otherwise guards only against lucky figures, not unlucky ones
    recheck_margin = 0.1
    # a host candidate whose checked run is this many times slower than the incumbent is
    # timed by that run alone (`LocalRunner.give_up_after`); 0 times every candidate fully
    give_up_factor = 3.0

    def __init__(self, task: Task, space: ConfigSpace | None = None, seed: int = 0):
        self.task = task
        self.space = space if space is not None else registry.config_space(task)
        self.flops = registry.flops(task)
        self.rng = np.random.default_rng(seed)
        self.visited: set[int] = set()
        self.trials = 0
        self.best_index: int | None = None
        self.best_cost = math.inf
        self.best_trial = 0
        self.history: list[tuple[int, float]] = []  # (config index, cost or inf)
        self.seeds: list[int] = []  # configs to measure first (a warm start's population)
        self.rechecks: list[Recheck] = []  # every recheck of a would-be best, in order
        self.default_index = self._default_index(space is None)

    def _default_index(self, registry_space: bool) -> int | None:
        """The template's default config, measured first so a tuned kernel is never slower
        than the untuned one (a few random trials often are)."""
        if not (registry_space and self.default_first):
            return None
        try:
            return registry.default_config(self.task).index
        except ValueError:
            return None

    # -- to override ---------------------------------------------------------------------------
    def next_batch(self, batch_size: int) -> list[int]:
        """Up to `batch_size` config indices never proposed before."""
        raise NotImplementedError

    def update(self, indices: Sequence[int], results: Sequence[MeasureResult]) -> None:
        """Learn from measured candidates (model-free tuners ignore this)."""

    # -- shared --------------------------------------------------------------------------------
    def has_next(self) -> bool:
        return len(self.visited) < self.space.size

    def gflops(self, cost: float) -> float:
        return self.flops / cost / 1e9 if math.isfinite(cost) and cost > 0 else 0.0

    @property
    def best_gflops(self) -> float:
        return self.gflops(self.best_cost)

    def observe(self, index: int, result: MeasureResult) -> None:
        """Book one measured candidate (also used to replay history)."""
        self.visited.add(index)
        cost = result.median if result.ok else math.inf
        self.history.append((index, cost))
        if cost < self.best_cost and not result.refuted:
            self.best_cost, self.best_index, self.best_trial = cost, index, self.trials

    def load_history(self, pairs: Iterable[tuple[int, MeasureResult]]) -> None:
        """Warm the tuner with earlier (config index, result) pairs of this task: they are
        never proposed again and the best one counts as the best so far."""
        pairs = list(pairs)
        for index, result in pairs:
            self.observe(index, result)
        if pairs:
            self.update([i for i, _ in pairs], [r for _, r in pairs])

    def load_default(self, result: MeasureResult) -> bool:
        """Book the template default config measured outside this tuner (`recipe.defaults`,
        under the sketch policy) as measured by it; returns whether it was taken. A template
        tuner takes nothing here: its default is in its own space, and a resumed log's
        record of it is loaded with the others (`TaskScheduler.load_log`)."""
        return False

    def seed(self, configs: Iterable[Config]) -> int:
        """Measure these configs (e.g. the best of similar workloads) before the tuner's own
        proposals; configs outside this task's space are skipped. Returns how many fit."""
        added = 0
        for config in configs:
            try:
                index = self.space.index_of(config.as_dict())
            except ValueError:
                continue
            if index not in self.visited and index not in self.seeds:
                self.seeds.append(index)
                added += 1
        return added

    def propose(self, want: int) -> list[int]:
        """The next batch: the default config first while it is unmeasured, then seeded
        configs, then the subclass's proposals; never a visited config."""
        first = [self.default_index] if self.default_index is not None else []
        while self.seeds and len(first) < want:
            first.append(self.seeds.pop(0))
        first = [i for i in dict.fromkeys(first) if i not in self.visited]
        rest = self.next_batch(want - len(first)) if want > len(first) else []
        return [i for i in dict.fromkeys([*first, *rest]) if i not in self.visited]

    def inputs_for(self, indices: Sequence[int]) -> list[MeasureInput]:
        return [MeasureInput(self.task, Config.make(self.space.get(i), index=i)) for i in indices]

    def _recheck(
        self,
        option: MeasureOption,
        indices: Sequence[int],
        inputs: Sequence[MeasureInput],
        results: Sequence[MeasureResult],
    ) -> list[MeasureResult]:
        """The batch's results, where a would-be new best has been re-timed against the
        incumbent (`tune.recheck`) and carries the verdict; the bar to beat (`best_cost`)
        becomes the incumbent's fresh figure. Up to `max_rechecks` per batch, best first.
        With no incumbent yet (the first batch), the batch's runner-up stands in for it: a
        lucky first figure would otherwise stand until something beat it.

        A near miss (within `recheck_margin` above the bar) gets a recheck as well, after the
        candidates that beat the bar: a good state timed while a neighbour thrashed the
        caches reads a few percent slow and would never be timed again. On conv_7_512_512
        (one core by CPU time, load 17-29) states that run 123 GFLOP/s read 110 in their
        batch against an incumbent that read, and ran, 111; the search kept the 111."""
        results = list(results)
        if not self.recheck_rounds:
            return results
        # the rechecks' bar is the incumbent's, as at the batch's start: the batch's own
        # best would cut the incumbent's timing short against the would-be best
        self._give_up(option, within_batch=False)
        done: set[int] = set()
        if self.best_index is not None:
            inc_index, bar = self.best_index, self.best_cost
            inc_input = self.inputs_for([inc_index])[0]
        else:
            ranked = sorted(
                (k for k, r in enumerate(results) if r.ok), key=lambda j: results[j].median
            )
            if len(ranked) < 2:
                return results
            ref = ranked[1]
            inc_index, inc_input, bar = indices[ref], inputs[ref], results[ref].median
            done.add(ref)
        for _ in range(self.max_rechecks):
            reach = bar * (1 + self.recheck_margin)
            beating = [
                k for k, r in enumerate(results) if r.ok and k not in done and r.median < reach
            ]
            if not beating:
                break
            k = min(beating, key=lambda j: results[j].median)
            done.add(k)
            checked = recheck(
                option, inc_input, inc_index, inputs[k], results[k], self.recheck_rounds
            )
            if checked is None:  # could not time both again: the batch's figure stands
                break
            results[k], inc_cost = checked
            if results[k].recheck is not None:
                self.rechecks.append(results[k].recheck)
            if inc_index == self.best_index:
                self.best_cost = inc_cost  # the incumbent's fresher figure
            if results[k].recheck is not None and results[k].recheck.believed:
                inc_index, inc_input, bar = indices[k], inputs[k], results[k].median
            else:
                bar = inc_cost
        return results

    def tune(
        self,
        n_trial: int,
        measure_option: MeasureOption,
        early_stopping: int | None = None,
        callbacks: Sequence[Callback] = (),
        batch_size: int = 16,
    ) -> TuneSummary:
        """Measure up to `n_trial` new candidates; see the module docstring for stops."""
        from tunefarm.tune import build_ahead  # it builds on this module's MeasureOption

        builds = build_ahead.make(measure_option)
        ahead = _Ahead(self, measure_option, builds)
        try:
            return self._tune(n_trial, measure_option, early_stopping, callbacks, batch_size, ahead)
        finally:
            ahead.close()
            if builds is not None:
                builds.close()
            give_up = getattr(measure_option.runner, "give_up_after", None)
            if give_up is not None:  # the option may measure another task next
                give_up(0.0)

    def _tune(
        self,
        n_trial: int,
        measure_option: MeasureOption,
        early_stopping: int | None,
        callbacks: Sequence[Callback],
        batch_size: int,
        ahead: _Ahead,
    ) -> TuneSummary:
        summary, start, batches = TuneSummary(), time.perf_counter(), 0
        all_results: list[MeasureResult] = []
        while summary.trials < n_trial and self.has_next():
            want = min(batch_size, n_trial - summary.trials)
            batch = ahead.take(want) or ahead.batch(self.propose(want)[:want])
            indices, inputs = batch.indices, batch.inputs
            if not indices:
                summary.stop_reason = "the tuner has no new candidates"
                break
            left = n_trial - summary.trials - len(indices)
            if self.history and left > 0:  # once the model has data: the next proposal
                ahead.start(indices, min(batch_size, left))  # overlaps this one's builds
            self._give_up(measure_option)
            measured = ahead.measure(batch)
            ahead.wait()  # the tuner's state is the proposer's until it is done
            all_results += self.book(measure_option, indices, inputs, measured, summary, callbacks)
            batches += 1
            stop = self.should_stop(summary, batches, all_results, early_stopping)
            if stop:
                summary.stop_reason, summary.diagnosis = stop
                break
        else:
            summary.stop_reason = summary.stop_reason or (
                "trial budget used" if summary.trials >= n_trial else "space exhausted"
            )
        summary.best_index, summary.best_cost = self.best_index, self.best_cost
        summary.best_gflops, summary.seconds = self.best_gflops, time.perf_counter() - start
        return summary

    def book(
        self,
        option: MeasureOption,
        indices: Sequence[int],
        inputs: Sequence[MeasureInput],
        measured: Sequence[MeasureResult],
        summary: TuneSummary,
        callbacks: Sequence[Callback] = (),
    ) -> list[MeasureResult]:
        """Take in one measured batch: recheck a would-be best, count and observe each
        result, learn from them, then the callbacks (the records log first). The batch's
        results, rechecked. Also what the task scheduler's rounds (`tune.rounds`) call."""
        results = self._recheck(option, indices, inputs, measured)
        for i, r in zip(indices, results, strict=True):
            self.trials += 1
            summary.trials += 1
            self.observe(i, r)
            if not r.ok:
                summary.errors[MeasureErrorNo(r.error_no).name] += 1
        self.update(indices, results)
        for cb in callbacks:
            cb(self, inputs, results)
        return results

    def should_stop(
        self,
        summary: TuneSummary,
        batches: int,
        results: Sequence[MeasureResult],
        early_stopping: int | None,
    ) -> tuple[str, str] | None:
        """(reason, diagnosis) to stop after `batches` batches with these `results`: every
        candidate of the first ones failed, or no improvement in `early_stopping` trials."""
        if (
            batches >= DIAGNOSE_AFTER
            and not any(r.ok for r in results)
            and not math.isfinite(self.best_cost)
        ):
            return "every candidate failed", diagnose(results)
        if early_stopping and self.trials - self.best_trial >= early_stopping:
            return f"no improvement in {early_stopping} trials", ""
        return None

    def _give_up(self, option: MeasureOption, within_batch: bool = True) -> None:
        """Tell a runner that can cut hopeless candidates short (`give_up_after`) where
        hopeless starts: `give_up_factor` times the incumbent's cost (off until there is
        one) and, `within_batch`, times the best of the batch measured so far. Such a
        kernel cannot become the best, and one checked run ranks it well enough for a cost
        model; the repeats go to the candidates near the incumbent."""
        give_up = getattr(option.runner, "give_up_after", None)
        if give_up is not None:
            known = math.isfinite(self.best_cost) and self.give_up_factor > 0
            bar = self.give_up_factor * self.best_cost if known else 0.0
            give_up(bar, self.give_up_factor if within_batch else 0.0)

    def propose_after(self, in_flight: Sequence[int], want: int) -> list[int]:
        """The next batch, proposed while `in_flight` is still being measured: those count
        as visited meanwhile, so the two batches never share a candidate."""
        added = [i for i in in_flight if i not in self.visited]
        self.visited.update(added)
        try:
            return self.propose(want)
        finally:
            self.visited.difference_update(added)


def proposes_ahead(option: MeasureOption) -> bool:
    """Whether the search may propose while candidates are built and measured: a runner
    whose builds overlap its measurements (a device's persistent measurer) or that says its
    kernels run elsewhere (`propose_ahead`: the services' runner of a device's agents), so
    the search's CPU disturbs no timing; never with TUNEFARM_OVERLAP_BATCHES=0."""
    import os

    if os.environ.get(ENV_OVERLAP_BATCHES, "").strip() == "0":
        return False
    runner = option.runner
    return bool(getattr(runner, "overlaps_builds", False)) or bool(
        getattr(runner, "propose_ahead", False)
    )


@dataclass
class _Batch:
    """One batch of `Tuner.tune`, with its builds once queued ahead (`tune.build_ahead`)."""

    indices: list[int]
    inputs: list[MeasureInput]
    builds: list[Any] | None = None


class _Ahead:
    """The next batch proposed in a thread while this one builds and is measured, and,
    with `builds` (`tune.build_ahead.make`), its builds queued the moment it is proposed:
    the local pool starts them as soon as this batch's builds end, the services' build
    farm at once, while this batch's kernels are still being timed.

    Only where `proposes_ahead` (a device's persistent measurer, the services' runner of a
    device: the search's CPU does not disturb the device's timings); host kernels keep the
    strict propose, measure, learn order. The proposal sees the results of every batch but
    the one in flight (its model is one batch stale), so `tune` starts it only after the
    first batch has been learned from. TUNEFARM_OVERLAP_BATCHES=0 turns it off."""

    def __init__(self, tuner: Tuner, option: MeasureOption, builds: Any = None) -> None:
        self.enabled = proposes_ahead(option)
        self.tuner, self.option, self.builds = tuner, option, builds
        self._pool = None
        self._future = None
        self._ready: _Batch | None = None

    def batch(self, indices: list[int]) -> _Batch:
        """A batch of `indices`, its builds queued where they build ahead."""
        batch = _Batch(indices, self.tuner.inputs_for(indices))
        if self.builds is not None and indices:
            self.builds.submit([batch])
        return batch

    def measure(self, batch: _Batch) -> list[MeasureResult]:
        """The batch built (ahead, where it was queued) and measured."""
        if self.builds is not None:
            return self.builds.measure([batch])
        return self.option.measure(batch.inputs)

    def _propose(self, in_flight: list[int], want: int) -> _Batch:
        return self.batch(self.tuner.propose_after(in_flight, want))

    def start(self, in_flight: Sequence[int], want: int) -> None:
        if not self.enabled:
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(1, thread_name_prefix="tunefarm-propose")
        self._future = self._pool.submit(self._propose, list(in_flight), want)

    def wait(self) -> None:
        """Block until the proposal in flight (if any) is done; it raises here if it failed."""
        if self._future is not None:
            future, self._future = self._future, None
            self._ready = future.result()

    def take(self, want: int) -> _Batch | None:
        """The batch proposed ahead, never a config measured since and at most `want` long
        (None: propose now). Should it have to be cut, its builds queued ahead are left to
        end unused and the rest is built again (from the builder's cache)."""
        ready, self._ready = self._ready, None
        if ready is None:
            return None
        kept = [i for i in ready.indices if i not in self.tuner.visited][:want]
        if kept == ready.indices:
            return ready
        return self.batch(kept) if kept else None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
