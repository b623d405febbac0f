"""The record store's benchmark (docs/records.md): the store at scale, and a resubmitted
network with `--reuse best` against its cold run.

    python benchmarks/reuse.py scale --records 1000000 --store /tmp/s.sqlite
    python benchmarks/reuse.py scale --records 200000 --store postgresql://postgres@127.0.0.1/x
    python benchmarks/reuse.py resubmit --model zoo:squeezenet-1.1 --trials 64

scale: puts N synthetic records (conv2d workloads of many shapes, real configs of their
template spaces) in batches, timing the import; then times the best-record lookup of a
50-task network (one `top_k` query, 50 workload keys) and a second put of the same records
(all duplicates: nothing added). resubmit: `tunefarm tune` cold with `--reuse off` into a
fresh store, then the same network again with `--reuse best`: new trials, wall time and
latency of both, in one run. Prints a table and, with --json, writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureResult, MeasureSettings
from tunefarm.store import open_store
from tunefarm.task import Task
from tunefarm.tune.records import make_record

SETTINGS = MeasureSettings(repeat=3, min_repeat_ms=1)
CHANNELS = (16, 24, 32, 48, 64, 96, 128, 192)
SIZES = (7, 14, 28, 56)


def workloads() -> list[Task]:
    """256 conv2d workloads: every (in, out) channel pair of CHANNELS at four image sizes."""
    return [
        Task.make("conv2d", data=(1, c, hw, hw), weight=(k, c, 3, 3), padding=1)
        for c in CHANNELS
        for k in CHANNELS
        for hw in SIZES
    ]


def synthetic(n: int, tasks: list[Task]):
    """n records spread over the tasks, in batches of 10,000 (generated lazily)."""
    per = max(1, -(-n * 5 // (4 * len(tasks))))  # a quarter more: small spaces hold fewer
    batch, made = [], 0
    for t in tasks:
        space = registry.config_space(t)
        for i in range(min(per, space.size, n - made)):
            cost = 1e-4 * (1 + (i * 7919 % 1000) / 100)
            res = MeasureResult((cost,) * 3, MeasureErrorNo.NO_ERROR, "", 0.2, 1.7e9 + i, SETTINGS)
            batch.append(make_record(MeasureInput(t, Config.make(space.get(i), index=i)), res))
            made += 1
            if len(batch) == 10_000:
                yield batch
                batch = []
        if made >= n:
            break
    if batch:
        yield batch


def scale(args: argparse.Namespace) -> dict:
    tasks = workloads()
    store = open_store(args.store)
    put_s = make_s = put_cpu = 0.0
    new = 0
    start = time.perf_counter()
    gen = synthetic(args.records, tasks)
    while True:
        t0 = time.perf_counter()
        batch = next(gen, None)
        t1 = time.perf_counter()
        if batch is None:
            break
        c1 = time.process_time()
        new += store.put(batch)
        put_s += time.perf_counter() - t1
        put_cpu += time.process_time() - c1
        make_s += t1 - t0
    total = store.totals()["records"]
    keys = [t.workload_key for t in tasks[:50]]
    lookups, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        best = store.top_k(keys, "cpu", "local", 1)
        lookups.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    assert len(best) == len(keys)
    again = next(synthetic(min(10_000, args.records), tasks))
    t0 = time.perf_counter()
    dup = store.put(again)
    dup_s = time.perf_counter() - t0
    store.close()
    return {
        "store": store.where,
        "dialect": store.engine.dialect.name,
        "records": total,
        "new": new,
        "put_s": put_s,
        "put_us_per_record": put_s / max(1, new) * 1e6,
        "put_cpu_s": put_cpu,  # this process's CPU (the database server's is apart)
        "generate_s": make_s,
        "wall_s": time.perf_counter() - start,
        "lookup_50_ms_median": statistics.median(lookups) * 1e3,
        "lookup_50_ms_max": max(lookups) * 1e3,
        "lookup_50_cpu_ms_median": statistics.median(cpu) * 1e3,
        "duplicate_put": {"records": len(again), "new": dup, "seconds": dup_s},
    }


def lookup(args: argparse.Namespace) -> dict:
    """The 50-task best-record lookup alone, on a store `scale` filled earlier."""
    store = open_store(args.store)
    keys = [t.workload_key for t in workloads()[:50]]
    wall, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        found = store.top_k(keys, "cpu", "local", 1)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    assert len(found) == len(keys)
    total = store.totals()["records"]
    store.close()
    return {
        "store": store.where,
        "records": total,
        "lookup_50_ms_median": statistics.median(wall) * 1e3,
        "lookup_50_ms_max": max(wall) * 1e3,
        "lookup_50_cpu_ms_median": statistics.median(cpu) * 1e3,
    }


def _tune(model: str, trials: int, store: str, reuse: str, tmp: Path, name: str) -> dict:
    argv = [
        sys.executable,
        "-m",
        "tunefarm",
        "tune",
        model,
        "--trials",
        str(trials),
        "--log",
        str(tmp / f"{name}.jsonl"),
        "-o",
        str(tmp / f"{name}.tfa"),
        "--store",
        store,
        "--reuse",
        str(reuse),
        "--reuse-min-trials",
        "1",
        "--json",
    ]
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    doc = json.loads(out.stdout)
    latency = doc["latency_ms"]["tuned"]
    return {
        "wall_s": wall,
        "new_trials": doc["scheduler"]["trials"],
        "tuned_ms": latency["median_ms"],
        "onnxruntime_ms": doc["latency_ms"]["onnxruntime"]["median_ms"],
        "reuse": doc["scheduler"].get("reuse", {}).get("trials_saved"),
    }


def resubmit(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory(prefix="tf-reuse-") as tmp:
        store = str(Path(tmp) / "store.sqlite")
        cold = _tune(args.model, args.trials, store, "off", Path(tmp), "cold")
        best = _tune(args.model, args.trials, store, "best", Path(tmp), "best")
    return {
        "model": args.model,
        "trials": args.trials,
        "cold": cold,
        "best": best,
        "wall_ratio": best["wall_s"] / cold["wall_s"],
        "latency_ratio": best["tuned_ms"] / cold["tuned_ms"],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    s = sub.add_parser("scale")
    s.add_argument("--records", type=int, default=1_000_000)
    s.add_argument("--store", required=True)
    s.add_argument("--repeat", type=int, default=20)
    lk = sub.add_parser("lookup")
    lk.add_argument("--store", required=True)
    lk.add_argument("--repeat", type=int, default=20)
    r = sub.add_parser("resubmit")
    r.add_argument("--model", default="zoo:squeezenet-1.1")
    r.add_argument("--trials", type=int, default=64)
    for q in (s, lk, r):
        q.add_argument("--json", metavar="OUT", help="write the figures here")
    args = p.parse_args()
    result = {"scale": scale, "lookup": lookup, "resubmit": resubmit}[args.what](args)
    result["load_avg"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
