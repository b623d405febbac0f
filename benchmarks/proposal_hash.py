"""Whether two trees' sketch searches propose the same candidates on one op (issue 27).

A per-op sketch search (`SketchTuner(op, seed=0)`), `--batches` batches of 16 proposed, each
booked as measured with a fixed draw of made-up costs so that the model trains as a search's
would; prints a hash of each batch's states and its proposal CPU. Run it under two trees'
venvs (each imports its own tunefarm): equal hashes batch by batch mean the change leaves that
search's candidates, so its quality at a fixed trial count, as they were.

    .venv/bin/python benchmarks/proposal_hash.py conv_56_64_64_3x3
    /path/to/main/.venv/bin/python benchmarks/proposal_hash.py conv_56_64_64_3x3
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

import numpy as np

import autoscheduler as autosched
from tunefarm.measure import MeasureErrorNo, MeasureResult, MeasureSettings
from tunefarm.tune.sketch_search import SketchTuner


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("op", choices=sorted(autosched.OPS))
    p.add_argument("--batches", type=int, default=4)
    args = p.parse_args(argv)
    tuner = SketchTuner(autosched.OPS[args.op].task, seed=0)
    rng = np.random.default_rng(0)
    out = []
    for b in range(args.batches):
        c = time.thread_time()
        batch = tuner.next_batch(16)
        cpu = time.thread_time() - c
        keys = "|".join(tuner.space.key(tuner.space.get(i)) for i in batch)
        out.append({"batch": b, "hash": hashlib.sha1(keys.encode()).hexdigest()[:12],
                    "cpu_s": round(cpu, 2)})  # fmt: skip
        costs = [float(x) for x in rng.uniform(1e-4, 1e-2, len(batch))]
        res = [MeasureResult((x,), MeasureErrorNo.NO_ERROR, "", x, 0.0, MeasureSettings())
               for x in costs]  # fmt: skip
        tuner.load_history(list(zip(batch, res, strict=True)))
        tuner.update(batch, res)
    print(json.dumps({"op": args.op, "batches": out}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
