"""Per-layer kernel benchmark: tunefarm against numpy (OpenBLAS) and ONNX Runtime.

For every distinct conv2d of ResNet-18 at batch 1 and its final dense layer:

1. sweep up to `--trials` configs (the default config first, then seeded random samples),
   built in batches by `LocalBuilder` and timed cheaply by `LocalRunner` (which also checks
   every candidate against numpy); keep the best 3 by median;
2. re-measure those 3 carefully in `--rounds` interleaved rounds together with numpy and ONNX
   Runtime (one repeat of each per round, so machine noise hits all alike);
3. print a table (GFLOP/s from the median and min of the rounds), the geometric mean and worst
   layer of the ratios, and the machine. Progress goes to stderr.

    python benchmarks/kernels.py --trials 256 [--layers a,b] [--json out.json] [--markdown]
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
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
import _timing
from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.target import num_cores
from tunefarm.measure import (
    BuildResult,
    Config,
    LocalBuilder,
    MeasureInput,
    MeasureSettings,
)
from tunefarm.task import Task

SWEEP_SETTINGS = MeasureSettings(repeat=2, min_repeat_ms=10, timeout_s=10)
FINAL_MIN_REPEAT_MS = 100
TOP_K = 3
BATCH = 16  # candidates built in parallel, then measured one by one
CHECK_RTOL = 1e-3  # competitors: max |out - ref| / max |ref|


@dataclass(frozen=True)
class Layer:
    """One benchmarked workload: a readable name, the op and its logical params."""

    name: str
    op: str
    params: dict[str, Any]
    summary: str

    def task(self, target: str) -> Task:
        return Task.make(self.op, target=target, **self.params)


def _conv(size: int, cin: int, cout: int, k: int, stride: int) -> Layer:
    suffix = "" if stride == 1 else f"_s{stride}"
    params = dict(
        data=(1, cin, size, size),
        weight=(cout, cin, k, k),
        strides=stride,
        padding=k // 2,
    )
    summary = f"{cin}->{cout} @{size} {k}x{k}" + (f" s{stride}" if stride > 1 else "")
    return Layer(f"conv_{size}_{cin}_{cout}_{k}x{k}{suffix}", "conv2d", params, summary)


LAYERS: tuple[Layer, ...] = (
    _conv(224, 3, 64, 7, 2),
    _conv(56, 64, 64, 3, 1),
    _conv(56, 64, 128, 3, 2),
    _conv(56, 64, 128, 1, 2),
    _conv(28, 128, 128, 3, 1),
    _conv(28, 128, 256, 3, 2),
    _conv(28, 128, 256, 1, 2),
    _conv(14, 256, 256, 3, 1),
    _conv(14, 256, 512, 3, 2),
    _conv(14, 256, 512, 1, 2),
    _conv(7, 512, 512, 3, 1),
    Layer("dense", "dense", dict(data=(1, 512), weight=(1000, 512)), "512->1000"),
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fmt_s(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "-"
    return f"{seconds * 1e3:.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"


# -- 1. the sweep ----------------------------------------------------------------------
@dataclass
class Candidate:
    """A built, correct config and its costs: cheap sweep median, then the careful rounds."""

    config: Config
    build: BuildResult
    sweep_median: float
    costs: list[float] = field(default_factory=list)
    error: str = ""


@dataclass
class Sweep:
    top: list[Candidate]
    tried: int
    failed: int
    errors: Counter[str]
    first_error: str
    seconds: float
    space_size: int


def sweep_configs(task: Task, trials: int, seed: int, name: str) -> list[Config]:
    """The default config, then seeded distinct random samples (seeded per layer name, so a
    `--layers` filter does not change which configs a layer gets)."""
    space = registry.config_space(task)
    default = registry.default_config(task)
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    rest = space.sample(rng, max(0, trials - 1), exclude={default.index})
    return [default] + [Config.make(space.get(i), index=i) for i in rest]


def sweep(layer: Layer, task: Task, args: argparse.Namespace, builder: LocalBuilder) -> Sweep:
    """Build and time the configs batch by batch; keep the TOP_K by sweep median."""
    configs = sweep_configs(task, args.trials, args.seed, layer.name)
    flops = registry.flops(task)
    found: list[Candidate] = []
    errors: Counter[str] = Counter()
    first_error, start = "", time.perf_counter()
    with registry.local_runner(SWEEP_SETTINGS, seed=args.seed) as runner:
        for lo in range(0, len(configs), BATCH):
            inputs = [MeasureInput(task, c) for c in configs[lo : lo + BATCH]]
            builds = builder.build(inputs)
            for inp, build, res in zip(inputs, builds, runner.run(inputs, builds), strict=True):
                if res.ok:
                    found.append(Candidate(inp.config, build, res.median))
                    continue
                errors[res.error_no.name] += 1
                first_error = first_error or f"{inp.config.as_dict()}: {res.error_msg[:300]}"
            found = sorted(found, key=lambda c: c.sweep_median)[:TOP_K]
            done, failed = lo + len(inputs), sum(errors.values())
            _log_sweep(layer.name, done, len(configs), failed, found, flops, start)
    seconds = time.perf_counter() - start
    size = registry.config_space(task).size
    return Sweep(found, len(configs), sum(errors.values()), errors, first_error, seconds, size)


def _log_sweep(
    name: str, done: int, total: int, failed: int, top: list[Candidate], flops: float, start: float
) -> None:
    if top:
        best = top[0]
        rate = _report.gflops(flops, best.sweep_median)
        config = _report.short_config(best.config.as_dict())
        best_text = f"best {fmt_s(best.sweep_median)} = {rate:.1f} GFLOPS [{config}]"
    else:
        best_text = "no valid config yet"
    elapsed = time.perf_counter() - start
    log(f"[{name}] sweep {done}/{total} ({failed} failed), {best_text}, {elapsed:.0f} s")


# -- 2. the competitors --------------------------------------------------------------------
@dataclass
class Competitors:
    """numpy and ONNX Runtime set up for one layer on the same seeded data as tunefarm."""

    numpy_fn: Any
    ort_fn: Any
    model: bytes
    feeds: dict[str, np.ndarray]
    threads: int
    checks: dict[str, float]  # max relative error against the reference, per competitor


def make_competitors(task: Task, seed: int, threads: int) -> Competitors:
    inputs = registry.random_inputs(task, seed)
    x, w = inputs["data"], inputs["weight"]
    expected = registry.template(task).reference(task, inputs)
    if task.op == "conv2d":
        from tunefarm.backends.cpu.conv2d import conv_params

        p = conv_params(task)
        shape = _timing.ConvShape(tuple(p["strides"]), tuple(p["padding"]))
        numpy_fn = lambda: _timing.numpy_conv(x, w, shape)  # noqa: E731
    else:
        shape = None
        numpy_fn = lambda: _timing.numpy_dense(x, w)  # noqa: E731
    model = _timing.onnx_model_bytes(task.op, x.shape, w, shape)
    sess = _timing.ort_session(model, threads)
    feeds = {"x": x}
    ort_fn = lambda: sess.run(None, feeds)  # noqa: E731
    scale = max(1.0, float(np.abs(expected).max()))
    checks = {
        "numpy": float(np.abs(numpy_fn() - expected).max()) / scale,
        "ort": float(np.abs(ort_fn()[0] - expected).max()) / scale,
    }
    for who, err in checks.items():
        if not err <= CHECK_RTOL:
            log(f"WARNING: {who} output differs from the reference (max rel err {err:.2e})")
    time.sleep(_timing.SETTLE_S)  # let their thread pools stop spinning before round 1
    return Competitors(numpy_fn, ort_fn, model, feeds, threads, checks)


# -- 3. the careful, interleaved rounds ----------------------------------------------------
def final_rounds(
    layer: Layer, task: Task, top: list[Candidate], comp: Competitors, rounds: int, seed: int
) -> dict[str, list[float]]:
    """Per round: each top candidate (fresh child), then numpy, then ORT; one repeat each."""
    settings = MeasureSettings(repeat=1, min_repeat_ms=FINAL_MIN_REPEAT_MS, timeout_s=30)
    costs: dict[str, list[float]] = {"numpy": [], "ort": []}
    with registry.local_runner(settings, seed=seed) as runner:
        for r in range(rounds):
            for cand in (c for c in top if not c.error):
                res = runner.run([MeasureInput(task, cand.config)], [cand.build])[0]
                if res.ok:
                    cand.costs.append(res.costs[0])
                else:
                    cand.error = f"{res.error_no.name}: {res.error_msg[:300]}"
            costs["numpy"].append(_timing.time_once(comp.numpy_fn, FINAL_MIN_REPEAT_MS))
            costs["ort"].append(_timing.time_once(comp.ort_fn, FINAL_MIN_REPEAT_MS))
            tf = "/".join(fmt_s(c.costs[-1]) if not c.error else "err" for c in top) or "-"
            log(
                f"[{layer.name}] round {r + 1}/{rounds}: tunefarm {tf}, "
                f"numpy {fmt_s(costs['numpy'][-1])}, ORT {fmt_s(costs['ort'][-1])}"
            )
    return costs


def _stats(costs: list[float]) -> dict[str, Any]:
    if not costs:
        return {"median": math.nan, "min": math.nan, "costs": []}
    return {"median": statistics.median(costs), "min": min(costs), "costs": costs}


def _tunefarm_json(top: list[Candidate], sw: Sweep) -> dict[str, Any]:
    ranked = sorted(
        (c for c in top if not c.error and c.costs), key=lambda c: statistics.median(c.costs)
    )
    best: dict[str, Any] = {"median": math.nan, "min": math.nan}
    if ranked:
        win = ranked[0]
        best = {
            **_stats(win.costs),
            "config": win.config.to_json(),
            "short": _report.short_config(win.config.as_dict()),
            "correct": True,  # the runner checked every one of its runs against numpy
        }
    return {
        "best": best,
        "top": [
            {"config": c.config.to_json(), "sweep_median": c.sweep_median, "error": c.error}
            | _stats(c.costs)
            for c in top
        ],
        "sweep": {
            "tried": sw.tried,
            "failed": sw.failed,
            "errors": dict(sw.errors),
            "first_error": sw.first_error,
            "seconds": sw.seconds,
            "space_size": sw.space_size,
        },
    }


def _ratio(competitor: float, ours: float) -> float:
    """Competitor time / tunefarm time, i.e. the GFLOP/s ratio tunefarm / competitor."""
    if not (math.isfinite(competitor) and math.isfinite(ours)) or ours <= 0:
        return math.nan
    return competitor / ours


def bench_layer(layer: Layer, args: argparse.Namespace, builder: LocalBuilder) -> dict[str, Any]:
    task = layer.task(args.target)
    log(f"[{layer.name}] {task} : {registry.flops(task) / 1e9:.3f} GFLOP")
    sw = sweep(layer, task, args, builder)
    comp = make_competitors(task, args.seed, args.threads)
    costs = final_rounds(layer, task, sw.top, comp, args.rounds, args.seed)
    profile = _timing.ort_profile(comp.model, comp.feeds, comp.threads, budget_s=0.5)
    tf = _tunefarm_json(sw.top, sw)
    numpy_res = _stats(costs["numpy"]) | {"max_rel_err": comp.checks["numpy"]}
    ort_res = _stats(costs["ort"]) | {"max_rel_err": comp.checks["ort"]}
    ort_res["profile"] = profile.to_json() if profile else None
    ours = tf["best"]["median"]
    return {
        "name": layer.name,
        "summary": layer.summary,
        "task": task.to_json(),
        "flops": registry.flops(task),
        "tunefarm": tf,
        "numpy": numpy_res,
        "ort": ort_res,
        "ratio_ort": _ratio(ort_res["median"], ours),
        "ratio_numpy": _ratio(numpy_res["median"], ours),
    }


def _nan_to_none(value: Any) -> Any:
    """Strict JSON has no NaN: a missing measurement is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nan_to_none(v) for v in value]
    return value


# -- command line ------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    cores = os.cpu_count() or 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=256, help="configs swept per layer")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved careful repeats")
    ap.add_argument("--layers", default="", help="comma-separated layer names (default: all)")
    ap.add_argument("--target", default=f"cpu -cores={cores}", help="tunefarm target string")
    ap.add_argument("--seed", type=int, default=0, help="config sampling and input data seed")
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args(argv)
    if args.trials < 1 or args.rounds < 1:
        ap.error("--trials and --rounds must be >= 1")
    try:
        args.threads = num_cores(parse_target(args.target))
    except ValueError as exc:
        ap.error(str(exc))
    known = {layer.name: layer for layer in LAYERS}
    wanted = [n.strip() for n in args.layers.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in known]
    if unknown:
        ap.error(f"unknown layer(s) {unknown}; known: {', '.join(known)}")
    args.selected = [known[n] for n in wanted] if wanted else list(LAYERS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    meta = {
        "machine": _report.machine_info(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "settings": (
            f"target={args.target!r} trials={args.trials} rounds={args.rounds} seed={args.seed} "
            f"sweep=repeat {SWEEP_SETTINGS.repeat} x {SWEEP_SETTINGS.min_repeat_ms:g} ms, "
            f"final=1 x {FINAL_MIN_REPEAT_MS} ms per round, top {TOP_K}, ORT threads "
            f"{args.threads}"
        ),
    }
    notes = [
        "GFLOPS columns use the median of the interleaved rounds (TF min: their minimum); "
        "ratios are competitor median time / tunefarm median time (>1: tunefarm faster)",
        "tunefarm times the kernel alone in its blocked layouts (data and weights pre-packed, "
        "output left blocked), in a C loop; every run checked against numpy",
        _timing.NUMPY_NOTE,
        _timing.ORT_NOTE,
    ]
    results = []
    with registry.local_builder() as builder:
        for layer in args.selected:
            results.append(bench_layer(layer, args, builder))
    summary = _report.summarize(results)
    print(_report.format_table(results, args.markdown))
    print()
    print(_report.format_footer(summary, meta, notes))
    if args.json:
        doc = {**meta, "notes": notes, "summary": summary, "layers": results}
        Path(args.json).write_text(json.dumps(_nan_to_none(doc), indent=1) + "\n")
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
