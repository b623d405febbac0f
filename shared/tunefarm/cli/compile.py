"""`tunefarm compile`: compile a network with the best records into one artifact file.

    tunefarm compile model.onnx --log tune.jsonl -o net.tfa [--target ...] [--device-key KEY]
        [--select-top K]

Every tuning task gets its best valid record for this target (and device key, if given); a
task without one runs its default config, and the command says which and why. With
--select-top K (run it on the device itself) each task's K best records are timed inside
the compiled network and the fastest there is kept.

    tunefarm compile zoo:resnet-18 --target vta --quantize int8 --log r18_vta.jsonl -o r18.tfa

With `--target vta --quantize int8` it is the VTA tutorial's compile step: graph_pack, each
packed conv with its best record (or its default config), the float stem and head compiled for
the host; the file is a packed network (`tunefarm.recipe.packed_artifact`) that `tunefarm run`
runs split between the CPU and the simulated accelerator.
"""

from __future__ import annotations

import argparse
import json
import sys

from tunefarm.cli import CommandError
from tunefarm.cli._args import add_target_argument, number
from tunefarm.cli._files import input_file, output_file
from tunefarm.cli._model import add_model_arguments, load, packed_flow, target
from tunefarm.cli.quantize import add_quantize_arguments

HELP = "compile a network with the best tuning records into one artifact file (.tfa)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    add_target_argument(p)
    p.add_argument("--log", metavar="LOG.jsonl", help="tuning records (default: none, untuned)")
    p.add_argument("--device-key", metavar="KEY", help="only use records of this device key")
    p.add_argument("-o", "--output", required=True, metavar="NET.tfa", help="artifact to write")
    add_select_argument(p, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "--report",
        action="store_true",
        help="also print why the model is as fast as it is: its op histogram, what was "
        "fused, which kernels fall back to the generic template and why, and each kernel's "
        "estimated share of the time",
    )
    p.add_argument(
        "--quantize",
        choices=("int8",),
        help="quantize the network to int8 first (calibration options below; the report "
        "and the artifact's manifest give its accuracy against the float network)",
    )
    add_quantize_arguments(p)


def add_select_argument(p: argparse.ArgumentParser, default: int) -> None:
    p.add_argument(
        "--select-top",
        type=number(int, 0),
        default=default,
        metavar="K",
        help="time each task's K best records inside the network on this machine and keep "
        f"the fastest there (0: take the best record as measured alone; default {default})",
    )


def compile_to(
    graph,
    tgt: str,
    log: str | None,
    device_key: str | None,
    output: str,
    out=None,
    select_top: int = 0,
    manifest: dict | None = None,
    model: str | None = None,
):
    """Compile and save; prints the fallbacks to `out`. With `select_top`, each task's
    config is chosen among its best records by timing them inside the network here
    (`compiler.select`). `model`: the input file, which the output must not replace.
    Returns (CompiledNetwork, info)."""
    from tunefarm.compiler import CompileError
    from tunefarm.compiler.select import compile_selected
    from tunefarm.runtime.artifact import ArtifactError
    from tunefarm.tune.dispatch import ApplyHistoryBest

    if log is not None:
        input_file(log, "--log", what="records file", empty_ok=True)
    output_file(output, "-o", ".tfa", {"--log": log, "MODEL": model}, "artifact")
    try:
        history = ApplyHistoryBest(log, device_key) if log is not None else None
        compiled, selection = compile_selected(graph, tgt, history, device_key, select_top)
        if selection is not None:
            selection.print(out)
        compiled.plan.manifest.update(manifest or {})
        info = compiled.save(output)
    except (CompileError, ArtifactError) as exc:
        raise CommandError(str(exc), code=1) from None
    if out is not None:
        report_choices(compiled, out)
    return compiled, info


def report_choices(compiled, out) -> None:
    tuned = sum(c.tuned for c in compiled.choices)
    print(f"{tuned}/{len(compiled.choices)} tasks use tuned records", file=out)
    for c in compiled.fallbacks():
        print(
            f"  default config for {c.task.workload_key} ({', '.join(c.nodes[:3])}"
            f"{', ...' if len(c.nodes) > 3 else ''}): {c.reason}",
            file=out,
        )
    if compiled.stale is not None:
        print(compiled.stale.line(), file=out)


def _quantized(args: argparse.Namespace, graph, out):
    """The int8 graph and the manifest entry (scheme, convs, accuracy on the calibration
    inputs from the numpy interpreter) of --quantize int8."""
    from tunefarm.cli.quantize import interpreter_accuracy, quantize

    qgraph, opts, report = quantize(args, graph, out)
    acc = interpreter_accuracy(graph, qgraph, opts)
    entry = {"scheme": "int8", **report.to_json(), "accuracy": acc}
    return qgraph, opts, {"quantization": entry}


def compiled_accuracy(graph, output: str, opts) -> dict:
    """Accuracy of the compiled int8 artifact against the float graph on the calibration
    inputs (first two)."""
    from tunefarm.cli.run import load_executor
    from tunefarm.graph.interpret import run_graph
    from tunefarm.graph.ir import random_inputs
    from tunefarm.graph.passes.quantize import accuracy

    ex = load_executor(output)
    feeds = opts.calibration or [random_inputs(graph, opts.seed + i) for i in range(2)]
    accs = []
    for feed in feeds[:2]:
        ref, got = run_graph(graph, feed), ex.run(feed)
        accs += [accuracy(ref[n], got[n]) for n in graph.outputs]
    return {
        "cosine": min(a["cosine"] for a in accs),
        "max_rel_error": max(a["max_rel_error"] for a in accs),
    }


def _packed(args: argparse.Namespace, graph, tgt: str) -> int:
    """graph_pack, compile with the best records, write the packed network file."""
    from tunefarm.graph.ir import GraphError
    from tunefarm.recipe.packed import pack_for_target
    from tunefarm.recipe.packed_artifact import save_packed
    from tunefarm.tune.dispatch import ApplyHistoryBest

    if args.select_top:
        raise CommandError("--select-top: not available with --target vta (a packed conv's "
                           "simulated time is the same alone and in the network)")  # fmt: skip
    if args.log is not None:
        input_file(args.log, "--log", what="records file", empty_ok=True)
    output_file(args.output, "-o", ".tfa", {"--log": args.log, "MODEL": args.model}, "artifact")
    out = sys.stderr if args.json else sys.stdout
    try:
        packed = pack_for_target(graph, tgt, args.global_scale or 8.0)
        history = ApplyHistoryBest(args.log, args.device_key) if args.log else None
        info = save_packed(packed, tgt, history, args.output, graph.name)
    except GraphError as exc:
        raise CommandError(str(exc)) from None
    kernels = list(info.choices)
    if args.log is None:
        print("no --log: every packed conv runs its default config", file=out)
    for k in kernels if args.log else ():
        if k["source"] != "record":
            print(f"  default config for {k['node']}: {k['source']}", file=out)
    if args.json:
        print(json.dumps({"artifact": info.to_json(), "kernels": kernels}, indent=2, default=str))
    else:
        print(info)
    return 0


def run(args: argparse.Namespace) -> int:
    tgt = target(args, packed_ok=True)
    model, graph = load(args)
    if packed_flow(args, tgt):
        return _packed(args, graph, tgt)
    out = sys.stderr if args.json else sys.stdout
    extra, quant = {}, None
    float_graph = graph
    if args.quantize:
        graph, opts, extra = _quantized(args, graph, out)
    compiled, info = compile_to(
        graph,
        tgt,
        args.log,
        args.device_key,
        args.output,
        out,
        args.select_top,
        extra,
        args.model,
    )
    if args.quantize:
        quant = {**extra["quantization"], "compiled_accuracy": None}
        quant["compiled_accuracy"] = compiled_accuracy(float_graph, args.output, opts)
        acc = quant["compiled_accuracy"]
        print(
            f"int8 accuracy vs float (calibration inputs): cosine {acc['cosine']:.5f}, "
            f"max rel error {acc['max_rel_error']:.3e}",
            file=out,
        )
    report = _report(args, model, graph, tgt, out, compiled)
    if args.json:
        doc = {"artifact": info.to_json(), "tasks": [c.to_json() for c in compiled.choices]}
        if quant is not None:
            doc["quantization"] = quant
        if report is not None:
            doc["report"] = report.to_json()
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(info)
    return 0


def _report(args: argparse.Namespace, model, graph, tgt: str, out, compiled):
    """With --report: the compile report of the graph as compiled (each node's share by the
    kernel its plan runs), printed unless --json."""
    if not getattr(args, "report", False):
        return None
    from tunefarm.compiler.report import compile_report

    report = compile_report(graph, tgt, model, runs={c.task for c in compiled.choices})
    if not args.json:
        print("\n".join(report.lines()), file=out)
    return report
