"""Trials per second of a tune on pocl: candidates compiled in the build workers (the
prebuild, `backends/opencl/prebuild.py`) against the measurer compiling them (today's
main), and against a process per candidate (before the persistent measurer), alternating
rounds in one run, each tune in a fresh subprocess with cold caches (tunefarm's build cache
and pocl's kernel cache), same conv, seed and trials.

    python benchmarks/pocl_speed.py --trials 32 --rounds 2 --json out.json

Prints one JSON line per tune, then the ratios; writes JSON with the load average. CPU
seconds per trial (the tune's whole process tree: search, build workers, pocl's threads,
measurer) are the steadier figure on a shared host; wall-clock trials/s is what the issue
asks for.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import stop_forkserver

MODES = {
    # name: environment of the tune
    "process_per_candidate": {"TUNEFARM_OPENCL_PREBUILD": "0", "TUNEFARM_PERSISTENT_MEASURER": "0"},
    "measurer_compiles": {"TUNEFARM_OPENCL_PREBUILD": "0"},
    "prebuild": {"TUNEFARM_OPENCL_PREBUILD": "1"},
    # the same without the next batch proposed while this one builds (tune.tuner._Ahead)
    "prebuild_no_ahead": {"TUNEFARM_OPENCL_PREBUILD": "1", "TUNEFARM_OVERLAP_BATCHES": "0"},
    # lighter build options: pocl skips its optimisations (slower kernels, checked the same)
    "prebuild_opt_disable": {
        "TUNEFARM_OPENCL_PREBUILD": "1",
        "TUNEFARM_OPENCL_BUILD_OPTIONS": "-cl-opt-disable",
    },
}
CONV = dict(data=(1, 32, 14, 14), weight=(32, 32, 3, 3), strides=(1, 1), padding=(1, 1, 1, 1))


def run_one(args: argparse.Namespace) -> int:
    """One tune of the conv on opencl; one JSON line."""
    from tunefarm.measure import MeasureSettings
    from tunefarm.task import Task
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    task = Task.make("conv2d", target="opencl", **CONV)
    tuner = make_tuner(args.policy, task, args.seed)
    settings = MeasureSettings(min_repeat_ms=args.min_repeat_ms, repeat=1, timeout_s=args.timeout)
    # the build limit as the measurement's: with the prebuild, pocl's compile (up to 3 s of
    # CPU, tens of seconds under load) moved from the measurement into the build
    option = MeasureOption.local(settings, build_timeout_s=args.timeout, kind="opencl")
    try:
        start = time.perf_counter()
        summary = tuner.tune(args.trials, option, batch_size=args.batch)
        seconds = time.perf_counter() - start
    finally:
        option.close()
    stop_forkserver()
    ok = args.trials - sum(summary.errors.values())
    print(json.dumps({"trials": args.trials, "ok": ok, "seconds": seconds,
                      "errors": dict(summary.errors)}))  # fmt: skip
    return 0


def spawn(mode: str, args: argparse.Namespace) -> dict:
    """One tune in a fresh process; `MODE@base` runs MODE on the tree at --base (its
    `shared` first on PYTHONPATH), so old and new code alternate in one run."""
    name, _, where = mode.partition("@")
    env = {**os.environ, **MODES[name]}
    if where:
        if not args.base:
            raise SystemExit(f"{mode}: needs --base DIR (a checkout of the code to compare)")
        env["PYTHONPATH"] = str(Path(args.base, "shared"))
    env["TUNEFARM_CACHE"] = tempfile.mkdtemp(prefix="tf-pocl-speed-")
    env["POCL_CACHE_DIR"] = tempfile.mkdtemp(prefix="tf-pocl-kcache-")
    cmd = [sys.executable, __file__, "one", "--trials", str(args.trials), "--seed",
           str(args.seed), "--policy", args.policy, "--batch", str(args.batch),
           "--timeout", str(args.timeout),
           "--min-repeat-ms", str(args.min_repeat_ms)]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if out.returncode != 0:
        raise RuntimeError(f"{mode}: exit {out.returncode}\n{out.stderr[-2000:]}")
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    rep.update(
        mode=mode,
        trials_per_s=rep["trials"] / rep["seconds"],
        load=os.getloadavg(),
        cpu_s=cpu_s,
        cpu_s_per_trial=cpu_s / rep["trials"],
    )
    print(json.dumps(rep), flush=True)
    return rep


def compare(args: argparse.Namespace) -> int:
    modes = args.modes.split(",")
    runs: list[dict] = []
    for _ in range(args.rounds):
        for mode in modes:
            runs.append(spawn(mode, args))
    best = {m: max(r["trials_per_s"] for r in runs if r["mode"] == m) for m in modes}
    median = {m: statistics.median(r["trials_per_s"] for r in runs if r["mode"] == m)
              for m in modes}  # fmt: skip
    cpu = {m: statistics.median(r["cpu_s_per_trial"] for r in runs if r["mode"] == m)
           for m in modes}  # fmt: skip
    summary = {"cpu_s_per_trial": cpu, "conv": CONV, "trials": args.trials,
               "rounds": args.rounds, "best": best, "median": median, "runs": runs,
               "loadavg_end": os.getloadavg()}  # fmt: skip
    for new in ("prebuild", "prebuild_opt_disable"):
        for base in modes:
            if (
                base != new
                and new in best
                and (base.endswith("@base") or not base.startswith("prebuild"))
            ):
                summary[f"{new}_vs_{base}"] = best[new] / best[base]
                summary[f"{new}_vs_{base}_cpu"] = cpu[base] / cpu[new]
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["one", "compare"], nargs="?", default="compare")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--policy", default="sketch")
    p.add_argument("--min-repeat-ms", type=float, default=20.0)
    p.add_argument("--modes", default="process_per_candidate,measurer_compiles,prebuild")
    p.add_argument("--json", default="")
    p.add_argument("--timeout", type=float, default=60.0, help="build and measurement limit, s")
    p.add_argument("--base", default="", help="a checkout for the modes named MODE@base")
    args = p.parse_args()
    return run_one(args) if args.what == "one" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
