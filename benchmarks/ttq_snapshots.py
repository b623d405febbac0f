"""Which nodes make a network's time-to-quality curve move (issue 27).

Runs the time-to-quality benchmark's network search (`_ttq_network.search_tunefarm`, the
sketch policy by default) for a wall budget, then compiles the network the search held
after the chosen numbers of new-best events, as `time_to_quality.py --networks` does (from
each task's best record: `NetHistory.history`), and times every snapshot in interleaved
rounds two ways: whole (wall clock, as the benchmark's timer) and call by call (the
executor's profile: thread CPU time on a one-core network, so other processes' turns do not
count). Per node it prints the calls' time in each snapshot where they differ by more than
0.1 ms, and per group of alternatives which one ran. A jump in the whole-network column with
no node behind it is the host's noise, not the search.

    taskset -c 1 python benchmarks/ttq_snapshots.py --network resnet-18 --budget 150 \\
        --snapshots 2,4,6,8 --rounds 3
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import _ttq_network as net
from tunefarm.compiler import compile_graph
from tunefarm.frontend.models import load_model
from tunefarm.graph.extract import choose_alternative, extract_tasks
from tunefarm.graph.ir import random_inputs
from tunefarm.runtime.executor import GraphExecutor


def _executors(graph, hist: net.NetHistory, snapshots: list[int], work: Path) -> list:
    inputs = random_inputs(graph, 0)
    out = []
    for k in snapshots:
        compiled = compile_graph(graph, net.TARGET, hist.history(k), optimized=True)
        compiled.save(work / f"s{k}.tfa")
        ex = GraphExecutor.load(work / f"s{k}.tfa", cache_dir=work)
        for name, value in inputs.items():
            ex.set_input(name, value)
        out.append(ex)
    return out


def _per_node(profiles: list) -> dict[str, float]:
    """ms per run of each node's calls (a transform counts for its consumer), mean of rounds."""
    out: dict[str, float] = {}
    for profile in profiles:
        for e in profile:
            node = e.node.split(":")[0]
            out[node] = out.get(node, 0.0) + e.ms / len(profiles)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="resnet-18")
    ap.add_argument("--system", default="sketch", choices=sorted(net.POLICIES))
    ap.add_argument("--budget", type=float, default=150.0, help="search seconds")
    ap.add_argument("--snapshots", default="2,4,6,8", help="numbers of new-best events")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    _, graph = load_model(f"zoo:{args.network}")
    tasks = extract_tasks(graph, net.TARGET)
    hist = net.search_tunefarm(args.system, tasks, args.budget, 0, 16)
    for k, (at, _, i, _) in enumerate(hist.events):
        rec = hist.bests[k]
        cost = f"{rec.result.median * 1e3:.4f} ms" if rec else "-"
        print(f"event {k + 1:2d} at {at:6.1f} s: task {i:2d} {tasks[i].task.op:16s} {cost}")
    snapshots = [min(int(s), len(hist.events)) for s in args.snapshots.split(",")]
    with tempfile.TemporaryDirectory(prefix="ttq-snapshots-") as tmp:
        exs = _executors(graph, hist, snapshots, Path(tmp))
        whole: list[list[float]] = [[] for _ in exs]
        profiles: list[list] = [[] for _ in exs]
        for _ in range(args.rounds):
            for v, ex in enumerate(exs):
                profiles[v].append(ex.profile(repeat=3))
                whole[v].append(ex.benchmark(repeat=1, min_repeat_ms=200).costs[0] * 1e3)
    print(f"snapshots (events): {snapshots}")
    print("whole network, wall ms per round:", [[round(x, 1) for x in w] for w in whole])
    nodes = [_per_node(p) for p in profiles]
    print("sum of calls, thread CPU ms:", [round(sum(n.values()), 2) for n in nodes])
    groups: dict[int, list] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t.task)
    for g, alts in groups.items():
        if len(alts) > 1:
            ran = [choose_alternative(alts, hist.history(k)).op for k in snapshots]
            print(f"group {g:2d} ran: {' '.join(ran)}")
    for node in dict.fromkeys(n for per in nodes for n in per):
        ms = [per.get(node, 0.0) for per in nodes]
        if max(ms) - min(ms) > 0.1:
            print(f"{node[:40]:40s} " + " ".join(f"{m:7.3f}" for m in ms))


if __name__ == "__main__":
    main()
