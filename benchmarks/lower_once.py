"""CPU per sketch candidate, search parent + build worker, with the featuriser's lowering
shipped to the worker (issue 27, `measure.lowered`) against a tree that lowers twice.

For a few of resnet-18's tasks (a Winograd and a direct conv by default) a `SketchTuner`
featurises `--states` random states (the parent: lower + features, and in a tree that has
it, pickling the lowering for the job), then each state's source is generated as the build
worker does it (`build_one`'s hand-off: unpickle, emit; or lower + emit). Both are this
thread's CPU time; gcc is left out (the same source, the same compile). The baseline tree
runs from a `git archive` with PYTHONPATH, in alternating subprocesses, and the emitted C
of the two trees is compared (it must be byte-identical):

    git archive main shared | tar -x -C /tmp/base
    taskset -c 0 nice python benchmarks/lower_once.py --base /tmp/base/shared --rounds 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

TASKS = "2,1"  # resnet-18's extract_tasks order: 2 = Winograd 64x56x56, 1 = its direct conv


def child(task_ids: list[int], states: int, seed: int) -> dict:
    """Featurise and generate in this process; print per-task CPU seconds and C digests."""
    import time

    from tunefarm.backends import registry
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.tune.sketch_search import SketchTuner

    try:
        from tunefarm.measure import lowered
    except ImportError:
        lowered = None  # the baseline: the worker lowers again
    _m, graph = load_model("zoo:resnet-18")
    tasks = extract_tasks(graph, "cpu -cores=1")
    out = {}
    for t in task_ids:
        task = tasks[t].task
        tuner = SketchTuner(task, seed=seed)
        c0 = time.thread_time()
        indices: list[int] = []
        for state in tuner._random(4 * states):
            i = tuner._make(state)
            if i is not None and i not in indices:
                indices.append(i)
            if len(indices) == states:
                break
        inputs = tuner.inputs_for(indices)
        payloads = [lowered.pickled_for(lowered.key(i)) if lowered else None for i in inputs]
        parent = time.thread_time() - c0
        c0 = time.thread_time()
        digests = []
        for inp, payload in zip(inputs, payloads, strict=True):
            if lowered:
                with lowered.handed(inp, payload):
                    code = registry.generate_source(inp).code
            else:
                code = registry.generate_source(inp).code
            digests.append(hashlib.sha256(code.encode()).hexdigest())
        builder = time.thread_time() - c0
        out[f"{task.op} {t}"] = {
            "states": len(inputs),
            "parent_cpu_s": parent,
            "builder_cpu_s": builder,
            "shipped": sum(p is not None for p in payloads),
            "digests": digests,
        }
    return out


def run_tree(pythonpath: str | None, args: argparse.Namespace) -> dict:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    cmd = [sys.executable, __file__, "--child", "--tasks", args.tasks]
    cmd += ["--states", str(args.states), "--seed", str(args.seed)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def _per_state(x: dict, key: str) -> float:
    return x[key] / x["states"]


def _summary(task: str, runs: dict[str, list[dict]]) -> dict:
    """Median CPU seconds per candidate of each tree, their ratio, and whether every run
    of both trees emitted the same C."""
    row: dict = {}
    for name in ("base", "new"):
        xs = [x[task] for x in runs[name]]
        parent = statistics.median(_per_state(x, "parent_cpu_s") for x in xs)
        builder = statistics.median(_per_state(x, "builder_cpu_s") for x in xs)
        total = statistics.median(
            _per_state(x, "parent_cpu_s") + _per_state(x, "builder_cpu_s") for x in xs
        )
        row[name] = {
            "cpu_per_candidate_s": round(total, 3),
            "parent_s": round(parent, 3),
            "builder_s": round(builder, 3),
            "shipped": xs[0]["shipped"],
        }
    ratio = row["new"]["cpu_per_candidate_s"] / row["base"]["cpu_per_candidate_s"]
    row["new/base"] = round(ratio, 3)
    first = runs["base"][0][task]["digests"]
    row["c_identical"] = all(x[task]["digests"] == first for x in runs["base"] + runs["new"])
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="PYTHONPATH of the baseline tree's shared/")
    ap.add_argument("--tasks", default=TASKS, help="indices into resnet-18's tasks")
    ap.add_argument("--states", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    ids = [int(t) for t in args.tasks.split(",")]
    if args.child:
        print(json.dumps(child(ids, args.states, args.seed)))
        return 0
    here = str(Path(__file__).resolve().parents[1] / "shared")
    runs: dict[str, list[dict]] = {"base": [], "new": []}
    for r in range(args.rounds):  # alternate which tree goes first
        order = [("base", args.base), ("new", here)]
        for name, path in order if r % 2 == 0 else order[::-1]:
            runs[name].append(run_tree(path, args))
    rows = {task: _summary(task, runs) for task in runs["new"][0]}
    print(json.dumps({"tasks": rows, "loadavg": os.getloadavg()}, indent=1))
    return 0 if all(r["c_identical"] for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
