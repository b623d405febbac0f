"""Search quality at depth: does the sketch search keep finding better states after 256
trials, and why not (issue 27, item 4)?

For every op, seed and variant (a set of `SketchTuner` options) one sketch search runs to the
largest checkpoint with `SketchTuner(trace=True)`, which records per batch: the final
generation's diversity (distinct states, sketches, tile vectors, members measured already),
what the mutations gave (nothing, a state measured already, a duplicate, a new state), where
the measured states and the new bests came from (random init, epsilon-random, mutation kind),
and the model's Kendall tau at proposal time on all measured states and on the top 10%.

Measurements are memoised across the runs of one op (same state, same result): variants that
share a seed replay each other's identical prefixes for free, and a state two variants both
measure counts the same for both. At the end the bests at every checkpoint are re-timed by one
timer in `--rounds` interleaved rounds (`autoscheduler.FINAL`), and the ratios variant/base
are printed as geomeans over ops and seeds.

    nice python benchmarks/search_depth.py --ops conv_28_128_128_3x3,dense_768x768 \
        --checkpoints 64,128,256,512 --seeds 0 --variants base [--json out.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
import autoscheduler
from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureInput
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.sketch_search import SketchTuner
from tunefarm.tune.tuner import MeasureOption

# variant name -> SketchTuner options; "base" is the tuner as it is
VARIANTS: dict[str, dict[str, Any]] = {
    "base": {},
    # the search before issue 27 ("base" in the runs of docs/autoscheduler.md)
    "before": {"kinds": "any", "local_share": 0.0},
    # the defaults since ("local" in those runs)
    "local": {"kinds": "applicable", "local_share": 0.5},
    "any-kind": {"kinds": "any"},
    "no-local": {"local_share": 0.0},
    "seeded": {"seed_share": 0.5},
    "wide": {"population": 96, "generations": 4},
    # the first batch all random, as before the hand-built states (SketchTuner(first=...))
    "random-first": {"first": "random"},
    # the template default not mapped to a sketch state, as before (SketchTuner(seed_default=))
    "no-default-seed": {"seed_default": False},
}
# not a sketch variant: the template policy (the XGBoost tuner on the op's template), re-timed
# with the sketch runs so "template/base" compares the two policies in one timer
TEMPLATE = "template"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class MemoMeasure:
    """A MeasureOption that measures each (task, config) once and replays it after."""

    def __init__(self, option: MeasureOption):
        self.option = option
        self.cache: dict[tuple[str, str], Any] = {}
        self.measured = 0

    @staticmethod
    def key(inp: MeasureInput) -> tuple[str, str]:
        return (f"{inp.task.workload_key}|{inp.task.target}", repr(inp.config.as_dict()))

    def measure(self, inputs):
        todo = [inp for inp in inputs if self.key(inp) not in self.cache]
        todo = list({self.key(i): i for i in todo}.values())
        if todo:
            for inp, res in zip(todo, self.option.measure(todo), strict=True):
                self.cache[self.key(inp)] = res
            self.measured += len(todo)
        return [self.cache[self.key(inp)] for inp in inputs]

    def __getattr__(self, name: str) -> Any:
        """The rest (builder and runner, for the tuner's re-check of a new best) is the
        wrapped option's: re-checks are timed afresh, not replayed."""
        return getattr(self.option, name)

    def close(self) -> None:
        self.option.close()


def run_search(op, seed: int, variant: str, checkpoints: list[int], option) -> dict[str, Any]:
    if variant == TEMPLATE:
        return run_template(op, seed, checkpoints, option)
    tuner = SketchTuner(op.task, seed=seed, trace=True, **VARIANTS[variant])
    points, start = [], time.perf_counter()
    for cp in checkpoints:
        tuner.tune(cp - tuner.trials, option, batch_size=16)
        points.append({
            "trials": tuner.trials,
            "search_gflops": tuner.best_gflops,
            "config": _config_json(autoscheduler.best_config(tuner)),
            "model": tuner.model_quality(),
            "model_window": tuner.model_quality(cp - (points[-1]["trials"] if points else 0)),
            "seconds": time.perf_counter() - start,
        })  # fmt: skip
        q = points[-1]["model_window"]
        log(
            f"[{op.name} seed {seed} {variant}] {tuner.trials} trials: best "
            f"{tuner.best_gflops:.1f} GFLOPS, tau {q['tau']:.2f} top10 {q['tau_top10']:.2f}"
        )
    return {"op": op.name, "seed": seed, "variant": variant, "points": points,
            "trace": tuner.trace, "overhead_s": tuner.overhead_s, "tuner": tuner}  # fmt: skip


def run_template(op, seed: int, checkpoints: list[int], option) -> dict[str, Any]:
    """The template policy to the same checkpoints (no trace, no sketch model)."""
    tuner = make_tuner("xgb", op.task, seed)
    points, start = [], time.perf_counter()
    nan = {"tau": math.nan, "tau_top10": math.nan}
    for cp in checkpoints:
        tuner.tune(cp - tuner.trials, option, batch_size=16)
        points.append({"trials": tuner.trials, "search_gflops": tuner.best_gflops,
                       "config": _config_json(autoscheduler.best_config(tuner)), "model": nan,
                       "model_window": nan, "seconds": time.perf_counter() - start})  # fmt: skip
        log(f"[{op.name} seed {seed} template] {tuner.trials} trials: best "
            f"{tuner.best_gflops:.1f} GFLOPS")  # fmt: skip
    return {"op": op.name, "seed": seed, "variant": TEMPLATE, "points": points, "trace": [],
            "overhead_s": 0.0, "tuner": tuner}  # fmt: skip


def summarise(trace: list[dict[str, Any]], checkpoints: list[int]) -> list[dict[str, Any]]:
    """Per window between checkpoints: mean diversity, mutation outcomes, origins of the
    measured states and of the new bests."""
    out, lo = [], 0
    for cp in checkpoints:
        rows = [r for r in trace if lo <= r.get("trials", 0) < cp]
        outcome, origins, bests = Counter(), Counter(), Counter()
        for r in rows:
            outcome.update(r.get("children", {}))
            origins.update(r.get("origins", {}))
            bests.update(r.get("new_bests", []))
        div = [r for r in rows if "tile_vectors" in r]
        means = {
            k: statistics.mean(r[k] for r in div) if div else math.nan
            for k in ("population", "sketches", "tile_vectors", "measured_members")
        }
        out.append({
            "window": f"{lo}-{cp}",
            **means,
            "children": dict(outcome),
            "origins": dict(origins),
            "new_bests": dict(bests),
        })  # fmt: skip
        lo = cp
    return out


def retime(op, configs: list[Any], rounds: int) -> list[tuple[float, float]]:
    """GFLOP/s of each config over interleaved rounds by one timer (0: failed): the median
    round's and the fastest round's (on a loaded host the steadier one: load only slows)."""
    uniq = list({repr(c.as_dict()): c for c in configs}.values())
    inputs = [MeasureInput(op.task, c) for c in uniq]
    costs: list[list[float]] = [[] for _ in uniq]
    with registry.local_builder() as builder, registry.local_runner(autoscheduler.FINAL) as runner:
        builds = builder.build(inputs)
        for _ in range(rounds):
            for k, (inp, b) in enumerate(zip(inputs, builds, strict=True)):
                res = runner.run([inp], [b])[0]
                if res.ok:
                    costs[k].append(res.costs[0])
    flops = registry.flops(op.task)
    by_key = {repr(c.as_dict()): (flops / statistics.median(v) / 1e9 if v else 0.0,
                                  flops / min(v) / 1e9 if v else 0.0)
              for c, v in zip(uniq, costs, strict=True)}  # fmt: skip
    return [by_key[repr(c.as_dict())] for c in configs]


def first_batch(op, batch: int, rounds: int, seed: int) -> dict[str, Any]:
    """The first batch's quality, without a search: the states a `first="heuristic"` tuner
    proposes first (the template's default schedule, hand-built register blocks, random) and
    a `first="random"` tuner's, re-timed together in one timer; per origin the best GFLOP/s
    (median round, fastest round)."""
    groups: dict[str, list[Config]] = {}
    for first in ("heuristic", "random"):
        tuner = SketchTuner(op.task, seed=seed, first=first)
        for i in tuner.next_batch(batch):
            origin = tuner.origin[i] if first == "heuristic" else "random-first"
            groups.setdefault(origin, []).append(Config.make(tuner.space.get(i)))
    configs = [c for cs in groups.values() for c in cs]
    timed = iter(retime(op, configs, rounds))
    out = {}
    for origin, cs in groups.items():
        got = [next(timed) for _ in cs]
        out[origin] = {"n": len(cs), "best_median": max(g[0] for g in got),
                       "best_fastest": max(g[1] for g in got)}  # fmt: skip
    log(f"[{op.name}] first batch: {out}")
    return {"op": op.name, "seed": seed, "first_batch": out}


def _at(run: dict[str, Any], trials: int) -> dict[str, Any]:
    """A run's point at a checkpoint ({} when the run stopped earlier)."""
    return next((p for p in run["points"] if p["trials"] == trials), {})


def _counts(c: dict[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: -kv[1])) or "-"


def report(doc: dict[str, Any]) -> str:
    """The runs' re-timed (and in-search) bests per checkpoint, tau at the end, and per
    variant the geomean over ops and seeds of variant/base at each checkpoint."""
    runs = doc["runs"]
    cps = sorted({p["trials"] for r in runs for p in r["points"]})
    head = [f"{c}: re-timed median / best round (search)" for c in cps]
    lines = ["| op | seed | variant | " + " | ".join(head) + " | tau / top10 at end |",
             "|" + "---|" * (4 + len(cps))]  # fmt: skip
    for r in runs:
        cells = []
        for cp in cps:
            p = _at(r, cp)
            cells.append(f"{p.get('final_gflops', math.nan):.1f} / "
                         f"{p.get('final_best_gflops', math.nan):.1f} ({p['search_gflops']:.1f})"
                         if p else "")  # fmt: skip
        q = r["points"][-1]["model"]
        lines.append(f"| {r['op']} | {r['seed']} | {r['variant']} | " + " | ".join(cells)
                     + f" | {q['tau']:.2f} / {q['tau_top10']:.2f} |")  # fmt: skip
    lines += ["", "| op | seed | variant | trials | distinct tile vectors / population | "
              "measured members | mutations: new / none / measured / duplicate | "
              "batch origins | new bests from | tau / top10 (window) |",
              "|" + "---|" * 10]  # fmt: skip
    for r in runs:
        for w, p in zip(r.get("windows", []), r["points"], strict=False):
            ch = w["children"]
            total = max(1, sum(ch.values()))
            share = " / ".join(f"{ch.get(k, 0) / total:.2f}"
                               for k in ("new", "none", "measured", "duplicate"))  # fmt: skip
            q = p["model_window"]
            lines.append(
                f"| {r['op']} | {r['seed']} | {r['variant']} | {w['window']} | "
                f"{w['tile_vectors']:.1f} / {w['population']:.1f} | {w['measured_members']:.1f} | "
                f"{share} | {_counts(w['origins'])} | {_counts(w['new_bests'])} | "
                f"{q['tau']:.2f} / {q['tau_top10']:.2f} |"
            )
    lines.append("")
    for v in dict.fromkeys(r["variant"] for r in runs):
        if v == "base":
            continue
        ratios = []
        for cp in cps:
            rs: list[float] = []
            rb: list[float] = []
            for r in (x for x in runs if x["variant"] == v):
                b = next((x for x in runs if x["variant"] == "base" and x["op"] == r["op"]
                          and x["seed"] == r["seed"]), None)  # fmt: skip
                for key, out in (("final_gflops", rs), ("final_best_gflops", rb)):
                    new = _at(r, cp).get(key)
                    old = _at(b, cp).get(key) if b else None
                    if new and old:
                        out.append(new / old)
            if rs:
                ratios.append(f"{cp}: {autoscheduler.geomean(rs):.3f} / "
                              f"{autoscheduler.geomean(rb):.3f} (n={len(rs)})")  # fmt: skip
        lines.append(f"{v}/base, geomean of re-timed GFLOP/s, median / best round: "
                     + ", ".join(ratios))  # fmt: skip
    return "\n".join(lines)


def _op(name: str, target: str) -> Any:
    base = autoscheduler.OPS[name]
    return autoscheduler.Op(name, replace(base.task, target=target), base.onnx, base.weight)


def first_batch_table(rows: list[dict[str, Any]]) -> str:
    """Best GFLOP/s per origin of the first batch (median round / fastest round)."""
    origins = ["default", "heuristic", "init", "random-first"]
    lines = ["| op | seed | " + " | ".join(origins) + " |", "|" + "---|" * (2 + len(origins))]
    for r in rows:
        fb = r["first_batch"]
        cells = [f"{fb[o]['best_median']:.1f} / {fb[o]['best_fastest']:.1f} ({fb[o]['n']})"
                 if o in fb else "-" for o in origins]  # fmt: skip
        lines.append(f"| {r['op']} | {r['seed']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", default="conv_28_128_128_3x3,dense_768x768")
    p.add_argument("--checkpoints", default="64,128,256,512")
    p.add_argument("--seeds", default="0")
    p.add_argument(
        "--variants", default="base", help=f"of {', '.join(VARIANTS)} and {TEMPLATE} (the policy)"
    )
    p.add_argument("--rounds", type=int, default=3, help="interleaved re-timing rounds")
    p.add_argument("--target", default="cpu -cores=1")
    p.add_argument("--timeout", type=float, default=autoscheduler.SEARCH.timeout_s,
                   help="seconds a measurement may take (wall; raise it on a crowded host, "
                   "where a core's share stretches every run)")  # fmt: skip
    p.add_argument("--first-batch", type=int, default=0, metavar="N",
                   help="only time the first N proposals of a heuristic and a random first "
                   "batch per op and seed (no search)")  # fmt: skip
    p.add_argument("--json", help="write the runs here (rewritten after every run)")
    p.add_argument("--dump", help="write each run's measured features and costs (npz) here")
    p.add_argument("--report", metavar="JSON", help="print the tables of an earlier --json")
    p.add_argument(
        "--merge",
        nargs="+",
        metavar="JSON",
        help="merge the runs of earlier --json files and re-time all their bests together",
    )
    args = p.parse_args(argv)
    args.checkpoints = sorted({int(c) for c in args.checkpoints.split(",")})
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.variants = args.variants.split(",")
    bad = [v for v in args.variants if v not in VARIANTS and v != TEMPLATE]
    if bad:
        p.error(f"--variants: unknown {bad}; known: {', '.join(VARIANTS)}, {TEMPLATE}")
    args.op_names = autoscheduler.select_ops(args.ops)
    return args


def _config_json(config: Config | None) -> dict[str, Any] | None:
    return None if config is None else config.to_json()


def _config(obj: Any) -> Config:
    """A config stored by this script: its JSON form (or, from early runs, its repr)."""
    if isinstance(obj, str):
        return eval(obj, {"Config": Config})  # noqa: S307 - our own repr of a Config
    return Config.from_json(obj)


def retime_runs(doc: dict[str, Any], runs: list[dict[str, Any]], rounds: int, target: str) -> None:
    """Re-time the bests of every checkpoint of these runs, per op, in one timer."""
    for name in dict.fromkeys(r["op"] for r in runs):
        base = autoscheduler.OPS[name]
        op = autoscheduler.Op(name, replace(base.task, target=target), base.onnx, base.weight)
        points = [p for r in runs if r["op"] == name for p in r["points"] if p["config"]]
        log(f"[{name}] re-timing {len(points)} bests, {rounds} rounds")
        timed = retime(op, [_config(p["config"]) for p in points], rounds)
        for p, (median, fastest) in zip(points, timed, strict=True):
            p["final_gflops"], p["final_best_gflops"] = median, fastest
        doc["load_end"] = os.getloadavg()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        print(report(json.loads(Path(args.report).read_text())))
        return 0
    if args.merge:
        docs = [json.loads(Path(f).read_text()) for f in args.merge]
        doc = {**docs[0], "merged": args.merge, "runs": [r for d in docs for r in d["runs"]]}
        doc["load_start"] = os.getloadavg()
        retime_runs(doc, doc["runs"], args.rounds, docs[0]["target"])
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")
        print(report(doc))
        print(f"load average at start {doc['load_start']}, at end {doc.get('load_end')}")
        return 0
    doc: dict[str, Any] = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "target": args.target,
        "checkpoints": args.checkpoints,
        "machine": _report.machine_info(),
        "load_start": os.getloadavg(),
        "runs": [],
    }

    def save() -> None:
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")

    if args.first_batch:
        doc["first_batch"] = []
        for name in args.op_names:
            op = _op(name, args.target)
            for seed in args.seeds:
                doc["first_batch"].append(first_batch(op, args.first_batch, args.rounds, seed))
                save()
        print(first_batch_table(doc["first_batch"]))
        return 0
    for name in args.op_names:
        base = autoscheduler.OPS[name]
        op = autoscheduler.Op(name, replace(base.task, target=args.target), base.onnx, base.weight)
        settings = replace(autoscheduler.SEARCH, timeout_s=args.timeout)
        option = MemoMeasure(MeasureOption.local(settings))
        runs = []
        try:
            for seed in args.seeds:
                for variant in args.variants:
                    run = run_search(op, seed, variant, args.checkpoints, option)
                    run["windows"] = summarise(run["trace"], args.checkpoints)
                    tuner = run.pop("tuner")
                    if args.dump and isinstance(tuner, SketchTuner):  # not the template's
                        _dump(args.dump, op, run, tuner)
                    runs.append(run)
                    doc["runs"].append(run)
                    save()
        finally:
            option.close()
        retime_runs(doc, runs, args.rounds, args.target)
        save()
    print(report(doc))
    print(f"load average at start {doc['load_start']}, at end {doc.get('load_end')}")
    return 0


def _dump(folder: str, op, run: dict[str, Any], run_tuner: SketchTuner) -> None:
    """The run's measured states as features and GFLOP/s, for offline model experiments."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    rows, gf = [], []
    for i, c in run_tuner.history:
        row = run_tuner.rows.get(i)
        if row is not None:
            rows.append(row)
            gf.append(run_tuner.gflops(c))
    np.savez(Path(folder) / f"{op.name}-s{run['seed']}-{run['variant']}.npz",
             x=np.stack(rows), gflops=np.array(gf))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
