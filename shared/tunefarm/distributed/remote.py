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


def _gather(app: Any, name: str, queue: str, payloads: list[list[Any]], timeout_s: float):
    """Send one task per payload and wait for all; returns per payload the reply or the
    exception (timeout or task failure) in its place."""
    from celery.exceptions import TimeoutError as CeleryTimeout

    pending = [app.send_task(name, args=args, queue=queue) for args in payloads]
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
        payloads = [[inp.to_json(), self.timeout_s, list(self.options)] for inp in inputs]
        wait = _deadline(self.app, self.timeout_s * len(inputs))
        replies = _gather(self.app, BUILD, "build", payloads, wait)
        return [self._result(r) for r in replies]

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
        payloads = [
            [inputs[i].to_json(), builds[i].to_json(), self.settings.to_json()] for i in todo
        ]
        per_candidate = self.settings.timeout_s + 5
        wait = _deadline(self.app, per_candidate * max(1, len(todo)))
        replies = _gather(self.app, MEASURE, measure_queue(self.device_key), payloads, wait)
        for i, reply in zip(todo, replies, strict=True):
            results[i] = self._result(reply)
        return [r for r in results if r is not None]

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
