"""`Builder` and `Runner` backed by Celery queues: the tuners cannot tell them from the local
ones, so embedded and distributed tuning share every line of search code.

A batch fans out as one message per candidate (builds to `build`, measurements to
`measure.<device-key>`), so build workers and the agents of a key share a batch between
them. A candidate whose worker died is redelivered by the broker; one that gets no answer
within the deadline becomes an error result (build or run timeout), never a hang.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.celery_app import BUILD, MEASURE
from tunefarm.distributed.tracker import measure_queue
from tunefarm.measure.builder import Builder
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.runner import Runner
from tunefarm.measure.types import BuildResult, MeasureInput, MeasureResult, MeasureSettings


def _deadline(app: Any, work_s: float) -> float:
    """How long to wait for a batch: the work itself, plus one redelivery after a worker
    dies (the visibility timeout), plus slack."""
    return work_s + 2 * app.tunefarm_config.visibility_timeout_s + 30


def _gather(pending: list[Any], queue: str, timeout_s: float) -> list[Any]:
    """Wait for every sent task; returns per task its reply, or the exception (timeout or
    task failure) in its place."""
    from celery.exceptions import TimeoutError as CeleryTimeout

    end = time.monotonic() + timeout_s
    out: list[Any] = []
    for result in pending:
        try:
            left = max(0.1, end - time.monotonic())
            out.append(result.get(timeout=left, disable_sync_subtasks=False, propagate=True))
        except CeleryTimeout:
            result.revoke()
            out.append(TimeoutError(f"no answer from queue {queue!r} within {timeout_s:.0f} s"))
        except Exception as exc:  # the task raised: report it as the candidate's error
            out.append(exc)
        finally:
            result.forget()
    return out


class CeleryBuilder(Builder):
    """Builds on the build farm. Kernels land in the artifact store; results carry
    store-relative paths."""

    def __init__(self, app: Any, timeout_s: float = 60.0, options: Sequence[str] = ()) -> None:
        self.app, self.timeout_s, self.options = app, float(timeout_s), tuple(options)

    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        inputs = list(inputs)
        if not inputs:
            return []
        pending = [self.app.send_task(BUILD, args=self.args(inp), queue="build") for inp in inputs]
        wait = _deadline(self.app, self.timeout_s * len(inputs))
        return [self._result(r) for r in _gather(pending, "build", wait)]

    def args(self, inp: MeasureInput) -> list[Any]:
        return [inp.to_json(), self.timeout_s, list(self.options)]

    @staticmethod
    def _result(reply: Any) -> BuildResult:
        if isinstance(reply, TimeoutError):
            return BuildResult.failed(MeasureErrorNo.BUILD_TIMEOUT, str(reply))
        if isinstance(reply, Exception):
            msg = f"build worker failed: {type(reply).__name__}: {reply}"
            return BuildResult.failed(MeasureErrorNo.BUILD_ERROR, msg)
        return BuildResult.from_json(reply)


class CeleryRunner(Runner):
    """Measures on the agents registered under `device_key`, one candidate per message."""

    def __init__(self, app: Any, device_key: str, settings: MeasureSettings) -> None:
        self.app, self.device_key, self.settings = app, device_key, settings

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        if len(inputs) != len(builds):
            raise ValueError(f"{len(inputs)} inputs but {len(builds)} builds")
        results: list[MeasureResult | None] = [None] * len(inputs)
        todo = []
        for i, build in enumerate(builds):
            if build.ok:
                todo.append(i)
            else:  # nothing to measure: pass the build error through, as LocalRunner does
                results[i] = self._failed(build.error_no, build.error_msg)
        queue = measure_queue(self.device_key)
        pending = [
            self.app.send_task(
                MEASURE, args=[builds[i].to_json(), *self._args(inputs[i])], queue=queue
            )
            for i in todo
        ]
        for i, reply in zip(todo, _gather(pending, queue, self._wait(len(todo))), strict=True):
            results[i] = self._result(reply)
        return [r for r in results if r is not None]

    def measure_batch(
        self, inputs: Sequence[MeasureInput], builder: Builder
    ) -> list[MeasureResult]:
        """Build and measure with one chain per candidate (build -> measure), so an agent
        starts on the first kernel while the build farm still compiles the rest."""
        if not isinstance(builder, CeleryBuilder):
            return self.run(inputs, builder.build(inputs))
        queue = measure_queue(self.device_key)
        pending = []
        for inp in inputs:
            build = self.app.signature(BUILD, args=builder.args(inp), queue="build")
            measure = self.app.signature(MEASURE, args=self._args(inp), queue=queue)
            pending.append((build | measure).apply_async())
        wait = self._wait(len(inputs)) + builder.timeout_s * len(inputs)
        return [self._result(r) for r in _gather(pending, queue, wait)]

    def _args(self, inp: MeasureInput) -> list[Any]:
        """The measure task's arguments after the build result (which a chain prepends)."""
        return [inp.to_json(), self.settings.to_json()]

    def _wait(self, n: int) -> float:
        return _deadline(self.app, (self.settings.timeout_s + 5) * max(1, n))

    def _failed(self, error_no: MeasureErrorNo, msg: str) -> MeasureResult:
        return MeasureResult((), error_no, msg, 0.0, time.time(), self.settings)

    def _result(self, reply: Any) -> MeasureResult:
        if isinstance(reply, TimeoutError):
            return self._failed(MeasureErrorNo.RUN_TIMEOUT, str(reply))
        if isinstance(reply, Exception):
            msg = f"agent failed: {type(reply).__name__}: {reply}"
            return self._failed(MeasureErrorNo.RUNTIME_ERROR, msg)
        return MeasureResult.from_json(reply)


def localize(build: BuildResult, store: ArtifactStore) -> BuildResult:
    """A build result whose artifact path is absolute on this host."""
    if build.artifact is None:
        return build
    return replace(build, artifact=str(store.path(build.artifact)))
