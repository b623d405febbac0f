"""Builds that run ahead of the measurement: unit k+1 compiles while unit k is timed.

`MeasureOption.measure` builds a batch and times each candidate as its build ends
(`tuner.build_while_measuring`), but the next batch's builds start only when `measure` is
called for it, so the build pool sits idle while the last kernels of a batch are timed and
the batch is booked. `BuildAhead` keeps one build thread fed in submission order:
`submit(parts)` returns at once with a future per candidate; the thread builds the batches
one after another (each one call of the builder, so its pool balances the batch) and
`measure(parts)` times each candidate as soon as its future is done. `tune.rounds` submits
unit k+1 the moment it is proposed (while unit k builds and is measured), so its builds
start as soon as unit k's end, beside unit k's remaining timings and its booking.

Only for a device runner whose builds may overlap its timings (`overlaps_builds`: a
device's kernels are timed on the device, not on the build cores) and a builder that
reports each build as it ends (`streams_results`: the local pool). The builder is shared
with the caller's thread (a recheck builds the incumbent again), which `LocalBuilder`
allows: its pool is used by one call at a time.

The services' runner of a device's agents brings its own (`make`: the runner's
`build_ahead`, `distributed.remote.RemoteBuildAhead`): `submit` sends the builds to the
build farm, which builds batch k+1 while the agents measure batch k. Both serve
`tune.rounds` (a network's units) and `Tuner.tune` (one task's batches).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any, Protocol

from tunefarm.measure import BuildResult, MeasureInput, MeasureResult
from tunefarm.tune.tuner import MeasureOption, proposes_ahead


class Part(Protocol):
    """A batch of candidates with a slot for their builds (`tune.rounds._Part`)."""

    inputs: list[MeasureInput]
    builds: list[Any] | None  # the builds' handles, once submitted


class Ahead(Protocol):
    """What builds ahead: `BuildAhead` here, the services' `RemoteBuildAhead`."""

    def submit(self, parts: Sequence[Part]) -> None: ...

    def measure(self, parts: Sequence[Part]) -> list[MeasureResult]: ...

    def close(self) -> None: ...


def fits(option: MeasureOption) -> bool:
    """Whether the local pool may build ahead of `option`'s measurements (see the module
    docstring); never with TUNEFARM_OVERLAP_BATCHES=0 (`proposes_ahead`)."""
    if getattr(option.runner, "measure_batch", None) is not None:  # the services chain them
        return False
    return (
        proposes_ahead(option)
        and bool(getattr(option.runner, "overlaps_builds", False))
        and bool(getattr(option.builder, "streams_results", False))
    )


def make(option: MeasureOption) -> Ahead | None:
    """What builds ahead of `option`'s measurements, or None where nothing may: the
    runner's own (`build_ahead(builder)`: the services) where the search proposes ahead,
    else `BuildAhead` where it `fits`."""
    remote = getattr(option.runner, "build_ahead", None)
    if remote is not None:
        return remote(option.builder) if proposes_ahead(option) else None
    return BuildAhead(option) if fits(option) else None


class BuildAhead:
    """One build thread that builds submitted batches in order (see the module docstring)."""

    def __init__(self, option: MeasureOption) -> None:
        self.option = option
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="tunefarm-build-ahead")

    def submit(self, parts: Sequence[Part]) -> None:
        """Queue the builds of every part that has none yet, as one batch; returns at once."""
        todo = [p for p in parts if p.builds is None]
        inputs: list[MeasureInput] = []
        futures: list[Future] = []
        for p in todo:
            p.builds = [Future() for _ in p.inputs]
            inputs += p.inputs
            futures += p.builds
        if inputs:
            self._thread.submit(self._build, inputs, futures)

    def _build(self, inputs: list[MeasureInput], futures: list[Future]) -> None:
        def done(i: int, result: BuildResult) -> None:
            if not futures[i].done():
                futures[i].set_result(result)

        try:
            results = self.option.builder.build(inputs, done)  # type: ignore[call-arg]
        except BaseException as exc:  # the measuring thread raises it
            for f in futures:
                if not f.done():
                    f.set_exception(exc)
            raise
        for i, result in enumerate(results):
            done(i, result)

    def measure(self, parts: Sequence[Part]) -> list[MeasureResult]:
        """The parts' candidates timed each as soon as its build ends (building those not
        submitted yet); results in the parts' input order."""
        self.submit(parts)
        inputs = [inp for p in parts for inp in p.inputs]
        futures = [f for p in parts for f in (p.builds or [])]
        where: dict[Any, int] = {f: i for i, f in enumerate(futures)}
        results: list[MeasureResult | None] = [None] * len(inputs)
        run = self.option.runner.run
        for f in as_completed(futures):
            i = where[f]
            results[i] = run([inputs[i]], [f.result()])[0]
        return results  # type: ignore[return-value]

    def close(self) -> None:
        """Stop after the build in progress; queued batches are dropped."""
        self._thread.shutdown(wait=True, cancel_futures=True)
