"""What builds running beside a timed host kernel do to its figure: none, the same builds in
idle priority (SCHED_IDLE, `LocalBuilder.background`, as `tune.tuner.measure_as_built`
runs them), and at normal priority (`TUNEFARM_OVERLAP_HOST_BUILDS=1`).

Each round measures the op's default kernel `--measures` times in each mode, the mode order
rotating per round; while it is timed in the two build modes the build pool compiles
`--builds` fresh random sketch states of a 56x56 conv (a new seed each time, so none is a
cache hit). Prints the median cost per mode and how many builds finished during the
measurements.

    nice python benchmarks/idle_builds.py --op dense_768x3072 --rounds 4
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MODES = ("alone", "idle builds", "normal builds")


def run_mode(mode, builder, runner, inp, build, loads, n):
    """`n` measurements of `build` with `loads` compiling beside them per `mode`; the costs
    and how many of the loads finished while they ran."""
    done: list[int] = []
    thread = None
    if mode != "alone":
        if mode == "idle builds":
            builder.background(True)
        thread = threading.Thread(
            target=builder.build, args=(loads,), kwargs={"on_result": lambda i, r: done.append(i)}
        )
        thread.start()
    costs = []
    for _ in range(n):
        (res,) = runner.run([inp], [build])
        if res.ok:
            costs.append(statistics.median(res.costs))
    finished = len(done)
    if mode == "idle builds":
        builder.background(False)
    if thread is not None:
        thread.join()
    return costs, finished


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--op", default="dense_768x3072")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--measures", type=int, default=3)
    p.add_argument("--builds", type=int, default=6)
    args = p.parse_args(argv)

    import autoscheduler as autosched
    from tunefarm.backends import registry
    from tunefarm.measure import LocalBuilder, MeasureInput
    from tunefarm.tune.sketch_search import random_states

    task = autosched.OPS[args.op].task
    conv = autosched.OPS["conv_56_64_64_3x3"].task
    inp = MeasureInput(task, registry.default_config(task))
    costs: dict[str, list[float]] = {m: [] for m in MODES}
    finished: dict[str, int] = {m: 0 for m in MODES}
    with tempfile.TemporaryDirectory(prefix="idle-builds-") as cache:
        builder = LocalBuilder(registry.generate_source, n_parallel=2, cache_dir=cache)
        with builder, registry.local_runner(autosched.SEARCH) as runner:
            (build,) = builder.build([inp])
            seed = 100
            for rnd in range(args.rounds):
                for k in range(len(MODES)):
                    mode = MODES[(rnd + k) % len(MODES)]
                    seed += 1
                    loads = [MeasureInput(conv, c) for c in random_states(conv, args.builds, seed)]
                    got, n = run_mode(mode, builder, runner, inp, build, loads, args.measures)
                    costs[mode] += got
                    finished[mode] += n
    for mode in MODES:
        c = costs[mode]
        med = statistics.median(c) * 1e3 if c else float("nan")
        print(f"{mode:14s} median {med:8.2f} ms over {len(c)} measurements; builds finished "
              f"during them: {finished[mode]}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
