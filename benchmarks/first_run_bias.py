"""Is a candidate's checked run a fair first repeat? (issue 27, measurement)

Since the checked run counts as the first timed call where it lasts one
(`measure.timing.time_evaluator`, `first_run`), a kernel of 10 ms or more is run twice per
candidate instead of three times. That is only fair if the checked run, made right after
the library is loaded, times like the runs after it. This builds random sketch states of
the given ops, then for each runs the checked run (timed by the kernel's own clock, as the
measurer does) and `--repeat` timed calls, and prints the ratio of the checked run to the
median of the others, per state and as quantiles.

With --ab ROUNDS it also measures what the change saves: the same built states measured by
the search's runner (`search_speed.py`'s settings: SEARCH with adaptive repeats) with the
kernels' clock (this tree) and without it (`LocalRunner.clock_of` None: the checked run a
warm-up only, as before), alternating, and prints the wall seconds per candidate of each.

    taskset -c 0 nice -n 5 python benchmarks/first_run_bias.py \\
        --ops conv_56_64_64_3x3,dense_768x3072 --states 10 [--ab 2] --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def one_state(inp, built, clock: str, repeat: int) -> dict:
    """The checked run and `repeat` timed runs of one built candidate, in this process."""
    from tunefarm.backends import registry
    from tunefarm.measure.child import CLOCKS, check_outputs
    from tunefarm.measure.host import load_host_kernel

    io = registry.reference_io(inp, 0)
    kernel = load_host_kernel(built.artifact, [a.copy() for a in io.args])
    try:
        tick = CLOCKS[clock]
        start = tick()
        kernel.run()
        first = tick() - start
        wrong = check_outputs(kernel.outputs(), io.expected, built.arg_specs, 1e-3, 1e-3)
        rest = [kernel.time(1) for _ in range(repeat)]
    finally:
        kernel.close()
    return {"first_s": first, "rest_s": rest, "ratio": first / statistics.median(rest),
            "wrong": wrong}  # fmt: skip


def runner_ab(inps: list, builds: list, rounds: int) -> list[dict]:
    """Wall seconds to measure `inps` with the kernels' clock and without, alternating."""
    import dataclasses
    import time

    import autoscheduler as autosched
    from tunefarm.backends import registry

    settings = dataclasses.replace(autosched.SEARCH, repeat=2, max_repeat=6, target_cv=0.05)
    rows = []
    for rnd in range(rounds):
        for which in ("clock", "none") if rnd % 2 == 0 else ("none", "clock"):
            with registry.local_runner(settings) as runner:
                if which == "none":
                    runner.clock_of = None
                runner.run(inps[:1], builds[:1])  # reference data and the measurer started
                start = time.perf_counter()
                results = runner.run(inps, builds)
                wall = time.perf_counter() - start
            runs = sum(len(r.costs) for r in results)
            rows.append({"round": rnd, "which": which, "wall_s": wall, "costs": runs,
                         "per_candidate_s": wall / len(inps)})  # fmt: skip
            print(f"ab r{rnd} {which}: {wall / len(inps):.3f} s per candidate, "
                  f"{runs} costs kept", flush=True)  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    import autoscheduler as autosched
    from tunefarm.backends import parse_target, registry
    from tunefarm.backends.cpu.c_emitter import kernel_clock
    from tunefarm.measure import MeasureInput
    from tunefarm.tune.sketch_search import random_states

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ops", default="conv_56_64_64_3x3,dense_768x3072")
    p.add_argument("--states", type=int, default=10)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--ab", type=int, default=0, help="rounds of the runner with/without")
    p.add_argument("--json")
    args = p.parse_args(argv)
    rows, ab = [], {}
    with (
        tempfile.TemporaryDirectory() as cache,
        registry.local_builder(n_parallel=1, timeout_s=60, cache_dir=cache) as builder,
    ):
        for name in args.ops.split(","):
            task = autosched.OPS[name].task
            inps = [MeasureInput(task, c) for c in random_states(task, args.states, args.seed)]
            clock = kernel_clock(parse_target(task.target))
            builds = builder.build(inps)
            ok = [(i, b) for i, b in zip(inps, builds, strict=True) if b.ok]
            if args.ab:
                ab[name] = runner_ab([i for i, _ in ok], [b for _, b in ok], args.ab)
            for k, (inp, built) in enumerate(zip(inps, builds, strict=True)):
                if not built.ok:
                    continue
                row = {"op": name, "state": k, "clock": clock, "load": os.getloadavg()[0]}
                row.update(one_state(inp, built, clock, args.repeat))
                rows.append(row)
                print(f"{name} {k}: first {1e3 * row['first_s']:.1f} ms, then "
                      f"{', '.join(f'{1e3 * r:.1f}' for r in row['rest_s'])} ms, "
                      f"ratio {row['ratio']:.3f}", flush=True)  # fmt: skip
    long = sorted(r["ratio"] for r in rows if r["first_s"] >= 0.01)
    if long:
        q = statistics.quantiles(long, n=4) if len(long) > 1 else [long[0]] * 3
        print(f"checked run / median of the rest, runs of 10 ms or more ({len(long)}): "
              f"quartiles {q[0]:.3f} {q[1]:.3f} {q[2]:.3f}, min {long[0]:.3f}, "
              f"max {long[-1]:.3f}")  # fmt: skip
    if args.json:
        out = {"rows": rows, "ab": ab, "args": vars(args)}
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
