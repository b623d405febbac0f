"""`tunefarm tune`: tune a whole network and compile it (the main job).

    tunefarm tune zoo:resnet-18 --target cpu --trials 2000 --tuner xgb --log r18.jsonl
    tunefarm tune model.onnx --input-shape data:1,3,224,224 --trials 500 --log m.jsonl -o m.tfa

Extracts the tasks (printing their table), tunes them with the task scheduler under one
trial budget (printing its table each round; the log makes the run resumable with
--resume), compiles the network with the best records (each task's --select-top best timed
inside the network, the fastest there kept), checks its output against ONNX
Runtime on a random input, and prints end-to-end latency: tuned, untuned and ONNX Runtime.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from tunefarm.cli._args import (
    add_measure_arguments,
    add_scheduler_arguments,
    measure_settings,
    number,
)
from tunefarm.cli._model import add_model_arguments, add_target_argument, load, target
from tunefarm.cli.compile import add_select_argument, compile_to
from tunefarm.cli.tune_tasks import DEVICE_KEY, _check_log

HELP = "tune a network's tasks, compile it, check it against ONNX Runtime and time it"
TOLERANCE = 1e-3  # max |tunefarm - ORT| / max |ORT| accepted


def add_arguments(p: argparse.ArgumentParser) -> None:
    pos_int = number(int, 1)
    add_model_arguments(p)
    add_target_argument(p)
    p.add_argument(
        "--trials",
        type=number(int, 0),
        required=True,
        metavar="N",
        help="total trials over all tasks (0: compile untuned)",
    )
    add_scheduler_arguments(p)
    p.add_argument("-o", "--output", metavar="NET.tfa", help="artifact (default: LOG with .tfa)")
    p.add_argument(
        "--trials-per-round",
        type=pos_int,
        metavar="R",
        help="trials per scheduler round (default: from the budget and task count)",
    )
    add_measure_arguments(p, repeat=10, min_repeat_ms=0.0, flush=True)  # network_settings()
    add_select_argument(p, default=3)
    p.add_argument("--bench-repeat", type=pos_int, default=10, help="repeats of the final timing")
    p.add_argument("--seed", type=int, default=0, help="seed of the tuners and the check input")
    p.add_argument("--json", action="store_true", help="print the result as JSON (tables: stderr)")


def _latencies(args, model, graph, tgt: str, tuned_path: str, out):
    """Check the tuned network against ONNX Runtime; time tuned, untuned and ORT."""
    from tunefarm.network import end_to_end

    with tempfile.TemporaryDirectory() as tmp:
        plain = str(Path(tmp) / "untuned.tfa")
        compile_to(graph, tgt, None, None, plain)
        paths = {"untuned": plain, "tuned": tuned_path}
        result = end_to_end(model, graph, paths, "tuned", repeat=args.bench_repeat, seed=args.seed)
    print(
        f"max |tunefarm - onnxruntime| / max |onnxruntime| = {result.relative_error:.2e}", file=out
    )
    return result


def _print_latencies(result, out) -> None:
    ort = result.median("onnxruntime")
    print("End-to-end latency (ms):      median       min   vs ONNX Runtime", file=out)
    for label, key in (
        ("ONNX Runtime", "onnxruntime"),
        ("tunefarm untuned", "untuned"),
        ("tunefarm tuned", "tuned"),
    ):
        median, low = result.median(key), result.min(key)
        print(f"  {label:<24} {median:10.3f} {low:9.3f}   {ort / median:6.2f}x", file=out)


def run(args: argparse.Namespace) -> int:
    from tunefarm.graph.tasks import extract_tasks
    from tunefarm.network import print_tasks, tune_network

    tgt = target(args)
    model, graph = load(args)
    settings = measure_settings(args)
    _check_log(args.log, args.resume)
    output = args.output or str(Path(args.log).with_suffix(".tfa"))
    out = sys.stderr if args.json else sys.stdout
    print(graph.summary(), file=out)
    tasks = extract_tasks(graph, tgt)
    print_tasks(tasks, graph, out)
    summary = None
    if args.trials > 0:
        summary = tune_network(
            tasks,
            args.trials,
            args.log,
            tuner=args.tuner,
            strategy=args.strategy,
            early_stopping=args.early_stopping,
            settings=settings,
            resume=args.resume,
            trials_per_round=args.trials_per_round,
            seed=args.seed,
            device_key=DEVICE_KEY,
            stream=out,
        )
    elif not Path(args.log).exists():
        Path(args.log).touch()
    compiled, info = compile_to(graph, tgt, args.log, DEVICE_KEY, output, out, args.select_top)
    print(f"compiled: {info}", file=out)
    result = _latencies(args, model, graph, tgt, output, out)
    _print_latencies(result, out)
    ok = result.relative_error <= TOLERANCE
    if not ok:
        print(
            f"error: the compiled network differs from ONNX Runtime by more than "
            f"{TOLERANCE:g} (relative)",
            file=sys.stderr,
        )
    if args.json:
        doc = {
            "network": graph.name,
            "target": tgt,
            "artifact": info.to_json(),
            "tasks": [c.to_json() for c in compiled.choices],
            "scheduler": summary.to_json() if summary else None,
            "relative_error": result.relative_error,
            "latency_ms": {k: v[0].to_json() for k, v in result.rounds.items()},
        }
        print(json.dumps(doc, indent=2, default=str))
    return 0 if ok else 1
