"""The CPU a network search spends proposing each task's first batch (issue 27).

A network search shares one cost model among its tasks (`policy.tuner_factory`), so from the
second task on a task's first batch is proposed with the model trained. This measures the
proposals alone, with no builds or measurements: the first `--tasks` tasks of a network in the
task scheduler's order, each tuner made, `--batches` batches of `--batch` proposed, each booked
as measured with made-up costs (a fixed random draw: only so that the shared model trains on
it as a search's would; the proposals' quality is not what this measures) before the next
one. Per task and batch: the thread CPU of set-up and proposal, and how many states were lowered.

    taskset -c 0 nice -n 5 .venv/bin/python benchmarks/first_batch_propose.py one
    taskset -c 0 nice -n 5 .venv/bin/python benchmarks/first_batch_propose.py compare \\
        --base-python /path/to/main/.venv/bin/python --rounds 2 --json out.json

`compare` alternates subprocesses of this script under two interpreters (each venv imports
its own tree's tunefarm, installed editable), so the two trees share the host's load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _report import cpu_model

HERE = Path(__file__).resolve()


def run_one(args: argparse.Namespace) -> int:
    import numpy as np

    from tunefarm.frontend.models import load_model
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.measure import MeasureErrorNo, MeasureResult, MeasureSettings
    from tunefarm.tune.policy import tuner_factory
    from tunefarm.tune.sketch_search import SketchTuner

    _model, graph = load_model(f"zoo:{args.network}")
    tasks = extract_tasks(graph, "cpu -cores=1")[: args.tasks]
    make = tuner_factory("sketch", "xgb")
    lowered = [0]
    featurise = SketchTuner._featurise

    def counted(self, index, steps):  # type: ignore[no-untyped-def]
        lowered[0] += 1
        return featurise(self, index, steps)

    SketchTuner._featurise = counted  # type: ignore[method-assign]
    rng = np.random.default_rng(0)
    rows = []
    for i, t in enumerate(tasks):
        c0 = time.thread_time()
        tuner = make(t.task, i)
        setup = round(time.thread_time() - c0, 3)
        row: dict[str, Any] = {"task": str(t.task)[:60], "setup_cpu_s": setup}
        for b in range(args.batches):
            c1, n0 = time.thread_time(), lowered[0]
            batch = tuner.next_batch(args.batch)
            c2 = time.thread_time()
            costs = rng.uniform(1e-4, 1e-2, len(batch))
            results = [MeasureResult((float(c),), MeasureErrorNo.NO_ERROR, "", float(c), 0.0,
                                     MeasureSettings()) for c in costs]  # fmt: skip
            tuner.load_history(list(zip(batch, results, strict=True)))
            tuner.update(batch, results)
            row[f"batch{b}"] = {"propose_cpu_s": round(c2 - c1, 3),
                                "lowered": lowered[0] - n0, "proposed": len(batch)}  # fmt: skip
        per = [row[f"batch{b}"] for b in range(args.batches)]
        row["propose_cpu_s"] = round(sum(x["propose_cpu_s"] for x in per), 3)
        row["lowered"] = sum(x["lowered"] for x in per)
        rows.append(row)
    print(json.dumps({"tasks": rows,
                      "propose_cpu_s": round(sum(r["propose_cpu_s"] for r in rows), 2),
                      "setup_cpu_s": round(sum(r["setup_cpu_s"] for r in rows), 2),
                      "lowered": sum(r["lowered"] for r in rows)}))  # fmt: skip
    return 0


def compare(args: argparse.Namespace) -> int:
    pythons = {"base": args.base_python, "after": sys.executable}
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in pythons}
    for r in range(args.rounds):
        for name in ("base", "after") if r % 2 == 0 else ("after", "base"):
            cmd = [pythons[name], str(HERE), "one", "--network", args.network,
                   "--tasks", str(args.tasks), "--batch", str(args.batch),
                   "--batches", str(args.batches)]  # fmt: skip
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            runs[name].append(json.loads(out.strip().splitlines()[-1]))
            print(name, runs[name][-1]["propose_cpu_s"], runs[name][-1]["lowered"], flush=True)
    summary = {
        k: {f: statistics.median(x[f] for x in v) for f in ("propose_cpu_s", "setup_cpu_s",
                                                             "lowered")}
        for k, v in runs.items()
    }  # fmt: skip
    summary["propose_ratio_base_over_after"] = round(
        summary["base"]["propose_cpu_s"] / max(summary["after"]["propose_cpu_s"], 1e-9), 2
    )
    doc = {"network": args.network, "tasks": args.tasks, "batch": args.batch, "cpu": [cpu_model()],
           "loadavg_end": os.getloadavg(), "summary": summary, "runs": runs}  # fmt: skip
    print(json.dumps(summary, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("one", "compare"):
        q = sub.add_parser(name)
        q.add_argument("--network", default="resnet-18")
        q.add_argument("--tasks", type=int, default=8)
        q.add_argument("--batch", type=int, default=16)
        q.add_argument("--batches", type=int, default=2, help="batches proposed per task")
        if name == "compare":
            q.add_argument("--base-python", required=True)
            q.add_argument("--rounds", type=int, default=2)
            q.add_argument("--json")
    args = p.parse_args(argv)
    return run_one(args) if args.cmd == "one" else compare(args)


if __name__ == "__main__":
    raise SystemExit(main())
