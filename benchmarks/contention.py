"""Latency of a compiled resnet-18 and of ONNX Runtime when the cores are shared: alone, beside
one busy process and beside two, measured in one run (each figure in a fresh process, the
scenarios interleaved round by round so the machine's own drift hits every one alike).

Why: a network compiled with OpenMP parallel loops (static schedule) waits at the end of
every loop for its slowest thread. When a neighbour takes that thread's core, the threads
that finished spin (the OpenMP runtime's default wait policy) and burn the cycles the late
thread needs, so a whole network slowed 28x beside two busy processes on two cores where
ONNX Runtime slowed 7x. The goal: tunefarm's slowdown no worse than ONNX Runtime's in each
case. The OpenMP settings tried (`--variants`) are environment variables read when the
runtime loads; the executor's default is `runtime.executor.OPENMP_DEFAULTS`.

    .venv/bin/python benchmarks/contention.py [--records r18.jsonl] [--rounds 3]

Writes benchmarks/results-contention.json.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# name -> environment of the tunefarm child ("" values unset the variable)
# (GOMP_SPINCOUNT overrides the spin that OMP_WAIT_POLICY implies: libgomp spins about
# 100,000 times per millisecond; unset, it spins 3 ms, which is what "libgomp default" is.)
VARIANTS = {
    "tunefarm": {},  # the executor's defaults: OMP_WAIT_POLICY=PASSIVE
    "tunefarm spin 0.01 ms": {"GOMP_SPINCOUNT": "1000"},
    "tunefarm spin 0.1 ms": {"GOMP_SPINCOUNT": "10000"},
    "tunefarm libgomp default": {"GOMP_SPINCOUNT": "300000"},
}
SCENARIOS = (0, 1, 2)  # busy neighbours


def _busy() -> None:
    while True:
        pass


def child(kind: str, artifact: str, runs: int) -> None:
    """Print the median latency (ms) of `runs` runs of resnet-18, after a warm-up."""
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.ir import random_inputs

    model, graph = load_model("zoo:resnet-18")
    inputs = random_inputs(graph, 0)
    if kind == "onnxruntime":
        from tunefarm.recipe.reference import onnxruntime_session

        session = onnxruntime_session(model)
        feeds = dict(inputs)
        step = lambda: session.run(None, feeds)  # noqa: E731
    else:
        from tunefarm.runtime.executor import GraphExecutor

        ex = GraphExecutor.load(artifact)
        for name, value in inputs.items():
            ex.set_input(name, value)
        step = ex.run
    for _ in range(3):
        step()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    print(json.dumps({"ms": statistics.median(times)}))


def _measure(kind: str, env_changes: dict[str, str], artifact: str, runs: int) -> float:
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value:
            env[key] = value
        else:
            env.pop(key, None)
    cmd = [sys.executable, __file__, "--child", kind, "--artifact", artifact, "--runs", str(runs)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])["ms"]


def build_artifact(records: str | None, path: Path) -> None:
    from tunefarm.compiler.network import compile_graph
    from tunefarm.frontend.models import load_model

    _, graph = load_model("zoo:resnet-18")
    compile_graph(graph, "cpu", records, None, optimized=True).save(str(path))


def run(args: argparse.Namespace) -> dict:
    names = ["onnxruntime", *args.variants]
    samples: dict[str, dict[int, list[float]]] = {n: {s: [] for s in SCENARIOS} for n in names}
    with tempfile.TemporaryDirectory(prefix="tunefarm-contention-") as tmp:
        artifact = Path(tmp) / "resnet18.tfa"
        build_artifact(args.records, artifact)
        for round_ in range(args.rounds):
            for busy in SCENARIOS:
                neighbours = [
                    multiprocessing.Process(target=_busy, daemon=True) for _ in range(busy)
                ]
                for p in neighbours:
                    p.start()
                try:
                    for name in names:
                        kind = "onnxruntime" if name == "onnxruntime" else "tunefarm"
                        ms = _measure(kind, VARIANTS.get(name, {}), str(artifact), args.runs)
                        samples[name][busy].append(ms)
                        print(f"round {round_ + 1} busy={busy} {name:<26} {ms:8.2f} ms", flush=True)
                finally:
                    for p in neighbours:
                        p.kill()
                        p.join()
    return _table(samples)


def _table(samples: dict[str, dict[int, list[float]]]) -> dict:
    rows = {}
    for name, by_busy in samples.items():
        alone = statistics.median(by_busy[0])
        rows[name] = {f"busy{b}_ms": statistics.median(v) for b, v in by_busy.items()} | {
            f"busy{b}_slowdown": statistics.median(v) / alone for b, v in by_busy.items()
        }
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", help="tuning log of resnet-18 (default: untuned configs)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=20, help="runs per measurement")
    p.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument("--out", default=str(HERE / "results-contention.json"))
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--artifact", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.artifact, args.runs)
        return 0
    rows = run(args)
    print(f"\n{'':<26}{'alone ms':>10}{'+1 busy':>16}{'+2 busy':>16}")
    for name, r in rows.items():
        cells = [f"{r[f'busy{b}_ms']:7.2f} ({r[f'busy{b}_slowdown']:.1f}x)" for b in (1, 2)]
        print(f"{name:<26}{r['busy0_ms']:>10.2f}{cells[0]:>16}{cells[1]:>16}")
    meta = {
        "cores": os.cpu_count(),
        "records": args.records,
        "rounds": args.rounds,
        "runs": args.runs,
        # other users' load: on a shared machine "alone" is not alone
        "load_average_after": os.getloadavg(),
    }
    Path(args.out).write_text(json.dumps({"meta": meta, "results": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
