"""`tunefarm compile`: compile a network with the best records into one artifact file.

    tunefarm compile model.onnx --log tune.jsonl -o net.tfa [--target ...] [--device-key KEY]
        [--select-top K]

Every tuning task gets its best valid record for this target (and device key, if given); a
task without one runs its default config, and the command says which and why. With
--select-top K (run it on the device itself) each task's K best records are timed inside
the compiled network and the fastest there is kept.
"""

from __future__ import annotations

import argparse
import json
import sys

from tunefarm.cli import CommandError
from tunefarm.cli._args import add_target_argument, number
from tunefarm.cli._model import add_model_arguments, load, target

HELP = "compile a network with the best tuning records into one artifact file (.tfa)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    add_target_argument(p)
    p.add_argument("--log", metavar="LOG.jsonl", help="tuning records (default: none, untuned)")
    p.add_argument("--device-key", metavar="KEY", help="only use records of this device key")
    p.add_argument("-o", "--output", required=True, metavar="NET.tfa", help="artifact to write")
    add_select_argument(p, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON document")


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
):
    """Compile and save; prints the fallbacks to `out`. With `select_top`, each task's
    config is chosen among its best records by timing them inside the network here
    (`compiler.select`). Returns (CompiledNetwork, info)."""
    from pathlib import Path

    from tunefarm.compiler import CompileError
    from tunefarm.compiler.select import compile_selected
    from tunefarm.runtime.artifact import ArtifactError
    from tunefarm.tune.dispatch import ApplyHistoryBest

    if log is not None and not Path(log).is_file():
        raise CommandError(f"--log {log!r}: no such records file")
    if not Path(output).resolve().parent.is_dir():
        raise CommandError(f"-o {output!r}: directory does not exist")
    try:
        history = ApplyHistoryBest(log, device_key) if log is not None else None
        compiled, selection = compile_selected(graph, tgt, history, device_key, select_top)
        if selection is not None:
            selection.print(out)
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


def run(args: argparse.Namespace) -> int:
    tgt = target(args)
    _, graph = load(args)
    out = sys.stderr if args.json else sys.stdout
    compiled, info = compile_to(
        graph, tgt, args.log, args.device_key, args.output, out, args.select_top
    )
    if args.json:
        doc = {"artifact": info.to_json(), "tasks": [c.to_json() for c in compiled.choices]}
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(info)
    return 0
