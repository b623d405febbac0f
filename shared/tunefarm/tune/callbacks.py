"""Callbacks for `Tuner.tune`: a TVM-style progress line and a per-batch metrics hook.

A callback is `cb(tuner, inputs, results)`, called once per measured batch. `progress_bar`
prints what a person watching a terminal wants; `metrics_hook` hands a small frozen record to
any sink (a log, the Prometheus exporter), so the tuning loop never knows about either.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from tunefarm.measure import MeasureErrorNo, MeasureInput, MeasureResult
from tunefarm.tune.random_tuner import TunerArgumentError
from tunefarm.tune.tuner import Callback, Tuner


def _batch_gflops(tuner: Tuner, results: Sequence[MeasureResult]) -> float:
    """Best GFLOPS among this batch's results (0 when all failed or the batch is empty)."""
    return max((tuner.gflops(r.median) for r in results if r.ok), default=0.0)


def _is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


class ProgressBar:
    """Prints `[Task  1/10]  Current/Best:   12.31/  45.02 GFLOPS | Progress: (480/1000) |
    64.31 s` after every batch: rewritten in place on a terminal, one line per batch in a log
    file (where carriage returns would garble the output). Call `done()` after tuning to end
    the terminal line.

    Elapsed time counts from the first call, so a bar made ahead of time (one per task of a
    network) does not count the time spent on earlier tasks; the first batch's own
    measurement time is therefore not included.
    """

    def __init__(self, prefix: str = "", total: int | None = None, stream: TextIO | None = None):
        if not isinstance(prefix, str):
            raise TunerArgumentError(f"progress_bar prefix must be a str, got {prefix!r}")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
            raise TunerArgumentError(f"progress_bar total must be an int or None, got {total!r}")
        if total is not None and total < 0:
            raise TunerArgumentError(f"progress_bar total must be >= 0, got {total!r}")
        self.prefix, self.total, self._stream = prefix, total, stream
        self._start = time.perf_counter()  # TVM-like: elapsed since the bar was made
        self._open_width = 0  # width of an unterminated '\r' line on a terminal, else 0

    @property
    def stream(self) -> TextIO:
        # Resolved at write time, not at construction, so redirecting stdout later works.
        return self._stream if self._stream is not None else sys.stdout

    def format_line(self, current: float, best: float, trials: int, elapsed: float) -> str:
        """One progress line, without any line ending."""
        head = f"{self.prefix.rstrip()}  " if self.prefix.strip() else ""
        progress = f"{trials}/{self.total}" if self.total is not None else f"{trials}"
        return (
            f"{head}Current/Best: {current:7.2f}/{best:7.2f} GFLOPS | "
            f"Progress: ({progress}) | {elapsed:.2f} s"
        )

    def __call__(
        self, tuner: Tuner, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
    ) -> None:
        now = time.perf_counter()
        line = self.format_line(
            _batch_gflops(tuner, results), tuner.best_gflops, tuner.trials, now - self._start
        )
        stream = self.stream
        if _is_tty(stream):
            # Pad over a longer previous line so no stale characters remain at its end.
            stream.write("\r" + line.ljust(self._open_width))
            self._open_width = max(self._open_width, len(line))
        else:
            stream.write(line + "\n")
        stream.flush()

    def done(self) -> None:
        """End the terminal line so later output starts on a fresh one (safe to call twice)."""
        if self._open_width:
            self.stream.write("\n")
            self.stream.flush()
            self._open_width = 0


def progress_bar(
    prefix: str = "", total: int | None = None, stream: TextIO | None = None
) -> ProgressBar:
    """A `ProgressBar` callback (stdout by default); `total` is the trial budget, if known."""
    return ProgressBar(prefix, total, stream)


@dataclass(frozen=True)
class TuneEvent:
    """What happened in one measured batch, as plain data for metrics and logs.

    trials: trials measured by the tuner so far (this batch included; history excluded).
    ok: candidates of this batch that produced a valid cost.
    errors: MeasureErrorNo name -> count among this batch's failures.
    best_gflops: the tuner's best so far; current_gflops: the best of this batch.
    timestamp: Unix time the batch was reported.
    """

    workload_key: str
    op: str
    trials: int
    batch_size: int
    ok: int
    errors: dict[str, int] = field(default_factory=dict)
    best_gflops: float = 0.0
    current_gflops: float = 0.0
    timestamp: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def make_event(
    tuner: Tuner, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
) -> TuneEvent:
    """The `TuneEvent` of one batch, as `metrics_hook` reports it."""
    errors = Counter(MeasureErrorNo(r.error_no).name for r in results if not r.ok)
    return TuneEvent(
        workload_key=tuner.task.workload_key,
        op=tuner.task.op,
        trials=tuner.trials,
        batch_size=len(results),
        ok=sum(1 for r in results if r.ok),
        errors=dict(errors),
        best_gflops=tuner.best_gflops,
        current_gflops=_batch_gflops(tuner, results),
        timestamp=time.time(),
    )


def metrics_hook(fn: Callable[[TuneEvent], Any]) -> Callback:
    """A callback that calls `fn(event)` with one `TuneEvent` per measured batch."""
    if not callable(fn):
        raise TunerArgumentError(f"metrics_hook needs a callable, got {fn!r}")

    def callback(
        tuner: Tuner, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]
    ) -> None:
        fn(make_event(tuner, inputs, results))

    return callback
