"""Where a whole network's search time goes (issue 27).

The time-to-quality benchmark's network search (`_ttq_network.search_tunefarm`: the task
scheduler over every task of the network, one round = one batch on one task) runs for a
wall budget under cProfile, with the builder's and runner's calls timed by wall clock and
the search's own phases read off the profile: each task's set-up (its tuner: the sketches,
the base kernel), the template default (lowered, featurised, mapped to its nearest sketch
state), proposals (population, mutation, the features of every new state, the model's
predictions), the model's fits, rechecks, and the scheduler's bookkeeping. The proposal
runs in the calling thread here (TUNEFARM_OVERLAP_BATCHES=0), so the profile sees it all.
The profile's clock is this thread's CPU time (`--clock cpu`, the default: on a shared core
the wall clock mostly counts other processes' turns), so "build" and "run" are the parent's
own share of them; `--clock wall` counts the waits on the build workers and the measurer.

    taskset -c 0 nice python benchmarks/network_profile.py --network resnet-18 --budget 150

Prints one JSON object (seconds per phase; candidates and candidates/s) and, on stderr, the
profile's top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from typing import Any

os.environ.setdefault("TUNEFARM_OVERLAP_BATCHES", "0")

import _ttq_network as net  # noqa: E402
import time_to_quality as ttq  # noqa: E402
from tunefarm.frontend.models import load_model  # noqa: E402
from tunefarm.graph.extract import extract_tasks  # noqa: E402

# (phase, function name): the phases read off the profile (cumulative seconds, outermost)
PHASES = (
    ("tuner set-up", "__init__"),
    ("template default", "template_default"),
    ("propose", "propose"),
    ("featurise (lower + features)", "_featurise"),
    ("predict", "predict"),
    ("model fit", "fit"),
    ("tuner update", "update"),
    ("recheck", "_recheck"),
    ("build", "build"),
    ("run (measure)", "run"),
    ("scheduler choose", "_choose"),
    ("scheduler book", "_book_round"),
    ("callbacks", "on_batch"),
)


def _cum(stats: pstats.Stats, name: str, where: str = "") -> float:
    """Cumulative seconds of the functions called `name` (in a file matching `where`)."""
    total = 0.0
    for (path, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name and where in path:
            total += ct
    return total


def _per_task_setup(stats: pstats.Stats) -> float:
    return _cum(stats, "__init__", "sketch_search") + _cum(stats, "__init__", "xgb_tuner")


def profile(
    name: str, budget: float, seed: int, batch: int, top: int, clock: str = "cpu"
) -> dict[str, Any]:
    t0, c0 = time.perf_counter(), time.thread_time()
    _model, graph = load_model(f"zoo:{name}")
    tasks = extract_tasks(graph, net.TARGET)
    setup = {"extract_wall_s": time.perf_counter() - t0, "extract_cpu_s": time.thread_time() - c0}
    prof = cProfile.Profile(time.thread_time if clock == "cpu" else time.perf_counter)
    w0, c0 = time.perf_counter(), time.thread_time()
    prof.enable()
    hist = net.search_tunefarm("sketch", tasks, budget, seed, batch)
    prof.disable()
    wall, cpu = time.perf_counter() - w0, time.thread_time() - c0
    stats = pstats.Stats(prof)
    phases = {p: round(_cum(stats, f), 2) for p, f in PHASES if p != "tuner set-up"}
    phases["tuner set-up"] = round(_per_task_setup(stats), 2)
    tasks_touched = len({i for _, _, i, _ in hist.events})
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    print(out.getvalue(), file=sys.stderr)
    return {
        "network": name,
        "tasks": len(tasks),
        "tasks_with_a_best": tasks_touched,
        "budget_s": budget,
        "search_wall_s": round(wall, 2),
        "search_thread_cpu_s": round(cpu, 2),
        "candidates": hist.candidates(),
        "candidates_per_s": round(hist.candidates() / max(wall, 1e-9), 3),
        f"phases_{clock}_s": phases,
        **{k: round(v, 2) for k, v in setup.items()},
        "loadavg": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--network", default="resnet-18", choices=net.NETWORKS)
    p.add_argument("--budget", type=float, default=150.0, help="wall seconds of search")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--top", type=int, default=40, help="profile rows printed on stderr")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="the profile's clock")
    args = p.parse_args(argv)
    ttq.log(f"[{args.network}] profiling {args.budget:.0f} s (load {os.getloadavg()[0]:.2f})")
    row = profile(args.network, args.budget, args.seed, args.batch, args.top, args.clock)
    print(json.dumps(row, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
