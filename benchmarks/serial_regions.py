"""Small kernels without an OpenMP region (`backends/cpu/serial.py`): a network compiled with
every parallel loop a region (the emitter before the threshold: "regions"), with the
threshold ("threshold") and with every loop serial ("serial"), timed against ONNX Runtime in
interleaved rounds of one process, then profiled call by call inside the network.

Why: compiled networks use the passive OpenMP wait, so each region wakes a sleeping team; on
a small network such as bert-tiny that wake is most of a small kernel's time. The profile
says which kernels gain from a region and which lose, and `--light-cost` sets the measured
per-call times against `compiler.tasks.estimated_cost` (the light-op cost estimate).

    .venv/bin/python benchmarks/serial_regions.py --network zoo:bert-tiny --rounds 9 --profile
    .venv/bin/python benchmarks/serial_regions.py --network zoo:resnet-18 --light-cost
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from pathlib import Path

from tunefarm.backends.cpu import serial
from tunefarm.compiler import compile_graph
from tunefarm.compiler import tasks as network_tasks
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.recipe.reference import (
    onnxruntime_latency,
    onnxruntime_session,
    relative_error,
)
from tunefarm.runtime.executor import GraphExecutor

THRESHOLD = serial.SERIAL_WORK
EVERY_LOOP = 10**18
# label -> SERIAL_WORK (0: no loop serial)
VARIANTS = {"regions": 0, "threshold": THRESHOLD, "serial": EVERY_LOOP}


def build(graph, target: str, work: int, records: str | None, path: Path):
    """Compile with SERIAL_WORK = `work` (a -cores=1 target has no region whatever `work`,
    except at 0, which restores the emitter's behaviour before the threshold)."""
    keep = serial.SERIAL_WORK, serial.runs_serially
    serial.SERIAL_WORK = work
    if work == 0:
        serial.runs_serially = lambda loop, target: False
    try:
        compiled = compile_graph(graph, target, records=records, optimized=True)
        compiled.save(path)
    finally:
        serial.SERIAL_WORK, serial.runs_serially = keep
    return compiled


def region_works(compiled) -> dict[str, list[int]]:
    """Kernel name -> the work of its serial loops (from the emitted comments)."""
    return {
        k.name: [int(w) for w in re.findall(r"serial: work (\d+)", k.code)]
        for k in compiled.plan.kernels
    }


def profile(paths: dict[str, Path], repeat: int) -> dict[str, list[float]]:
    """Per-call median ms of each artifact, 3 profiles of `repeat` runs each."""
    out = {}
    for label, path in paths.items():
        ex = GraphExecutor.load(path)
        runs = [ex.profile(repeat=repeat) for _ in range(3)]
        out[label] = [statistics.median(r[i].ms for r in runs) for i in range(len(runs[0]))]
    return out


def light_cost(graph, calls, ms: list[float]) -> None:
    """Each light task's estimated share of the network against its measured share."""
    anchors = {t.group: t for t in reversed(extract_tasks(graph, "cpu"))}
    anchor_flops = sum(t.weight * t.flops for t in anchors.values())
    ops = network_tasks.op_tasks(graph, "cpu")
    costs = [network_tasks.estimated_cost(t) for t in ops]
    total_est, total_ms = anchor_flops + sum(costs), sum(ms)
    by_node = dict(zip((c.node for c in calls), ms, strict=True))
    light = 0.0
    print(f"{'light task':58s} calls  est%   meas%")
    for t, cost in zip(ops, costs, strict=True):
        m = sum(by_node.get(n, 0.0) for n in t.nodes)
        light += m
        print(
            f"{t.describe(graph)[:58]:58s} {t.weight:5d} {100 * cost / total_est:6.2f} "
            f"{100 * m / total_ms:6.2f}"
        )
    share = light / total_ms
    flops = sum(t.weight * t.flops for t in ops)
    moved = sum(t.weight * network_tasks.kernel_bytes(t.task) for t in ops)
    balance = (share * anchor_flops / (1 - share) - flops) / moved
    print(
        f"light kernels: estimated {100 * sum(costs) / total_est:.2f}%, measured "
        f"{100 * share:.2f}% of {total_ms:.3f} ms; FLOPS_PER_BYTE matching the measurement: "
        f"{balance:.1f} (in use: {network_tasks.FLOPS_PER_BYTE})"
    )


def interleaved(model, graph, paths, rounds: int, repeat: int) -> dict[str, list[float]]:
    """Median ms of each build and of ONNX Runtime per round, the order rotated every round
    (whatever runs first or after ONNX Runtime's spinning threads is not always the same);
    each build's outputs are checked against ONNX Runtime first."""
    inputs = random_inputs(graph, 0)
    session = onnxruntime_session(model)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, inputs), strict=True))
    timers = {"onnxruntime": lambda: onnxruntime_latency(session, inputs, repeat).median}
    for label, path in paths.items():
        ex = GraphExecutor.load(path)
        error = relative_error(ex.run(inputs), want)
        if error > 1e-4:
            raise SystemExit(f"{label}: relative error {error:.1e} against ONNX Runtime")
        timers[label] = lambda ex=ex: ex.benchmark(repeat=repeat, min_repeat_ms=20).median
    labels = list(timers)
    times: dict[str, list[float]] = {label: [] for label in labels}
    for r in range(rounds):
        for label in labels[r % len(labels) :] + labels[: r % len(labels)]:
            times[label].append(timers[label]())
    return times


def report(network: str, times: dict[str, list[float]]) -> None:
    """Medians, and each build's ratio to the "regions" build of the same round (the load
    moves between rounds more than the builds differ): median and quartiles."""
    ort = statistics.median(times["onnxruntime"])
    print(f"{network}: median of {len(times['regions'])} rounds (ms), ORT/x, x/regions per round")
    for label, ts in times.items():
        ratio = [a / b for a, b in zip(ts, times["regions"], strict=True)]
        q1, q2, q3 = statistics.quantiles(ratio, n=4) if len(ratio) > 1 else ratio * 3
        ms = statistics.median(ts)
        print(
            f"  {label:26s} {ms:8.3f}  min {min(ts):8.3f}  ORT/x {ort / ms:5.2f}  "
            f"x/regions {q2:.2f} ({q1:.2f}-{q3:.2f})"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--network", default="zoo:bert-tiny")
    p.add_argument("--records", help="tuning records to compile with")
    p.add_argument("--cores", type=int, default=0, help="also build for -cores=N (e.g. 1)")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--profile", action="store_true", help="per-call times of each variant")
    p.add_argument("--light-cost", action="store_true", help="estimate against measured")
    args = p.parse_args()
    model, graph = load_model(args.network)
    targets = {label: ("cpu", work) for label, work in VARIANTS.items()}
    if args.cores:
        targets[f"regions, {args.cores} core(s)"] = (f"cpu -cores={args.cores}", 0)
        targets[f"threshold, {args.cores} core(s)"] = (f"cpu -cores={args.cores}", THRESHOLD)
    with tempfile.TemporaryDirectory() as tmp:
        paths, builds = {}, {}
        for i, (label, (target, work)) in enumerate(targets.items()):
            paths[label] = Path(tmp) / f"v{i}.tfa"
            builds[label] = build(graph, target, work, args.records, paths[label])
        times = interleaved(model, graph, paths, args.rounds, args.repeat)
        report(args.network, times)
        if args.profile or args.light_cost:
            per_call = profile(paths, 20)
            calls = GraphExecutor.load(paths["serial"]).profile(repeat=1)
        if args.profile:
            works = region_works(builds["serial"])
            print(f"{'call':40s} {'kernel':18s} loop work (ms: " + ", ".join(per_call) + ")")
            for i, c in enumerate(calls):
                row = " ".join(f"{per_call[label][i]:.4f}" for label in per_call)
                print(f"{c.node[:40]:40s} {c.kernel[:18]:18s} {works[c.kernel]} {row}")
            sums = ", ".join(f"{label} {sum(t):.3f} ms" for label, t in per_call.items())
            print(f"sum: {sums}")
        if args.light_cost:
            light_cost(graph, calls, per_call["serial"])


if __name__ == "__main__":
    main()
