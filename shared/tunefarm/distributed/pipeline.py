"""The steps of a job, as library functions the services call: convert, extract, search (tune,
compile, then evaluate on an agent and deliver). Each step is the network-job recipe's
(`tunefarm.recipe`), run on the service that fits it; what is added here is the job state,
progress and hand-over between services.

A job with `quantize: "int8"` on a target whose backend packs networks (vta) runs the VTA
tutorial's flow in the same steps (`tunefarm.recipe.packed`): extract packs the graph
(graph_pack, kept as packed.npz) and lists its packed convs, search tunes them on the key's
agents, compiles both builds as packed network files (net.tfa, untuned.tfa), and an agent of
the key runs them split between its CPU and the accelerator's simulator and checks the tuned
one bit for bit against the int8 CPU network (the job's `packed` entry).

Every step is idempotent: it checks the job's state before acting, writes its files
atomically and sends the next step only after its own output is in place, so a message
delivered twice (a worker died after finishing but before acknowledging) changes nothing.
"""

from __future__ import annotations

import io
import json
import math
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import onnx

from tunefarm import metrics, recipe
from tunefarm.compiler.tasks import network_tasks
from tunefarm.distributed import records_store
from tunefarm.distributed.artifacts import (
    GRAPH_FILE,
    LOG_FILE,
    MODEL_FILE,
    PACKED_FILE,
    TASKS_FILE,
    TUNED_FILE,
    UNTUNED_FILE,
    ArtifactStore,
)
from tunefarm.distributed.celery_app import EVALUATE, TRANSIENT
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.convert import load_isolated
from tunefarm.distributed.jobs import TERMINAL, JobStore
from tunefarm.distributed.lease import Lease, LeaseHeld, expect, send_step
from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
from tunefarm.distributed.tickets import Stopped
from tunefarm.graph.extract import NetworkTask
from tunefarm.graph.ir import Graph
from tunefarm.recipe import packed as packed_recipe
from tunefarm.task import Task
from tunefarm.tune.callbacks import make_event
from tunefarm.tune.records import load_records
from tunefarm.tune.tuner import MeasureOption

__all__ = ["Lease", "LeaseHeld", "convert", "extract", "search", "evaluate", "JobCancelled"]
EVALUATE_WAIT_S = 900  # one evaluation: selection compiles, the ORT check and the timings


_CONVERTED = "converted"  # the convert step's outcome when it hands the job on


class JobCancelled(Exception):
    """Raised from a tuning callback when the job's cancel flag is set."""


def _enter(jobs: JobStore, job_id: str, state: str, after: str) -> dict[str, Any] | str:
    """Move the job into a step's state if it is in the step before (or already in this one:
    a redelivered message); otherwise the step has run, and the reason to skip is returned.
    Starting the step ends the wait for its message."""
    doc = jobs.get(job_id)
    if doc["state"] not in (after, state):
        return f"skipped: job is {doc['state']}"
    if doc.get("cancel_requested"):
        jobs.set_state(job_id, "cancelled")
        return "cancelled"
    return jobs.set_state(job_id, state, waiting_for=None, waiting=None)


def is_packed(doc: dict[str, Any]) -> bool:
    """Whether a job runs the packed flow: int8 on a target whose backend packs networks."""
    from tunefarm.backends import get_backend, parse_target

    if doc.get("quantize") != "int8":
        return False
    return hasattr(get_backend(parse_target(doc["target"]).kind), "pack_blocks")


def _leased(config: ServiceConfig, job_id: str, owner: str | None) -> Lease | None:
    """The job's lease, or None when another live worker runs a step of it (this message
    is a duplicate: drop it; should that worker die, the watchdog sends the step again)."""
    lease = Lease(config, job_id, owner or uuid.uuid4().hex)
    return lease if lease.acquire() else None


def _chained(
    config: ServiceConfig,
    app: Any,
    job_id: str,
    owner: str | None,
    step: Callable[[ServiceConfig, str], str],
    done: Callable[[str], bool],
    next_step: str,
) -> str:
    """Run a step that hands the job on (convert, extract): under the job's lease,
    `step(config, job_id)`; when its outcome is `done`, the job is marked as waiting for
    `next_step` while the lease is still held and the message is sent once it is released
    (the order `lease.expect` asks for). The step's outcome."""
    lease = _leased(config, job_id, owner)
    if lease is None:
        return "skipped: another worker runs this job"
    with lease:
        outcome = step(config, job_id)
        if done(outcome):
            expect(config, job_id, next_step)
    if done(outcome):
        send_step(config, app, job_id, next_step)
    return outcome


# ----------------------------------------------------------------------------- convert


def convert(config: ServiceConfig, app: Any, job_id: str, owner: str | None = None) -> str:
    """Model (zoo name or upload) -> optimised graph and the ONNX file in the store."""
    return _chained(config, app, job_id, owner, _convert, _CONVERTED.__eq__, "extract")


def _convert(config: ServiceConfig, job_id: str) -> str:
    jobs, store = JobStore(config), ArtifactStore(config.artifacts)
    doc = _enter(jobs, job_id, "converting", after="queued")
    if isinstance(doc, str):
        return doc
    model_path = store.job_file(job_id, MODEL_FILE)
    source = str(model_path) if doc["model"].startswith("upload:") else doc["model"]
    try:
        model, graph = load_isolated(source, doc.get("input_shapes"), doc.get("batch", 1))
    except Exception as exc:  # FrontendError names the node and op; anything else is a bug
        jobs.fail(job_id, f"conversion failed: {exc}")
        return "failed"
    if not model_path.exists():
        store.write_bytes(store.relative(model_path), model.SerializeToString())
    graph.save(str(store.job_file(job_id, GRAPH_FILE)))
    jobs.update(job_id, name=doc.get("name") or graph.name, graph=graph.summary())
    return _CONVERTED


# ----------------------------------------------------------------------------- extract


def extract(config: ServiceConfig, app: Any, job_id: str, owner: str | None = None) -> str:
    """Graph -> weighted tuning tasks (tasks.json) and the job's initial task table."""
    return _chained(config, app, job_id, owner, _extract_or_fail, _extracted, "search")


def _extracted(outcome: str) -> bool:
    return outcome.endswith(" tasks")


def _extract_or_fail(config: ServiceConfig, job_id: str) -> str:
    try:
        return _extract(config, job_id)
    except TRANSIENT as exc:  # Redis went away: the watchdog sends the step again
        return f"interrupted: Redis unavailable ({exc})"
    except Exception as exc:  # e.g. graph_pack refusing a node: the same on every retry
        JobStore(config).fail(job_id, f"task extraction failed: {type(exc).__name__}: {exc}")
        return "failed"


def _extract(config: ServiceConfig, job_id: str) -> str:
    jobs, store = JobStore(config), ArtifactStore(config.artifacts)
    doc = _enter(jobs, job_id, "extracting", after="converting")
    if isinstance(doc, str):
        return doc
    graph = Graph.load(str(store.job_file(job_id, GRAPH_FILE)))
    if is_packed(doc):
        graph = packed_recipe.pack_for_target(graph, doc["target"])
        graph.save(str(store.job_file(job_id, PACKED_FILE)))
        tasks = _packed_tasks(graph, doc["target"])
    else:
        tasks = network_tasks(graph, doc["target"], doc.get("policy", "template"))
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
    return f"{len(tasks)} tasks"


def _packed_tasks(packed: Graph, target: str) -> list[NetworkTask]:
    """The packed graph's tuning tasks as network tasks (the nodes that run each one)."""
    from tunefarm.backends import registry
    from tunefarm.graph.passes.graph_pack import node_task, packed_tasks, tuning_task

    nodes: dict[str, list[str]] = {}
    for node in packed.nodes:
        if node.op == "conv2d_packed":
            key = tuning_task(node_task(packed, node, target)).workload_key
            nodes.setdefault(key, []).append(node.name)
    return [
        NetworkTask(task, n, tuple(nodes[task.workload_key]), registry.flops(task), i)
        for i, (task, n) in enumerate(packed_tasks(packed, target))
    ]


def _table_row(
    i: int, row: dict[str, Any], report: Any = None, reuse: dict[str, Any] | None = None
) -> dict[str, Any]:
    ok = report is not None and math.isfinite(report.best_latency_s)
    store = {}
    if reuse is not None:  # "N trials in store, best X GFLOP/s" and whether it was reused
        saved = reuse["trials_in_store"] if reuse["reused"] else 0
        store = {"store": reuse["message"], "reused": reuse["reused"], "trials_saved": saved}
    return {
        **store,
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

    rows = json.loads(path.read_text())
    tasks = [
        NetworkTask(
            Task.from_json(r["task"]), r["weight"], tuple(r["nodes"]), r["flops"], r.get("group", i)
        )
        for i, r in enumerate(rows)
    ]
    return tasks, rows


# ----------------------------------------------------------------------------- search


class Progress:
    """Tuning callbacks that publish a job's progress: events, the task table, metrics, and
    the cancel check (raising JobCancelled between batches)."""

    def __init__(self, jobs: JobStore, job_id: str, rows: list[dict[str, Any]], done: int):

        self.jobs, self.job_id, self.rows, self.done = jobs, job_id, rows, done
        self.index = {r["workload_key"]: i for i, r in enumerate(rows)}
        self.errors: Counter[str] = Counter(jobs.get(job_id).get("errors") or {})
        self.metrics = metrics
        self._checked = 0.0

    def on_batch(self, tuner, inputs, results) -> None:

        event = make_event(tuner, inputs, results)
        task = self.index.get(event.workload_key, -1)
        self.done += event.batch_size
        self.errors.update(event.errors)
        for status, n in {"ok": event.ok, **event.errors}.items():
            if n:
                self.metrics.TRIALS.labels(self.job_id, str(task), status).inc(n)
        self.metrics.BEST_GFLOPS.labels(self.job_id, str(task)).set(event.best_gflops)
        self.jobs.add_event(self.job_id, "batch", {"task": task, **event.to_json()})
        # results came in: whatever was re-sent or restored has been answered
        fields = {"trials_done": self.done, "errors": dict(self.errors), "waiting": None}
        doc = self.jobs.update(self.job_id, **fields)
        if doc.get("cancel_requested"):
            raise JobCancelled(self.job_id)

    def on_wait(self, reason: str) -> None:
        """A candidate or the evaluation had to be sent again: say so in the job."""
        try:
            self.jobs.update(self.job_id, waiting={"reason": reason, "since": time.time()})
            self.jobs.add_event(self.job_id, "waiting", {"reason": reason})
        except Exception:  # Redis is what is missing: the waiter retries, this can wait
            pass

    def should_stop(self) -> bool:
        """Checked while waiting on workers, at most once a second: the cancel flag."""
        now = time.monotonic()
        if now - self._checked < 1.0:
            return False
        self._checked = now
        try:
            return bool(self.jobs.get(self.job_id).get("cancel_requested"))
        except Exception:  # Redis away: keep waiting
            return False

    def on_round(self, summary) -> None:
        reuse = {t["index"]: t for t in (summary.reuse or {}).get("tasks", [])}
        table = [_table_row(i, self.rows[i], r, reuse.get(i)) for i, r in enumerate(summary.tasks)]
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
    network, and have an agent of that key evaluate it. Resumes from the job's records log.
    A message for a job another live worker holds is dropped (see `lease`)."""
    jobs = JobStore(config)
    doc = jobs.get(job_id)
    if doc["state"] in TERMINAL:
        return f"skipped: job is {doc['state']}"
    lease = _leased(config, job_id, owner)
    if lease is None:
        return "skipped: another worker runs this job"
    with lease:
        doc = _enter(jobs, job_id, "tuning", after="extracting")
        if isinstance(doc, str) and jobs.get(job_id)["state"] in ("compiling", "evaluating"):
            jobs.update(job_id, waiting_for=None, waiting=None)  # resumed after a dead worker
        elif isinstance(doc, str):
            return doc
        progress = None
        try:
            progress = _tune(config, app, jobs, job_id)
            _compile(config, jobs, job_id)
            _evaluate(config, app, jobs, job_id, progress)
        except (JobCancelled, Stopped):
            jobs.set_state(job_id, "cancelled")
            return "cancelled"
        except TRANSIENT as exc:  # Redis went away: not the job's fault; the lease lapses
            # and the watchdog sends the job again once Redis is back (it resumes from the log)
            return f"interrupted: Redis unavailable ({exc})"
        except Exception as exc:
            jobs.fail(job_id, f"{type(exc).__name__}: {exc}")
            return "failed"
    return "done"


def _tune(config: ServiceConfig, app: Any, jobs: JobStore, job_id: str) -> Progress:
    doc = jobs.set_state(job_id, "tuning")
    store = ArtifactStore(config.artifacts)
    tasks, rows = load_tasks(store.job_file(job_id, TASKS_FILE))
    log = store.job_file(job_id, LOG_FILE)
    log.touch()
    progress = Progress(jobs, job_id, rows, len(load_records(log, [])))
    if doc["trials"] <= 0:
        return progress
    hooks = {"on_wait": progress.on_wait, "should_stop": progress.should_stop}
    # a packed conv's time is simulated cycles: one run tells all (no cache to flush)
    if is_packed(doc):
        settings = packed_recipe.PackedJobOptions(target=doc["target"]).settings
    else:
        settings = recipe.network_settings()
    from tunefarm.backends import parse_target

    # a device's kernels are timed on the device: the next batch is proposed meanwhile
    ahead = parse_target(doc["target"]).kind != "cpu"
    option = MeasureOption(
        CeleryBuilder(app, **hooks),
        CeleryRunner(app, doc["device_key"], settings, propose_ahead=ahead, **hooks),
    )
    reader, writer = records_store.open_for_job(config, doc)
    summary = None
    try:
        summary = recipe.tune_network(
            tasks,
            doc["trials"],
            log,
            tuner=doc.get("tuner", "xgb"),
            policy=doc.get("policy", "template"),
            early_stopping=doc.get("early_stopping"),
            resume=True,
            measure_option=option,
            device_key=doc["device_key"],
            stream=io.StringIO(),
            callbacks=[progress.on_batch],
            on_round=progress.on_round,
            store=reader,
            reuse=doc.get("reuse", "warm"),
            reuse_min_trials=doc.get("reuse_min_trials", recipe.JobOptions.reuse_min_trials),
            store_put=writer.put if writer is not None else None,
        )
    finally:
        records_store.publish(reader, writer, summary.reuse if summary else None)
        records_store.close(reader, writer)
    if summary is not None:
        records_store.refresh(config, doc)
    return progress


def _compile(config: ServiceConfig, jobs: JobStore, job_id: str) -> None:
    """Both builds into the store: tuned (the best record per task) and untuned."""
    doc = jobs.set_state(job_id, "compiling")
    store = ArtifactStore(config.artifacts)
    if is_packed(doc):
        infos = packed_recipe.compile_packed_builds(
            Graph.load(str(store.job_file(job_id, PACKED_FILE))),
            doc["target"],
            store.job_file(job_id, LOG_FILE),
            doc["device_key"],
            store.job_file(job_id, TUNED_FILE),
            store.job_file(job_id, UNTUNED_FILE),
        )
        jobs.update(job_id, fallbacks=infos["fallbacks"])
        return
    builds = recipe.compile_builds(
        Graph.load(str(store.job_file(job_id, GRAPH_FILE))),
        doc["target"],
        store.job_file(job_id, LOG_FILE),
        doc["device_key"],
        store.job_file(job_id, TUNED_FILE),
        store.job_file(job_id, UNTUNED_FILE),
    )
    fallbacks = [f"{c.task.workload_key}: {c.reason}" for c in builds.tuned.fallbacks()]
    jobs.update(job_id, fallbacks=fallbacks)


def _evaluate(
    config: ServiceConfig, app: Any, jobs: JobStore, job_id: str, progress: Progress
) -> None:
    """Have an agent of the job's key evaluate both builds (`evaluate`), then deliver the
    faster one as net.tfa and say which in `delivered`. The evaluation is a ticket: an agent
    that dies mid-way costs the claim TTL, then another agent of the key takes it."""
    doc = jobs.set_state(job_id, "evaluating")
    remote = CeleryRunner(
        app, doc["device_key"], recipe.network_settings(),
        on_wait=progress.on_wait, should_stop=progress.should_stop,
    )  # fmt: skip
    item = remote.pending(EVALUATE, remote.queue, [job_id], "evaluation", fair=False)
    reply = remote.waiter().wait([item], EVALUATE_WAIT_S + config.visibility_timeout_s)
    reply = reply[item.ticket]
    if isinstance(reply, Exception):
        raise RuntimeError(f"evaluation on an agent of {doc['device_key']!r}: {reply}")
    jobs.update(job_id, selection=reply.get("selection"), waiting=None)
    store = ArtifactStore(config.artifacts)
    packed = reply.get("packed")
    if packed is not None:  # the accelerator's simulated time decides: it has no noise
        by = {k: packed[k]["accel_ms"] for k in ("tuned", "untuned")}
        jobs.update(job_id, packed=packed)
    delivered = recipe.deliver(
        by if packed is not None else reply["latency_ms"],
        store.job_file(job_id, TUNED_FILE),
        store.job_file(job_id, UNTUNED_FILE),
    )
    jobs.set_state(
        job_id,
        "done",
        latency_ms=reply["latency_ms"],
        relative_error=reply["relative_error"],
        delivered=delivered,
    )


def evaluate(config: ServiceConfig, job_id: str, repeat: int = 10) -> dict[str, Any]:
    """On an agent: the recipe's evaluate step on this device. In-network selection rewrites
    net.tfa (atomically) when it changes a choice; the tuned build is checked against ONNX
    Runtime, and tuned, untuned and ONNX Runtime are timed."""
    store = ArtifactStore(config.artifacts)
    doc = JobStore(config).get(job_id)
    if is_packed(doc):
        result = packed_recipe.evaluate_packed(
            Graph.load(str(store.job_file(job_id, GRAPH_FILE))),
            store.job_file(job_id, TUNED_FILE),
            store.job_file(job_id, UNTUNED_FILE),
        )
        latency = {k: result[k]["total_ms"] for k in ("tuned", "untuned")}
        return {"latency_ms": latency, "relative_error": None, "packed": result}
    evaluation = recipe.evaluate(
        onnx.load(str(store.job_file(job_id, MODEL_FILE))),
        Graph.load(str(store.job_file(job_id, GRAPH_FILE))),
        doc["target"],
        store.job_file(job_id, LOG_FILE),
        doc["device_key"],
        store.job_file(job_id, TUNED_FILE),
        store.job_file(job_id, UNTUNED_FILE),
        select_top=doc.get("select_top", recipe.JobOptions.select_top),
        repeat=repeat,
    )
    return evaluation.to_json()
