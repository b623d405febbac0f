"""Where a pocl trial's time goes, part by part, in this one process (run it on one core:
`taskset -c 0`), for the conv of `pocl_speed.py`:

    python benchmarks/pocl_profile.py --candidates 8 --json out.json

For a first batch of the sketch search's candidates, each part timed by this process's CPU
time (all its threads, pocl's included) and by the wall clock: the proposal, the OpenCL C
source (schedule, lower, emit), the driver's build into an empty kernel cache
(`clBuildProgram`) and the first launch (pocl compiles the work-group function for the
launch's local size there), then what the measurer does with the cache filled: build
again, load, check and time (`min_repeat_ms` as the tune's). pocl's variables (e.g.
POCL_WORK_GROUP_METHOD) are read from the environment and written to the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("POCL_CACHE_DIR", tempfile.mkdtemp(prefix="tf-pocl-profile-"))

from pocl_speed import CONV  # noqa: E402


class Clock:
    """Process CPU (all threads) and wall seconds of each named part, summed over candidates."""

    def __init__(self) -> None:
        self.parts: dict[str, list[tuple[float, float]]] = {}

    def time(self, name: str, fn, *args):
        c, w = time.process_time(), time.perf_counter()
        out = fn(*args)
        self.parts.setdefault(name, []).append((time.process_time() - c, time.perf_counter() - w))
        return out

    def table(self) -> dict[str, dict[str, float]]:
        return {
            k: {
                "cpu_s_median": statistics.median(c for c, _ in v),
                "wall_s_median": statistics.median(w for _, w in v),
                "cpu_s_total": sum(c for c, _ in v),
                "n": len(v),
            }
            for k, v in self.parts.items()
        }


def profile(args: argparse.Namespace) -> dict:
    from tunefarm.backends import registry
    from tunefarm.backends.opencl import driver, prebuild
    from tunefarm.measure import MeasureSettings
    from tunefarm.measure.child import check_and_time
    from tunefarm.measure.types import KernelIO
    from tunefarm.task import Task
    from tunefarm.tune.factory import make_tuner

    clock = Clock()
    task = Task.make("conv2d", target="opencl", **CONV)
    tuner = make_tuner(args.policy, task, args.seed)
    driver.shared_queue()  # the context once, as the measurer and build workers hold it
    indices = clock.time("propose", tuner.propose, args.candidates)
    inputs = tuner.inputs_for(indices)
    settings = MeasureSettings(min_repeat_ms=args.min_repeat_ms, repeat=1, timeout_s=60)
    medians: list[float | None] = []
    for inp in inputs:
        io = registry.reference_io(inp, 0)
        assert isinstance(io, KernelIO)
        src = clock.time("source", registry.generate_source, inp)
        specs = src.arg_specs
        sizes = prebuild._sizes(prebuild.toolchain(specs).flags)
        device, ctx, queue = driver.shared_queue()
        program = clock.time("build_cold", driver.build_program, ctx, device, src.code)
        driver.library().clReleaseProgram(driver.cl_ptr(program))
        clock.time("first_launch_cold", prebuild.warm, src.code, sizes)
        path = Path(tempfile.mkdtemp()) / "k.cl"
        path.write_text(src.code)
        kernel = clock.time(
            "measurer_load_warm", driver.load_opencl_kernel, str(path), [a.copy() for a in io.args]
        )
        try:
            reply = clock.time(
                "measurer_check_and_time", check_and_time, kernel, io, specs, settings
            )
            medians.append(statistics.median(reply["costs"]) if reply.get("costs") else None)
        finally:
            kernel.close()
    return {"conv": CONV, "candidates": len(inputs), "policy": args.policy,
            "min_repeat_ms": args.min_repeat_ms, "build_options": driver.build_options(),
            "parts": clock.table(), "kernel_median_s": medians,
            "pocl_env": {k: v for k, v in os.environ.items() if k.startswith("POCL_")},
            "load": os.getloadavg()}  # fmt: skip


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--candidates", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policy", default="sketch")
    p.add_argument("--min-repeat-ms", type=float, default=20.0)
    p.add_argument("--json", default="")
    args = p.parse_args()
    rep = profile(args)
    print(json.dumps(rep, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(rep, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
