"""Do a search's own timings agree with an interleaved re-time of the same states (issue 27,
item 3)?

One sketch search runs on an op; every state it measures is recorded with the figure the
search booked (after its own rechecks). Then the `--top` fastest states by that figure, the
state the search kept among them, are re-timed by one fresh runner in `--rounds` interleaved
rounds, with the search's own settings (`autoscheduler.SEARCH`) and with the final timer's
(`autoscheduler.FINAL`). Per state: in-search GFLOP/s, the re-timed ones, and their ratio; a
search whose figures are fair has ratios near 1 and keeps the state the re-time ranks first.

    taskset -c 0 nice python benchmarks/measure_bias.py --op conv_7_512_512_3x3 --trials 64 \
        --top 8 --rounds 3 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
import autoscheduler
from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.tune.sketch_search import SketchTuner
from tunefarm.tune.tuner import MeasureOption


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Recorder:
    """A MeasureOption that counts its batch results' errors (rechecks pass through)."""

    def __init__(self, option: MeasureOption):
        self.option = option
        self.errors: Counter[str] = Counter()

    def measure(self, inputs):
        results = self.option.measure(inputs)
        self.errors.update(r.error_no.name for r in results)
        return results

    def __getattr__(self, name: str) -> Any:
        return getattr(self.option, name)


def search(op, trials: int, seed: int, settings: MeasureSettings):
    """The tuner after `trials` (its history: every state with its booked figure) and the
    count of the batch results by error code."""
    tuner = SketchTuner(op.task, seed=seed)
    option = Recorder(MeasureOption.local(settings))
    try:
        tuner.tune(trials, option, batch_size=16)
    finally:
        option.option.close()
    log(f"[{op.name}] batch results: {dict(option.errors)}")
    return tuner, dict(option.errors)


def retime(op, configs: list[Config], timers: dict[str, MeasureSettings], rounds: int):
    """Per timer, each config's median cost per round: one fresh runner per timer, the
    configs and the timers interleaved (the order reversed every other round)."""
    inputs = [MeasureInput(op.task, c) for c in configs]
    out = {name: [[] for _ in configs] for name in timers}
    runners = {name: registry.local_runner(s) for name, s in timers.items()}
    try:
        with registry.local_builder() as builder:
            builds = builder.build(inputs)
        for r in range(rounds):
            order = list(range(len(inputs)))
            for k in order if r % 2 == 0 else order[::-1]:
                for name in timers if r % 2 == 0 else list(timers)[::-1]:
                    res = runners[name].run([inputs[k]], [builds[k]])[0]
                    if res.ok:
                        out[name][k].append(res.median)
    finally:
        for runner in runners.values():
            runner.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--op", default="conv_7_512_512_3x3")
    p.add_argument("--trials", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=8)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--target", default="cpu -cores=1")
    p.add_argument(
        "--timeout",
        type=float,
        default=autoscheduler.SEARCH.timeout_s,
        help="wall seconds a measurement may take (raise it on a crowded host)",
    )
    p.add_argument("--json")
    args = p.parse_args(argv)
    base = autoscheduler.OPS[args.op]
    op = autoscheduler.Op(args.op, replace(base.task, target=args.target), base.onnx, base.weight)
    load_start = os.getloadavg()
    settings = replace(autoscheduler.SEARCH, timeout_s=args.timeout)
    tuner, errors = search(op, args.trials, args.seed, settings)
    booked = {i: c for i, c in tuner.history if c < float("inf")}
    top = sorted(booked, key=booked.get)[: args.top]
    if tuner.best_index is not None and tuner.best_index not in top:
        top.append(tuner.best_index)
    configs = [Config.make(tuner.space.get(i), index=i) for i in top]
    final = replace(autoscheduler.FINAL, timeout_s=max(args.timeout, autoscheduler.FINAL.timeout_s))
    timers = {"search": settings, "final": final}
    timed = retime(op, configs, timers, args.rounds)
    flops = registry.flops(op.task)
    rows = []
    for k, i in enumerate(top):
        row: dict[str, Any] = {"index": i, "kept": i == tuner.best_index,
                               "booked_gflops": flops / booked[i] / 1e9}  # fmt: skip
        for name in timers:
            costs = timed[name][k]
            row[f"{name}_gflops"] = flops / statistics.median(costs) / 1e9 if costs else 0.0
            row[f"{name}_rounds"] = [flops / c / 1e9 for c in costs]
        rows.append(row)
    doc = {"op": args.op, "trials": args.trials, "machine": _report.machine_info(),
           "load_start": load_start, "load_end": os.getloadavg(), "rows": rows,
           "errors": errors, "rechecks": [r.to_json() for r in tuner.rechecks]}  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    print(
        "| state | kept | booked in search | re-timed, search timer | re-timed, final timer "
        "| booked / final |\n|---|---|---|---|---|---|"
    )
    for r in rows:
        print(
            f"| {r['index']} | {'*' if r['kept'] else ''} | {r['booked_gflops']:.1f} | "
            f"{r['search_gflops']:.1f} | {r['final_gflops']:.1f} | "
            f"{r['booked_gflops'] / max(r['final_gflops'], 1e-9):.3f} |"
        )
    print(f"load average at start {load_start}, at end {doc['load_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
