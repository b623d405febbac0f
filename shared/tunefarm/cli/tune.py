"""`tunefarm tune`: tune a whole network and compile it (the main job).

    tunefarm tune zoo:resnet-18 --target cpu --trials 2000 --tuner xgb --log r18.jsonl
    tunefarm tune model.onnx --input-shape data:1,3,224,224 --trials 500 --log m.jsonl -o m.tfa
    tunefarm tune zoo:resnet-18 --target vta --quantize int8 --trials 200 --log r18_vta.jsonl

Runs the library's network job (`tunefarm.recipe.run_job`): extracts the tasks (printing
their table), tunes them with the task scheduler under one trial budget (printing its table
each round; the log makes the run resumable with --resume), compiles the network with the
best records, keeps each task's fastest of its --select-top best inside the network, checks
the output against ONNX Runtime on a random input, times tuned, untuned and ONNX Runtime, and
hands back the faster of tuned and untuned. With `--target vta --quantize int8` it runs the
VTA tutorial's flow instead (`tunefarm.recipe.packed`): graph_pack, tune the packed convs,
compile with the best records, run split between the CPU and the simulated accelerator,
print the top-1 class and the time. This module only parses and prints.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from tunefarm.cli import CommandError
from tunefarm.cli._args import (
    add_measure_arguments,
    add_output_arguments,
    add_reuse_arguments,
    add_scheduler_arguments,
    add_target_argument,
    measure_settings,
    number,
    reporter,
)
from tunefarm.cli._files import output_file
from tunefarm.cli._model import add_model_arguments, load, packed_flow, target
from tunefarm.cli.compile import add_select_argument, report_choices
from tunefarm.cli.quantize import add_quantize_arguments

# An int8 network is checked against the float network's ONNX Runtime output: quantization
# error (about 1e-2 of the output range on resnet-18) is expected, a wrong kernel is not.
INT8_TOLERANCE = 0.05

HELP = "tune a network's tasks, compile it, check it against ONNX Runtime and time it"


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
    p.add_argument(
        "--key",
        metavar="KEY",
        help="with --target vta --quantize int8: measure through the services, on the agents "
        "of this device key (`tunefarm agent --key KEY --target vta`; Redis from the "
        "environment)",
    )
    p.add_argument(
        "--quantize",
        choices=("int8",),
        help="quantize to int8 first (options below) and tune the int8 tasks; the check "
        f"against ONNX Runtime's float output then allows {INT8_TOLERANCE:g} (relative). "
        "With --target vta: the VTA tutorial's flow (power-of-two scales, graph_pack, "
        "--global-scale default 8)",
    )
    add_quantize_arguments(p)
    add_output_arguments(p)
    add_reuse_arguments(p)


def _print_latencies(result, out) -> None:
    e2e = result.evaluation.end_to_end
    print(f"max |tunefarm - onnxruntime| / max |onnxruntime| = {e2e.relative_error:.2e}", file=out)
    ort = e2e.median("onnxruntime")
    print("End-to-end latency (ms):      median       min   vs ONNX Runtime", file=out)
    for label, key in (
        ("ONNX Runtime", "onnxruntime"),
        ("tunefarm untuned", "untuned"),
        ("tunefarm tuned", "tuned"),
    ):
        median, low = e2e.median(key), e2e.min(key)
        print(f"  {label:<24} {median:10.3f} {low:9.3f}   {ort / median:6.2f}x", file=out)
    if result.delivered == "untuned":
        print("delivered: the untuned network (it ran faster than the tuned one)", file=out)


def _json(result, graph, tgt: str) -> dict:
    info = result.evaluation.recompiled_info or result.builds.tuned_info
    e2e = result.evaluation.end_to_end
    return {
        "network": graph.name,
        "target": tgt,
        "artifact": info.to_json(),
        "tasks": [c.to_json() for c in result.compiled.choices],
        "scheduler": result.summary.to_json() if result.summary else None,
        "relative_error": e2e.relative_error,
        "latency_ms": {k: v[0].to_json() for k, v in e2e.rounds.items()},
        "delivered": result.delivered,
        "selection": result.evaluation.selection.to_json() if result.evaluation.selection else None,
    }


def run(args: argparse.Namespace) -> int:
    from tunefarm.compiler import CompileError
    from tunefarm.recipe import JobOptions, RecipeError, check_log, run_job, tolerance_for
    from tunefarm.runtime.artifact import ArtifactError
    from tunefarm.store import StoreError

    tgt = target(args, packed_ok=True)
    output = args.output or str(Path(args.log).with_suffix(".tfa"))
    packed = packed_flow(args, tgt)
    if not packed:  # every file problem before the model loads and the tuning starts
        try:
            check_log(args.log, args.resume)
        except RecipeError as exc:
            raise CommandError(str(exc)) from None
        if not args.output and Path(args.log).suffix == ".tfa":
            raise CommandError(
                f"--log {args.log!r}: records go to a .jsonl file (the artifact's default "
                "name, --log with .tfa, would overwrite them)"
            )
        output_file(output, "-o", ".tfa", {"--log": args.log, "MODEL": args.model}, "artifact")
    model, graph = load(args)
    if packed:
        return _packed(args, graph, tgt)
    out = sys.stderr if args.json else sys.stdout
    quant = None
    if args.quantize:
        from tunefarm.cli.quantize import interpreter_accuracy, quantize

        float_graph = graph
        graph, opts, report = quantize(args, graph, out)
        quant = {"scheme": "int8", **report.to_json()}
        quant["accuracy"] = interpreter_accuracy(float_graph, graph, opts)
    options = JobOptions(
        trials=args.trials,
        target=tgt,
        tuner=args.tuner,
        policy=args.policy,
        transfer_from=args.transfer_from,
        strategy=args.strategy,
        early_stopping=args.early_stopping,
        settings=measure_settings(args),
        trials_per_round=args.trials_per_round,
        select_top=args.select_top,
        seed=args.seed,
        bench_repeat=args.bench_repeat,
        store=args.store,
        reuse=args.reuse,
        reuse_min_trials=args.reuse_min_trials,
    )
    if not args.quiet:
        print(graph.summary(), file=out)
    try:
        progress = reporter(args, out)
        chatter = io.StringIO() if args.quiet else out  # --quiet: the result alone
        result = run_job(model, graph, options, args.log, output, args.resume, chatter, progress)
    except (RecipeError, StoreError) as exc:
        raise CommandError(str(exc)) from None
    except (CompileError, ArtifactError) as exc:
        raise CommandError(str(exc), code=1) from None
    info = result.evaluation.recompiled_info or result.builds.tuned_info
    print(f"compiled: {info}", file=out)
    if not args.quiet:
        report_choices(result.compiled, out)
    _print_latencies(result, out)
    tolerance = INT8_TOLERANCE if quant else tolerance_for(tgt)
    ok = result.evaluation.end_to_end.relative_error <= tolerance
    if not ok:
        print(
            f"error: the compiled network differs from ONNX Runtime by more than "
            f"{tolerance:g} (relative)",
            file=sys.stderr,
        )
    if args.json:
        doc = _json(result, graph, tgt)
        if quant is not None:
            doc["quantization"] = quant
        print(json.dumps(doc, indent=2, default=str))
    return 0 if ok else 1


def _packed(args: argparse.Namespace, graph, tgt: str) -> int:
    """The VTA tutorial's flow; 0 if the network equals its int8 CPU reference bit for bit."""
    from tunefarm.backends import get_backend, parse_target
    from tunefarm.graph.ir import GraphError
    from tunefarm.recipe.packed import PackedJobOptions, print_result, run_packed_job

    out = sys.stderr if args.json else sys.stdout
    options = PackedJobOptions(
        target=tgt,
        trials=args.trials,
        tuner=args.tuner,
        strategy=args.strategy,
        early_stopping=args.early_stopping,
        settings=measure_settings(args),
        trials_per_round=args.trials_per_round or 16,
        global_scale=args.global_scale or 8.0,
        seed=args.seed,
    )
    remote = _remote(args, tgt, options.settings) if args.key else None
    print(graph.summary(), file=out)
    try:
        result = run_packed_job(graph, options, args.log, args.resume, out, remote)
    except GraphError as exc:
        raise CommandError(str(exc)) from None
    parsed = parse_target(tgt)
    clock = getattr(get_backend(parsed.kind), "clock_note", lambda t: "simulated")(parsed)
    print_result(result, clock, out)
    if args.json:
        print(json.dumps(result.to_json(), indent=2, default=str))
    return 0 if result.exact else 1


def _remote(args: argparse.Namespace, tgt: str, settings) -> tuple:
    """(MeasureOption over Celery to the agents of --key, the key); CommandError if no live
    agent of that key serves the target."""
    from tunefarm.backends import parse_target
    from tunefarm.cli._services import config
    from tunefarm.distributed.celery_app import make_app
    from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
    from tunefarm.distributed.tracker import Tracker
    from tunefarm.tune.tuner import MeasureOption

    cfg = config()
    served = Tracker(cfg).targets().get(args.key, set())
    kind = parse_target(tgt).kind
    if not any(parse_target(t).kind == kind for t in served):
        raise CommandError(
            f"--key {args.key!r}: no live agent of that key serves {kind} (serving: "
            f"{sorted(served) or 'none'}); start `tunefarm agent --key {args.key} --target {tgt}`"
        )
    app = make_app(cfg)
    return MeasureOption(CeleryBuilder(app), CeleryRunner(app, args.key, settings)), args.key
