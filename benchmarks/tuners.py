"""Tuner benchmark: how fast each tuner gets close to the best kernel on the ResNet-18 convs.

For every conv2d task of `examples/resnet18_tasks.json` (or `--tasks`):

1. run each tuner (random, ga, xgb-rank, xgb-reg, gridsearch) once with the largest budget,
   with the same seed and measure settings, and keep its best-so-far curve, so that one run
   answers every budget (what it had found after 64, 128, 256 trials);
2. a long reference run (`--long` trials of xgb with another seed); the reference speed is the
   best of that run and of everything the tuners found, whichever is faster;
3. print, per task and tuner, the best GFLOPS as a fraction of the reference at each budget,
   the trials needed to reach 95% of it, and for the XGBoost tuners the share of wall time
   spent in the tuner itself (model fits and proposals); then averages and the goal checks.

    python benchmarks/tuners.py [--tasks conv_56_64_64_3x3,...] [--budgets 64,128,256]
        [--long 512] [--json out.json]

It takes long on the whole set (about 1,800 trials per task); progress goes to stderr.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import shlex
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
from tunefarm.cli.tune_tasks import load_tasks
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption, Tuner

TASKS_FILE = Path(__file__).resolve().parents[1] / "examples" / "resnet18_tasks.json"
TUNERS = ("random", "ga", "xgb-rank", "xgb-reg", "gridsearch")
XGB_TUNERS = ("xgb-rank", "xgb-reg")
REACH = 0.95  # "close to the best": this fraction of the reference speed
GOAL_REACH_TRIALS, GOAL_REACH_SHARE, GOAL_OVERHEAD = 128, 0.8, 0.10
LONG_SEED_OFFSET = 1000  # the reference run must not replay a benchmarked run


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@dataclass
class Run:
    """One tuner's run on one task: the best GFLOPS after each trial, time and overhead."""

    tuner: str
    curve: list[float]  # best GFLOPS so far after trial 1, 2, ...
    wall_s: float
    overhead_s: float | None  # time inside the tuner (XGBoost tuners report it)

    @property
    def best(self) -> float:
        return self.curve[-1] if self.curve else 0.0

    def at(self, budget: int) -> float:
        """Best GFLOPS after `budget` trials (all of them if the run stopped earlier)."""
        return self.curve[min(budget, len(self.curve)) - 1] if self.curve else 0.0

    def trials_to(self, gflops: float) -> int | None:
        return next((i + 1 for i, g in enumerate(self.curve) if g >= gflops), None)


def best_curve(tuner: Tuner) -> list[float]:
    """Best-so-far GFLOPS per trial, from the tuner's history (failed trials count as 0)."""
    out, best = [], 0.0
    for _, cost in tuner.history:
        best = max(best, tuner.gflops(cost))
        out.append(best)
    return out


def tune_once(name: str, task: Task, trials: int, seed: int, option: MeasureOption) -> Run:
    tuner = make_tuner("xgb" if name == "long" else name, task, seed=seed)
    start = time.perf_counter()
    summary = tuner.tune(trials, option, batch_size=16)
    wall = time.perf_counter() - start
    overhead = getattr(tuner, "overhead_s", None)
    run = Run(name, best_curve(tuner), wall, overhead)
    note = f", {summary.stop_reason}" if summary.stop_reason != "trial budget used" else ""
    log(
        f"  {name:<10} {summary.trials:4d} trials  best {run.best:8.2f} GFLOPS  {wall:7.1f} s{note}"
    )
    return run


def bench_task(
    name: str, task: Task, args: argparse.Namespace, option: MeasureOption
) -> dict[str, Any]:
    """Every tuner once at the largest budget, the long run, and the derived figures."""
    log(f"{name}: {task}")
    runs = [tune_once(t, task, max(args.budgets), args.seed, option) for t in args.tuners]
    long_run = None
    if args.long:
        long_run = tune_once("long", task, args.long, args.seed + LONG_SEED_OFFSET, option)
    reference = max([r.best for r in runs] + ([long_run.best] if long_run else []))
    tuners = {}
    for r in runs:
        to95 = r.trials_to(REACH * reference) if reference > 0 else None
        tuners[r.tuner] = {
            "fraction": {str(b): r.at(b) / reference if reference else 0.0 for b in args.budgets},
            "trials_to_95": to95,
            "best_gflops": r.best,
            "wall_s": r.wall_s,
            "overhead_s": r.overhead_s,
            "overhead_share": r.overhead_s / r.wall_s if r.overhead_s is not None else None,
            "curve": r.curve,
        }
    return {
        "name": name,
        "task": task.to_json(),
        "reference_gflops": reference,
        "long_run_gflops": long_run.best if long_run else None,
        "long_run_trials": args.long,
        "tuners": tuners,
    }


# -- report ----------------------------------------------------------------------------------
def _cell(value: float | None, fmt: str) -> str:
    return "-" if value is None or not math.isfinite(value) else format(value, fmt)


def task_table(result: dict, budgets: list[int]) -> list[str]:
    long_text = _cell(result["long_run_gflops"], ".1f")
    lines = [
        f"{result['name']}: reference {result['reference_gflops']:.1f} GFLOPS "
        f"(long run of {result['long_run_trials']} xgb trials: {long_text})",
        f"  {'tuner':<11}"
        + "".join(f"{'@' + str(b):>8}" for b in budgets)
        + f"{'to 95%':>9}{'best':>9}{'overhead':>10}",
    ]
    for name, t in result["tuners"].items():
        reach = t["trials_to_95"]
        cells = "".join(f"{t['fraction'][str(b)]:8.2f}" for b in budgets)
        reach_text = str(reach) if reach is not None else f">{max(budgets)}"
        share = t["overhead_share"] if name in XGB_TUNERS else None
        lines.append(
            f"  {name:<11}{cells}{reach_text:>9}{t['best_gflops']:9.1f}"
            f"{'-' if share is None else f'{share:.1%}':>10}"
        )
    return lines


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else math.nan


def goals(results: list[dict], budgets: list[int]) -> dict[str, Any]:
    """The three goal checks, over the tasks that ran xgb-rank (and random)."""
    within = min(GOAL_REACH_TRIALS, max(budgets))
    first = 64 if 64 in budgets else min(budgets)
    xgb = [r["tuners"]["xgb-rank"] for r in results if "xgb-rank" in r["tuners"]]
    reached = sum(1 for t in xgb if t["trials_to_95"] is not None and t["trials_to_95"] <= within)
    pairs = [
        (
            r["tuners"]["xgb-rank"]["fraction"][str(first)],
            r["tuners"]["random"]["fraction"][str(first)],
        )
        for r in results
        if "xgb-rank" in r["tuners"] and "random" in r["tuners"]
    ]
    xgb_mean, random_mean = _mean([a for a, _ in pairs]), _mean([b for _, b in pairs])
    runs = [r["tuners"][n] for r in results for n in XGB_TUNERS if n in r["tuners"]]
    wall = sum(t["wall_s"] for t in runs)
    share = sum(t["overhead_s"] or 0.0 for t in runs) / wall if wall > 0 else math.nan
    return {
        "reach_within": within,
        "reached": reached,
        "tasks": len(xgb),
        "reach_ok": bool(xgb) and reached >= GOAL_REACH_SHARE * len(xgb),
        "ahead_budget": first,
        "xgb_mean_fraction": xgb_mean,
        "random_mean_fraction": random_mean,
        "ahead": bool(pairs) and xgb_mean > random_mean,
        "overhead_share": share,
        "overhead_ok": share < GOAL_OVERHEAD,
    }


def report(results: list[dict], budgets: list[int]) -> tuple[list[str], dict[str, Any]]:
    lines: list[str] = []
    for result in results:
        lines += task_table(result, budgets) + [""]
    names = list(results[0]["tuners"]) if results else []
    lines.append(f"mean over {len(results)} task(s): fraction of the reference at each budget")
    for name in names:
        means = [_mean([r["tuners"][name]["fraction"][str(b)] for r in results]) for b in budgets]
        lines.append(f"  {name:<11}" + "".join(f"{m:8.2f}" for m in means))
    g = goals(results, budgets)
    lines += [
        "",
        f"XGB reaches 95% within {g['reach_within']} trials on {g['reached']}/{g['tasks']} "
        f"tasks (goal >= {GOAL_REACH_SHARE:.0%}): {'ok' if g['reach_ok'] else 'MISSED'}",
        f"XGB ahead of random at {g['ahead_budget']} trials on average: "
        f"{'yes' if g['ahead'] else 'no'} ({g['xgb_mean_fraction']:.3f} vs "
        f"{g['random_mean_fraction']:.3f})",
        f"XGB overhead share: {_cell(g['overhead_share'] * 100, '.1f')}% "
        f"(goal < {GOAL_OVERHEAD:.0%}): {'ok' if g['overhead_ok'] else 'MISSED'}",
    ]
    return lines, g


# -- command line ----------------------------------------------------------------------------
def _int_list(text: str) -> list[int]:
    try:
        values = sorted({int(v) for v in text.split(",") if v.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected integers like 64,128,256, got {text!r}"
        ) from None
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError(f"budgets must be integers >= 1, got {text!r}")
    return values


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tasks", default="", help="comma-separated task names (default: all convs)")
    p.add_argument("--tuners", default=",".join(TUNERS), help="comma-separated tuner names")
    p.add_argument("--budgets", type=_int_list, default=[64, 128, 256], help="e.g. 64,128,256")
    p.add_argument("--long", type=int, default=512, metavar="N", help="reference run (0: none)")
    p.add_argument("--target", default="cpu")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=2, help="timed calls per candidate")
    p.add_argument("--min-repeat-ms", type=float, default=10.0)
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = p.parse_args(argv)
    tasks, _, names = load_tasks(str(TASKS_FILE), args.target)
    convs = {n: t for n, t in zip(names, tasks, strict=True) if t.op == "conv2d"}
    wanted = [n.strip() for n in args.tasks.split(",") if n.strip()] or list(convs)
    unknown = [n for n in wanted if n not in convs]
    if unknown:
        p.error(f"unknown task(s) {unknown}; known: {', '.join(convs)}")
    args.selected = [(n, convs[n]) for n in wanted]
    args.tuners = [n.strip() for n in args.tuners.split(",") if n.strip()]
    bad = [n for n in args.tuners if n not in TUNERS]
    if bad or not args.tuners:
        p.error(f"unknown tuner(s) {bad}; known: {', '.join(TUNERS)}")
    if args.long < 0:
        p.error(f"--long must be >= 0, got {args.long}")
    try:
        args.settings = MeasureSettings(repeat=args.repeat, min_repeat_ms=args.min_repeat_ms)
    except ValueError as exc:
        p.error(str(exc))
    return args


def _finite(value: Any) -> Any:
    """NaN and infinity as null, so the file is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    option = MeasureOption.local(args.settings)
    try:
        results = [bench_task(n, t, args, option) for n, t in args.selected]
    finally:
        option.close()
    lines, g = report(results, args.budgets)
    settings = (
        f"target={args.target!r} seed={args.seed} budgets={args.budgets} long={args.long} "
        f"repeat={args.repeat} min_repeat_ms={args.min_repeat_ms:g} batch=16"
    )
    print(f"# {_report.cpu_model()}; {settings}")
    print("\n".join(lines))
    if args.json:
        doc = {
            "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": shlex.join([sys.executable, *sys.argv]),
            "cpu": _report.cpu_model(),
            "settings": settings,
            "budgets": args.budgets,
            "goals": g,
            "tasks": results,
        }
        Path(args.json).write_text(json.dumps(_finite(doc), indent=1) + "\n")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
