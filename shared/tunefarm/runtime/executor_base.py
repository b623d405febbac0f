"""What the two executors share, a host library (`executor.GraphExecutor`) and a device
artifact (`device.DeviceExecutor`): what they say about the network they hold (manifest,
input and output names with shapes and dtypes, how many kernel calls a run makes), how whole
runs are timed (`benchmark`), and the errors and results of both."""

from __future__ import annotations

import json
import statistics
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from tunefarm.measure.timing import time_evaluator
from tunefarm.measure.types import MeasureSettings


class ExecutorError(ValueError):
    """Bad use of an executor (unknown input, wrong shape/dtype) or a failing kernel."""


class ProfileEntry(NamedTuple):
    node: str
    kernel: str
    ms: float


@dataclass(frozen=True)
class BenchmarkResult:
    """Timing of whole-network runs: `costs` in seconds per run, one per repeat."""

    costs: tuple[float, ...]
    number: int
    repeat: int

    @property
    def _ms(self) -> list[float]:
        return [c * 1e3 for c in self.costs]

    @property
    def mean(self) -> float:
        return statistics.fmean(self._ms)

    @property
    def median(self) -> float:
        return statistics.median(self._ms)

    @property
    def max(self) -> float:
        return max(self._ms)

    @property
    def min(self) -> float:
        return min(self._ms)

    @property
    def std(self) -> float:
        return statistics.pstdev(self._ms)

    def to_json(self) -> dict[str, Any]:
        stats = {k: getattr(self, k) for k in ("mean", "median", "max", "min", "std")}
        out: dict[str, Any] = {f"{k}_ms": v for k, v in stats.items()}
        return {**out, "costs": list(self.costs), "number": self.number, "repeat": self.repeat}

    def __str__(self) -> str:
        """The summary TVM's BenchmarkResult prints (milliseconds, centred columns)."""
        columns = ("mean (ms)", "median (ms)", "max (ms)", "min (ms)", "std (ms)")
        values = (self.mean, self.median, self.max, self.min, self.std)
        head = " ".join(f"{c:^12}" for c in columns)
        row = " ".join(f"{v:^12.4f}" for v in values)
        return f"Execution time summary:\n{head}\n{row}"


def check_count(method: str, name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ExecutorError(f"{method}: {name} must be an int >= {minimum}, got {value!r}")


class ExecutorBase:
    """Mixin over `_manifest`, `_inputs` / `_outputs` (name -> buffer), `_calls`, `_lock`,
    and three hooks: `_host_array(buffer)`, the host array that holds (or mirrors) a buffer;
    `_run_once()`, one run with the lock held; `_seconds_per_run(number)`, the mean time of
    `number` back-to-back runs by the executor's own clock."""

    _manifest: dict[str, Any]
    _inputs: dict[str, str]
    _outputs: dict[str, str]
    _calls: list[Any]
    _lock: threading.Lock

    def _host_array(self, buf: str) -> np.ndarray:
        raise NotImplementedError

    def _run_once(self) -> None:
        raise NotImplementedError

    def _seconds_per_run(self, number: int) -> float:
        raise NotImplementedError

    @property
    def manifest(self) -> dict[str, Any]:
        """A copy of the artifact's manifest."""
        return json.loads(json.dumps(self._manifest))

    @property
    def input_names(self) -> list[str]:
        return list(self._inputs)

    @property
    def output_names(self) -> list[str]:
        return list(self._outputs)

    @property
    def num_calls(self) -> int:
        return len(self._calls)

    def _info(self, table: dict[str, str]) -> dict[str, tuple[tuple[int, ...], str]]:
        out = {}
        for name, buf in table.items():
            array = self._host_array(buf)
            out[name] = (array.shape, array.dtype.name)
        return out

    def input_info(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """Input name -> (shape, dtype name)."""
        return self._info(self._inputs)

    def output_info(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """Output name -> (shape, dtype name)."""
        return self._info(self._outputs)

    def benchmark(
        self,
        repeat: int = 10,
        number: int | None = None,
        min_repeat_ms: float = 100.0,
        warmup: int = 1,
    ) -> BenchmarkResult:
        """Time whole runs (TVM time-evaluator semantics). number=None grows the runs per
        timed call until one lasts `min_repeat_ms`; a given `number` is used as is."""
        check_count("benchmark", "repeat", repeat, 1)
        check_count("benchmark", "warmup", warmup, 0)
        if number is not None:
            check_count("benchmark", "number", number, 1)
        settings = MeasureSettings(
            number=number or 1,
            repeat=repeat,
            min_repeat_ms=float(min_repeat_ms) if number is None else 0.0,
        )
        with self._lock:
            for _ in range(warmup):
                self._run_once()
            timing = time_evaluator(self._seconds_per_run, settings)
        return BenchmarkResult(timing.costs, timing.number, repeat)
