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
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

OPS = "conv_56_64_64_3x3,dense_768x768,softmax_12x128x128,bmm_qk"


def time_ops(ops: list[str], n: int, seed: int) -> dict[str, str]:
    """Print mean CPU ms per state for each op; return every state's C text."""
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
    return texts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", default=OPS)
    ap.add_argument("--states", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--dump", help="write {op/state: C text} here")
    ap.add_argument("--same", nargs=2, metavar="JSON", help="compare two dumps, time nothing")
    args = ap.parse_args()
    if args.same:
        a, b = (json.loads(Path(p).read_text()) for p in args.same)
        differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        print(f"{len(a)} / {len(b)} states, {len(differ)} differ: {differ[:10]}")
        return 1 if differ else 0
    texts = time_ops(args.ops.split(","), args.states, args.seed)
    if args.dump:
        Path(args.dump).write_text(json.dumps(texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
