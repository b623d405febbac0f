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
goes when a model is slower than ONNX Runtime. `--cpu-time` (with `--cores 1`) times both by
the calling thread's CPU time instead of the wall clock: on a shared host, where a run is
descheduled many times, the wall clock measures the neighbours; the thread's CPU time does
not (both run on the calling thread with one core / one intra-op thread).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_info  # noqa: E402
from tunefarm.compiler import compile_graph  # noqa: E402
from tunefarm.frontend.onnx_import import load_onnx  # noqa: E402
from tunefarm.recipe import onnxruntime_session, relative_error  # noqa: E402
from tunefarm.runtime.executor import GraphExecutor  # noqa: E402

MATCH = 1e-4


def _median_ms(fn, repeat: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append((clock() - start) * 1e3)
    return statistics.median(times)


def one(
    path: Path,
    workdir: Path,
    rounds: int,
    repeat: int,
    cores: int = 0,
    profile: int = 0,
    cpu_time: bool = False,
) -> dict:
    """Import, compile, check and time one export; every failure is a one-line message."""
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
    start = time.perf_counter()
    try:
        compile_graph(graph, f"cpu -cores={cores}" if cores else "cpu").save(workdir / "net.tfa")
        net = GraphExecutor.load(workdir / "net.tfa")
        got = net.run(feeds)
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
    ratios, ort_ms, tf_ms = [], [], []
    row["load_avg_1m"] = round(os.getloadavg()[0], 1)  # the host's load while timing
    clock = time.thread_time if cpu_time else time.perf_counter
    row["clock"] = "thread CPU time" if cpu_time else "wall"
    for _ in range(rounds):
        a = _median_ms(lambda: session.run(None, feeds), repeat, clock)
        b = _median_ms(lambda: net.run(feeds), repeat, clock)
        ort_ms.append(a)
        tf_ms.append(b)
        ratios.append(b / a)
    row.update(
        ort_ms=round(statistics.median(ort_ms), 2),
        untuned_ms=round(statistics.median(tf_ms), 2),
        untuned_ratio=round(statistics.median(ratios), 3),
    )
    if profile:
        calls = sorted(net.profile(repeat=3), key=lambda e: -e.ms)[:profile]
        row["slowest"] = [[e.node, e.kernel, round(e.ms, 3)] for e in calls]
    return row


def table(rows: list[dict]) -> str:
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
    ratios = [r["untuned_ratio"] for r in rows if "untuned_ratio" in r]
    n_ok = sum(bool(r.get("match")) for r in rows)
    geo = math.exp(statistics.fmean(math.log(x) for x in ratios)) if ratios else float("nan")
    lines.append(f"\n{n_ok}/{len(rows)} exports import and match; untuned geomean {geo:.2f}x ORT")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, default=Path("."), help="exports and their inputs")
    ap.add_argument("--only", default="", help="comma-separated name prefixes")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cores", type=int, default=0, help="tunefarm cores = ORT threads (0: all)")
    ap.add_argument("--profile", type=int, default=0, help="record the K slowest calls")
    ap.add_argument("--cpu-time", action="store_true", help="time by thread CPU time (--cores 1)")
    ap.add_argument("--json", type=Path, default=Path("benchmarks/results-models.json"))
    ap.add_argument(
        "--collect", type=Path, nargs="*", help="only print the table of these results files"
    )
    args = ap.parse_args()
    if args.cpu_time and args.cores != 1:
        ap.error(
            "--cpu-time needs --cores 1: with more threads the calling thread's CPU time "
            "is not the run's"
        )
    if args.collect:  # results of runs one file at a time (a long run done in pieces)
        parts = [json.loads(p.read_text()) for p in args.collect]
        rows = sorted((r for part in parts for r in part["rows"]), key=lambda r: r["file"])
        print(table(rows))
        merged = {**parts[0], "rows": rows}
        args.json.write_text(json.dumps(merged, indent=1) + "\n")
        return 0
    files = sorted(args.dir.glob("*.onnx"))
    if args.only:
        files = [f for f in files if any(f.name.startswith(p) for p in args.only.split(","))]
    manifest_path = args.dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    rows = []
    work = args.dir / "work"
    work.mkdir(exist_ok=True)
    for f in files:
        rows.append(one(f, work, args.rounds, args.repeat, args.cores, args.profile, args.cpu_time))
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
