"""Where one search's time goes, per stage and per candidate (issue 27).

One search (the settings of benchmarks/search_speed.py: batches of 16, `autoscheduler.SEARCH`
timing with adaptive repeats where the tree has them, one build worker) runs under cProfile
in this process, with the builder's and runner's calls timed and told apart by caller (the
batch, or a recheck of a would-be best). Then every candidate it measured is taken apart
again, in this process, one stage at a time: the source generation (instantiate, schedule,
lower, emit), gcc on that source (CPU of the compiler's process tree), and the measurement
(reference data, load, the checked run, the numpy check, the timed repeats, unload).

Run it on one core to see a single core's budget (`taskset -c 0`):

    taskset -c 0 nice python benchmarks/candidate_profile.py --op conv_56_64_64_3x3 \\
        --policy sketch --trials 32 [--json out.json] [--top 25]

Prints one JSON object (per-stage seconds, in all and per candidate) and, on stderr, the
parent's cProfile top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import json
import os
import pstats
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_times: dict[str, list[float]] = defaultdict(list)


def _caller() -> str:
    """'recheck' when the call comes from tune.recheck, else 'batch'."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "recheck":
            return "recheck"
        frame = frame.f_back
    return "batch"


class _TimedBuilder:
    """A builder whose `build` calls are timed (and which never overlaps measurement)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def build(self, inputs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.inner.build(inputs)
        finally:
            _times[f"build:{_caller()}"].extend(
                [(time.perf_counter() - start) / len(inputs)] * len(inputs)
            )

    def close(self) -> None:
        self.inner.close()


class _TimedRunner:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def run(self, inputs: Any, builds: Any) -> Any:
        start = time.perf_counter()
        try:
            results = self.inner.run(inputs, builds)
            for r in results:  # timed by the checked run alone (`give_up_s`)
                cut = getattr(r.settings, "give_up_s", 0) and len(r.costs) == 1
                _times["given_up"].append(float(bool(cut)))
            return results
        finally:
            _times[f"measure:{_caller()}"].extend(
                [(time.perf_counter() - start) / len(inputs)] * len(inputs)
            )

    def close(self) -> None:
        self.inner.close()


def _cum(stats: pstats.Stats, name: str) -> float:
    """Cumulative seconds of every function called `name` (outermost calls only)."""
    total = 0.0
    for (_file, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name:
            total += ct
    return total


def _search(args: argparse.Namespace) -> tuple[Any, dict[str, float], str]:
    import autoscheduler as autosched
    from tunefarm.backends import registry
    from tunefarm.measure import MeasureSettings
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    op = autosched.OPS[args.op]
    tuner = make_tuner("sketch" if args.policy == "sketch" else "xgb", op.task, args.seed)
    settings = autosched.SEARCH
    if "max_repeat" in MeasureSettings.__dataclass_fields__:
        settings = dataclasses.replace(settings, repeat=2, max_repeat=6, target_cv=0.05)
    option = MeasureOption(
        _TimedBuilder(registry.local_builder(n_parallel=1)),
        _TimedRunner(registry.local_runner(settings)),
    )
    prof = cProfile.Profile()
    start, cpu0 = time.perf_counter(), time.process_time()
    try:
        prof.enable()
        summary = tuner.tune(args.trials, option, batch_size=16)
        prof.disable()
    finally:
        option.close()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
    stats = pstats.Stats(prof)
    parent = {
        "wall_s": wall,
        "parent_cpu_s": cpu,
        "trials": summary.trials,
        "propose_s": _cum(stats, "next_batch"),
        "lower_for_features_s": _cum(stats, "_featurise"),
        "features_s": _cum(stats, "statement_features") + _cum(stats, "extract_features"),
        "predict_s": _cum(stats, "predict"),
        "fit_s": _cum(stats, "fit"),
        "update_s": _cum(stats, "update"),
    }
    for key, values in _times.items():
        parent[key + "_s"] = sum(values)
        parent[key + "_n"] = len(values)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(args.top)
    return tuner, parent, out.getvalue()


def _gcc_cpu(tc: Any, source: str) -> float:
    """CPU seconds of one compile of `source` with toolchain `tc` (compiler and children)."""
    from tunefarm.measure.compile import run_killable

    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        rc, out = run_killable(tc.command(source, f"{tmp}/k.so", ()), 120.0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise RuntimeError(out[:500])
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _stages(tuner: Any, args: argparse.Namespace) -> dict[str, Any]:
    """Each measured candidate taken apart: generate, gcc, and the measurement's parts."""
    import autoscheduler as autosched
    from tunefarm.backends import registry
    from tunefarm.measure import MeasureSettings
    from tunefarm.measure.child import check_outputs
    from tunefarm.measure.host import load_host_kernel
    from tunefarm.measure.timing import time_evaluator
    from tunefarm.measure.types import MeasureInput

    settings = autosched.SEARCH
    if "max_repeat" in MeasureSettings.__dataclass_fields__:
        settings = dataclasses.replace(settings, repeat=2, max_repeat=6, target_cv=0.05)
    rows: dict[str, list[float]] = defaultdict(list)
    indices = [i for i, c in tuner.history][: args.take]
    inputs = tuner.inputs_for(indices)
    ios: dict[str, Any] = {}  # io_key -> reference data (a template's layouts differ)
    gen_prof = cProfile.Profile()
    with tempfile.TemporaryDirectory() as tmp:
        for k, inp in enumerate(inputs):
            t0, c0 = time.perf_counter(), time.process_time()
            gen_prof.enable()
            src = registry.generate_source(MeasureInput(inp.task, inp.config))
            gen_prof.disable()
            rows["generate"].append(time.perf_counter() - t0)
            rows["generate_cpu"].append(time.process_time() - c0)
            rows["source_kb"].append(len(src.code) / 1e3)
            path = f"{tmp}/k{k}.c"
            Path(path).write_text(src.code)
            rows["gcc_cpu"].append(_gcc_cpu(src.toolchain, path))
            from tunefarm.measure.compile import run_killable

            if src.io_key not in ios:
                start = time.perf_counter()
                ios[src.io_key] = registry.reference_io(inp, 0)
                rows["reference_io"].append(time.perf_counter() - start)
            kio = ios[src.io_key]
            so = f"{tmp}/k{k}.so"
            run_killable(src.toolchain.command(path, so, ()), 120.0)
            c0 = time.process_time()
            t0 = time.perf_counter()
            kernel = load_host_kernel(so, [a.copy() for a in kio.args])
            t1 = time.perf_counter()
            rc = kernel.run()
            t2 = time.perf_counter()
            msg = check_outputs(
                kernel.outputs(), kio.expected, src.arg_specs, settings.rtol, settings.atol_rel
            )
            t3 = time.perf_counter()
            timing = time_evaluator(kernel.time, settings)
            t4 = time.perf_counter()
            kernel.close()
            t5 = time.perf_counter()
            rows["load"].append(t1 - t0)
            rows["checked_run"].append(t2 - t1)
            rows["numpy_check"].append(t3 - t2)
            rows["timed_repeats"].append(t4 - t3)
            rows["repeats"].append(len(timing.costs))
            rows["kernel_ms"].append(1e3 * statistics.median(timing.costs))
            rows["unload"].append(t5 - t4)
            rows["measure_cpu"].append(time.process_time() - c0)
            if rc != 0 or msg:
                rows["wrong"].append(1.0)
    out = io.StringIO()
    pstats.Stats(gen_prof, stream=out).sort_stats("cumulative").print_stats(args.top)
    summary = {k: {"sum": sum(v), "mean": statistics.fmean(v), "max": max(v)}
               for k, v in rows.items()}  # fmt: skip
    summary["generate_profile"] = out.getvalue()
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--op", default="conv_56_64_64_3x3")
    p.add_argument("--policy", choices=("sketch", "template"), default="sketch")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--take", type=int, default=32, help="candidates taken apart afterwards")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--json")
    args = p.parse_args(argv)
    os.environ["TUNEFARM_CACHE"] = tempfile.mkdtemp(prefix="tunefarm-prof-")
    tuner, parent, prof_text = _search(args)
    print(prof_text, file=sys.stderr)
    stages = _stages(tuner, args)
    print(stages.pop("generate_profile"), file=sys.stderr)
    row = {"op": args.op, "policy": args.policy, "trials": args.trials, "search": parent,
           "stages": stages, "load": os.getloadavg()}  # fmt: skip
    print(json.dumps(row, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(row, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
