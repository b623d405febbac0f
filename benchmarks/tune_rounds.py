"""Trials per second of a network tune, and where its wall time goes, base against branch.

    python benchmarks/tune_rounds.py --base /work/wt/base --model zoo:resnet-18 \
        --policy sketch --targets cpu,opencl --trials 64,256 \
        --out benchmarks/results-tune-rounds.json

Each run is a child process that imports tunefarm from one checkout's `shared/` (this one,
or `--base`'s), extracts the model's tasks and tunes them with `recipe.tune_network` (the
task scheduler, as `tunefarm tune` does, without the compile and check around it) into a
fresh log, with a fresh build cache and pocl kernel cache (every trial builds). Runs are
interleaved: for each (target, trials), base then branch, `--repeat` times. trials/s is
trials over the tune's own seconds. The profile adds up the wall time spent in each phase
(in whatever thread it runs, so phases that overlap add up to more than the wall time):
proposal (`Tuner.propose`, `propose_after`), cost model (`update`), build
(`LocalBuilder.build`), reference (the runner's numpy reference data), measure (the runner
timing kernels), records (the log's appends), scheduler table and progress (reporter), and
`MeasureOption.measure` as a whole (build + measure as the tune waits for them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# -- the child: one tune with a profile --------------------------------------------------------
def _timed(owner: object, name: str, phase: str, totals: dict, lock: threading.Lock) -> None:
    """Wrap owner.name so that its wall time adds up under `phase`."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            with lock:
                totals[phase] = totals.get(phase, 0.0) + time.perf_counter() - start
                if phase == "measure_option_measure":  # candidates per build-and-measure call
                    totals["calls"] = totals.get("calls", 0) + 1
                    totals["candidates"] = totals.get("candidates", 0) + len(args[1])

    setattr(owner, name, wrapper)


def _instrument(totals: dict) -> None:
    from tunefarm.measure.builder import LocalBuilder
    from tunefarm.measure.runner import LocalRunner
    from tunefarm.tune import progress, records, tuner
    from tunefarm.tune.sketch_search import SketchTuner

    lock = threading.Lock()
    for owner, name, phase in [
        (tuner.Tuner, "propose", "proposal"),
        (SketchTuner, "update", "cost_model"),
        (LocalBuilder, "build", "build"),
        (LocalRunner, "_reference", "reference"),
        (LocalRunner, "_measure_in_child", "measure"),
        (records, "append_records", "records"),
        (progress.Reporter, "round_end", "reporter"),
        (progress.AutoTVMReporter, "round_end", "reporter"),
        (tuner.MeasureOption, "measure", "measure_option_measure"),
    ]:
        _timed(owner, name, phase, totals, lock)


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(args.shared).resolve()))
    import io

    from tunefarm.compiler.tasks import network_tasks
    from tunefarm.frontend.models import load_model
    from tunefarm.recipe.job import tune_network

    totals: dict[str, float] = {}
    _instrument(totals)
    model = args.model
    if args.image_size:  # a zoo model at a smaller input: the same tasks, smaller kernels
        from tunefarm.frontend import zoo

        model = zoo.build(args.model.removeprefix("zoo:"), image_size=args.image_size)
    _, graph = load_model(model, None)
    tasks = network_tasks(graph, args.target, args.policy)
    log = Path(args.work) / "tune.jsonl"
    chatter = io.StringIO()
    start = time.perf_counter()
    summary = tune_network(tasks, args.trials, log, policy=args.policy, stream=chatter)
    wall = time.perf_counter() - start
    import tunefarm

    doc = {
        "tunefarm": str(Path(tunefarm.__file__).parent),
        "tasks": len(tasks),
        "trials": summary.trials,
        "tune_seconds": summary.seconds,
        "wall_seconds": wall,
        "trials_per_s": summary.trials / summary.seconds,
        "profile_s": {k: round(v, 2) for k, v in sorted(totals.items())},
        "estimated_total_latency_s": summary.estimated_total_latency_s,
        "rounds": sum(1 for _ in chatter.getvalue().split("Estimated total latency")) - 1,
    }
    print(json.dumps(doc))


# -- the parent: interleaved runs ----------------------------------------------------------
def _run(args: argparse.Namespace, shared: str, target: str, trials: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="tune-rounds-") as work:
        env = {**os.environ, "TUNEFARM_CACHE": f"{work}/cache", "POCL_CACHE_DIR": f"{work}/pocl"}
        cmd = [sys.executable, __file__, "--child", "--shared", shared, "--work", work,
               "--model", args.model, "--policy", args.policy, "--target", target,
               "--trials", str(trials), "--image-size", str(args.image_size)]  # fmt: skip
        load = os.getloadavg()
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=args.timeout
            )
        except subprocess.TimeoutExpired:
            return {"error": f"ran past {args.timeout:g} s", "load_before": load}
        if proc.returncode != 0:
            return {"error": proc.stderr[-2000:], "load_before": load}
        doc = json.loads(proc.stdout.strip().splitlines()[-1])
        return {**doc, "load_before": load, "load_after": os.getloadavg()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--shared", default=str(ROOT / "shared"), help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    p.add_argument("--target", help=argparse.SUPPRESS)
    p.add_argument("--base", help="a checkout of main (its shared/ is imported for 'base')")
    p.add_argument("--branch", default=str(ROOT), help="the checkout measured as 'branch'")
    p.add_argument("--model", default="zoo:resnet-18")
    p.add_argument("--image-size", type=int, default=0, help="zoo models: input size (0: 224)")
    p.add_argument("--policy", default="sketch")
    p.add_argument("--targets", default="cpu,opencl")
    p.add_argument("--trials", default="64,256")
    p.add_argument("--sides", default="base,branch", help="which checkouts to run")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    p.add_argument("--out", help="JSON results")
    args = p.parse_args()
    if args.child:
        args.trials = int(args.trials)
        return child(args)
    sides = {"branch": str(Path(args.branch) / "shared")}
    if args.base:
        sides = {"base": str(Path(args.base) / "shared"), **sides}
    sides = {k: v for k, v in sides.items() if k in args.sides.split(",")}
    host = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model_name = next((ln.split(":", 1)[1].strip() for ln in host.splitlines()
                       if ln.startswith("Model name")), "?")  # fmt: skip
    doc: dict = {"host": model_name, "cores": os.cpu_count(), "model": args.model,
                 "image_size": args.image_size or None,
                 "policy": args.policy, "command": " ".join(sys.argv), "runs": []}  # fmt: skip
    for target in args.targets.split(","):
        for trials in map(int, args.trials.split(",")):
            for rep in range(args.repeat):
                for side, shared in sides.items():
                    run = _run(args, shared, target, trials)
                    run = {"side": side, "target": target, "trials_asked": trials,
                           "repeat": rep, **run}  # fmt: skip
                    doc["runs"].append(run)
                    rate = run.get("trials_per_s")
                    print(f"{target:7s} {trials:4d} {side:6s} "
                          + (f"{rate:.3f} trials/s {run['profile_s']}" if rate else run["error"]),
                          flush=True)  # fmt: skip
                    if args.out:
                        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    _ratios(doc)
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


def _ratios(doc: dict) -> None:
    """branch / base trials/s per (target, trials), best of the repeats; printed and kept."""
    best: dict = {}
    for r in doc["runs"]:
        if "trials_per_s" in r:
            key = (r["target"], r["trials_asked"], r["side"])
            best[key] = max(best.get(key, 0.0), r["trials_per_s"])
    doc["ratios"] = []
    for (target, trials, side), rate in sorted(best.items()):
        base = best.get((target, trials, "base"))
        if side == "branch" and base:
            doc["ratios"].append({"target": target, "trials": trials, "base": base,
                                  "branch": rate, "ratio": rate / base})  # fmt: skip
            print(f"{target:7s} {trials:4d}: base {base:.3f}, branch {rate:.3f} trials/s: "
                  f"{rate / base:.2f}x")  # fmt: skip


if __name__ == "__main__":
    main()
