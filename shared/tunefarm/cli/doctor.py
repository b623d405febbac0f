"""`tunefarm doctor`: what this machine has for each part of tunefarm, each with its fix.

    tunefarm doctor          # a line per check: ok / warn / missing, what was found, the fix
    tunefarm doctor --json   # the same as one JSON document

Exit status 0 when nothing is missing, 1 otherwise (warnings do not count), so scripts can
gate on it. The checks themselves are in `tunefarm.cli._checks`.
"""

from __future__ import annotations

import argparse
import json

HELP = "check this machine: compiler, OpenMP, CUDA, OpenCL, Redis, Chromium, disk, load"

_MARK = {"ok": "ok", "warn": "WARN", "missing": "MISSING"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the checks as one JSON document")


def run(args: argparse.Namespace) -> int:
    from tunefarm.cli._about import version_text
    from tunefarm.cli._checks import run_checks

    checks = run_checks()
    missing = [c for c in checks if c.status == "missing"]
    if args.json:
        doc = {"version": version_text(), "checks": [c.to_json() for c in checks]}
        print(json.dumps(doc, indent=2))
        return 1 if missing else 0
    print(version_text())
    width = max(len(c.name) for c in checks)
    for c in checks:
        print(f"{_MARK[c.status]:>7}  {c.name:<{width}}  {c.detail}")
        if c.fix:
            needed = f" (needed by {c.needed_by})" if c.needed_by else ""
            print(f"{'':>7}  {'':<{width}}  fix: {c.fix}{needed}")
    if missing:
        print(f"{len(missing)} missing: {', '.join(c.name for c in missing)}")
    else:
        print("nothing missing")
    return 1 if missing else 0
