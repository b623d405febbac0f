"""`tunefarm compile`: compile a network with the best records into one artifact file.

    tunefarm compile model.onnx --log tune.jsonl -o net.tfa [--target ...] [--device-key KEY]

Every tuning task gets its best valid record for this target (and device key, if given); a
task without one runs its default config, and the command says which and why.
"""

from __future__ import annotations

import argparse
import json
import sys

from tunefarm.cli import CommandError
from tunefarm.cli._model import add_model_arguments, add_target_argument, load, target

HELP = "compile a network with the best tuning records into one artifact file (.tfa)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    add_target_argument(p)
    p.add_argument("--log", metavar="LOG.jsonl", help="tuning records (default: none, untuned)")
    p.add_argument("--device-key", metavar="KEY", help="only use records of this device key")
    p.add_argument("-o", "--output", required=True, metavar="NET.tfa", help="artifact to write")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def compile_to(graph, tgt: str, log: str | None, device_key: str | None, output: str, out=None):
    """Compile and save; prints the fallbacks to `out`. Returns (CompiledNetwork, info)."""
    from pathlib import Path

    from tunefarm.compiler import CompileError, compile_graph
    from tunefarm.runtime.artifact import ArtifactError

    if log is not None and not Path(log).is_file():
        raise CommandError(f"--log {log!r}: no such records file")
    if not Path(output).resolve().parent.is_dir():
        raise CommandError(f"-o {output!r}: directory does not exist")
    try:
        compiled = compile_graph(graph, tgt, records=log, device_key=device_key, optimized=True)
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
    compiled, info = compile_to(graph, tgt, args.log, args.device_key, args.output, out)
    if args.json:
        doc = {"artifact": info.to_json(), "tasks": [c.to_json() for c in compiled.choices]}
        print(json.dumps(doc, indent=2, default=str))
    else:
        print(info)
    return 0
