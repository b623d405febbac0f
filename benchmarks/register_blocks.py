"""The register blocks of hand-built sketch states against the template's default schedule,
re-timed together in one timer (issue 27): which block shapes and register-tile orders
(`ord:`) the sketch's first batch should hold.

Per conv: the default schedule, then for sketch 0 (padding inlined, cache write) and sketch 2
(padding at root, cache write) the hand-built states of SHAPES (vectors, auto-unroll, columns
outer), GFLOP/s of the median and the fastest of `--rounds` interleaved rounds. The second
row, "mapped", is the default's nearest sketch state (`sketch_map.nearest_state`), the one the
search seeds evolution with; `--mapped` times only the default and it.

`--tuned RUNS.json` (a `search_depth.py --variants template` run) times instead the template
policy's best config of each conv at its last checkpoint: as the template builds it (its own
channel blocks), the same config over the default's channel blocks (the definition the
sketches schedule), its steps on that definition, and its nearest sketch state, with the
kernel-window unroll the template asked for (`rur:`) and without it (the state as the sketch
could say it before).

    nice python benchmarks/register_blocks.py --ops conv_28_128_128_3x3,conv_56_64_64_3x3
    nice python benchmarks/register_blocks.py --ops resnet18-convs --mapped --json out.json
    nice python benchmarks/register_blocks.py --ops conv_7_512_512_3x3 --tuned template.json
"""

from __future__ import annotations

import argparse
import json
import math
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
from tunefarm.backends import registry
from tunefarm.measure import Config
from tunefarm.schedule.sketch_map import describe, nearest_state
from tunefarm.schedule.sketch_state import heuristic, realise, sample
from tunefarm.tune.sketch_search import SketchTuner

SHAPES = ((1, 64, 0), (2, 64, 0), (2, 64, 1), (4, 64, 1), (2, 512, 1))


def states(op, mapped_only: bool = False) -> tuple[list[str], list[Config]]:
    """Labels and configs: the default schedule, its nearest sketch state and the hand-built
    states of SHAPES (not with `mapped_only`)."""
    t = SketchTuner(op.task, seed=0)
    labels, configs = ["default"], [Config.make(t.space.get(t.template_default()))]
    if t.default_state is not None:
        labels.append("mapped " + describe(t.states[t.default_state].d))
        configs.append(Config.make(t.space.get(t.default_state)))
    for k in () if mapped_only else (0, 2):
        if k >= len(t.sketches):
            continue
        for v, u, c in SHAPES:
            d = heuristic(t.sketches[k], t.params, np.random.default_rng(0), v, u, c)
            i = t.state_index(k, d, "heuristic")
            if i is None:
                continue
            block = {a.split(":")[2]: d[a][2] for a in d if a.startswith("tile:conv:o")}
            labels.append(f"sk{k} v{v} u{u} cols{c} ow{block.get('ow')}xocc{block.get('occ')}")
            configs.append(Config.make(t.space.get(i)))
    return labels, configs


def tuned_states(op, values: dict) -> tuple[list[str], list[Config]]:
    """Labels and configs: the template's tuned config, its steps on the sketches' compute
    definition and its nearest sketch state with and without the `rur:` unroll."""
    t = SketchTuner(op.task, seed=0)
    labels, configs = ["template config"], [Config.make(values)]
    same = reblocked(op.task, values)
    if same != values:
        labels.append("template config, the sketches' channel blocks")
        configs.append(Config.make(same))
    kdef = registry.instantiate(op.task, same)
    if [x.shape for x in kdef.inputs] != [x.shape for x in t.kdef.inputs]:
        return labels, configs  # still not the sketches' definition
    labels.append("its steps on the sketches' definition")
    configs.append(registry.sketch_config(list(kdef.steps)))
    rng = np.random.default_rng(0)
    found = nearest_state(t.sketches, list(kdef.steps), t.params,
                          lambda sk: sample(sk, t.params, rng))  # fmt: skip
    if found is None:
        return labels, configs
    k, d = found
    rolled = {key: (-1 if key.startswith("rur:") else v) for key, v in d.items()}
    for label, state in (("mapped", d), ("mapped, window rolled", rolled)):
        if label.endswith("rolled") and state == d:
            continue
        labels.append(f"{label} {describe(state)}")
        configs.append(registry.sketch_config(realise(t.sketches[k], state)))
    return labels, configs


def reblocked(task, values: dict) -> dict:
    """A conv template config with the channel blocks of the default (the compute definition
    the sketches schedule): the same register tile (`tile_ow`, `oc_inner` vectors), order,
    unroll, padding and passes over other input/output blocks."""
    default = registry.default_config(task).as_dict()
    if "tile_ic" not in values or "tile_oc" not in default:
        return values
    ib, ob = default["tile_ic"][1], default["tile_oc"][2]
    c = math.prod(values["tile_ic"])
    o, inner = math.prod(values["tile_oc"]), values["tile_oc"][1]
    if o % (inner * ob):
        return values
    return {**values, "tile_ic": [c // ib, ib], "tile_oc": [o // (inner * ob), inner, ob]}


def template_bests(path: str) -> dict[str, dict]:
    """op -> the template variant's best config values at its last checkpoint."""
    doc = json.loads(Path(path).read_text())
    return {r["op"]: r["points"][-1]["config"]["values"] for r in doc["runs"]
            if r["variant"] == search_depth.TEMPLATE and r["points"][-1]["config"]}  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", default="conv_28_128_128_3x3")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--target", default="cpu -cores=1")
    p.add_argument("--mapped", action="store_true", help="the default and its sketch state only")
    p.add_argument("--tuned", metavar="RUNS.json", help="the template policy's bests of a "
                   "search_depth.py run, their steps and nearest sketch states")  # fmt: skip
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    tuned = template_bests(args.tuned) if args.tuned else {}
    rows, load_start = [], os.getloadavg()
    for name in autoscheduler.select_ops(args.ops):
        base = autoscheduler.OPS[name]
        task = replace(base.task, target=args.target)
        op = autoscheduler.Op(name, task, base.onnx, base.weight)
        if args.tuned and name not in tuned:
            continue
        labels, configs = tuned_states(op, tuned[name]) if args.tuned else states(op, args.mapped)
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
