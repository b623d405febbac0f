"""`tunefarm quantize`: quantize a float network to int8 and save it.

    tunefarm quantize zoo:resnet-18 -o r18-int8.onnx [--calibration in.npz | --random N]
        [--method minmax|percentile] [--percentile 99.99] [--global-scale 8.0]
        [--skip NAME|INDEX ...] [--quantize-first]

The output format is chosen by the suffix: `.onnx` writes a QDQ ONNX model (QuantizeLinear /
DequantizeLinear around the int8 convs, our scales; `frontend.qdq_export`) that ONNX Runtime
runs and tunefarm re-imports into the same int8 conv tasks; `.npz` writes the int8 graph
itself. Either is a MODEL for `tunefarm compile`; `tunefarm compile MODEL --quantize int8`
does both steps and puts the accuracy in its report. The pass itself is
`tunefarm.graph.passes.quantize`; this module parses, prints and measures.
"""

from __future__ import annotations

import argparse
import json
import sys

from tunefarm.cli import CommandError
from tunefarm.cli._args import number
from tunefarm.cli._model import add_model_arguments, load

HELP = "quantize a network to int8 (calibrated) and save the int8 graph"


def add_quantize_arguments(p: argparse.ArgumentParser) -> None:
    """The calibration options, shared with `tunefarm compile --quantize int8`."""
    g = p.add_argument_group("quantization")
    g.add_argument(
        "--calibration",
        metavar="IN.npz",
        help="calibration inputs (arrays by "
        "input name, a leading axis of samples); default: --random N inputs",
    )
    g.add_argument(
        "--random",
        type=number(int, 1),
        default=4,
        metavar="N",
        help="number of seeded random calibration inputs (default 4)",
    )
    g.add_argument("--method", choices=("minmax", "percentile"), default="minmax")
    g.add_argument("--percentile", type=float, default=99.99, metavar="P")
    g.add_argument(
        "--global-scale",
        type=number(float, 0, strict=True),
        metavar="G",
        help="every activation in [-G, G] (the VTA tutorial's global_scale=8.0)",
    )
    g.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="NAME|INDEX",
        help="keep this conv float: a node name or a conv index (repeatable)",
    )
    g.add_argument(
        "--quantize-first",
        action="store_true",
        help="quantize the first conv too (kept float by default)",
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="Q.onnx|Q.npz",
        help="where to write: .onnx a QDQ ONNX model, .npz the int8 graph",
    )
    add_quantize_arguments(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")


def calibration_inputs(args: argparse.Namespace, graph) -> list[dict] | None:
    """The --calibration samples as input dicts (None: the pass draws random ones)."""
    import numpy as np

    if args.calibration is None:
        return None
    try:
        with np.load(args.calibration, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as exc:
        raise CommandError(
            f"--calibration {args.calibration!r}: not a readable .npz ({exc})"
        ) from None
    feeds = []
    for v in graph.inputs:
        if v.name not in arrays:
            raise CommandError(f"--calibration {args.calibration!r}: no array {v.name!r}")
        a = arrays[v.name].astype(v.dtype)
        samples = [a] if a.shape == v.shape else list(a.reshape(-1, *v.shape))
        if a.size % max(1, int(np.prod(v.shape))) or not samples:
            raise CommandError(
                f"--calibration: {v.name!r} {list(a.shape)} is not N x {list(v.shape)}"
            )
        for i, s in enumerate(samples):
            if len(feeds) <= i:
                feeds.append({})
            feeds[i][v.name] = s
    return feeds


def options(args: argparse.Namespace, graph):
    from tunefarm.graph.passes.quantize import QuantizeOptions

    skip = tuple(int(s) if s.isdigit() else s for s in args.skip)
    return QuantizeOptions(
        calibration=calibration_inputs(args, graph),
        num_random=args.random,
        method=args.method,
        percentile=args.percentile,
        global_scale=args.global_scale,
        skip=skip,
        skip_first=not args.quantize_first,
    )


def quantize(args: argparse.Namespace, graph, out):
    """(int8 graph, options, report), with a summary printed to `out`."""
    from tunefarm.graph.ir import GraphError
    from tunefarm.graph.passes.quantize import quantize_graph

    opts = options(args, graph)
    try:
        qgraph, report = quantize_graph(graph, opts)
    except GraphError as exc:
        raise CommandError(str(exc)) from None
    print(f"quantized {len(report.quantized)} convs to int8; kept float:", file=out)
    for name, why in report.kept_float.items():
        print(f"  {name}: {why}", file=out)
    return qgraph, opts, report


def interpreter_accuracy(graph, qgraph, opts) -> dict:
    """Accuracy of the int8 graph against the float graph on the calibration inputs
    (the numpy interpreter: no compiled code)."""
    from tunefarm.graph.interpret import run_graph
    from tunefarm.graph.ir import random_inputs
    from tunefarm.graph.passes.quantize import accuracy

    feeds = opts.calibration or [
        random_inputs(graph, opts.seed + i) for i in range(opts.num_random)
    ]
    worst = {"cosine": 1.0, "max_rel_error": 0.0}
    for feed in feeds[:2]:
        ref, got = run_graph(graph, feed), run_graph(qgraph, feed)
        for name in graph.outputs:
            acc = accuracy(ref[name], got[name])
            worst = {
                "cosine": min(worst["cosine"], acc["cosine"]),
                "max_rel_error": max(worst["max_rel_error"], acc["max_rel_error"]),
            }
    return worst


def write(qgraph, path: str) -> None:
    """The int8 graph as a QDQ ONNX model (.onnx) or as itself (.npz)."""
    if path.endswith(".onnx"):
        import onnx

        from tunefarm.frontend.qdq_export import ExportError, export_qdq

        try:
            model = export_qdq(qgraph)
        except ExportError as exc:
            raise CommandError(f"-o {path!r}: {exc}") from None
        onnx.save(model, path)
    elif path.endswith(".npz"):
        qgraph.save(path)
    else:
        raise CommandError(f"-o {path!r}: the name must end in .onnx (QDQ model) or .npz (graph)")


def run(args: argparse.Namespace) -> int:
    if not args.output.endswith((".onnx", ".npz")):
        raise CommandError(
            f"-o {args.output!r}: the name must end in .onnx (QDQ model) or .npz (graph)"
        )
    _, graph = load(args)
    out = sys.stderr if args.json else sys.stdout
    qgraph, opts, report = quantize(args, graph, out)
    acc = interpreter_accuracy(graph, qgraph, opts)
    write(qgraph, args.output)
    print(
        f"accuracy vs float: cosine {acc['cosine']:.5f}, max rel error "
        f"{acc['max_rel_error']:.3e}; written to {args.output}",
        file=out,
    )
    if args.json:
        print(json.dumps({**report.to_json(), "accuracy": acc, "written": args.output}, indent=2))
    return 0
