"""Trials per second of a search: one search, or an interleaved before/after.

`one` runs one search (the settings of benchmarks/metaschedule.py: batches of 16,
`autoscheduler.SEARCH` timing; the sketch policy, or with --policy template the template
policy's default tuner, xgb) with a fresh build cache, and prints one JSON line. Where the
tree has adaptive repeats (MeasureSettings.max_repeat), SEARCH's repeat=3 becomes at least 2
and at most 6 repeats, stopping at a coefficient of variation of 5% (--fixed-repeats keeps 3).
`compare` runs `one` in subprocesses, alternating between a baseline source tree (say a
`git archive` of an earlier commit) and this one (and with --main a third tree, run between
the two), same op, seed and trials, then measures the
best schedule each search found again, interleaved, with this tree's runner (the `FINAL`
settings), so a faster search that finds worse kernels shows.

    python benchmarks/search_speed.py one --op conv_56_64_64_3x3 --trials 64
    git archive BASE shared | tar -x -C /tmp/base
    python benchmarks/search_speed.py compare --base /tmp/base --trials 64 --rounds 2 \\
        [--ops conv_56_64_64_3x3,dense_768x3072] [--policies sketch,template] \\
        [--heavy-main] [--main /tmp/main] [--json out.json]

Anything the "after" tree reads from the environment (TUNEFARM_PERSISTENT_MEASURER=0, the
fresh child per candidate) can be given to `compare` with --after-env NAME=VALUE.

CPU seconds are those of the search's whole process tree (parent, build workers, compilers,
measurement children), read from the finished subprocess: on a shared host they are a
steadier figure than the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _report import stop_forkserver

HERE = Path(__file__).resolve().parent
DEFAULT_OPS = "conv_56_64_64_3x3,dense_768x3072"
HEAVY_MAIN = "TUNEFARM_SPEED_HEAVY_MAIN"
if os.environ.get(HEAVY_MAIN) == "1":
    # `compare --heavy-main`: a main module that imports the benchmark harness at the top, as
    # benchmarks/metaschedule.py does. multiprocessing's children run the main module's top
    # level again, so this is what each of them pays when the process is started that way.
    import autoscheduler  # noqa: F401


def run_one(args: argparse.Namespace) -> int:
    """One search, one JSON line on stdout."""
    import dataclasses

    import autoscheduler as autosched
    from tunefarm.measure import MeasureSettings
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    os.environ["TUNEFARM_CACHE"] = tempfile.mkdtemp(prefix="tunefarm-speed-")
    op = autosched.OPS[args.op]
    tuner = make_tuner("sketch" if args.policy == "sketch" else "xgb", op.task, args.seed)
    settings = autosched.SEARCH
    adaptive = "max_repeat" in MeasureSettings.__dataclass_fields__ and not args.fixed_repeats
    if adaptive:
        settings = dataclasses.replace(settings, repeat=2, max_repeat=6, target_cv=0.05)
    option = MeasureOption.local(settings)
    callbacks = [_Trace(args.trace)] if args.trace else []
    try:
        start = time.perf_counter()
        summary = tuner.tune(args.trials, option, batch_size=16, callbacks=callbacks)
        tune_s = time.perf_counter() - start
    finally:
        option.close()
    stop_forkserver()
    config = autosched.best_config(tuner)
    rechecks = list(getattr(tuner, "rechecks", ()))
    row = {"op": args.op, "policy": args.policy, "seed": args.seed, "trials": summary.trials,
           "tune_s": tune_s, "adaptive_repeats": adaptive, "rechecks": len(rechecks),
           "refuted": sum(not r.believed for r in rechecks),
           "trials_per_s": summary.trials / tune_s, "search_gflops": summary.best_gflops,
           "errors": dict(summary.errors),
           "config": None if config is None else config.to_json()}  # fmt: skip
    print(json.dumps(row), flush=True)
    return 0


class _Trace:
    """A tune callback writing one JSON line per measured candidate (`one --trace FILE`):
    its config, error, wall seconds spent on it and its mean cost, to see where a search's
    time went."""

    def __init__(self, path: str) -> None:
        self.path, self.start = Path(path), time.perf_counter()
        self.path.write_text("")

    def __call__(self, tuner: Any, inputs: Any, results: Any) -> None:
        with self.path.open("a") as out:
            for inp, res in zip(inputs, results, strict=True):
                mean = sum(res.costs) / len(res.costs) if res.costs else None
                row = {"t": round(time.perf_counter() - self.start, 2),
                       "config": inp.config.to_json()["values"], "error": res.error_no.name,
                       "msg": res.error_msg[:120], "all_cost": round(res.all_cost, 3),
                       "repeats": len(res.costs), "mean_s": mean}  # fmt: skip
                out.write(json.dumps(row) + "\n")


def _subprocess(
    tree: Path | None, op: str, args: argparse.Namespace, policy: str
) -> dict[str, Any]:
    """`one` in a subprocess importing tunefarm from `tree` (None: this checkout)."""
    env = dict(os.environ)
    env[HEAVY_MAIN] = "1" if args.heavy_main else "0"
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree / "shared"), str(HERE)])
    else:
        env.update(kv.split("=", 1) for kv in args.after_env)
    cmd = [sys.executable, str(Path(__file__).resolve()), "one", "--op", op, "--policy", policy]
    cmd += ["--trials", str(args.trials), "--seed", str(args.seed)]
    if args.fixed_repeats:
        cmd.append("--fixed-repeats")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"search failed (rc {proc.returncode}): {proc.stderr[-2000:]}")
    row = json.loads(lines[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    row["cpu_s"], row["cpu_s_per_trial"] = cpu, cpu / max(1, row["trials"])
    return row


def _remeasure(rows: list[dict[str, Any]], rounds: int) -> None:
    """Add `final_gflops` to each row: its best config measured again, interleaved."""
    import autoscheduler as autosched
    from tunefarm.backends import registry
    from tunefarm.measure import Config, MeasureInput

    inputs = [
        MeasureInput(autosched.OPS[r["op"]].task, Config.from_json(r["config"])) for r in rows
    ]
    costs: list[list[float]] = [[] for _ in rows]
    with registry.local_builder() as builder, registry.local_runner(autosched.FINAL) as runner:
        builds = builder.build(inputs)
        for _ in range(rounds):
            for k, (inp, build) in enumerate(zip(inputs, builds, strict=True)):
                res = runner.run([inp], [build])[0]
                if res.ok:
                    costs[k].append(res.costs[0])
    for row, inp, c in zip(rows, inputs, costs, strict=True):
        flops = registry.flops(inp.task)
        row["final_gflops"] = flops / statistics.median(c) / 1e9 if c else 0.0


def _order(rnd: int, three: bool) -> list[str]:
    """The trees of round `rnd`, in the order they run: before and after alternate first
    and last, a middle tree (`--main`) runs between them."""
    trees = ["before", "main", "after"] if three else ["before", "after"]
    return trees if rnd % 2 == 0 else trees[::-1]


def compare(args: argparse.Namespace) -> int:
    base = Path(args.base).resolve()
    trees = {"before": base, "after": None}
    if args.main:
        trees["main"] = Path(args.main).resolve()
    rows: list[dict[str, Any]] = []
    for rnd in range(args.first_round, args.first_round + args.rounds):
        for op, policy in [(o, p) for p in args.policies.split(",") for o in args.ops.split(",")]:
            for which in _order(rnd, bool(args.main)):
                tree = trees[which]
                row = _subprocess(tree, op, args, policy)
                row.update(which=which, round=rnd, policy=policy, load=os.getloadavg()[0])
                print(f"{which:6s} {op} {policy} r{rnd}: {row['trials']} trials in "
                      f"{row['tune_s']:.1f} s "
                      f"({row['trials_per_s']:.2f}/s, {row['cpu_s_per_trial']:.2f} CPU s/trial), "
                      f"search best {row['search_gflops']:.1f} GFLOPS",
                      file=sys.stderr, flush=True)  # fmt: skip
                rows.append(row)
    _remeasure([r for r in rows if r["config"]], args.final_rounds)
    print(table(rows))
    if args.main:
        print(table(rows, "main"))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "args": vars(args)}, indent=2))
    return 0


def table(rows: list[dict[str, Any]], against: str = "before") -> str:
    """Per op: medians over rounds of `against` ("before", or "main") and after, and the
    after/against ratios."""
    head = ["op", "trials", f"trials/s {against}", "after", "ratio", f"CPU s/trial {against}",
            "after", "ratio", f"best GFLOPS {against}", "after"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for op, policy in dict.fromkeys((r["op"], r.get("policy", "sketch")) for r in rows):
        mine = [r for r in rows if r["op"] == op and r.get("policy", "sketch") == policy]

        def med(which: str, key: str, mine: list[dict[str, Any]] = mine) -> float:
            return statistics.median(r[key] for r in mine if r["which"] == which)

        tps = [med(w, "trials_per_s") for w in (against, "after")]
        cpu = [med(w, "cpu_s_per_trial") for w in (against, "after")]
        gf = [med(w, "final_gflops") for w in (against, "after")]
        trials = max(r["trials"] for r in mine)
        cells = [f"{op} ({policy})", str(trials), f"{tps[0]:.2f}", f"{tps[1]:.2f}",
                 f"{tps[1] / tps[0]:.2f}",
                 f"{cpu[0]:.2f}", f"{cpu[1]:.2f}", f"{cpu[0] / cpu[1]:.2f}", f"{gf[0]:.1f}",
                 f"{gf[1]:.1f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    one = sub.add_parser("one", help="one search, one JSON line")
    one.add_argument("--op", default="conv_56_64_64_3x3")
    one.add_argument("--policy", choices=("sketch", "template"), default="sketch")
    one.add_argument("--trace", help="write one JSON line per measured candidate here")
    cmp = sub.add_parser("compare", help="interleaved searches: --base tree against this one")
    cmp.add_argument("--base", required=True, help="a source tree with shared/tunefarm")
    cmp.add_argument(
        "--main",
        help="a third source tree searched in the same rounds (rows 'main'; a second table "
        "compares this tree against it)",
    )
    cmp.add_argument("--ops", default=DEFAULT_OPS)
    cmp.add_argument("--policies", default="sketch,template", help="sketch and/or template")
    cmp.add_argument(
        "--after-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set in the environment of the 'after' searches only",
    )
    cmp.add_argument("--rounds", type=int, default=2)
    cmp.add_argument(
        "--first-round",
        type=int,
        default=0,
        help="number of the first round (odd: 'after' goes first), to split a long "
        "comparison into runs whose JSON rows are pooled",
    )
    cmp.add_argument("--final-rounds", type=int, default=5)
    cmp.add_argument("--json", help="write the rows here")
    cmp.add_argument(
        "--heavy-main",
        action="store_true",
        help="the searching process's main module imports the benchmark harness at the top, "
        "as benchmarks/metaschedule.py does",
    )
    for q in (one, cmp):
        q.add_argument("--trials", type=int, default=64)
        q.add_argument("--seed", type=int, default=0)
        q.add_argument("--fixed-repeats", action="store_true", help="SEARCH's repeat=3 as is")
    args = p.parse_args(argv)
    return run_one(args) if args.cmd == "one" else compare(args)


if __name__ == "__main__":
    sys.exit(main())
