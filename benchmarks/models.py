"""The models users bring: does each PyTorch / Hugging Face export import, compile untuned and
match ONNX Runtime, and how fast is it untuned next to ONNX Runtime?

    /work/torchenv/bin/python tools/export_test_models.py --full --out /work/models-full
    python3 benchmarks/models.py --dir /work/models-full [--rounds 2] [--only resnet50,bert]
        [--cores 1] [--profile 8]

The first command exports the issue's list (torchvision at 224x224, Hugging Face base
configs at sequence 128, GPT-2 at 64), random-initialised, with both exporters (dynamo,
opset 20; legacy TorchScript, opset 17) and saves an input per model next to it. Then per
file: import (a failure is its one-line message), compile untuned, run on the saved
input, relative error against ONNX Runtime (max|got - want| / max|want|, match <= 1e-4),
and the time of both, interleaved over `--rounds` rounds (each round: the median of
`--repeat` runs of ONNX Runtime, then of tunefarm), reported as the median ratio
tunefarm / ONNX Runtime (below 1: tunefarm faster). `--cores N` compiles for `cpu -cores=N`
and gives ONNX Runtime N intra-op threads (default: every core for both), so one core against
one thread compares the kernels, not the threading, on a shared machine. `--profile K` adds
each network's K slowest calls (the executor's per-call profile) to its row: where the time
goes when a model is slower than ONNX Runtime (with `--cores 1` each call is timed by the
calling thread's CPU time, as the kernels time themselves; else by the wall clock).
`--cpu-time` (with `--cores 1`) times both by the calling thread's CPU time instead of the
wall clock: on a shared host, where a run is descheduled many times, the wall clock measures
the neighbours; the thread's CPU time does not (both run on the calling thread with one
core / one intra-op thread). SIGTERM or Ctrl-C stops a run with its build and measurement
processes (`stop_on_signals`). `--base-tree DIR` also compiles each export untuned with the
code of another checkout (e.g. a worktree of main) in its own process and times that
network, "base", in the same interleaved rounds: before and after a change, beside ORT.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_info  # noqa: E402
from _timing import median_ms  # noqa: E402
from model_flops import count as count_flops  # noqa: E402
from tunefarm.compiler import compile_graph  # noqa: E402
from tunefarm.compiler.select import DEFAULT_TOP_K, compile_selected  # noqa: E402
from tunefarm.compiler.tasks import network_tasks  # noqa: E402
from tunefarm.frontend.onnx_import import load_onnx  # noqa: E402
from tunefarm.graph.passes import optimize  # noqa: E402
from tunefarm.recipe import (  # noqa: E402
    LOCAL_DEVICE_KEY,
    onnxruntime_session,
    relative_error,
    tune_network,
)
from tunefarm.runtime.executor import GraphExecutor  # noqa: E402
from tunefarm.tune.dispatch import ApplyHistoryBest  # noqa: E402
from tunefarm.tune.records import load_records  # noqa: E402

MATCH = 1e-4


@dataclass(frozen=True)
class Tuning:
    """What the tuned mode asks: the budget per export, the policy and tuner, where the logs
    go (one per export, resumed), and how many records per task in-network selection tries."""

    trials: int
    log_dir: Path
    policy: str = "template"
    tuner: str = "xgb"
    select_top: int = DEFAULT_TOP_K


def tune(path: Path, graph, target: str, tuning: Tuning, workdir: Path) -> tuple[dict, Path]:
    """Tune one export as `tunefarm tune` does and compile it from the log with in-network
    selection; returns the row's tuning fields and the tuned artifact."""
    log = tuning.log_dir / f"{path.name.removesuffix('.onnx')}.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    tasks = network_tasks(graph, target, tuning.policy)
    start = time.perf_counter()
    summary = tune_network(
        tasks, tuning.trials, log, tuner=tuning.tuner, policy=tuning.policy, resume=True
    )
    fields = {
        "tasks": len(tasks),
        "trials": summary.trials,  # the scheduler's; the log also holds the measured defaults
        "records": len(load_records(log, [])),
        "policy": tuning.policy,
        "tuning_s": round(time.perf_counter() - start, 1),
        "log": str(log),
    }
    history = ApplyHistoryBest(str(log), LOCAL_DEVICE_KEY)
    compiled, _ = compile_selected(graph, target, history, LOCAL_DEVICE_KEY, tuning.select_top)
    compiled.save(workdir / "tuned.tfa")
    return fields, workdir / "tuned.tfa"


def one(
    path: Path,
    workdir: Path,
    rounds: int,
    repeat: int,
    cores: int = 0,
    profile: int = 0,
    cpu_time: bool = False,
    tuning: Tuning | None = None,
    base_tree: Path | None = None,
) -> dict:
    """Import, compile, check and time one export (tuned too, with `tuning`; compiled with
    `base_tree`'s code too, with it); every failure is a one-line message."""
    row: dict = {"file": path.name}
    feeds = dict(np.load(path.with_name(path.name.replace(".onnx", ".inputs.npz"))))
    feeds.pop("__output__", None)
    start = time.perf_counter()
    try:
        graph = load_onnx(path)
    except Exception as err:
        row["import"] = " ".join(str(err).split())[:300]
        return row
    row["import"] = "ok"
    row["import_s"] = round(time.perf_counter() - start, 1)
    target = f"cpu -cores={cores}" if cores else "cpu"
    start = time.perf_counter()
    try:
        # optimised once: the tasks tuned are those of the graph both builds compile
        graph = optimize(graph)
        compile_graph(graph, target, optimized=True).save(workdir / "net.tfa")
        nets = {"untuned": GraphExecutor.load(workdir / "net.tfa")}
        got = nets["untuned"].run(feeds)
    except Exception as err:
        row["compile"] = " ".join(f"{type(err).__name__}: {err}".split())[:300]
        return row
    row["compile"] = "ok"
    row["compile_s"] = round(time.perf_counter() - start, 1)
    session = onnxruntime_session(onnx.load(str(path)), threads=cores or None)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, feeds), strict=True))
    row["rel_err"] = relative_error(got, want)
    row["match"] = row["rel_err"] <= MATCH
    if base_tree is not None:
        try:
            nets["base"] = GraphExecutor.load(compile_base(path, base_tree, target, workdir))
        except RuntimeError as err:
            row["base"] = " ".join(str(err).split())[:300]
            return row
        row["base_rel_err"] = relative_error(nets["base"].run(feeds), want)
    if tuning is not None:
        fields, tuned_path = tune(path, graph, target, tuning, workdir)
        row.update(fields)
        nets["tuned"] = GraphExecutor.load(tuned_path)
        row["tuned_rel_err"] = relative_error(nets["tuned"].run(feeds), want)
        row["tuned_match"] = row["tuned_rel_err"] <= MATCH
    row.update(_timed(session, nets, feeds, rounds, repeat, cpu_time))
    if profile:
        for label, calls in interleaved_profiles(nets, rounds, repeat=3).items():
            key = "slowest" if label == "untuned" else f"slowest_{label}"
            row[key] = [[node, kernel, round(ms, 3)] for node, kernel, ms in calls[:profile]]
        # the executor's choice: thread CPU time for a -cores=1 network (as the kernels time)
        clock = nets["untuned"].profile_clock
        row["profile_clock"] = "thread CPU time" if clock is time.thread_time else "wall"
    return row


def interleaved_profiles(nets: dict, rounds: int, repeat: int) -> dict[str, list[tuple]]:
    """Per network, its calls' (node, kernel, ms) slowest first: each node's median over
    `rounds` of the executor's per-call profile, the networks taking turns round by round.
    Profiling one network after the other let a change in the machine's load read as one
    network's kernels being slower: resnet50's 1x1 convs showed 1.2-1.4x slower tuned than
    untuned while both networks ran the very same kernel for them (issue 23)."""
    samples: dict[str, dict[str, list[float]]] = {label: {} for label in nets}
    kernels: dict[str, dict[str, str]] = {label: {} for label in nets}
    for _ in range(max(1, rounds)):
        for label, net in nets.items():
            per_node: dict[str, float] = {}
            for e in net.profile(repeat=repeat):
                per_node[e.node] = per_node.get(e.node, 0.0) + e.ms
                kernels[label].setdefault(e.node, e.kernel)
            for node, ms in per_node.items():
                samples[label].setdefault(node, []).append(ms)
    return {
        label: sorted(
            ((node, kernels[label][node], statistics.median(ms)) for node, ms in nodes.items()),
            key=lambda call: -call[2],
        )
        for label, nodes in samples.items()
    }


def compile_base(path: Path, tree: Path, target: str, workdir: Path) -> Path:
    """`tunefarm compile` of the export, untuned, with `tree`'s code (its shared/ first on
    the path) in a process of its own; the artifact."""
    out = workdir / "base.tfa"
    cmd = [sys.executable, "-m", "tunefarm", "compile", str(path), "--target", target]
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    done = subprocess.run([*cmd, "-o", str(out)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"compile with {tree} failed: {done.stderr[-500:]}")
    return out


def _timed(session, nets: dict, feeds: dict, rounds: int, repeat: int, cpu_time: bool) -> dict:
    """ORT and each network in the same interleaved rounds: per label its median over rounds
    of each round's median (ms) and the median of the rounds' ratios to ORT."""
    row: dict = {"load_avg_1m": round(os.getloadavg()[0], 1)}  # the host's load while timing
    clock = time.thread_time if cpu_time else time.perf_counter
    row["clock"] = "thread CPU time" if cpu_time else "wall"
    ort_ms: list[float] = []
    ms: dict[str, list[float]] = {label: [] for label in nets}
    for _ in range(rounds):
        ort_ms.append(median_ms(lambda: session.run(None, feeds), repeat, clock))
        for label, net in nets.items():
            ms[label].append(median_ms(lambda net=net: net.run(feeds), repeat, clock))
    row["ort_ms"] = round(statistics.median(ort_ms), 2)
    for label, times in ms.items():
        row[f"{label}_ms"] = round(statistics.median(times), 2)
        ratios = [b / a for a, b in zip(ort_ms, times, strict=True)]
        row[f"{label}_ratio"] = round(statistics.median(ratios), 3)
    return row


def table(rows: list[dict]) -> str:
    if any("tuned_ratio" in r for r in rows):
        return tuned_table(rows)
    lines = [
        "| model | exporter | imports | matches (rel. err) | ORT ms | untuned ms | ratio | load |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        name, way = r["file"].removesuffix(".onnx").rsplit(".", 1)
        imp = "yes" if r["import"] == "ok" else f"no: {r['import'][:90]}"
        if r.get("compile", "ok") != "ok":
            imp += f"; compile failed: {r['compile'][:90]}"
        err = f"{'yes' if r['match'] else 'NO'} ({r['rel_err']:.1e})" if "rel_err" in r else "-"
        keys = ("ort_ms", "untuned_ms", "untuned_ratio", "load_avg_1m")
        times = [str(r.get(k, "-")) for k in keys]
        lines.append(f"| {name} | {way} | {imp} | {err} | " + " | ".join(times) + " |")
    n_ok = sum(bool(r.get("match")) for r in rows)
    geo = geomean(r["untuned_ratio"] for r in rows if "untuned_ratio" in r)
    lines.append(f"\n{n_ok}/{len(rows)} exports import and match; untuned geomean {geo:.2f}x ORT")
    return "\n".join(lines)


def geomean(values) -> float:
    logs = [math.log(x) for x in values]
    return math.exp(statistics.fmean(logs)) if logs else float("nan")


def tuned_table(rows: list[dict]) -> str:
    """The tuned mode's rows: time / ORT's, tuned and untuned, from the same rounds."""
    lines = [
        "| model | exporter | trials (tasks) | tuning s | matches (rel. err) | ORT ms "
        "| untuned ms | tuned ms | untuned / ORT | tuned / ORT | load |",
        "|" + "---|" * 11,
    ]
    for r in rows:
        name, way = r["file"].removesuffix(".onnx").rsplit(".", 1)
        if "tuned_ratio" not in r:
            lines.append(f"| {name} | {way} | failed: {r.get('compile', r['import'])[:90]} |")
            continue
        err = f"{'yes' if r['tuned_match'] else 'NO'} ({r['tuned_rel_err']:.1e})"
        lines.append(
            f"| {name} | {way} | {r['trials']} ({r['tasks']}) | {r['tuning_s']:.0f} | {err} | "
            f"{r['ort_ms']} | {r['untuned_ms']} | {r['tuned_ms']} | {r['untuned_ratio']:.2f} | "
            f"{r['tuned_ratio']:.2f} | {r['load_avg_1m']} |"
        )
    done = [r for r in rows if "tuned_ratio" in r]
    lines.append(
        f"\ngeomean over {len(done)}: untuned {geomean(r['untuned_ratio'] for r in done):.2f}x "
        f"ORT, tuned {geomean(r['tuned_ratio'] for r in done):.2f}x ORT"
    )
    return "\n".join(lines)


GOAL = 0.7  # issue 23: tuned, every CNN at or below this fraction of ORT's time (geomean)


def ceiling_table(rows: list[dict], exports: Path, peak: float) -> str:
    """What each model's time means in FLOP/s (`model_flops`: direct multiply-adds, as ORT
    runs them), beside one core's FMA ceiling `peak` (GFLOP/s, `fma_peak.c`): where the
    goal's rate (ORT's / GOAL) is above the ceiling, no schedule of direct convs reaches the
    goal; only fewer multiplications (Winograd, on the 3x3 stride-1 share) can."""
    lines = [
        f"| model | direct GFLOP | 3x3 s1 share | ORT GFLOP/s | tuned GFLOP/s "
        f"| {GOAL}x ORT needs | of the ceiling ({peak:.0f}) |",
        "|" + "---|" * 7,
    ]
    for r in rows:
        if "tuned_ms" not in r:
            continue
        f = count_flops(onnx.load(exports / r["file"], load_external_data=False))
        ort, tuned = f.gflop / r["ort_ms"] * 1e3, f.gflop / r["tuned_ms"] * 1e3
        need = ort / GOAL
        share = f.winograd_eligible / f.total if f.total else 0.0
        lines.append(
            f"| {r['file'].removesuffix('.onnx')} | {f.gflop:.2f} | {share:.0%} | {ort:.0f} "
            f"| {tuned:.0f} | {need:.0f} | {need / peak:.0%} |"
        )
    return "\n".join(lines)


def stop_on_signals() -> None:
    """SIGTERM (a timeout, `kill`, a CI's cancel) and SIGINT end the run as an exception in
    the main thread, SystemExit with the shell's 128 + signal code: the tuning's `finally`
    closes its build workers and measurement processes, and multiprocessing's exit handler
    reaps what is left. SIGTERM's default action killed this process alone: the forkserver,
    the build workers and the measurement processes ran on until each finished its job and
    found no parent to reply to (tests/unit/test_models_benchmark.py)."""

    def stop(signum: int, _frame) -> None:
        signal.signal(signum, signal.SIG_IGN)  # a second signal does not cut the clean-up
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def main() -> int:
    stop_on_signals()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=Path("."), help="exports and their inputs")
    ap.add_argument("--only", default="", help="comma-separated name prefixes")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cores", type=int, default=0, help="tunefarm cores = ORT threads (0: all)")
    ap.add_argument("--profile", type=int, default=0, help="record the K slowest calls")
    ap.add_argument("--cpu-time", action="store_true", help="time by thread CPU time (--cores 1)")
    ap.add_argument("--json", type=Path, default=Path("benchmarks/results-models.json"))
    ap.add_argument("--trials", type=int, default=0, help="tune each export first (0: untuned)")
    ap.add_argument("--policy", default="template", choices=("template", "sketch", "auto"))
    ap.add_argument("--tuner", default="xgb")
    ap.add_argument("--select-top", type=int, default=DEFAULT_TOP_K, help="in-network selection")
    ap.add_argument("--log-dir", type=Path, default=Path("benchmarks/logs-models"))
    ap.add_argument("--base-tree", type=Path, help="also time an untuned build of this checkout")
    ap.add_argument(
        "--collect", type=Path, nargs="*", help="only print the table of these results files"
    )
    ap.add_argument(
        "--peak",
        type=float,
        help="with --collect: one core's FMA ceiling in GFLOP/s "
        "(fma_peak.c); adds each tuned model's FLOP rates against it (exports from --dir)",
    )
    args = ap.parse_args()
    if args.cpu_time and args.cores != 1:
        ap.error(
            "--cpu-time needs --cores 1: with more threads the calling thread's CPU time "
            "is not the run's"
        )
    if args.trials < 0:
        ap.error(f"--trials must be >= 0 (0: untuned only), got {args.trials}")
    if args.collect:  # results of runs one file at a time (a long run done in pieces)
        parts = [json.loads(p.read_text()) for p in args.collect]
        rows = sorted((r for part in parts for r in part["rows"]), key=lambda r: r["file"])
        print(table(rows))
        if args.peak:
            print("\n" + ceiling_table(rows, args.dir, args.peak))
        merged = {**parts[0], "rows": rows}
        args.json.write_text(json.dumps(merged, indent=1) + "\n")
        return 0
    files = sorted(args.dir.glob("*.onnx"))
    if args.only:
        files = [f for f in files if any(f.name.startswith(p) for p in args.only.split(","))]
    manifest_path = args.dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    tuning = None
    if args.trials:
        tuning = Tuning(args.trials, args.log_dir, args.policy, args.tuner, args.select_top)
    rows = []
    for f in files:
        with tempfile.TemporaryDirectory(prefix="models-") as work:  # the exports' dir is shared
            row = one(
                f, Path(work), args.rounds, args.repeat, args.cores, args.profile,
                args.cpu_time, tuning, args.base_tree,
            )  # fmt: skip
        rows.append(row)
        print(json.dumps(rows[-1]), flush=True)
    print(table(rows))
    failed = manifest.get("failed", {})
    if failed:
        print("\nexports that failed (the exporter refused):")
        for k, v in sorted(failed.items()):
            print(f"- {k}: {v[:160]}")
    result = {
        "machine": machine_info(),
        "exporter": manifest.get("exporter"),
        "rows": rows,
        "export_failed": failed,
    }
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
