"""VTA benchmark: resnet-18's packed convs on the simulated accelerator, untuned and tuned.

For each packed conv of resnet-18 (the tutorial's ten tasks, with its requantization >> 8 and
clip to [0, 127]) on a VTA config (default: the 1x16x16 preset, 100 MHz, 51.2 GOPS peak):

1. the cycles of the *fallback* config (entity 0 of every knob: what AutoTVM runs for a task
   without records) and of the template's *default* (the hand rule tunefarm compiles an
   untuned network with: whole rows, full channel tiles, no virtual threads);
2. tuning with a tuner (xgb by default) through the normal measure layer (LocalBuilder, and a
   LocalRunner that simulates each candidate, checking its output against numpy);
3. per layer: cycles, GOPS at the config's clock against the GEMM peak, each module's busy
   share (load / compute / store) of the tuned config; the ideal cycles (one GEMM micro-op
   every cycle, nothing else) bound what any config can reach;
4. summary: geomean speedup of tuned over default and over fallback; the 3x3 convs with 64 or
   more channels at >= 50% of peak; the accelerator's share of resnet-18 (each conv times its
   occurrences in the network) at the default and tuned configs.

    python benchmarks/vta.py [--trials 200] [--tuner xgb] [--config default] [--json out.json]

With `--network N`: resnet-18 end to end instead (224x224, the tutorial's whole flow, as
`tunefarm tune zoo:resnet-18 --target vta --quantize int8 --trials N`): graph_pack, N trials
over its packed conv tasks, the network run split between the host CPU (stem and head
compiled natively) and the simulated accelerator, untuned and tuned, checked bit for bit.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from tunefarm.backends import parse_target, registry
from tunefarm.backends.vta.conv2d import lower_conv2d_packed, simulate
from tunefarm.backends.vta.conv2d_space import config_space
from tunefarm.backends.vta.simulator import SimResult, Simulator
from tunefarm.backends.vta.survey import RESNET18_TASKS
from tunefarm.backends.vta.target import hw_config
from tunefarm.backends.vta.template import workload
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption

# How often each task's conv occurs in resnet-18 (stem excluded: it stays on the CPU).
OCCURRENCES = (1, 1, 1, 4, 3, 1, 3, 1, 3, 1)
MODULES = ("load", "compute", "store")
GOAL_SPEEDUP, GOAL_PEAK = 2.0, 0.5


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def task_of(row: tuple[int, ...], target: str) -> Task:
    """A tutorial tuple (batch, h, w, ci, co, kh, kw, ph, pw, sh, sw) as a conv2d_packed task."""
    n, h, w, ci, co, kh, kw, ph, pw, sh, sw = row
    return Task.make(
        "conv2d_packed",
        target=target,
        data=(n, ci, h, w),
        weight=(co, ci, kh, kw),
        strides=(sh, sw),
        padding=(ph, pw),
    )


def name_of(task: Task) -> str:
    wl = workload(task)
    k = f"{wl.kernel_h}x{wl.kernel_w}"
    return f"{wl.height}x{wl.width} {wl.in_channels}->{wl.out_channels} {k} s{wl.stride_h}"


def cycles_of(task: Task, knobs: dict[str, Any], sim: Simulator) -> SimResult:
    """Timing-only simulation of one config (cycles do not depend on data)."""
    hw = sim.config
    result, _ = simulate(lower_conv2d_packed(workload(task), knobs, hw), sim)
    if not result.ok:
        raise RuntimeError(f"{name_of(task)} {knobs}: {result.error_msg}")
    return result


def tune(task: Task, tuner_name: str, trials: int, seed: int) -> tuple[dict[str, Any], float]:
    """Tune through the measure layer; the best config and the wall seconds it took."""
    settings = MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=120)
    option = MeasureOption.local(settings, n_parallel=2, kind="vta")
    tuner = make_tuner(tuner_name, task, seed=seed)
    start = time.perf_counter()
    try:
        tuner.tune(trials, option, batch_size=16)
    finally:
        option.close()
    if tuner.best_index is None:
        raise RuntimeError(f"{name_of(task)}: no valid config in {trials} trials")
    return tuner.space.get(tuner.best_index), time.perf_counter() - start


def layer(task: Task, weight: int, args: argparse.Namespace, sim: Simulator) -> dict[str, Any]:
    hw = sim.config
    wl = workload(task)
    fallback = config_space(wl, hw).default()
    default = registry.default_config(task).as_dict()
    best, seconds = tune(task, args.tuner, args.trials, args.seed)
    runs = {"fallback": cycles_of(task, fallback, sim), "default": cycles_of(task, default, sim)}
    runs["tuned"] = cycles_of(task, best, sim)
    tuned = runs["tuned"]
    ideal = wl.ops // (2 * hw.macs_per_cycle)
    gops = {k: wl.ops / hw.seconds(r.cycles) / 1e9 for k, r in runs.items()}
    return {
        "name": name_of(task),
        "occurrences": weight,
        "ops": wl.ops,
        "ideal_cycles": ideal,
        "cycles": {k: r.cycles for k, r in runs.items()},
        "gops": gops,
        "peak_share": {k: g / hw.peak_gops for k, g in gops.items()},
        "busy": {m: tuned.share(m) for m in MODULES},
        "busy_default": {m: runs["default"].share(m) for m in MODULES},
        "speedup_default": runs["default"].cycles / tuned.cycles,
        "speedup_fallback": runs["fallback"].cycles / tuned.cycles,
        "tuned_config": {k: list(v) if isinstance(v, tuple) else v for k, v in best.items()},
        "tune_seconds": seconds,
        "is_3x3_64": wl.kernel_h == 3 and wl.in_channels >= 64,
    }


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def print_table(rows: list[dict[str, Any]], hw: Any) -> None:
    head = (
        f"{'layer':<24}{'fallback':>10}{'default':>9}{'tuned':>9}{'ideal':>9}"
        f"{'x def':>7}{'x fb':>7}{'GOPS def':>9}{'GOPS':>7}{'%peak':>7}  busy load/compute/store"
    )
    print(head)
    for r in rows:
        c, g = r["cycles"], r["gops"]
        busy = "/".join(f"{r['busy'][m]:.2f}" for m in MODULES)
        print(
            f"{r['name']:<24}{c['fallback']:>10}{c['default']:>9}{c['tuned']:>9}"
            f"{r['ideal_cycles']:>9}{r['speedup_default']:>7.2f}{r['speedup_fallback']:>7.1f}"
            f"{g['default']:>9.1f}{g['tuned']:>7.1f}{100 * r['peak_share']['tuned']:>6.0f}%  {busy}"
        )


def summary(rows: list[dict[str, Any]], hw: Any) -> dict[str, Any]:
    big = [r for r in rows if r["is_3x3_64"]]
    at_goal = [r for r in big if r["peak_share"]["tuned"] >= GOAL_PEAK]
    total = {
        k: sum(hw.seconds(r["cycles"][k]) * r["occurrences"] for r in rows)
        for k in ("fallback", "default", "tuned")
    }
    bound = geomean([r["cycles"]["default"] / r["ideal_cycles"] for r in rows])
    return {
        "geomean_speedup_default": geomean([r["speedup_default"] for r in rows]),
        "geomean_speedup_fallback": geomean([r["speedup_fallback"] for r in rows]),
        "geomean_default_over_ideal": bound,
        "peak_goal_layers": f"{len(at_goal)}/{len(big)}",
        "resnet18_conv_ms": {k: 1e3 * v for k, v in total.items()},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default="default", help="VTA preset or JSON file (-config=)")
    p.add_argument("--tuner", default="xgb", help="xgb, ga, random or gridsearch")
    p.add_argument("--trials", type=int, default=200, help="tuning trials per layer")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--layers", default="", help="comma-separated layer indices (default all)")
    p.add_argument("--json", default="", help="also write the results here")
    p.add_argument(
        "--network",
        type=int,
        default=0,
        metavar="N",
        help="resnet-18 end to end with N trials in all instead of the layer table",
    )
    args = p.parse_args(argv)
    if args.network:
        return network(args)
    target = str(parse_target("vta" if args.config == "default" else f"vta -config={args.config}"))
    hw = hw_config(parse_target(target))
    sim = Simulator(hw)
    picked = [int(i) for i in args.layers.split(",")] if args.layers else range(len(RESNET18_TASKS))
    print(
        f"VTA {hw.name} ({target}): peak {hw.peak_gops:.1f} GOPS at {hw.clock_mhz:g} MHz; "
        f"tuner {args.tuner}, {args.trials} trials per layer (seed {args.seed})"
    )
    rows = []
    for i in picked:
        task = task_of(RESNET18_TASKS[i], target)
        log(f"[{i + 1}/{len(RESNET18_TASKS)}] tuning {name_of(task)} ...")
        rows.append(layer(task, OCCURRENCES[i], args, sim))
        log(f"    {rows[-1]['cycles']} in {rows[-1]['tune_seconds']:.0f} s")
    print_table(rows, hw)
    s = summary(rows, hw)
    ms = s["resnet18_conv_ms"]
    print(
        f"geomean speedup of tuned: {s['geomean_speedup_default']:.2f}x over the default "
        f"(at most {s['geomean_default_over_ideal']:.2f}x: default cycles over ideal GEMM "
        f"cycles), {s['geomean_speedup_fallback']:.1f}x over the fallback; 3x3 convs with >= 64 "
        f"channels at >= {GOAL_PEAK:.0%} of peak: {s['peak_goal_layers']}"
    )
    print(
        f"resnet-18's packed convs on the accelerator (x occurrences): fallback "
        f"{ms['fallback']:.2f} ms, default {ms['default']:.2f} ms, tuned {ms['tuned']:.2f} ms"
    )
    if args.json:
        doc = {"target": target, "tuner": args.tuner, "trials": args.trials, "seed": args.seed}
        doc.update(summary=s, layers=rows)
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    return 0


def network(args: argparse.Namespace) -> int:
    """resnet-18 end to end (the tutorial's flow); the result's JSON under "network"."""
    import tempfile

    from tunefarm.frontend.models import load_model
    from tunefarm.measure import MeasureSettings
    from tunefarm.recipe.packed import PackedJobOptions, print_result, run_packed_job

    target = str(parse_target("vta" if args.config == "default" else f"vta -config={args.config}"))
    hw = hw_config(parse_target(target))
    graph = load_model("zoo:resnet-18")[1]
    opts = PackedJobOptions(
        target=target, trials=args.network, tuner=args.tuner, seed=args.seed,
        settings=MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=60), trials_per_round=20,
    )  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = run_packed_job(graph, opts, f"{tmp}/r18.jsonl", out=sys.stderr)
    seconds = time.perf_counter() - start
    print(f"resnet-18 224x224 on {target}, {args.tuner}, {args.network} trials ({seconds:.0f} s)")
    print_result(result, f"accelerator simulated at {hw.clock_mhz:g} MHz", sys.stdout)
    if args.json:
        doc = {"target": target, "tuner": args.tuner, "trials": args.network, "seconds": seconds}
        doc["network"] = {k: v for k, v in result.to_json().items() if k != "scheduler"}
        Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")
    return 0 if result.exact else 1


if __name__ == "__main__":
    sys.exit(main())
