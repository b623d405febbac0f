"""The steps of a job, as library functions the services call: convert, extract, search (tune,
compile, evaluate), and the per-candidate build and measure.

Every step is idempotent: it checks the job's state before acting, writes its files
atomically and sends the next step only after its own output is in place, so a message
delivered twice (a worker died after finishing but before acknowledging) changes nothing.
"""

from __future__ import annotations

import io
import json
import math
import shutil
import threading
import time
import uuid
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.celery_app import EVALUATE, EXTRACT, SEARCH
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.jobs import TERMINAL, JobStore
from tunefarm.distributed.tracker import measure_queue

GRAPH_FILE, MODEL_FILE, TASKS_FILE = "graph.npz", "model.onnx", "tasks.json"
LOG_FILE, TUNED_FILE, UNTUNED_FILE = "records.jsonl", "net.tfa", "untuned.tfa"


class JobCancelled(Exception):
    """Raised from a tuning callback when the job's cancel flag is set."""


class LeaseHeld(Exception):
    """Another live search worker holds the job; try again later."""


def _enter(jobs: JobStore, job_id: str, state: str, after: str) -> dict[str, Any] | str:
    """Move the job into a step's state if it is in the step before (or already in this one:
    a redelivered message); otherwise the step has run, and the reason to skip is returned."""
    doc = jobs.get(job_id)
    if doc["state"] not in (after, state):
        return f"skipped: job is {doc['state']}"
    return jobs.set_state(job_id, state)


# ----------------------------------------------------------------------------- convert


def convert(config: ServiceConfig, app: Any, job_id: str) -> str:
    """Model (zoo name or upload) -> optimised graph and the ONNX file in the store."""
    from tunefarm.network import load_model

    jobs, store = JobStore(config), ArtifactStore(config.artifacts)
    doc = _enter(jobs, job_id, "converting", after="queued")
    if isinstance(doc, str):
        return doc
    model_path = store.job_file(job_id, MODEL_FILE)
    source = str(model_path) if doc["model"].startswith("upload:") else doc["model"]
    try:
        model, graph = load_model(source, doc.get("input_shapes"), doc.get("batch", 1))
    except Exception as exc:  # FrontendError names the node and op; anything else is a bug
        jobs.fail(job_id, f"conversion failed: {exc}")
        return "failed"
    if not model_path.exists():
        store.write_bytes(store.relative(model_path), model.SerializeToString())
    graph.save(str(store.job_file(job_id, GRAPH_FILE)))
    jobs.update(job_id, name=doc.get("name") or graph.name, graph=graph.summary())
    app.send_task(EXTRACT, args=[job_id], queue="extract")
    return "converted"


# ----------------------------------------------------------------------------- extract


def extract(config: ServiceConfig, app: Any, job_id: str) -> str:
    """Graph -> weighted tuning tasks (tasks.json) and the job's initial task table."""
    from tunefarm.graph.ir import Graph
    from tunefarm.graph.tasks import extract_tasks

    jobs, store = JobStore(config), ArtifactStore(config.artifacts)
    doc = _enter(jobs, job_id, "extracting", after="converting")
    if isinstance(doc, str):
        return doc
    graph = Graph.load(str(store.job_file(job_id, GRAPH_FILE)))
    tasks = extract_tasks(graph, doc["target"])
    rows = [
        {
            "task": t.task.to_json(),
            "workload_key": t.task.workload_key,
            "weight": t.weight,
            "nodes": list(t.nodes),
            "flops": t.flops,
            "group": t.group,
            "describe": t.describe(graph),
        }
        for t in tasks
    ]
    data = json.dumps(rows).encode()
    store.write_bytes(store.relative(store.job_file(job_id, TASKS_FILE)), data)
    jobs.update(job_id, tasks=[_table_row(i, r) for i, r in enumerate(rows)])
    app.send_task(SEARCH, args=[job_id], queue="search")
    return f"{len(tasks)} tasks"


def _table_row(i: int, row: dict[str, Any], report: Any = None) -> dict[str, Any]:
    ok = report is not None and math.isfinite(report.best_latency_s)
    return {
        "id": i,
        "workload_key": row["workload_key"],
        "task": row["describe"],
        "weight": row["weight"],
        "mflops": row["flops"] / 1e6,
        "latency_ms": report.best_latency_s * 1e3 if ok else None,
        "gflops": report.gflops if ok else None,
        "trials": report.trials if report is not None else 0,
    }


def load_tasks(path: Path):
    from tunefarm.graph.tasks import NetworkTask
    from tunefarm.task import Task

    rows = json.loads(path.read_text())
    tasks = [
        NetworkTask(
            Task.from_json(r["task"]), r["weight"], tuple(r["nodes"]), r["flops"], r.get("group", i)
        )
        for i, r in enumerate(rows)
    ]
    return tasks, rows


# ----------------------------------------------------------------------------- search


class Lease:
    """A Redis lease on a job, so one search worker at a time runs it. Refreshed from a
    thread every TTL/3; a worker that dies lets it lapse within the TTL."""

    _REFRESH = (
        "if redis.call('get', KEYS[1]) == ARGV[1] then "
        "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
    )

    def __init__(self, config: ServiceConfig, job_id: str, owner: str) -> None:
        self.r, self.owner = config.redis(), owner
        self.key = config.key("job", job_id, "lease")
        self.ttl_ms = int(config.heartbeat_ttl_s * 1000)
        self._stop = threading.Event()

    def acquire(self) -> bool:
        return bool(self.r.set(self.key, self.owner, nx=True, px=self.ttl_ms))

    def _refresh(self) -> None:
        while not self._stop.wait(self.ttl_ms / 3000):
            try:
                self.r.eval(self._REFRESH, 1, self.key, self.owner, self.ttl_ms)
            except Exception:  # a Redis blip: the next refresh tries again
                pass

    def __enter__(self) -> Lease:
        threading.Thread(target=self._refresh, name="job-lease", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.r.get(self.key) == self.owner:
            self.r.delete(self.key)


class Progress:
    """Tuning callbacks that publish a job's progress: events, the task table, metrics, and
    the cancel check (raising JobCancelled between batches)."""

    def __init__(self, jobs: JobStore, job_id: str, rows: list[dict[str, Any]], done: int):
        from tunefarm import metrics

        self.jobs, self.job_id, self.rows, self.done = jobs, job_id, rows, done
        self.index = {r["workload_key"]: i for i, r in enumerate(rows)}
        self.errors: Counter[str] = Counter(jobs.get(job_id).get("errors") or {})
        self.metrics = metrics

    def on_batch(self, tuner, inputs, results) -> None:
        from tunefarm.tune.callbacks import make_event

        event = make_event(tuner, inputs, results)
        task = self.index.get(event.workload_key, -1)
        self.done += event.batch_size
        self.errors.update(event.errors)
        for status, n in {"ok": event.ok, **event.errors}.items():
            if n:
                self.metrics.TRIALS.labels(self.job_id, str(task), status).inc(n)
        self.metrics.BEST_GFLOPS.labels(self.job_id, str(task)).set(event.best_gflops)
        self.jobs.add_event(self.job_id, "batch", {"task": task, **event.to_json()})
        doc = self.jobs.update(self.job_id, trials_done=self.done, errors=dict(self.errors))
        if doc.get("cancel_requested"):
            raise JobCancelled(self.job_id)

    def on_round(self, summary) -> None:
        table = [_table_row(i, self.rows[i], r) for i, r in enumerate(summary.tasks)]
        total = summary.estimated_total_latency_s
        latency = total * 1e3 if math.isfinite(total) else None
        if latency is not None:
            self.metrics.ESTIMATED_LATENCY.labels(self.job_id).set(latency)
        self.jobs.update(
            self.job_id, tasks=table, estimated_latency_ms=latency, trials_done=summary.trials
        )
        self.jobs.add_event(
            self.job_id,
            "round",
            {"tasks": table, "estimated_latency_ms": latency, "trials_done": summary.trials},
        )


def search(config: ServiceConfig, app: Any, job_id: str, owner: str | None = None) -> str:
    """Tune the job's tasks through the build farm and its device key's agents, compile the
    network, and have an agent of that key evaluate it. Resumes from the job's records log."""
    jobs = JobStore(config)
    doc = jobs.get(job_id)
    if doc["state"] in TERMINAL:
        return f"skipped: job is {doc['state']}"
    lease = Lease(config, job_id, owner or uuid.uuid4().hex)
    if not lease.acquire():
        raise LeaseHeld(job_id)
    with lease:
        if jobs.cancel_requested(job_id):
            jobs.set_state(job_id, "cancelled")
            return "cancelled"
        try:
            _tune(config, app, jobs, job_id)
            _compile(config, jobs, job_id)
            _evaluate(config, app, jobs, job_id)
        except JobCancelled:
            jobs.set_state(job_id, "cancelled")
            return "cancelled"
        except Exception as exc:
            jobs.fail(job_id, f"{type(exc).__name__}: {exc}")
            return "failed"
    return "done"


def _tune(config: ServiceConfig, app: Any, jobs: JobStore, job_id: str) -> None:
    from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
    from tunefarm.network import network_settings, tune_network
    from tunefarm.tune.records import load_records
    from tunefarm.tune.tuner import MeasureOption

    doc = jobs.set_state(job_id, "tuning")
    store = ArtifactStore(config.artifacts)
    tasks, rows = load_tasks(store.job_file(job_id, TASKS_FILE))
    log = store.job_file(job_id, LOG_FILE)
    log.touch()
    if doc["trials"] <= 0:
        return
    progress = Progress(jobs, job_id, rows, len(load_records(log, [])))
    option = MeasureOption(
        CeleryBuilder(app), CeleryRunner(app, doc["device_key"], network_settings())
    )
    tune_network(
        tasks,
        doc["trials"],
        log,
        tuner=doc.get("tuner", "xgb"),
        early_stopping=doc.get("early_stopping"),
        resume=True,
        measure_option=option,
        device_key=doc["device_key"],
        stream=io.StringIO(),
        callbacks=[progress.on_batch],
        on_round=progress.on_round,
    )


def _compile(config: ServiceConfig, jobs: JobStore, job_id: str) -> None:
    from tunefarm.compiler import compile_graph
    from tunefarm.graph.ir import Graph

    doc = jobs.set_state(job_id, "compiling")
    store = ArtifactStore(config.artifacts)
    graph = Graph.load(str(store.job_file(job_id, GRAPH_FILE)))
    log = str(store.job_file(job_id, LOG_FILE))
    for name, records in ((TUNED_FILE, log), (UNTUNED_FILE, None)):
        compiled = compile_graph(
            graph, doc["target"], records=records, device_key=doc["device_key"], optimized=True
        )
        tmp = store.job_file(job_id, f".{name}.tmp")
        compiled.save(str(tmp))
        tmp.replace(store.job_file(job_id, name))
        if records is not None:
            fallbacks = [f"{c.task.workload_key}: {c.reason}" for c in compiled.fallbacks()]
            jobs.update(job_id, fallbacks=fallbacks)


def _evaluate(config: ServiceConfig, app: Any, jobs: JobStore, job_id: str) -> None:
    """Time both builds on a device of the job's key; the artifact handed back (net.tfa) is
    the faster one, and `delivered` says which."""
    doc = jobs.set_state(job_id, "evaluating")
    result = app.send_task(EVALUATE, args=[job_id], queue=measure_queue(doc["device_key"]))
    wait = 900 + 2 * config.visibility_timeout_s
    reply = result.get(timeout=wait, disable_sync_subtasks=False)
    result.forget()
    latency = reply["latency_ms"]
    jobs.update(job_id, selection=reply.get("selection"))
    delivered = "tuned"
    if latency["untuned"] < latency["tuned"]:  # too few trials, or noise: hand back the faster
        store = ArtifactStore(config.artifacts)
        shutil.copyfile(store.job_file(job_id, UNTUNED_FILE), store.job_file(job_id, TUNED_FILE))
        delivered = "untuned"
    jobs.set_state(
        job_id,
        "done",
        latency_ms=latency,
        relative_error=reply["relative_error"],
        delivered=delivered,
    )


def evaluate(config: ServiceConfig, job_id: str, repeat: int = 10) -> dict[str, Any]:
    """On an agent: choose the tuned configs inside the network (in-network selection, which
    rewrites net.tfa when it changes a choice), check the tuned network against ONNX Runtime
    and time tuned, untuned and ONNX Runtime on this device."""
    import onnx

    from tunefarm.graph.ir import Graph
    from tunefarm.network import end_to_end

    store = ArtifactStore(config.artifacts)
    model = onnx.load(str(store.job_file(job_id, MODEL_FILE)))
    graph = Graph.load(str(store.job_file(job_id, GRAPH_FILE)))
    selection = _select_in_network(config, store, job_id, graph)
    paths = {
        "tuned": store.job_file(job_id, TUNED_FILE),
        "untuned": store.job_file(job_id, UNTUNED_FILE),
    }
    result = end_to_end(model, graph, paths, "tuned", repeat=repeat)
    latency = {label: result.median(label) for label in result.rounds}
    return {"relative_error": result.relative_error, "latency_ms": latency, "selection": selection}


def _select_in_network(
    config: ServiceConfig, store: ArtifactStore, job_id: str, graph: Any
) -> dict[str, Any] | None:
    """Re-rank each task's `select_top` best records by their time inside the network on
    this device (`compiler.select`); when any choice changes, net.tfa is recompiled with the
    new choices (atomically, so a redelivered evaluate sees either build). Returns the
    selection report, or None when the job asked for none or has no records."""
    from tunefarm.compiler.select import DEFAULT_TOP_K, compile_selected
    from tunefarm.tune.records import ApplyHistoryBest

    doc = JobStore(config).get(job_id)
    top_k = doc.get("select_top", DEFAULT_TOP_K)
    log = store.job_file(job_id, LOG_FILE)
    if not top_k or not log.is_file():
        return None
    history = ApplyHistoryBest(str(log), doc["device_key"])
    compiled, selection = compile_selected(graph, doc["target"], history, doc["device_key"], top_k)
    if selection.changed:
        tmp = store.job_file(job_id, f".{TUNED_FILE}.selected.tmp")
        compiled.save(str(tmp))
        tmp.replace(store.job_file(job_id, TUNED_FILE))
    return selection.to_json()


# ----------------------------------------------------------------------------- candidates


_CC_IDENTITY: dict[str, str] = {}


def build_candidate(
    config: ServiceConfig, inp_json: dict, timeout_s: float, options: list[str]
) -> dict[str, Any]:
    """On a build worker: generate and compile one candidate into the store's kernel cache
    (keyed by source hash, so a repeated build is a cache hit)."""
    from tunefarm.measure.cache import compiler_identity
    from tunefarm.measure.hooks import default_generate
    from tunefarm.measure.types import MeasureInput
    from tunefarm.measure.worker import BuildJob, build_one

    store = ArtifactStore(config.artifacts)
    if "gcc" not in _CC_IDENTITY:
        _CC_IDENTITY["gcc"] = compiler_identity("gcc")
    job = BuildJob(
        MeasureInput.from_json(inp_json),
        default_generate,
        "gcc",
        _CC_IDENTITY["gcc"],
        tuple(options),
        str(store.kernels_dir()),
        float(timeout_s),
    )
    result = build_one(job)
    if result.artifact is not None:
        result = replace(result, artifact=store.relative(result.artifact))
    return result.to_json()


class AgentRunner:
    """On a device agent: one LocalRunner per measure settings (it caches reference data per
    workload), fed with build results localised to this host's artifact store."""

    def __init__(self, config: ServiceConfig) -> None:
        self.store = ArtifactStore(config.artifacts)
        self._runners: dict[str, Any] = {}

    def measure(self, build_json: dict, inp_json: dict, settings_json: dict) -> dict[str, Any]:
        from tunefarm.distributed.remote import localize
        from tunefarm.measure.runner import LocalRunner
        from tunefarm.measure.types import BuildResult, MeasureInput, MeasureSettings

        key = json.dumps(settings_json, sort_keys=True)
        if key not in self._runners:
            self._runners[key] = LocalRunner(MeasureSettings.from_json(settings_json))
        build = localize(BuildResult.from_json(build_json), self.store)
        start = time.perf_counter()
        result = self._runners[key].run([MeasureInput.from_json(inp_json)], [build])[0]
        return {**result.to_json(), "agent_seconds": time.perf_counter() - start}
