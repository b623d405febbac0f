"""`tunefarm bench`: time a compiled network (mean/median/max/min/std over repeats).

    tunefarm bench net.tfa [--repeat 10] [--min-repeat-ms 100] [--profile] [--json]

Runs are timed inside the compiled library (no Python in the loop), or, for a GPU network,
by device events around the launches (CUDA events, OpenCL profiling events); `--profile`
adds the time of each kernel call, slowest first.
"""

from __future__ import annotations

import argparse
import json

from tunefarm.cli._args import number
from tunefarm.cli.run import load_executor

HELP = "benchmark a compiled network (.tfa)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="NET.tfa", help="a compiled network")
    p.add_argument("--repeat", type=number(int, 1), default=10, help="timed repeats")
    p.add_argument(
        "--min-repeat-ms",
        type=number(float, 0),
        default=100.0,
        help="grow runs per repeat until a repeat lasts this long",
    )
    p.add_argument("--profile", action="store_true", help="also time each kernel call")
    p.add_argument("--top", type=number(int, 1), default=15, help="calls listed by --profile")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    ex = load_executor(args.artifact)
    result = ex.benchmark(repeat=args.repeat, min_repeat_ms=args.min_repeat_ms)
    profile = ex.profile(repeat=max(3, args.repeat // 2)) if args.profile else []
    if args.json:
        doc = {"benchmark": result.to_json(), "manifest": ex.manifest}
        if profile:
            doc["profile"] = [p._asdict() for p in profile]
        print(json.dumps(doc, indent=2, default=str))
        return 0
    print(result)
    if profile:
        total = sum(p.ms for p in profile)
        print(f"\nSlowest of {len(profile)} calls (sum {total:.3f} ms):")
        for p in sorted(profile, key=lambda p: -p.ms)[: args.top]:
            print(f"  {p.ms:9.4f} ms  {100 * p.ms / total:5.1f}%  {p.kernel:<28} {p.node}")
    return 0
