"""Time to quality: how good is each system's schedule after N seconds of search?

For every op, tunefarm's sketch policy, its template policy (the XGBoost tuner on the op's
template) and Apache TVM's MetaSchedule each search for the same wall-clock budget on the same
core. Each search records its best-so-far schedule with a timestamp after every measured batch
(16 candidates for all three). After the searches, ONE timer outside them re-times, for every
checkpoint (default 30 s, 1, 2, 5, 10, 20 min; `--budget-scale 0.1` makes them 3 s ... 2 min),
the schedule each system held at that moment, in interleaved rounds (every schedule once per
round, the order rotated each round), and keeps the median: no search's own measurement luck
counts, and load that changes during the run hits every system alike.

Why the searches run one after another and not in time slices: a search paused mid-batch
(SIGSTOP) sees its measurement timeouts expire and its timed runs stretched, which would
corrupt the very results it learns from; both systems' runners time kernels in child
processes with wall-clock timeouts. So each search runs alone, pinned to the core, for its
whole budget, and the order of the three is rotated from op to op (so none always runs first,
on a cooler or quieter machine). Only the re-timing, which is what the figures come from, is
interleaved.

How MetaSchedule reports its best-so-far (fairly): it runs in TVM's own venv
(`_tvm_time_to_quality.py tune`) with no trial limit and 16 candidates per batch (tunefarm's
batch size; MetaSchedule's default of 64 would leave it nothing to show at the first
checkpoints); a measure callback appends after every batch its elapsed time and, when its best
changed, the best schedule's trace. Recording a trace is cheap, so the search's clock carries no
work it would not do on its own; the timer rebuilds the trace later, off the clock. This
script kills the search when its budget is spent. Each system's clock starts when its search
starts, after its interpreter's imports (`import tvm` is not search time, nor is importing
tunefarm); MetaSchedule's space generation, builder pool start and database writes are its
own work and count. MetaSchedule builds with its LocalBuilder minus the tensor-intrinsics
import (../shared/notes/tvm-metaschedule.md) and times with the weights pre-packed in the
layout its schedule chose, as `benchmarks/metaschedule.py` does.

The timer: tunefarm schedules are built once and timed by tunefarm's runner
(`MeasureSettings(repeat=1, min_repeat_ms=50)`: `number` grows until one repeat lasts 50 ms);
MetaSchedule schedules by a long-lived TVM process (`_tvm_time_to_quality.py serve`) with
`time_evaluator(number=1, repeat=1, min_repeat_ms=50)`, the same rule, on identical shapes.
The whole benchmark (searches, builds, both timers) is pinned to one core (`--cpu`), one
thread each (`cpu -cores=1`, TVM_NUM_THREADS=1, MetaSchedule's target num-cores 1).

The figure of merit, per op: the best latency any system reached at any checkpoint; the
target is 95% of its quality (latency <= best / 0.95); each system's time to quality is the
first checkpoint where its re-timed schedule meets the target (None if never within the
budget). Its resolution is the checkpoint grid (`--checkpoints` for a finer one). Geomeans
over ops count a system that never got there as the last checkpoint (a lower bound; the
count of such ops is printed beside it). Candidates per second: candidates measured by the
search / its wall time.

    python benchmarks/time_to_quality.py --ops conv_56_64_64_3x3,dense_768x768 \
        --budget-scale 0.25 --tvm-python /work/tvmenv/bin/python --json ttq.json --png ttq.png
    python benchmarks/time_to_quality.py --report ttq.json [--png ttq.png]

Whole networks (`--networks resnet-18,bert-tiny`, after the ops; `--ops none` for networks
only): the same three systems tune the whole network for the same budget, and the timer
re-times each system's whole network at every checkpoint (`_ttq_network.py` says how):

    python benchmarks/time_to_quality.py --ops none --networks resnet-18,bert-tiny \
        --tvm-python /work/tvmenv/bin/python --json ttq-net.json --png ttq-net.png

Without `--tvm-python` MetaSchedule is skipped, and the JSON says why.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

if __name__ == "__main__":  # `_ttq_network` imports this module by name: the same one
    sys.modules.setdefault("time_to_quality", sys.modules[__name__])

import _report
import _ttq_network as net
import autoscheduler as autosched
from _select import select_names
from tunefarm.backends import registry
from tunefarm.measure import MeasureInput, MeasureSettings
from tunefarm.schedule.template import conv_params
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption

HERE = Path(__file__).resolve().parent
CHECKPOINTS_S = (30, 60, 120, 300, 600, 1200)
SYSTEMS = ("sketch", "template", "metaschedule")
TUNERS = {"sketch": "sketch", "template": "xgb"}  # tunefarm system -> make_tuner kind
BATCH = 16
TIMER = MeasureSettings(repeat=1, min_repeat_ms=50, timeout_s=30)
QUALITY = 0.95
COLOURS = {"sketch": "tab:blue", "template": "tab:orange", "metaschedule": "tab:green"}
EXTRA_OPS = [
    autosched.Op(
        "depthwise_56_128_3x3",
        Task.make("conv2d", data=(1, 128, 56, 56), weight=(128, 1, 3, 3), strides=1,
                  padding=1, groups=128),
        ("Conv", {"kernel_shape": [3, 3], "pads": [1] * 4, "group": 128}), "weight",
    ),
    autosched.Op(
        "conv_17_128_128_1x7",
        Task.make("conv2d", data=(1, 128, 17, 17), weight=(128, 128, 1, 7), strides=1,
                  padding=(0, 3)),
        ("Conv", {"kernel_shape": [1, 7], "pads": [0, 3, 0, 3]}), "weight",
    ),
]  # fmt: skip
# a small op for the smoke test and CI-sized runs (not in "all")
SMOKE = autosched.Op("smoke_dense_16x64x64", Task.make("dense", data=(16, 64), weight=(64, 64)),
                     autosched.BERT_OPS[0].onnx, "weight")  # fmt: skip
OPS = {**autosched.OPS, **{op.name: op for op in EXTRA_OPS}}
GROUPS = {**{k: v for k, v in autosched.GROUPS.items() if k != "all"},
          "extra": [op.name for op in EXTRA_OPS], "all": list(OPS)}  # fmt: skip
OPS[SMOKE.name] = SMOKE
DEFAULT_OPS = "conv_56_64_64_3x3,dense_768x768,depthwise_56_128_3x3"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- ops and MetaSchedule's workload specs --------------------------------------------------
def select_ops(text: str) -> list[str]:
    """Op names from a comma-separated list of names and groups; ValueError naming unknowns."""
    return select_names(text, OPS, GROUPS)


def tvm_workload(task: Task) -> str | None:
    """The `_tvm_time_to_quality.py` workload spec of a task (None: not mapped to TVM)."""
    a = task.args
    if task.op == "conv2d":
        p = conv_params(task)
        top, left, bottom, right = p["padding"]
        if (top, left) != (bottom, right) or p["dilation"] != (1, 1) or p["epilogue"]:
            return None
        dims = [p["n"], p["c"], p["h"], p["w"], p["o"], p["kh"], p["kw"], *p["strides"],
                top, left, p["groups"]]  # fmt: skip
        return "conv:" + ",".join(map(str, dims))
    if task.op == "dense":
        (m, k), (n, _) = a["data"], a["weight"]
        return f"dense:{m},{n},{k}"
    if task.op == "batch_matmul":
        (b, m, k), (_, _, n) = a["a"], a["b"]
        return f"bmm:{b},{m},{n},{k}"
    last = task.op in ("softmax", "layer_norm") and a.get("axis", -1) in (-1, len(a["shape"]) - 1)
    if last and (task.op == "softmax" or a.get("epsilon") == 1e-12):
        return f"{task.op}:" + ",".join(map(str, a["shape"]))
    return None


def checkpoints(text: str, scale: float) -> list[float]:
    """Checkpoint seconds: the comma-separated list (or the default) times `scale`, sorted."""
    raw = [float(x) for x in text.split(",")] if text else list(CHECKPOINTS_S)
    points = sorted({round(x * scale, 3) for x in raw})
    if not points or points[0] <= 0:
        raise ValueError(f"checkpoints must be positive, got {points}")
    return points


# -- the searches ---------------------------------------------------------------------------
@dataclass
class History:
    """One search's record: (seconds, candidates so far, best handle or None) after every
    batch; `schedules[handle]` is what the timer needs to rebuild that best."""

    system: str
    points: list[tuple[float, int, int | None]] = field(default_factory=list)
    schedules: dict[int, Any] = field(default_factory=dict)
    wall_s: float = 0.0
    skipped: str | None = None
    search_best_s: float | None = None  # the search's own figure for its final best

    def best_at(self, t: float) -> int | None:
        """The handle of the best schedule the search held at `t` seconds."""
        best = None
        for at, _, handle in self.points:
            if at > t:
                break
            best = handle if handle is not None else best
        return best

    def candidates(self) -> int:
        return self.points[-1][1] if self.points else 0


def search_tunefarm(system: str, task: Task, budget_s: float, seed: int, batch: int) -> History:
    """Tune `batch` trials at a time until `budget_s` wall seconds have passed, recording the
    best after every measured batch (a tuner may measure a shorter one: the sketch policy's
    first batch is half a batch, `SketchTuner._first`)."""
    hist = History(system)
    option = MeasureOption.local(autosched.SEARCH)
    start = time.perf_counter()
    best: int | None = None

    def record(tuner: Any, _inputs: Any, _results: Any) -> None:
        nonlocal best
        handle = None
        if tuner.best_index is not None and tuner.best_index != best:
            best = handle = tuner.best_index
            hist.schedules[handle] = tuner.inputs_for([handle])[0].config
        hist.points.append((time.perf_counter() - start, tuner.trials, handle))

    try:
        tuner = make_tuner(TUNERS[system], task, seed)
        while time.perf_counter() - start < budget_s and tuner.has_next():
            summary = tuner.tune(batch, option, callbacks=[record], batch_size=batch)
            if summary.trials == 0:
                break
        hist.search_best_s = tuner.best_cost if math.isfinite(tuner.best_cost) else None
    finally:
        option.close()
    hist.wall_s = time.perf_counter() - start
    return hist


def search_metaschedule(
    python: Path, spec: str, budget_s: float, seed: int, batch: int, work: Path
) -> History:
    """MetaSchedule in TVM's venv until `budget_s` seconds after its search started. A process
    that dies before its search starts is started again, once: its clock had not started (the
    start-up deaths seen while writing this had causes since fixed: the builder's 30 s
    start-up timeout on a loaded core, and its workers not finding `_tvm_metaschedule`)."""
    for attempt in range(2):
        hist = run_metaschedule(python, spec, budget_s, seed, batch, work / f"try{attempt}")
        if not (hist.skipped or "").startswith("MetaSchedule did not start"):
            break
        log(f"MetaSchedule did not start (try {attempt + 1} of 2): {hist.skipped}")
    return hist


def run_metaschedule(
    python: Path, spec: str, budget_s: float, seed: int, batch: int, work: Path
) -> History:
    hist = History("metaschedule")
    work.mkdir(parents=True, exist_ok=True)
    records = work / "records.jsonl"
    cmd = [str(python), str(HERE / "_tvm_time_to_quality.py"), "tune", "--workload", spec,
           "--work-dir", str(work / "ms"), "--records", str(records), "--seed", str(seed),
           "--trials-per-iter", str(batch), "--cores", "1"]  # fmt: skip
    with open(work / "ms.log", "w") as err:
        proc = subprocess.Popen(cmd, env=tvm_env(), stdout=subprocess.PIPE, stderr=err,
                                text=True, start_new_session=True)  # fmt: skip
        try:
            started = any(line.startswith('{"start"') for line in iter_until_start(proc))
            start = time.perf_counter()
            if not started:
                proc.wait(timeout=60)
                hist.skipped = f"MetaSchedule did not start: {tail(work / 'ms.log')}"
                return hist
            while proc.poll() is None and time.perf_counter() - start < budget_s:
                time.sleep(0.2)
        finally:
            stop_group(proc)
    hist.wall_s = time.perf_counter() - start
    if records.exists():
        for n, line in enumerate(records.read_text().splitlines()):
            rec = json.loads(line)
            handle = n if "trace" in rec else None
            if handle is not None:
                hist.schedules[handle] = rec["trace"]
            if rec["t"] <= budget_s:
                hist.points.append((rec["t"], rec["candidates"], handle))
                hist.search_best_s = rec["best_s"] if math.isfinite(rec["best_s"]) else None
    if proc.returncode not in (0, -signal.SIGTERM, -signal.SIGKILL):
        why = f"MetaSchedule failed (rc {proc.returncode}): {tail(work / 'ms.log')}"
        hist.skipped = None if hist.points else why
        log(why)
    return hist


def iter_until_start(proc: subprocess.Popen):
    """The child's stdout lines up to and including its start line (or its end)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        yield line
        if line.startswith('{"start"'):
            return


def stop_group(proc: subprocess.Popen) -> None:
    """End the process group this script started for `proc` (its builder and runner pools
    included): SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    else:  # the leader is gone; its pool workers may not be
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def tail(path: Path, n: int = 600) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return " ".join(text[-n:].split())


TVM_PYTHON: Path | None = None


def tvm_env() -> dict[str, str]:
    """TVM's environment: one thread; the pinned FFI of `metaschedule.py` first if present,
    and this folder on the path: MetaSchedule's pool workers unpickle the builder function
    by its module, `_tvm_metaschedule` (without it they die at start-up unless the working
    directory happens to be this folder)."""
    env = dict(os.environ, TVM_NUM_THREADS="1")
    ffi = HERE / ".tvm" / "ffi"
    path = [str(ffi)] if ffi.exists() else []
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*path, str(HERE), env.get("PYTHONPATH")]))
    return env


# -- the outside timer ----------------------------------------------------------------------
class TvmTimer:
    """The TVM timing server: load a recorded trace, time it one repeat at a time."""

    def __init__(self, python: Path) -> None:
        cmd = [str(python), str(HERE / "_tvm_time_to_quality.py"), "serve", "--cores", "1"]
        self.proc = subprocess.Popen(cmd, env=tvm_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     start_new_session=True)  # fmt: skip
        ready = self._reply()
        if not ready.get("ready"):
            raise RuntimeError(f"the TVM timer did not start: {ready}")

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        return {"error": f"the TVM timer exited (rc {self.proc.poll()})"}

    def ask(self, **req: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            stop_group(self.proc)


def retime(
    op: autosched.Op, hists: dict[str, History], points: list[float], rounds: int,
    python: Path | None,
) -> dict[str, list[float | None]]:  # fmt: skip
    """Seconds per run of each system's best at each checkpoint (None: nothing yet), from
    `rounds` interleaved rounds of one timer over the distinct schedules."""
    keys = sorted({(s, h.best_at(t)) for s, h in hists.items() for t in points
                   if h.best_at(t) is not None})  # fmt: skip
    costs: dict[tuple[str, int], list[float]] = {k: [] for k in keys}
    tf_keys = [k for k in keys if k[0] != "metaschedule"]
    ms_keys = [k for k in keys if k[0] == "metaschedule"]
    tvm = TvmTimer(python) if ms_keys and python else None
    try:
        if tvm:
            spec = tvm_workload(op.task)
            for k in ms_keys:
                got = tvm.ask(cmd="load", id=f"{k[1]}", workload=spec,
                              trace=hists["metaschedule"].schedules[k[1]])  # fmt: skip
                if "error" in got or not got["rel_err"] < 1e-3:
                    log(f"[{op.name}] MetaSchedule schedule {k[1]} rejected: {got}")
                    keys.remove(k)
        inputs = {k: MeasureInput(op.task, hists[k[0]].schedules[k[1]]) for k in tf_keys}
        with registry.local_builder() as builder, registry.local_runner(TIMER) as runner:
            builds = dict(zip(inputs, builder.build(list(inputs.values())), strict=True))
            for r in range(rounds):
                for k in keys[r % len(keys) :] + keys[: r % len(keys)] if keys else []:
                    if k[0] == "metaschedule":
                        got = tvm.ask(cmd="time", id=f"{k[1]}", min_repeat_ms=TIMER.min_repeat_ms)  # type: ignore[union-attr]
                        if "seconds" in got:
                            costs[k].append(got["seconds"])
                    else:
                        res = runner.run([inputs[k]], [builds[k]])[0]
                        if res.ok:
                            costs[k].append(res.costs[0])
    finally:
        if tvm:
            tvm.close()
    latency = {k: statistics.median(v) for k, v in costs.items() if v}
    return {s: [latency.get((s, h.best_at(t))) for t in points] for s, h in hists.items()}  # type: ignore[misc]


# -- figures of merit -----------------------------------------------------------------------
def time_to_quality(
    curves: dict[str, list[float | None]], points: list[float], quality: float = QUALITY
) -> dict[str, Any]:
    """The best latency any system reached, the target (best / quality), and each system's
    first checkpoint at or under the target (None: not within the budget)."""
    seen = [v for c in curves.values() for v in c if v is not None]
    if not seen:
        return {"best_s": None, "target_s": None, "ttq_s": {s: None for s in curves}}
    best = min(seen)
    target = best / quality
    ttq = {s: next((t for t, v in zip(points, c, strict=True) if v is not None and v <= target),
                   None) for s, c in curves.items()}  # fmt: skip
    return {"best_s": best, "target_s": target, "ttq_s": ttq}


def geomean(values: list[float]) -> float:
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def summary(rows: list[dict[str, Any]], points: list[float]) -> dict[str, Any]:
    """`summary_of` the op rows, and of the whole networks apart under "networks" (the goals
    name the ops' geomean and each network on its own)."""
    ops = [r for r in rows if "network" not in r]
    nets = [r for r in rows if "network" in r]
    out = summary_of(ops, points)
    if nets:
        out["networks"] = summary_of(nets, points)
    return out


def summary_of(rows: list[dict[str, Any]], points: list[float]) -> dict[str, Any]:
    """Over rows: geomean time to quality per system (an op never reached counts as the last
    checkpoint, a lower bound; `not_reached` counts them), geomean candidates/s, and at every
    checkpoint the geomean ratio of each tunefarm system's latency to MetaSchedule's (> 1:
    tunefarm's schedule is faster) over the ops where both had one."""
    systems = sorted({s for r in rows for s in r["curves"]})
    out: dict[str, Any] = {"ttq_geomean_s": {}, "not_reached": {}, "candidates_per_s": {}}
    for s in systems:
        ttq = [r["ttq"]["ttq_s"].get(s) for r in rows if s in r["curves"]]
        out["ttq_geomean_s"][s] = geomean([t if t is not None else points[-1] for t in ttq])
        out["not_reached"][s] = sum(t is None for t in ttq)
        out["candidates_per_s"][s] = geomean([r["candidates_per_s"][s] for r in rows
                                              if s in r["candidates_per_s"]])  # fmt: skip
    ratios: dict[str, list[float]] = {}
    for s in (x for x in systems if x != "metaschedule"):
        per_point = []
        for i in range(len(points)):
            both = [(r["curves"][s][i], r["curves"]["metaschedule"][i]) for r in rows
                    if "metaschedule" in r["curves"] and s in r["curves"]]  # fmt: skip
            per_point.append(geomean([m / v for v, m in both if v and m]))
        ratios[f"{s}/metaschedule"] = per_point
    out["speedup_vs_metaschedule"] = ratios
    return out


# -- one op ---------------------------------------------------------------------------------
def bench_op(op: autosched.Op, args: argparse.Namespace, index: int) -> dict[str, Any]:
    task = replace(op.task, target="cpu -cores=1")
    op = autosched.Op(op.name, task, op.onnx, op.weight)
    systems = [s for s in SYSTEMS if s in args.system_list]
    order = systems[index % len(systems) :] + systems[: index % len(systems)]
    hists: dict[str, History] = {}
    skipped: dict[str, str] = {}
    budget = args.points[-1]
    spec = tvm_workload(task)
    for s in order:
        if s == "metaschedule" and (TVM_PYTHON is None or spec is None):
            skipped[s] = ("no --tvm-python given" if TVM_PYTHON is None
                          else f"{task.op} is not mapped to a TVM workload here")  # fmt: skip
            continue
        load = os.getloadavg()[0]
        log(f"[{op.name}] {s}: searching {budget:.0f} s (load {load:.2f})")
        if s == "metaschedule":
            with tempfile.TemporaryDirectory(prefix="ttq-ms-") as work:
                h = search_metaschedule(TVM_PYTHON, spec, budget, args.seed, args.batch, Path(work))  # type: ignore[arg-type]
        else:
            h = search_tunefarm(s, task, budget, args.seed, args.batch)
        if h.skipped:
            skipped[s] = h.skipped
            log(f"[{op.name}] {s}: {h.skipped}")
            continue
        hists[s] = h
        log(f"[{op.name}] {s}: {h.candidates()} candidates in {h.wall_s:.0f} s")
    log(f"[{op.name}] re-timing {args.rounds} interleaved rounds (load {os.getloadavg()[0]:.2f})")
    curves = retime(op, hists, args.points, args.rounds, TVM_PYTHON)
    flops = registry.flops(task)
    row = {
        "op": op.name,
        "order": [s for s in order if s in hists],
        "checkpoints_s": args.points,
        "curves": curves,
        "gflops": {
            s: [_report.gflops(flops, v) if v else None for v in c] for s, c in curves.items()
        },  # fmt: skip
        "ttq": time_to_quality(curves, args.points),
        "candidates": {s: h.candidates() for s, h in hists.items()},
        "search_wall_s": {s: h.wall_s for s, h in hists.items()},
        "search_own_best_s": {s: h.search_best_s for s, h in hists.items()},
        "candidates_per_s": {s: h.candidates() / max(h.wall_s, 1e-9) for s, h in hists.items()},
        # (seconds, candidates so far) after every batch: when each search's batches ended
        "batches": {s: [[round(t, 2), n] for t, n, _ in h.points] for s, h in hists.items()},
        "skipped": skipped,
        "loadavg_after": os.getloadavg(),
    }
    log(f"[{op.name}] time to {QUALITY:.0%}: {row['ttq']['ttq_s']}")
    return row


# -- output ---------------------------------------------------------------------------------
def fmt_s(v: float | None) -> str:
    return "-" if v is None else f"{v:g}"


def table(doc: dict[str, Any]) -> str:
    rows, points = doc["rows"], doc["checkpoints_s"]
    systems = [s for s in SYSTEMS if any(s in r["curves"] for r in rows)]
    head = ["op", "system", *[f"{fmt_s(t)} s ms" for t in points], f"to {QUALITY:.0%} s",
            "cand/s"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        for s in systems:
            if s not in r["curves"]:
                continue
            cells = [r["op"], s]
            cells += ["-" if v is None else f"{v * 1e3:.3f}" for v in r["curves"][s]]
            cells += [fmt_s(r["ttq"]["ttq_s"][s]), f"{r['candidates_per_s'][s]:.2f}"]
            lines.append("| " + " | ".join(cells) + " |")
    summ = doc["summary"]
    lines.append("")
    n_nets = sum("network" in r for r in rows)
    lines += summary_lines(summ, systems, points, len(rows) - n_nets, "ops")
    if "networks" in summ:
        lines += summary_lines(summ["networks"], systems, points, n_nets, "networks")
    for r in rows:
        for key, why in r.get("rejected", {}).items():
            lines.append(f"{r['op']}: {key} rejected: {why}")
        for s, why in r["skipped"].items():
            lines.append(f"{r['op']}: {s} skipped: {why}")
    return "\n".join(lines)


def summary_lines(
    summ: dict[str, Any], systems: list[str], points: list[float], n: int, what: str
) -> list[str]:
    """The summary's lines over `n` rows of one kind (ops or networks)."""
    lines = []
    for s in (x for x in systems if x in summ["ttq_geomean_s"]):
        lines.append(
            f"{s}: geomean time to {QUALITY:.0%} over {what} {summ['ttq_geomean_s'][s]:.1f} s "
            f"(not reached on {summ['not_reached'][s]} of {n} {what}, counted as "
            f"{fmt_s(points[-1])} s), {summ['candidates_per_s'][s]:.2f} candidates/s"
        )
    for k, v in summ["speedup_vs_metaschedule"].items():
        if all(math.isnan(x) for x in v):
            continue
        lines.append(f"{k} speed over {what} (geomean) at " + ", ".join(
            f"{fmt_s(t)} s: {'-' if math.isnan(x) else f'{x:.2f}'}"
            for t, x in zip(points, v, strict=True)))  # fmt: skip
    return lines


def plot(doc: dict[str, Any], path: str) -> None:
    """Best re-timed latency against wall time, one panel per op, log time axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    rows = doc["rows"]
    cols = min(3, len(rows)) or 1
    nrows = math.ceil(len(rows) / cols) or 1
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.4 * nrows), squeeze=False)
    for ax, r in zip(axes.flat, rows, strict=False):
        for s in (x for x in SYSTEMS if x in r["curves"]):  # the same colour everywhere
            c = r["curves"][s]
            xs = [t for t, v in zip(r["checkpoints_s"], c, strict=True) if v is not None]
            ys = [v * 1e3 for v in c if v is not None]
            ax.plot(xs, ys, marker="o", drawstyle="steps-post", label=s, color=COLOURS[s])
        if r["ttq"]["target_s"]:
            ax.axhline(r["ttq"]["target_s"] * 1e3, color="grey", ls=":", lw=1,
                       label=f"{QUALITY:.0%} of best")  # fmt: skip
        ax.set_xscale("log")
        if any(v for c in r["curves"].values() for v in c):  # log of no data fails
            ax.set_yscale("log")  # systems can be an order of magnitude apart
        ax.set_xticks(r["checkpoints_s"], [fmt_s(t) for t in r["checkpoints_s"]])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(r["op"], fontsize=9)
        ax.set_xlabel("wall time of search (s)")
        ax.set_ylabel("best latency (ms)")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(rows) :]:
        ax.axis("off")
    loads = [d.get("loadavg_start", [math.nan])[0] for d in doc.get("runs", [doc])]
    title = "best latency re-timed at checkpoints; load average at start " + ", ".join(
        f"{x:.1f}" for x in loads
    )
    fig.suptitle("\n".join(textwrap.wrap(title, 45 * cols)), fontsize=10)  # one panel: wrapped
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def merge(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """One document from runs of disjoint ops with the same checkpoints (e.g. one run per
    core), the summary recomputed over all their ops; ValueError if the checkpoints differ."""
    first = docs[0]
    if any(d["checkpoints_s"] != first["checkpoints_s"] for d in docs):
        raise ValueError("--report: the runs have different checkpoints")
    if len(docs) == 1:
        return first
    doc = dict(first, rows=[r for d in docs for r in d["rows"]])
    doc["runs"] = [{k: d.get(k) for k in ("command", "core", "date", "loadavg_start",
                                          "loadavg_end")} for d in docs]  # fmt: skip
    doc["summary"] = summary(doc["rows"], first["checkpoints_s"])
    return doc


# -- the command ----------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", default=DEFAULT_OPS, help=f"ops and groups ({', '.join(GROUPS)})")
    p.add_argument(
        "--networks", default="", help=f"whole networks, comma-separated: {', '.join(net.NETWORKS)}"
    )
    p.add_argument("--systems", default=",".join(SYSTEMS), help="of: " + ", ".join(SYSTEMS))
    p.add_argument("--checkpoints", default="", help="seconds, comma-separated "
                   f"(default {','.join(map(str, CHECKPOINTS_S))})")  # fmt: skip
    p.add_argument("--budget-scale", type=float, default=1.0, help="multiplies the checkpoints")
    p.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    p.add_argument(
        "--batch", type=int, default=BATCH, help=f"candidates per batch, all systems ({BATCH})"
    )
    p.add_argument("--cpu", type=int, help="the core to pin to (default: the last one allowed)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tvm-python", help="TVM's interpreter; without it MetaSchedule is skipped")
    p.add_argument("--json", help="write the results here (rewritten after every op)")
    p.add_argument("--png", help="the plot of best latency against wall time")
    p.add_argument(
        "--report",
        metavar="JSON[,JSON...]",
        help="print (and --png plot, --json write) earlier runs' results, merged: runs of "
        "different ops on different cores, with the same checkpoints",
    )
    args = p.parse_args(argv)
    try:
        args.op_names = select_ops(args.ops)
        args.points = checkpoints(args.checkpoints, args.budget_scale)
    except ValueError as exc:
        p.error(f"--ops/--checkpoints: {exc}")
    args.network_list = [n.strip() for n in args.networks.split(",") if n.strip()]
    bad = [n for n in args.network_list if n not in net.NETWORKS]
    if bad:
        p.error(f"--networks: unknown {bad}; expected some of {', '.join(net.NETWORKS)}")
    if not args.op_names and not args.network_list and not args.report:
        p.error("--ops none: give --networks")
    args.system_list = [s.strip() for s in args.systems.split(",") if s.strip()]
    bad = [s for s in args.system_list if s not in SYSTEMS]
    if bad or not args.system_list:
        p.error(f"--systems: unknown {bad}; expected some of {', '.join(SYSTEMS)}")
    if args.rounds < 1 or args.batch < 1:
        p.error("--rounds and --batch must be >= 1")
    if args.tvm_python and not Path(args.tvm_python).exists():
        p.error(f"--tvm-python: {args.tvm_python} does not exist")
    return args


def pin(cpu: int | None) -> int:
    """Pin this process (and so every child: builds, measurers, TVM) to one core."""
    allowed = sorted(os.sched_getaffinity(0))
    core = allowed[-1] if cpu is None else cpu
    if core not in allowed:
        raise SystemExit(f"--cpu: core {core} is not one of the allowed cores {allowed}")
    os.sched_setaffinity(0, {core})
    return core


def main(argv: list[str] | None = None) -> int:
    global TVM_PYTHON
    args = parse_args(argv)
    if args.report:
        doc = merge([json.loads(Path(f).read_text()) for f in args.report.split(",")])
        print(table(doc))
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")
        if args.png:
            plot(doc, args.png)
        return 0
    TVM_PYTHON = Path(args.tvm_python) if args.tvm_python else None
    core = pin(args.cpu)
    doc: dict[str, Any] = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "core": core,
        "checkpoints_s": args.points,
        "batch": args.batch,
        "quality": QUALITY,
        "machine": _report.machine_info(),
        "loadavg_start": os.getloadavg(),
        "rows": [],
    }
    jobs = [lambda i, n=n: bench_op(OPS[n], args, i) for n in args.op_names]
    jobs += [lambda i, n=n: net.bench_network(n, args, i, TVM_PYTHON) for n in args.network_list]
    for i, job in enumerate(jobs):
        doc["rows"].append(job(i))
        doc["summary"] = summary(doc["rows"], args.points)
        doc["loadavg_end"] = os.getloadavg()
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")
        if args.png:
            plot(doc, args.png)
    print(table(doc))
    print(f"load average at start {doc['loadavg_start']}, at end {doc['loadavg_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
