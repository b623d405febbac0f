"""ONNX Runtime, the reference every compiled network is checked against and timed beside.

A network job hands back a network only after its output matched ONNX Runtime's on a random
input, and reports latency next to ONNX Runtime's measured in the same run (interleaved
rounds, so machine noise hits both alike).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.graph.ir import Graph, random_inputs
from tunefarm.measure.timing import time_evaluator
from tunefarm.measure.types import MeasureSettings
from tunefarm.runtime.executor import BenchmarkResult, GraphExecutor


def onnxruntime_session(model: Any, threads: int | None = None):
    """An ONNX Runtime session on the CPU with `threads` intra-op threads (default: cores)."""
    import onnxruntime as ort  # half a second to import: only jobs that compare pay for it

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def relative_error(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray]) -> float:
    """The worst over outputs of max|got - want| / max|want|."""
    worst = 0.0
    for name, ref in want.items():
        out = np.asarray(got[name], dtype=np.float64)
        ref = np.asarray(ref, dtype=np.float64)
        if out.shape != ref.shape:
            return math.inf
        scale = max(float(np.max(np.abs(ref))), 1e-30)
        worst = max(worst, float(np.max(np.abs(out - ref))) / scale)
    return worst


def onnxruntime_latency(session: Any, inputs: Mapping[str, np.ndarray], repeat: int = 10):
    """ONNX Runtime's latency with the same time-evaluator loop as our executor's benchmark
    (`InferenceSession.run` from Python, as its users call it) -> BenchmarkResult in ms."""
    feeds = dict(inputs)
    session.run(None, feeds)  # warm-up: the first run allocates and plans

    def fn_time(number: int) -> float:
        t0 = time.perf_counter()
        for _ in range(number):
            session.run(None, feeds)
        return (time.perf_counter() - t0) / number

    timing = time_evaluator(fn_time, MeasureSettings(repeat=repeat, min_repeat_ms=100.0))
    return BenchmarkResult(timing.costs, timing.number, repeat)


def onnxruntime_outputs(model: Any, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return _session_outputs(onnxruntime_session(model), inputs)


def _session_outputs(session: Any, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, dict(inputs)), strict=True))


@dataclass
class EndToEnd:
    """A compiled network checked against ONNX Runtime and timed next to it: the relative
    error of the checked artifact and, per label ("onnxruntime" and each artifact's), one
    BenchmarkResult per round."""

    relative_error: float
    rounds: dict[str, list[Any]]

    def median(self, label: str) -> float:
        """The median over rounds of each round's median, ms."""
        return statistics.median(r.median for r in self.rounds[label])

    def min(self, label: str) -> float:
        return min(r.min for r in self.rounds[label])


def end_to_end(
    model: Any,
    graph: Graph,
    artifacts: Mapping[str, str | os.PathLike],
    check: str,
    rounds: int = 1,
    repeat: int = 10,
    seed: int = 0,
    threads: int | None = None,
) -> EndToEnd:
    """Run artifact `check` and ONNX Runtime on one random input and compare; then time ONNX
    Runtime and every artifact in `rounds` interleaved rounds. `threads`: ONNX Runtime's
    intra-op threads (None: every core), so that a network built for `-cores=1` meets ONNX
    Runtime on one core too."""
    inputs = random_inputs(graph, seed)
    session = onnxruntime_session(model, threads)
    executors = {label: GraphExecutor.load(path) for label, path in artifacts.items()}
    error = relative_error(executors[check].run(inputs), _session_outputs(session, inputs))
    timers = {"onnxruntime": lambda: onnxruntime_latency(session, inputs, repeat)}
    for label, ex in executors.items():
        timers[label] = lambda ex=ex: ex.benchmark(repeat=repeat)
    results: dict[str, list[Any]] = {label: [] for label in timers}
    for _ in range(rounds):
        for label, timer in timers.items():
            results[label].append(timer())
    return EndToEnd(error, results)
