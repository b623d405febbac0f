"""What the task scheduler shows while it tunes: one `Reporter` per output style.

The scheduler calls `start`, `batch` (every measured batch), `round_end` (every round) and
`end`; a reporter decides what a person (or a log parser) sees:

- "autotvm": AutoTVM's `[Task  1/ 3]  Current/Best: ...` line per batch and the scheduler
  table after every round (what the scheduler always printed; for scripts that parse it);
- "live": on a terminal, one display rewritten in place (overall trials with ETA, the current
  task, the best estimated latency, trials/s, errors by kind), the table once at the end;
- "plain": for logs and pipes, one line per round (at most one every `PLAIN_EVERY_S` seconds
  while rounds are short), the table once at the end;
- "json": one JSON object per round (for log collectors), the summary at the end;
- "quiet": nothing.

`verbose` adds the full table after every round to "live" and "plain". `make_reporter("auto")`
picks "live" on a terminal and "plain" elsewhere.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, TextIO

from tunefarm.measure import MeasureErrorNo, MeasureResult

MODES = ("auto", "live", "plain", "autotvm", "json", "quiet")
PLAIN_EVERY_S = 10.0  # plain mode: a round line at most this often (the last one always)


def is_tty(stream: TextIO) -> bool:
    """Whether `stream` is an interactive terminal (False for closed or fake streams)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if math.isfinite(seconds) else "-"


class Reporter:
    """The base: counts trials, rate and errors; prints nothing ("quiet")."""

    mode = "quiet"

    def __init__(self, stream: TextIO | None = None, verbose: bool = False) -> None:
        self._stream, self.verbose = stream, verbose
        self.errors: Counter[str] = Counter()
        self.measured = 0  # trials measured in this run (loaded ones excluded)
        self.total = 0
        self._t0 = time.perf_counter()
        self.current: int | None = None
        self.task_names: list[str] = []  # one per task, for the final table (see `describe`)

    @property
    def shows_task_table(self) -> bool:
        """Whether the caller should print its own task table before tuning: the final table
        of "live" and "plain" lists the tasks (when given `task_names`), unless verbose."""
        return self.mode == "autotvm" or self.verbose

    def describe(self, names: Sequence[str]) -> None:
        """Name the tasks (e.g. `conv2d 1x64x56x56 * 64x64x3x3 ...`) in the final table."""
        self.task_names = list(names)

    @property
    def stream(self) -> TextIO:
        # Resolved at write time, so a later redirection of stdout is followed.
        return self._stream if self._stream is not None else sys.stdout

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    # -- what the scheduler calls -----------------------------------------------------------
    def start(self, scheduler: Any, total_trials: int) -> None:
        self.total, self._t0 = total_trials, time.perf_counter()

    def round_start(self, scheduler: Any, task: int, trials: int) -> None:
        self.current = task

    def batch(self, scheduler: Any, task: int, results: Sequence[MeasureResult]) -> None:
        self.measured += len(results)
        for r in results:
            if not r.ok:
                self.errors[_error_name(r)] += 1

    def round_end(self, scheduler: Any, next_id: int | None, seconds: float) -> None:
        """After a round (next_id None: the last one)."""

    def close(self) -> None:
        """Tuning stopped (done, or an exception): release the terminal. Before `end`."""

    def end(self, scheduler: Any, seconds: float) -> None:
        """After tuning."""

    # -- shared text ------------------------------------------------------------------------
    def rate(self) -> float:
        elapsed = time.perf_counter() - self._t0
        return self.measured / elapsed if elapsed > 0 else 0.0

    def eta(self, spent: int) -> float:
        rate = self.rate()
        return max(0, self.total - spent) / rate if rate > 0 else math.inf

    def errors_text(self) -> str:
        if not self.errors:
            return "errors: none"
        return "errors: " + ", ".join(f"{k} {n}" for k, n in sorted(self.errors.items()))

    def status(self, scheduler: Any) -> str:
        """One line: trials, ETA, current task, best estimate, rate, errors."""
        return (
            f"trials {scheduler.trials}/{self.total} | task {_task(scheduler, self.current)} | "
            f"est. latency "
            f"{_ms(scheduler.estimated_total_latency())} | {self.rate():.1f} trials/s | "
            f"ETA {_duration(self.eta(scheduler.trials))} | {self.errors_text()}"
        )


def final_table(scheduler: Any, names: Sequence[str], seconds: float) -> str:
    """The scheduler table with each task's weight and name appended to its row, so one
    table says what each task is and what tuning found."""
    lines = scheduler.table(None, seconds).split("\n")
    if len(names) != len(scheduler.states):
        return "\n".join(lines)
    rows = iter(zip(scheduler.states, names, strict=True))
    out = []
    for line in lines:
        if line.startswith("|  ID  |"):
            line += " Weight x Task"
        elif line.startswith("| ") and not line.startswith("|  ID"):
            state, name = next(rows)
            line += f" {state.weight:g} x {name}"
        out.append(line)
    return "\n".join(out)


def _error_name(r: MeasureResult) -> str:
    try:
        return MeasureErrorNo(r.error_no).name.lower()
    except ValueError:
        return f"error_{r.error_no}"


def _task(scheduler: Any, i: int | None) -> str:
    """`ID op` of task i (IDs as in the scheduler table)."""
    return "-" if i is None else f"{i} {scheduler.states[i].tuner.task.op}"


class AutoTVMReporter(Reporter):
    """The AutoTVM progress line per batch and the scheduler table after every round."""

    mode = "autotvm"

    def round_start(self, scheduler: Any, task: int, trials: int) -> None:
        from tunefarm.tune.callbacks import progress_bar

        super().round_start(scheduler, task, trials)
        prefix = f"[Task {task + 1:2d}/{len(scheduler.states):2d}] "
        self._bar = progress_bar(prefix=prefix, total=trials, stream=self.stream)

    def batch(self, scheduler: Any, task: int, results: Sequence[MeasureResult]) -> None:
        super().batch(scheduler, task, results)
        self._bar(scheduler.states[task].tuner, (), results)

    def round_end(self, scheduler: Any, next_id: int | None, seconds: float) -> None:
        bar = getattr(self, "_bar", None)
        if bar is not None:
            bar.done()
            self._bar = None
        self._print(scheduler.table(next_id, seconds))

    def end(self, scheduler: Any, seconds: float) -> None:
        if self.measured == 0 and getattr(self, "_bar", None) is None:
            self._print(scheduler.table(None, seconds))  # nothing ran: show why


class PlainReporter(Reporter):
    """A status line per round, rate-limited; the table at the end (and per round if verbose)."""

    mode = "plain"

    def __init__(self, stream: TextIO | None = None, verbose: bool = False) -> None:
        super().__init__(stream, verbose)
        self._last_line = -math.inf

    def round_end(self, scheduler: Any, next_id: int | None, seconds: float) -> None:
        if self.verbose:
            self._print(scheduler.table(next_id, seconds))
            return
        now = time.perf_counter()
        if next_id is None or now - self._last_line >= PLAIN_EVERY_S:
            self._last_line = now
            self._print(f"[{_duration(seconds)}] {self.status(scheduler)}")

    def end(self, scheduler: Any, seconds: float) -> None:
        if not self.verbose or self.measured == 0:
            self._print(final_table(scheduler, self.task_names, seconds))


class JSONReporter(Reporter):
    """One JSON object per round and one at the end (for log collectors)."""

    mode = "json"

    def _event(self, scheduler: Any, event: str, seconds: float, **extra: Any) -> None:
        total = scheduler.estimated_total_latency()
        doc = {
            "event": event,
            "trials": scheduler.trials,
            "total": self.total,
            "task": self.current,
            "estimated_latency_s": total if math.isfinite(total) else None,
            "trials_per_s": round(self.rate(), 3),
            "errors": dict(self.errors),
            "seconds": round(seconds, 3),
            **extra,
        }
        self._print(json.dumps(doc, sort_keys=True))

    def round_end(self, scheduler: Any, next_id: int | None, seconds: float) -> None:
        self._event(scheduler, "round", seconds, next=next_id)

    def end(self, scheduler: Any, seconds: float) -> None:
        self._event(scheduler, "end", seconds, summary=scheduler.summary(seconds).to_json())


class LiveReporter(Reporter):
    """A rich live display on a terminal, two lines rewritten in place (the bar with trials,
    elapsed time and ETA; the current task, best estimate, rate and errors); it leaves one
    summary line and the table at the end (and prints the table per round if verbose)."""

    mode = "live"

    def start(self, scheduler: Any, total_trials: int) -> None:
        from rich.console import Console, Group
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.text import Text

        super().start(scheduler, total_trials)
        self._loaded = min(scheduler.trials, total_trials)  # resumed trials count as done
        self._progress = Progress(
            TextColumn("tuning"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("trials"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self._bar = self._progress.add_task("tune", total=total_trials, completed=self._loaded)
        self._line = Text("", no_wrap=True, overflow="ellipsis")
        console = Console(file=self.stream)
        self._live = Live(Group(self._progress, self._line), console=console, transient=True)
        self._live.start()

    def _refresh(self, scheduler: Any) -> None:
        self._line.plain = (
            f"task {_task(scheduler, self.current)} | est. latency "
            f"{_ms(scheduler.estimated_total_latency())} | {self.rate():.1f} trials/s | "
            f"{self.errors_text()}"
        )
        done = min(self._loaded + self.measured, self.total)
        self._progress.update(self._bar, completed=done)

    def round_start(self, scheduler: Any, task: int, trials: int) -> None:
        super().round_start(scheduler, task, trials)
        self._refresh(scheduler)

    def batch(self, scheduler: Any, task: int, results: Sequence[MeasureResult]) -> None:
        super().batch(scheduler, task, results)
        self._refresh(scheduler)

    def round_end(self, scheduler: Any, next_id: int | None, seconds: float) -> None:
        self._refresh(scheduler)
        if self.verbose:
            self._live.console.print(scheduler.table(next_id, seconds), highlight=False)

    def close(self) -> None:
        self._live.stop()

    def end(self, scheduler: Any, seconds: float) -> None:
        self._print(
            f"tuned in {_duration(seconds)}: trials {scheduler.trials}/{self.total} | est. "
            f"latency {_ms(scheduler.estimated_total_latency())} | {self.rate():.1f} trials/s | "
            f"{self.errors_text()}"
        )
        if not self.verbose or self.measured == 0:
            self._print(final_table(scheduler, self.task_names, seconds))


_CLASSES = {
    c.mode: c for c in (Reporter, AutoTVMReporter, PlainReporter, JSONReporter, LiveReporter)
}


def make_reporter(
    mode: str = "auto", stream: TextIO | None = None, verbose: bool = False
) -> Reporter:
    """The reporter of `mode` (see MODES); "auto": live on a terminal, plain elsewhere."""
    if mode not in MODES:
        raise ValueError(f"unknown progress mode {mode!r}; known: {', '.join(MODES)}")
    if mode == "auto":
        mode = "live" if is_tty(stream if stream is not None else sys.stdout) else "plain"
    if mode == "live" and importlib.util.find_spec("rich") is None:
        mode = "plain"  # rich is a dependency, but a stripped install still gets progress
    return _CLASSES[mode](stream, verbose)
