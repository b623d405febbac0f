"""Whole networks for the time-to-quality benchmark (`time_to_quality.py --networks`).

Each system tunes the whole network for the same wall budget: tunefarm's task scheduler
(gradient strategy, one round = one batch of `--batch` candidates on one task, as MetaSchedule's
gradient scheduler spends one iteration of `num_trials_per_iter` per round) over the network's
tasks with the sketch or the template policy, and MetaSchedule's `tune_relax` over the
network's fused TIR functions in TVM's venv (`_tvm_time_to_quality.py tune-net`).

What a system holds at time t is a whole network: tunefarm's is the graph compiled from
every task's best record found by t, as `tunefarm compile` compiles a log (tasks not measured
yet keep their default schedule, as a tuned network's do; of a node's alternatives, a direct
and a Winograd conv, the one whose record is fastest runs: `graph.extract.
choose_alternative`); MetaSchedule's is `compile_relax` with the database as it was at t
(its tuning-record file cut at the size recorded after the last batch before t; functions
with no record get its DLight fallback). So every checkpoint has a network, tuned or not.

The timer compiles each distinct (system, snapshot) once, checks its output against ONNX
Runtime on one random input (relative error < `MAX_REL_ERR`, else it is left out and said
why), then times all of them in interleaved rounds (one `min_repeat_ms` repeat each, order
rotated every round) and keeps the median, as the op mode does.
"""

from __future__ import annotations

import math
import os
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

import time_to_quality as ttq
from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import NetworkTask, extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.measure import Config
from tunefarm.recipe.reference import onnxruntime_outputs, relative_error
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.tune.dispatch import ApplyHistoryBest
from tunefarm.tune.policy import tuner_factory
from tunefarm.tune.progress import Reporter
from tunefarm.tune.records import Record, make_record
from tunefarm.tune.task_scheduler import TaskScheduler
from tunefarm.tune.tuner import MeasureOption

NETWORKS = ("resnet-18", "bert-tiny")
TARGET = "cpu -cores=1"
POLICIES = {"sketch": ("sketch", "xgb"), "template": ("template", "xgb")}  # policy, tuner
MAX_REL_ERR = 1e-3
_NO_LIMIT = 10**9  # the task scheduler's trial budget: the wall clock ends the search


class OutOfTime(Exception):
    """Raised from the per-batch callback when the wall budget is spent."""


@dataclass
class NetHistory:
    """One network search's record: `events` are (seconds, candidates so far, task index,
    config) for every new best of a task (MetaSchedule: task -1 and the database's size in
    bytes as the 'config'), `bests` the record of each tunefarm event; `points` (seconds,
    candidates) after every batch."""

    system: str
    events: list[tuple[float, int, int, Any]] = field(default_factory=list)
    bests: list[Record | None] = field(default_factory=list)
    points: list[tuple[float, int]] = field(default_factory=list)
    wall_s: float = 0.0
    skipped: str | None = None

    def snapshot_at(self, t: float) -> int:
        """How many events had happened by `t` seconds: the snapshot's handle."""
        return sum(1 for at, *_ in self.events if at <= t)

    def configs(self, snapshot: int) -> dict[int, Config]:
        """Task index -> best config after the first `snapshot` events."""
        out: dict[int, Config] = {}
        for _, _, task, config in self.events[:snapshot]:
            out[task] = config
        return out

    def history(self, snapshot: int) -> ApplyHistoryBest:
        """Each task's best record after the first `snapshot` events, to compile from."""
        latest = {self.events[k][2]: r for k, r in enumerate(self.bests[:snapshot]) if r}
        return ApplyHistoryBest(list(latest.values()))

    def candidates(self) -> int:
        return self.points[-1][1] if self.points else 0


def search_tunefarm(
    system: str, tasks: list[NetworkTask], budget_s: float, seed: int, batch: int
) -> NetHistory:
    """The task scheduler over the network's tasks until `budget_s` wall seconds pass."""
    hist = NetHistory(system)
    policy, tuner = POLICIES[system]
    option = MeasureOption.local(ttq.autosched.SEARCH)
    start = time.perf_counter()
    sched = TaskScheduler(
        [t.task for t in tasks], [float(t.weight) for t in tasks],
        tuner_factory=tuner_factory(policy, tuner), seed=seed,
        groups=[t.group for t in tasks], reporter=Reporter(),
    )  # fmt: skip
    index = {id(s.tuner): i for i, s in enumerate(sched.states)}
    best: dict[int, int | None] = {}
    count = [0]

    def on_batch(tuner, inputs, results) -> None:
        count[0] += len(results)
        now = time.perf_counter() - start
        i = index[id(tuner)]
        if tuner.best_index is not None and tuner.best_index != best.get(i):
            best[i] = tuner.best_index
            (best_input,) = tuner.inputs_for([tuner.best_index])
            hist.events.append((now, count[0], i, best_input.config))
            hist.bests.append(_best_record(tuner, best_input, inputs, results))
        hist.points.append((now, count[0]))
        if now >= budget_s:
            raise OutOfTime

    try:
        sched.tune(_NO_LIMIT, option, trials_per_round=batch, batch_size=batch,
                   callbacks=[on_batch])  # fmt: skip
    except OutOfTime:
        pass
    finally:
        option.close()
    hist.wall_s = time.perf_counter() - start
    return hist


def _best_record(tuner, best_input, inputs, results) -> Record | None:
    """The record of a task's new best, costed at the tuner's belief (`best_cost`: after its
    recheck), so that alternatives compare as the search saw them. A new best comes from the
    batch just booked; None if not (the event then changes nothing compiled)."""
    for inp, res in zip(inputs, results, strict=True):
        if inp.config == best_input.config and res.ok:
            return make_record(inp, replace(res, costs=(tuner.best_cost,)))
    return None


def search_metaschedule(
    python: Path, onnx_path: Path, budget_s: float, seed: int, batch: int, work: Path
) -> NetHistory:
    """MetaSchedule's `tune_relax` in TVM's venv until `budget_s` seconds after its search
    started (its task extraction included); its records say when the database grew."""
    hist = NetHistory("metaschedule")
    records = work / "records.jsonl"
    cmd = [str(python), str(ttq.HERE / "_tvm_time_to_quality.py"), "tune-net", "--onnx",
           str(onnx_path), "--work-dir", str(work / "ms"), "--records", str(records),
           "--seed", str(seed), "--trials-per-iter", str(batch), "--cores", "1"]  # fmt: skip
    with open(work / "ms.log", "w") as err:
        proc = subprocess.Popen(cmd, env=ttq.tvm_env(), stdout=subprocess.PIPE, stderr=err,
                                text=True, start_new_session=True)  # fmt: skip
        try:
            started = any(x.startswith('{"start"') for x in ttq.iter_until_start(proc))
            start = time.perf_counter()
            if not started:
                proc.wait(timeout=60)
                hist.skipped = f"MetaSchedule did not start: {ttq.tail(work / 'ms.log')}"
                return hist
            while proc.poll() is None and time.perf_counter() - start < budget_s:
                time.sleep(0.2)
        finally:
            ttq.stop_group(proc)
    hist.wall_s = time.perf_counter() - start
    size = -1
    for line in records.read_text().splitlines() if records.exists() else []:
        rec = ttq.json.loads(line)
        if rec["t"] > budget_s:
            break
        hist.points.append((rec["t"], rec["candidates"]))
        if rec["db_bytes"] != size:
            size = rec["db_bytes"]
            hist.events.append((rec["t"], rec["candidates"], -1, size))
    if proc.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL) and not hist.points:
        hist.skipped = f"MetaSchedule failed (rc {proc.returncode}): {ttq.tail(work / 'ms.log')}"
    return hist


# -- the timer ------------------------------------------------------------------------------
class _Networks:
    """The compiled networks of every (system, snapshot), checked, ready to time."""

    def __init__(self, name: str, model, graph, work: Path, python: Path | None) -> None:
        self.name, self.graph, self.work = name, graph, work
        self.inputs = random_inputs(graph, 0)
        self.want = onnxruntime_outputs(model, self.inputs)
        self.executors: dict[str, Any] = {}  # id -> executor (MetaSchedule's: its id)
        self.tvm = None
        if python is not None:
            np.savez(work / "inputs.npz", **self.inputs)
            np.savez(work / "want.npz", **self.want)
            self.tvm = ttq.TvmTimer(python)
        self.rejected: dict[str, str] = {}

    def load_tunefarm(self, key: str, history: ApplyHistoryBest) -> None:
        compiled = compile_graph(self.graph, TARGET, history, optimized=True)
        path = self.work / f"{key}.tfa"
        compiled.save(path)
        ex = GraphExecutor.load(path)
        err = relative_error(ex.run(self.inputs), self.want)
        self._keep(key, err, ex)

    def load_metaschedule(self, key: str, ms_dir: Path, db_bytes: int) -> None:
        got = self.tvm.ask(cmd="load-net", id=key, onnx=str(self.work / "model.onnx"),
                           db=str(ms_dir), db_bytes=db_bytes,
                           inputs=str(self.work / "inputs.npz"), want=str(self.work / "want.npz"))  # type: ignore[union-attr]  # fmt: skip
        self._keep(key, got.get("rel_err", math.inf), key, got.get("error"))

    def _keep(self, key: str, err: float, handle: Any, error: str | None = None) -> None:
        """Keep a checked network (`handle`: an executor, or MetaSchedule's id) unless it
        failed (`error`) or its output is off."""
        if error is not None or not err < MAX_REL_ERR:
            why = error if error is not None else f"relative error {err:.1e}"
            self.rejected[key] = why
            ttq.log(f"[{self.name}] network {key} rejected: {why}")
            return
        self.executors[key] = handle

    def time(self, key: str) -> float | None:
        """One timed repeat (number grown to `min_repeat_ms`) of network `key`, seconds."""
        if key.startswith("me"):
            got = self.tvm.ask(cmd="time", id=key, min_repeat_ms=ttq.TIMER.min_repeat_ms)  # type: ignore[union-attr]
            return got.get("seconds")
        timed = self.executors[key].benchmark(repeat=1, min_repeat_ms=ttq.TIMER.min_repeat_ms)
        return timed.costs[0]

    def close(self) -> None:
        if self.tvm:
            self.tvm.close()


def network_of(system: str, h: NetHistory, snapshot: int) -> tuple[str, Any]:
    """What a snapshot compiles to, by content: equal snapshots of different systems (the
    untuned network of both tunefarm policies) are one network, compiled and timed once, so
    timing noise cannot tell them apart."""
    if system == "metaschedule":
        return ("metaschedule", h.events[snapshot - 1][3] if snapshot else 0)
    configs = h.configs(snapshot)
    return ("tunefarm", tuple(sorted((i, repr(c.as_dict())) for i, c in configs.items())))


def retime(
    nets: _Networks, hists: dict[str, NetHistory], points: list[float], rounds: int,
    ms_dir: Path | None,
) -> dict[str, list[float | None]]:  # fmt: skip
    """Seconds per run of each system's network at each checkpoint (None: rejected)."""
    which = {(s, t): network_of(s, h, h.snapshot_at(t)) for s, h in hists.items() for t in points}
    ids = {n: f"{n[0][:2]}{k}" for k, n in enumerate(dict.fromkeys(which.values()))}
    for (s, t), n in which.items():
        if ids[n] in nets.executors or ids[n] in nets.rejected:
            continue
        if s == "metaschedule":
            nets.load_metaschedule(ids[n], ms_dir, n[1])  # type: ignore[arg-type]
        else:
            nets.load_tunefarm(ids[n], hists[s].history(hists[s].snapshot_at(t)))
    keys = [k for k in ids.values() if k in nets.executors]
    costs: dict[str, list[float]] = {k: [] for k in keys}
    for r in range(rounds):
        for k in keys[r % len(keys) :] + keys[: r % len(keys)] if keys else []:
            got = nets.time(k)
            if got is not None:
                costs[k].append(got)
    latency = {k: statistics.median(v) for k, v in costs.items() if v}
    return {s: [latency.get(ids[which[s, t]]) for t in points] for s in hists}


# -- one network ----------------------------------------------------------------------------
def bench_network(name: str, args, index: int, python: Path | None) -> dict[str, Any]:
    """Search, re-time and summarise one whole network (a row like the op mode's)."""
    model, graph = load_model(f"zoo:{name}")
    tasks = extract_tasks(graph, TARGET)
    systems = [s for s in ttq.SYSTEMS if s in args.system_list]
    order = systems[index % len(systems) :] + systems[: index % len(systems)]
    budget = args.points[-1]
    hists: dict[str, NetHistory] = {}
    skipped: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="ttq-net-") as tmp:
        work = Path(tmp)
        (work / "model.onnx").write_bytes(model.SerializeToString())
        for s in order:
            if s == "metaschedule" and python is None:
                skipped[s] = "no --tvm-python given"
                continue
            over = "its own tasks" if s == "metaschedule" else f"{len(tasks)} tasks"
            ttq.log(f"[{name}] {s}: searching {budget:.0f} s over {over} "
                    f"(load {os.getloadavg()[0]:.2f})")  # fmt: skip
            if s == "metaschedule":
                h = search_metaschedule(python, work / "model.onnx", budget, args.seed,  # type: ignore[arg-type]
                                        args.batch, work)  # fmt: skip
            else:
                h = search_tunefarm(s, tasks, budget, args.seed, args.batch)
            if h.skipped:
                skipped[s] = h.skipped
                ttq.log(f"[{name}] {s}: {h.skipped}")
                continue
            hists[s] = h
            ttq.log(f"[{name}] {s}: {h.candidates()} candidates in {h.wall_s:.0f} s")
        ttq.log(f"[{name}] re-timing {args.rounds} rounds (load {os.getloadavg()[0]:.2f})")
        nets = _Networks(name, model, graph, work, python if "metaschedule" in hists else None)
        try:
            curves = retime(nets, hists, args.points, args.rounds, work / "ms")
        finally:
            nets.close()
    row = {
        "op": f"network:{name}",
        "network": name,
        "tasks": len(tasks),
        "order": [s for s in order if s in hists],
        "checkpoints_s": args.points,
        "curves": curves,
        "ttq": ttq.time_to_quality(curves, args.points),
        "candidates": {s: h.candidates() for s, h in hists.items()},
        "search_wall_s": {s: h.wall_s for s, h in hists.items()},
        "candidates_per_s": {s: h.candidates() / max(h.wall_s, 1e-9) for s, h in hists.items()},
        "snapshots": {s: [h.snapshot_at(t) for t in args.points] for s, h in hists.items()},
        "rejected": nets.rejected,
        "skipped": skipped,
        "loadavg_after": os.getloadavg(),
    }
    ttq.log(f"[{name}] time to {ttq.QUALITY:.0%}: {row['ttq']['ttq_s']}")
    return row
