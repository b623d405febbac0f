"""The register blocks of hand-built sketch states against the template's default schedule,
re-timed together in one timer (issue 27): which block shapes and register-tile orders
(`ord:`) the sketch's first batch should hold.

Per conv: the default schedule, then for sketch 0 (padding inlined, cache write) and sketch 2
(padding at root, cache write) the hand-built states of SHAPES (vectors, auto-unroll, columns
outer), GFLOP/s of the median and the fastest of `--rounds` interleaved rounds. The second
row, "mapped", is the default's nearest sketch state (`sketch_map.nearest_state`), the one the
search seeds evolution with; `--mapped` times only the default and it.

    nice python benchmarks/register_blocks.py --ops conv_28_128_128_3x3,conv_56_64_64_3x3
    nice python benchmarks/register_blocks.py --ops resnet18-convs --mapped --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
import autoscheduler
import search_depth
from tunefarm.measure import Config
from tunefarm.schedule.sketch_map import describe
from tunefarm.schedule.sketch_state import heuristic
from tunefarm.tune.sketch_search import SketchTuner, State

SHAPES = ((1, 64, 0), (2, 64, 0), (2, 64, 1), (4, 64, 1), (2, 512, 1))


def states(op, mapped_only: bool = False) -> tuple[list[str], list[Config]]:
    """Labels and configs: the default schedule, its nearest sketch state and the hand-built
    states of SHAPES (not with `mapped_only`)."""
    t = SketchTuner(op.task, seed=0)
    labels, configs = ["default"], [Config.make(t.space.get(t._default()))]
    if t.default_state is not None:
        labels.append("mapped " + describe(t.states[t.default_state].d))
        configs.append(Config.make(t.space.get(t.default_state)))
    for k in () if mapped_only else (0, 2):
        if k >= len(t.sketches):
            continue
        for v, u, c in SHAPES:
            d = heuristic(t.sketches[k], t.params, np.random.default_rng(0), v, u, c)
            i = t._make(State(k, tuple(sorted(d.items()))), "heuristic")
            if i is None:
                continue
            block = {a.split(":")[2]: d[a][2] for a in d if a.startswith("tile:conv:o")}
            labels.append(f"sk{k} v{v} u{u} cols{c} ow{block.get('ow')}xocc{block.get('occ')}")
            configs.append(Config.make(t.space.get(i)))
    return labels, configs


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", default="conv_28_128_128_3x3")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--target", default="cpu -cores=1")
    p.add_argument("--mapped", action="store_true", help="the default and its sketch state only")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    rows, load_start = [], os.getloadavg()
    for name in autoscheduler.select_ops(args.ops):
        base = autoscheduler.OPS[name]
        task = replace(base.task, target=args.target)
        op = autoscheduler.Op(name, task, base.onnx, base.weight)
        labels, configs = states(op, args.mapped)
        for label, (median, fastest) in zip(
            labels, search_depth.retime(op, configs, args.rounds), strict=True
        ):
            print(f"{name} {label}: {median:.1f} / {fastest:.1f}", flush=True)
            rows.append({"op": name, "state": label, "median_gflops": median,
                         "fastest_gflops": fastest})  # fmt: skip
    if args.json:
        doc = {"command": " ".join(sys.argv), "host": _report.machine_info(),
               "load_start": load_start, "load_end": os.getloadavg(), "rounds": args.rounds,
               "target": args.target, "rows": rows}  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
