"""CPU time of `generate_source` on random sketch states, and the generated text to compare.

The build worker pays `generate_source` (lowering + the C emitter) once per candidate before
gcc. This times it on the same random states (`random_states`, fixed seed) of a few ops and
can dump every state's C text, so a baseline tree and this one can be compared for
identical output and CPU time. Run the baseline from a `git archive` with PYTHONPATH,
alternating with this tree:

    git archive BASE shared | tar -x -C /tmp/base
    PYTHONPATH=/tmp/base/shared python benchmarks/generate_source_speed.py --dump /tmp/a.json
    python benchmarks/generate_source_speed.py --dump /tmp/b.json
    python benchmarks/generate_source_speed.py --same /tmp/a.json /tmp/b.json

or all of that in one command, alternating the trees for --rounds rounds and checking that
every round's texts are the same (`--json` keeps every round's figures):

    python benchmarks/generate_source_speed.py --base /tmp/base --rounds 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

OPS = "conv_56_64_64_3x3,dense_768x768,softmax_12x128x128,bmm_qk"


def time_ops(
    ops: list[str], n: int, seed: int, ms: dict[str, float] | None = None
) -> dict[str, str]:
    """Print mean CPU ms per state for each op (also into `ms`); return every state's C text."""
    import autoscheduler as autosched
    from tunefarm.backends import registry
    from tunefarm.measure import MeasureInput
    from tunefarm.tune.sketch_search import random_states

    texts: dict[str, str] = {}
    for name in ops:
        task = autosched.OPS[name].task
        cpu = 0.0
        for i, config in enumerate(random_states(task, n, seed=seed)):
            start = time.process_time()
            texts[f"{name}/{i}"] = registry.generate_source(MeasureInput(task, config)).code
            cpu += time.process_time() - start
        print(f"{name}: {n} states, {1000 * cpu / n:.1f} ms CPU per generate_source", flush=True)
        if ms is not None:
            ms[name] = 1000 * cpu / n
    return texts


def compare(args: argparse.Namespace) -> int:
    """Run this script on the --base tree and on this one, alternating, each in its own
    process on the same states; print the per-op medians and base/this ratios."""
    here, rows = Path(__file__).resolve(), []
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            order = ["base", "this"] if rnd % 2 == 0 else ["this", "base"]
            for which in order:
                env = dict(os.environ)
                if which == "base":
                    env["PYTHONPATH"] = str(Path(args.base).resolve() / "shared")
                dump = f"{tmp}/{which}.json"
                cmd = [sys.executable, str(here), "--ops", args.ops, "--states", str(args.states)]
                cmd += ["--seed", str(args.seed), "--dump", dump, "--ms-json"]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                rows.append({"tree": which, "round": rnd, "load": os.getloadavg()[0],
                             "ms": json.loads(out.stdout.splitlines()[-1])})  # fmt: skip
            a, b = (json.loads(Path(f"{tmp}/{w}.json").read_text()) for w in ("base", "this"))
            rows[-1]["same_text"] = a == b
            if a != b:
                print(f"round {rnd}: the generated texts differ", file=sys.stderr)
                return 1
    summary = {}
    for op in args.ops.split(","):
        base, this = (statistics.median(r["ms"][op] for r in rows if r["tree"] == w)
                      for w in ("base", "this"))  # fmt: skip
        summary[op] = {"base_ms": base, "this_ms": this, "ratio": base / this}
        print(f"{op}: base {base:.1f} ms, this {this:.1f} ms CPU per state: {base / this:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "summary": summary,
                                               "rows": rows}, indent=1))  # fmt: skip
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default=OPS)
    ap.add_argument("--states", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dump", help="write {op/state: C text} here")
    ap.add_argument("--same", nargs=2, metavar="JSON", help="compare two dumps, time nothing")
    ap.add_argument("--base", help="a source tree with shared/tunefarm: time it against this one")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", help="with --base: write every round's figures here")
    ap.add_argument("--ms-json", action="store_true", help="end with the figures as JSON")
    args = ap.parse_args()
    if args.base:
        return compare(args)
    if args.same:
        a, b = (json.loads(Path(p).read_text()) for p in args.same)
        differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        print(f"{len(a)} / {len(b)} states, {len(differ)} differ: {differ[:10]}")
        return 1 if differ else 0
    ms: dict[str, float] = {}
    texts = time_ops(args.ops.split(","), args.states, args.seed, ms)
    if args.dump:
        Path(args.dump).write_text(json.dumps(texts))
    if args.ms_json:
        print(json.dumps(ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
