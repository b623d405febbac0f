"""The network job, start to finish: load -> extract -> tune -> compile -> select in the
network -> check against ONNX Runtime -> deliver the faster of tuned and untuned.

Each step is a function, so the services can run each on the machine that fits it (the
converter loads, the extractor extracts, the search worker tunes and compiles, a device
agent evaluates, the search worker delivers), while `run_job` runs them all in one process
for `tunefarm tune`. Both therefore hand back the same thing by the same rules.

    model, graph = load_model("zoo:resnet-18")
    result = run_job(model, graph, JobOptions(trials=300), "r18.jsonl", "r18.tfa")
    print(result.delivered, result.evaluation.latency_ms)
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from tunefarm.backends import get_backend, parse_target
from tunefarm.compiler import CompiledNetwork, compile_graph
from tunefarm.compiler.select import DEFAULT_TOP_K, Selection, compile_selected
from tunefarm.compiler.tasks import is_op_task, network_tasks, op_share
from tunefarm.graph.extract import NetworkTask
from tunefarm.graph.ir import Graph
from tunefarm.measure.types import MeasureSettings
from tunefarm.recipe import reuse as store_reuse
from tunefarm.recipe.defaults import measure_defaults
from tunefarm.recipe.reference import EndToEnd, end_to_end
from tunefarm.runtime.artifact import ArtifactInfo
from tunefarm.store import RecordStore, open_store
from tunefarm.tune.dispatch import ApplyHistoryBest
from tunefarm.tune.policy import tuner_factory
from tunefarm.tune.progress import Reporter
from tunefarm.tune.records import append_records, load_records
from tunefarm.tune.stale import find_stale
from tunefarm.tune.task_scheduler import SchedulerSummary, TaskScheduler
from tunefarm.tune.tuner import MeasureOption

LOCAL_DEVICE_KEY = "local"  # the device key of records measured by an embedded run
TOLERANCE = 1e-3  # max |tunefarm - ORT| / max |ORT| for a network to be handed back


def tolerance_for(target: str) -> float:
    """TOLERANCE, or more where the target computes at a lower precision (a backend's
    `network_tolerance`: cuda -precision=fp16 allows 1e-2 against ONNX Runtime fp32)."""
    tgt = parse_target(target)
    own = getattr(get_backend(tgt.kind), "network_tolerance", None)
    return max(TOLERANCE, float(own(tgt))) if own is not None else TOLERANCE


KEEP_MARGIN = 0.03  # a rerun's new artifact replaces the current one only when faster by more
KEEP_ROUNDS = 0.8  # than this, in its median and in this share of interleaved rounds


class RecipeError(ValueError):
    """A job that cannot start as asked (a log that would mix runs, a missing directory)."""


def network_settings() -> MeasureSettings:
    """How network tasks are timed: one run per repeat after a cache flush, ten repeats, as
    AutoTVM's x86 network tutorials do. Inside a network a kernel's inputs and weights come
    cold from memory; timed hot, memory-bound layers (depthwise, 1x1) look up to twice as fast
    as they run in the network and the tuner picks configs for the wrong regime."""
    return MeasureSettings(number=1, repeat=10, min_repeat_ms=0, flush_cache=True)


@dataclass(frozen=True)
class JobOptions:
    """What a network job is asked to do (the CLI's options and the REST job's fields)."""

    trials: int
    target: str = "cpu"
    tuner: str = "xgb"
    strategy: str = "gradient"
    early_stopping: int | None = None
    settings: MeasureSettings = field(default_factory=network_settings)
    policy: str = "template"  # template | sketch | auto (tune.policy)
    transfer_from: str | None = None  # earlier records the cost models also learn from
    trials_per_round: int | None = None
    select_top: int = DEFAULT_TOP_K
    seed: int = 0
    device_key: str = LOCAL_DEVICE_KEY
    bench_repeat: int = 10
    store: str = "none"  # --store: a SQLite path, postgresql://..., or none
    reuse: str = "warm"  # --reuse best | warm | off (recipe.reuse)
    reuse_min_trials: int = store_reuse.DEFAULT_MIN_TRIALS


def check_log(path: str | os.PathLike, resume: bool) -> None:
    """Refuse to mix a new run into an old log (its trials would count for the wrong run)."""
    p = Path(path)
    if p.is_dir():
        raise RecipeError(f"--log {str(path)!r} is a directory")
    if not p.parent.is_dir():
        raise RecipeError(f"--log {str(path)!r}: directory {str(p.parent)!r} does not exist")
    if not resume and p.exists() and p.stat().st_size > 0:
        raise RecipeError(
            f"--log {str(path)!r} already holds records; use --resume to continue it "
            "or choose another --log"
        )


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
    ops = [t for t in tasks if is_op_task(t)]
    if ops:
        share = op_share(tasks)
        print(
            f"{len(ops)} of the tasks are non-anchor kernels (pools, transforms, ...): "
            f"{share:.1%} of the network's estimated cost",
            file=stream,
        )


def tune_network(
    tasks: Sequence[NetworkTask],
    trials: int,
    log: str | os.PathLike,
    tuner: str = "xgb",
    strategy: str = "gradient",
    early_stopping: int | None = None,
    settings: MeasureSettings | None = None,
    resume: bool = False,
    trials_per_round: int | None = None,
    measure_option: MeasureOption | None = None,
    seed: int = 0,
    device_key: str = LOCAL_DEVICE_KEY,
    stream: TextIO | None = None,
    callbacks: Sequence[Callable] = (),
    on_round: Callable | None = None,
    policy: str = "template",
    transfer_from: str | os.PathLike | None = None,
    reporter: Reporter | None = None,
    store: RecordStore | None = None,
    reuse: str = "warm",
    reuse_min_trials: int = store_reuse.DEFAULT_MIN_TRIALS,
    store_put: Callable | None = None,
) -> SchedulerSummary:
    """Tune the tasks with the task scheduler under one budget, appending to `log`; with
    `resume`, trials already in the log are loaded, not measured again. Under the sketch and
    auto policies each sketch-searched task's template default config (the untuned kernel)
    is measured first, outside the budget (`recipe.defaults`). `measure_option`
    defaults to the local builder and runner. `callbacks` run after every measured batch,
    `on_round` after every scheduler round; `reporter` shows the progress (default: the
    AutoTVM lines and the table every round, on `stream`). With a `store`, `reuse` decides
    what it gives (recipe.reuse) and every measured record is put into it (through
    `store_put`, e.g. a spooling put, when given)."""
    scheduler = TaskScheduler(
        [t.task for t in tasks],
        [float(t.weight) for t in tasks],
        tuner_factory=tuner_factory(policy, tuner),
        strategy=strategy,
        seed=seed,
        early_stopping_per_task=early_stopping,
        stream=stream,
        groups=[t.group for t in tasks],
        reporter=reporter,
    )
    if transfer_from is not None:
        used = scheduler.transfer_from(str(transfer_from))
        print(
            f"transfer: the cost models learn from {used} record(s) of {transfer_from}", file=stream
        )
    if resume and Path(log).exists():
        loaded = scheduler.load_log(log, device_key=device_key)
        print(f"resumed: {loaded} trial(s) loaded from {log}", file=stream)
        stale = find_stale(load_records(log, []), {t.task.workload_key for t in tasks})
        if stale is not None:
            print(f"resumed: {stale.line()}", file=stream)
    report = None
    put = store_put or (store.put if store is not None else None)
    if store is not None:
        report, to_log = store_reuse.plan(
            scheduler, store, reuse, device_key, reuse_min_trials, DEFAULT_TOP_K
        )
        append_records(log, _not_in_log(log, to_log))
        report.print(stream)
    to_store = store_reuse.store_callback(put, device_key) if put is not None else None
    if to_store is not None:
        callbacks = [*callbacks, to_store]
    if report is not None and on_round is not None:
        inner, reuse_json = on_round, report.to_json()

        def on_round(summary: SchedulerSummary) -> Any:
            summary.reuse = reuse_json
            return inner(summary)

    per_round = trials_per_round or max(8, min(64, trials // max(1, 2 * len(tasks))))
    own = measure_option is None
    kind = parse_target(tasks[0].task.target).kind if tasks else "cpu"  # measure on its device
    option = (
        MeasureOption.local(settings or network_settings(), kind=kind) if own else measure_option
    )
    try:
        defaults = measure_defaults(tasks, policy, log, option, device_key, to_store)
        if defaults:
            print(
                f"measured the template default config of {defaults} sketch-searched task(s) "
                "(the untuned kernel, outside the trial budget; recipe.defaults)",
                file=stream,
            )
        scheduler.note_outside(load_records(log, []) if Path(log).exists() else [], device_key)
        summary = scheduler.tune(
            trials,
            option,
            trials_per_round=per_round,
            batch_size=min(16, per_round),
            callbacks=callbacks,
            log_file=str(log),
            device_key=device_key,
            on_round=on_round,
        )
        summary.reuse = report.to_json() if report is not None else None
        return summary
    finally:
        if own:
            option.close()


def _not_in_log(log: str | os.PathLike, records: Sequence[Any]) -> list[Any]:
    """The records a (resumed) log does not hold yet: a retried job adds no duplicates."""
    if not records or not Path(log).exists() or Path(log).stat().st_size == 0:
        return list(records)

    def key(r: Any) -> tuple[str, str, str]:
        return r.workload_key, r.device_key, repr(sorted(r.config.as_dict().items()))

    have = {key(r) for r in load_records(log, [])}
    return [r for r in records if key(r) not in have]


def _save_atomic(compiled: CompiledNetwork, path: str | os.PathLike) -> ArtifactInfo:
    """Write the artifact beside `path` and rename it over, so readers see either build."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    info = compiled.save(str(tmp))
    tmp.replace(path)
    return replace(info, path=str(path))


@dataclass
class Builds:
    """The two artifacts of a job: tuned (the best record per task) and untuned."""

    tuned: CompiledNetwork
    tuned_info: ArtifactInfo
    untuned_info: ArtifactInfo


def compile_builds(
    graph: Graph,
    target: str,
    records: str | os.PathLike | None,
    device_key: str | None,
    tuned_path: str | os.PathLike,
    untuned_path: str | os.PathLike,
) -> Builds:
    """Compile the network with the best record per task and with default configs."""
    tuned = compile_graph(graph, target, records, device_key, optimized=True)
    untuned = compile_graph(graph, target, None, device_key, optimized=True)
    return Builds(tuned, _save_atomic(tuned, tuned_path), _save_atomic(untuned, untuned_path))


@dataclass
class Evaluation:
    """A job's networks on the device that runs them: the tuned one's error against ONNX
    Runtime, the median latency of each (ms), and what in-network selection changed (with
    the recompiled tuned network and its artifact when it changed anything)."""

    relative_error: float
    latency_ms: dict[str, float]
    end_to_end: EndToEnd
    selection: Selection | None = None
    recompiled: CompiledNetwork | None = None
    recompiled_info: ArtifactInfo | None = None
    incumbent: dict[str, Any] | None = None  # the artifact it had to beat (see `Duel`)

    def to_json(self) -> dict[str, Any]:
        return {
            "relative_error": self.relative_error,
            "latency_ms": self.latency_ms,
            "selection": self.selection.to_json() if self.selection else None,
            "incumbent": self.incumbent,
        }


@dataclass(frozen=True)
class Duel:
    """A new artifact timed against the one it would replace, in interleaved rounds: it
    replaces it only when it wins clearly (by more than `KEEP_MARGIN` in its median and in
    most rounds), so a rerun on a busy machine cannot ship worse choices over better."""

    new_ms: float
    old_ms: float
    wins: int
    rounds: int

    @property
    def replace(self) -> bool:
        clear = self.new_ms < self.old_ms * (1 - KEEP_MARGIN)
        return clear and self.wins >= math.ceil(KEEP_ROUNDS * self.rounds)

    def to_json(self) -> dict[str, Any]:
        return {"kept": not self.replace, "new_ms": self.new_ms, "current_ms": self.old_ms,
                "wins": self.wins, "rounds": self.rounds}  # fmt: skip

    def describe(self) -> str:
        verdict = "replaced" if self.replace else "kept"
        return (
            f"current artifact {verdict}: new build {self.new_ms:.3f} ms against "
            f"{self.old_ms:.3f} ms, faster by more than {KEEP_MARGIN:.0%} in "
            f"{self.wins}/{self.rounds} interleaved rounds"
        )


def duel(graph: Graph, new: str | os.PathLike, old: str | os.PathLike, rounds: int = 7,
         seed: int = 0) -> Duel | None:  # fmt: skip
    """Time `new` against `old` (alternating which goes first); None when `old` cannot be
    loaded or run (another network, a format from another version): `new` wins then."""
    from tunefarm.graph.ir import random_inputs
    from tunefarm.runtime.executor import GraphExecutor

    inputs = random_inputs(graph, seed)
    try:
        executors = [GraphExecutor.load(p) for p in (new, old)]
        for ex in executors:
            ex.run(inputs)
    except Exception:  # the old artifact is unusable: nothing to keep
        return None
    times: list[list[float]] = [[], []]
    for r in range(rounds):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for i in order:
            times[i].append(executors[i].benchmark(repeat=5, min_repeat_ms=50).median)
    wins = sum(a < b * (1 - KEEP_MARGIN) for a, b in zip(*times, strict=True))
    return Duel(statistics.median(times[0]), statistics.median(times[1]), wins, rounds)


def evaluate(
    model: Any,
    graph: Graph,
    target: str,
    records: str | os.PathLike | None,
    device_key: str | None,
    tuned_path: str | os.PathLike,
    untuned_path: str | os.PathLike,
    select_top: int = DEFAULT_TOP_K,
    repeat: int = 10,
    seed: int = 0,
    current_path: str | os.PathLike | None = None,
) -> Evaluation:
    """On the device: choose each task's config among its `select_top` best records by its
    time inside the network (rewriting the tuned artifact when a choice changes), check the
    tuned network against ONNX Runtime, and time tuned, untuned and ONNX Runtime.
    `current_path`: the artifact this run would replace (a rerun's previous net.tfa); it is
    put back unless the new tuned build beats it clearly (`Duel`)."""
    selection = recompiled = info = incumbent = None
    if select_top and records is not None and Path(records).is_file():
        history = ApplyHistoryBest(records, device_key)
        recompiled, selection = compile_selected(graph, target, history, device_key, select_top)
        if selection is not None and selection.changed:
            info = _save_atomic(recompiled, tuned_path)
        else:
            recompiled = None
    if current_path is not None and Path(current_path).is_file():
        verdict = duel(graph, tuned_path, current_path, seed=seed)
        if verdict is not None:
            incumbent = {**verdict.to_json(), "message": verdict.describe()}
            if not verdict.replace:
                shutil.copyfile(current_path, tuned_path)
                recompiled = info = None
    paths = {"untuned": untuned_path, "tuned": tuned_path}
    cores = int(parse_target(target).get("cores", "0") or 0) or None
    result = end_to_end(model, graph, paths, "tuned", repeat=repeat, seed=seed, threads=cores)
    latency = {label: result.median(label) for label in result.rounds}
    return Evaluation(
        result.relative_error, latency, result, selection, recompiled, info, incumbent
    )


def deliver(
    latency_ms: Mapping[str, float], tuned_path: str | os.PathLike, untuned_path: str | os.PathLike
) -> str:
    """Hand back the faster of tuned and untuned at `tuned_path` ("tuned" or "untuned").
    With few trials, or a noisy machine, the untuned network can win; the user gets it."""
    if latency_ms["untuned"] < latency_ms["tuned"]:
        shutil.copyfile(untuned_path, tuned_path)
        return "untuned"
    return "tuned"


@dataclass
class JobResult:
    tasks: list[NetworkTask]
    summary: SchedulerSummary | None
    builds: Builds
    evaluation: Evaluation
    delivered: str

    @property
    def compiled(self) -> CompiledNetwork:
        """The tuned network as it was finally compiled (after in-network selection)."""
        return self.evaluation.recompiled or self.builds.tuned

    @property
    def ok(self) -> bool:
        return self.evaluation.relative_error <= tolerance_for(self.compiled.plan.target)


def print_task_count(
    tasks: Sequence[NetworkTask], graph: Graph, stream: TextIO | None = None
) -> None:
    """One line instead of the task table (the tasks are listed after tuning)."""
    groups = {t.group: t.flops * t.weight for t in reversed(tasks)}  # alternatives count once
    print(
        f"Extracted {len(tasks)} tasks from {graph.name} "
        f"({sum(groups.values()) / 1e9:.2f} GFLOPs in tuned ops)",
        file=stream or sys.stdout,
    )


def run_job(
    model: Any,
    graph: Graph,
    options: JobOptions,
    log: str | os.PathLike,
    output: str | os.PathLike,
    resume: bool = False,
    stream: TextIO | None = None,
    reporter: Reporter | None = None,
) -> JobResult:
    """Every step in this process, measuring on this machine; prints the tables (task table,
    scheduler progress through `reporter`, selection) to `stream`. The delivered network is
    at `output`."""
    check_log(log, resume)
    if not Path(output).resolve().parent.is_dir():
        raise RecipeError(f"-o {str(output)!r}: directory does not exist")
    tasks = network_tasks(graph, options.target, options.policy)
    if reporter is None or reporter.shows_task_table or options.trials == 0:
        print_tasks(tasks, graph, stream)
    else:  # the reporter's final table lists them with their results
        reporter.describe([t.describe(graph) for t in tasks])
        print_task_count(tasks, graph, stream)
    summary = None
    if options.trials > 0 and not tasks:
        print("nothing to tune: the network has no tunable ops; compiling it", file=stream)
    store = open_store(options.store) if options.trials > 0 and tasks else None
    try:
        if options.trials > 0 and tasks:
            summary = tune_network(
                tasks,
                options.trials,
                log,
                tuner=options.tuner,
                strategy=options.strategy,
                early_stopping=options.early_stopping,
                settings=options.settings,
                resume=resume,
                trials_per_round=options.trials_per_round,
                seed=options.seed,
                device_key=options.device_key,
                stream=stream,
                policy=options.policy,
                transfer_from=options.transfer_from,
                reporter=reporter,
                store=store,
                reuse=options.reuse,
                reuse_min_trials=options.reuse_min_trials,
            )
    finally:
        if store is not None:
            store.close()
    Path(log).touch()
    with tempfile.TemporaryDirectory(prefix="tunefarm-job-") as tmp:
        untuned = Path(tmp) / "untuned.tfa"
        current = None
        if Path(output).is_file():  # a rerun: what is there now must be beaten clearly
            current = Path(tmp) / "current.tfa"
            shutil.copyfile(output, current)
        builds = compile_builds(graph, options.target, log, options.device_key, output, untuned)
        evaluation = evaluate(
            model,
            graph,
            options.target,
            log,
            options.device_key,
            output,
            untuned,
            options.select_top,
            options.bench_repeat,
            options.seed,
            current_path=current,
        )
        if evaluation.selection is not None and stream is not None:
            evaluation.selection.print(stream)
        if evaluation.incumbent is not None and stream is not None:
            print(evaluation.incumbent["message"], file=stream)
        delivered = deliver(evaluation.latency_ms, output, untuned)
    return JobResult(tasks, summary, builds, evaluation, delivered)
