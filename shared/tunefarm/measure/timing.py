"""The time-evaluator loop (TVM semantics), usable in-process or in a measurement child.

`fn_time(number)` runs the kernel `number` times back to back and returns mean seconds per
run (the compiled `tf_time` does exactly that with a monotonic clock, or, for a CPU kernel
built for `-cores=1`, the calling thread's CPU time, so neither Python overhead nor a shared
host's other processes are in the numbers). Short kernels are repeated until one call lasts
`min_repeat_ms`, because a single run of a microsecond kernel is dominated by clock
resolution and call noise.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tunefarm.measure.types import MeasureSettings

MAX_NUMBER = (1 << 31) - 1  # tf_time takes an int32
GOLDEN_RATIO = 1.618  # overshoot factor for the growth step, as TVM does
FLUSH_BYTES = 64 << 20  # larger than any L3 we target

_flush_buffer: np.ndarray | None = None


@dataclass(frozen=True)
class Timing:
    """Costs (seconds per run, one per repeat) and the `number` of runs per timed call."""

    costs: tuple[float, ...]
    number: int


def flush_cache() -> None:
    """Evict the caches by writing a 64 MiB buffer (allocated once per process)."""
    global _flush_buffer
    if _flush_buffer is None:
        _flush_buffer = np.empty(FLUSH_BYTES, dtype=np.uint8)
    _flush_buffer.fill((int(_flush_buffer[0]) + 1) % 256)  # a new value each time; 255 wraps


def _more(costs: list[float], number: int, settings: MeasureSettings) -> bool:
    """Whether adaptive repeats take one more timed call (see `time_evaluator`)."""
    if len(costs) >= settings.max_repeat or spread(costs) <= settings.target_cv:
        return False
    budget_s = settings.max_repeat * settings.min_repeat_ms / 1e3
    return math.fsum(costs) * number < budget_s


def spread(costs: list[float] | tuple[float, ...]) -> float:
    """Coefficient of variation (sample stdev / mean) of `costs`; inf for fewer than two
    (one sample says nothing about its spread), 0 for a zero mean."""
    if len(costs) < 2:
        return math.inf
    mean = math.fsum(costs) / len(costs)
    if mean <= 0:
        return 0.0
    var = math.fsum((c - mean) ** 2 for c in costs) / (len(costs) - 1)
    return math.sqrt(var) / mean


def _first_run_counts(first_run: float | None, settings: MeasureSettings) -> bool:
    """Whether the caller's timed first run replaces the growth call (`time_evaluator`):
    it is as long as one timed call, the growth would stop at `number` 1, and no flush is
    asked for (the growth call's figure is not kept then either)."""
    if first_run is None or settings.flush_cache or settings.min_repeat_ms <= 0:
        return False
    return settings.number == 1 and first_run * 1e3 >= settings.min_repeat_ms


def _checked(per_run: float, number: int) -> float:
    value = float(per_run)
    if not math.isfinite(value) or value < 0:
        raise ValueError(
            f"fn_time returned {per_run!r} for number={number}; "
            "expected finite seconds per run >= 0"
        )
    return value


def _grow_number(fn_time: Callable[[int], float], number: int, min_ms: float) -> tuple[int, float]:
    """Grow `number` until one call lasts `min_ms`; return it and that call's per-run cost."""
    while True:
        per_run = _checked(fn_time(number), number)
        elapsed_ms = per_run * number * 1e3
        if elapsed_ms >= min_ms or number >= MAX_NUMBER:
            return number, per_run
        if elapsed_ms > 0:
            grown = int(number * min_ms / elapsed_ms * GOLDEN_RATIO)
        else:
            grown = number * 10  # below clock resolution: no rate to extrapolate from
        number = min(MAX_NUMBER, max(grown, number + 1))


def time_evaluator(
    fn_time: Callable[[int], float],
    settings: MeasureSettings,
    flush: Callable[[], None] | None = None,
    first_run: float | None = None,
) -> Timing:
    """Time a kernel: grow `number`, then `settings.repeat` timed calls of `fn_time(number)`.

    The growth call that reaches `min_repeat_ms` counts as the first repeat (as in TVM), unless
    `flush_cache` asks for a flush before every repeat, which that call did not have. `flush`
    replaces the default 64 MiB write. Raises ValueError if `fn_time` returns a non-finite or
    negative time; the measurement child turns that into a RUNTIME_ERROR.

    With `settings.max_repeat` > `repeat`, calls continue past `repeat` while the spread of
    the costs (`spread`) is above `settings.target_cv`, up to `max_repeat` calls and
    `max_repeat * min_repeat_ms` of timed runs: a quiet measurement stops at `repeat`, a
    noisy one buys more samples for its median where they are cheap. A kernel slower than
    `min_repeat_ms` per run spends that budget in its first calls and stops at `repeat`
    (it is far from the best anyway, and its extra runs would cost seconds each).

    `first_run`: seconds of one run the caller has already made and timed by the kernel's
    own clock (the checked run, `child.check_and_time`). Where that run alone lasts
    `min_repeat_ms`, the growth call would be one more run of `number` 1 timed the same
    way, so it stands in for that call: a kernel of 0.5 s is run twice, not three times.
    """
    costs: list[float] = []
    number = settings.number
    if _first_run_counts(first_run, settings):
        costs.append(_checked(first_run, 1))
    elif settings.min_repeat_ms > 0:
        number, first = _grow_number(fn_time, number, settings.min_repeat_ms)
        if not settings.flush_cache:
            costs.append(first)
    do_flush = flush or flush_cache
    while len(costs) < settings.repeat or _more(costs, number, settings):
        if costs and settings.cooldown_ms > 0:
            time.sleep(settings.cooldown_ms / 1e3)
        if settings.flush_cache:
            do_flush()
        costs.append(_checked(fn_time(number), number))
    return Timing(tuple(costs), number)
