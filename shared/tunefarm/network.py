"""Whole-network jobs as library calls: load a model, extract its tasks, tune them, compile,
check the result against ONNX Runtime and benchmark both.

The CLI commands (tasks, tune, compile, run, bench) and the search service are thin layers
over these functions, so the embedded default and the distributed services run the same code.

    model, graph = load_model("zoo:resnet-18")
    tasks = extract_tasks(graph, "cpu")
    tune_network(tasks, trials=200, log="r18.jsonl")
    compiled = compile_graph(graph, "cpu", records="r18.jsonl", optimized=True)
    compiled.save("r18.tfa")
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tunefarm.graph.ir import Graph
from tunefarm.graph.tasks import NetworkTask

ZOO_PREFIX = "zoo:"


def load_model(
    source: str | os.PathLike | bytes,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    batch: int = 1,
) -> tuple[Any, Graph]:
    """(ONNX model, optimised graph) of a model file, or of a zoo model named "zoo:NAME" (or
    a bare zoo name when no file of that name exists), built at `batch`."""
    from tunefarm.frontend import zoo
    from tunefarm.frontend.onnx_import import FrontendError, load_onnx, read_model
    from tunefarm.graph.passes import optimize

    model: Any = source
    name = None
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        zoo_name = text[len(ZOO_PREFIX) :] if text.startswith(ZOO_PREFIX) else None
        if zoo_name is None and not Path(text).exists() and text in zoo.names():
            zoo_name = text
        if zoo_name is not None:
            model, name = zoo.build(zoo_name, batch=batch), zoo_name
        elif not Path(text).exists():
            raise FrontendError(
                f"{text}: no such model file (zoo models: "
                f"{', '.join('zoo:' + n for n in zoo.names())})"
            )
        else:
            model, name = read_model(text)[0], Path(text).stem
    graph = load_onnx(model, input_shapes=input_shapes, name=name)
    return model, optimize(graph)


def random_inputs(graph: Graph, seed: int = 0) -> dict[str, np.ndarray]:
    """Uniform [-1, 1) inputs for every runtime input of the graph."""
    rng = np.random.default_rng(seed)
    return {v.name: rng.uniform(-1.0, 1.0, size=v.shape).astype(v.dtype) for v in graph.inputs}


def onnxruntime_session(model: Any, threads: int | None = None):
    """An ONNX Runtime session on the CPU with `threads` intra-op threads (default: cores)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])


def relative_error(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray]) -> float:
    """The worst over outputs of max|got - want| / max|want| (the issue's accuracy measure)."""
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
    from tunefarm.measure.timing import time_evaluator
    from tunefarm.measure.types import MeasureSettings
    from tunefarm.runtime.executor import BenchmarkResult

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
) -> EndToEnd:
    """Run artifact `check` and ONNX Runtime on one random input and compare; then time ONNX
    Runtime and every artifact in `rounds` interleaved rounds, so machine noise hits all of
    them alike."""
    from tunefarm.runtime.executor import GraphExecutor

    inputs = random_inputs(graph, seed)
    session = onnxruntime_session(model)
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


def print_tasks(tasks: Sequence[NetworkTask], graph: Graph, stream: TextIO | None = None) -> None:
    """The task table, as the tutorials print it before tuning."""
    stream = stream or sys.stdout
    rows = [["ID", "Workload key", "Task", "Weight", "MFLOPs"]]
    for i, t in enumerate(tasks):
        rows.append(
            [str(i), t.task.workload_key, t.describe(graph), str(t.weight), f"{t.flops / 1e6:.1f}"]
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    print(f"Extracted {len(tasks)} tasks from {graph.name}:", file=stream)
    for j, r in enumerate(rows):
        print(" | ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)), file=stream)
        if j == 0:
            print("-+-".join("-" * w for w in widths), file=stream)
    groups = {t.group: t.flops * t.weight for t in reversed(tasks)}  # alternatives count once
    total = sum(groups.values())
    print(f"Total: {total / 1e9:.2f} GFLOPs in tuned ops", file=stream)


def network_settings():
    """How network tasks are timed: one run per repeat after a cache flush, ten repeats, as
    AutoTVM's x86 network tutorials do. Inside a network a kernel's inputs and weights come
    cold from memory; timed hot, memory-bound layers (depthwise, 1x1) look up to twice as fast
    as they run in the network and the tuner picks configs for the wrong regime."""
    from tunefarm.measure.types import MeasureSettings

    return MeasureSettings(number=1, repeat=10, min_repeat_ms=0, flush_cache=True)


def tune_network(
    tasks: Sequence[NetworkTask],
    trials: int,
    log: str | os.PathLike,
    tuner: str = "xgb",
    strategy: str = "gradient",
    early_stopping: int | None = None,
    settings: Any = None,
    resume: bool = False,
    trials_per_round: int | None = None,
    measure_option: Any = None,
    seed: int = 0,
    device_key: str = "local",
    stream: TextIO | None = None,
    callbacks: Sequence[Any] = (),
    on_round: Any = None,
):
    """Tune the tasks with the task scheduler under one budget, appending to `log`; with
    `resume`, trials already in the log are loaded, not measured again. Returns the
    scheduler's summary. `measure_option` defaults to the local builder and runner.
    `callbacks` run after every measured batch, `on_round` after every scheduler round."""
    from tunefarm.tune.task_scheduler import TaskScheduler
    from tunefarm.tune.tuner import MeasureOption

    scheduler = TaskScheduler(
        [t.task for t in tasks],
        [float(t.weight) for t in tasks],
        tuner_factory=tuner,
        strategy=strategy,
        seed=seed,
        early_stopping_per_task=early_stopping,
        stream=stream,
        groups=[t.group for t in tasks],
    )
    if resume and Path(log).exists():
        loaded = scheduler.load_log(log, device_key=device_key)
        print(f"resumed: {loaded} trial(s) loaded from {log}", file=stream)
    if settings is None:
        settings = network_settings()
    per_round = trials_per_round or max(8, min(64, trials // max(1, 2 * len(tasks))))
    own = measure_option is None
    option = MeasureOption.local(settings) if own else measure_option
    try:
        return scheduler.tune(
            trials,
            option,
            trials_per_round=per_round,
            batch_size=min(16, per_round),
            callbacks=callbacks,
            log_file=str(log),
            device_key=device_key,
            on_round=on_round,
        )
    finally:
        if own:
            option.close()
