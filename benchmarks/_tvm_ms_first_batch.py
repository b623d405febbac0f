"""Where MetaSchedule's `tune_relax` spends its time before its first measured batch.

Runs in TVM's own virtual environment (like `_tvm_time_to_quality.py`, whose import and
preparation of the network it reuses, so the figures are those of `tune-net`):

    TVM_NUM_THREADS=1 PYTHONPATH=benchmarks taskset -c 0 /work/tvmenv/bin/python \
        benchmarks/_tvm_ms_first_batch.py --onnx r18.onnx --work-dir D

It prints one JSON line a stage (import, Relax import, `_fused`, task extraction, the start
of `tune_relax`) with wall and CPU seconds (this process; its pool workers apart), and when
the first measure callback fires it prints the per-task phases read from MetaSchedule's own
task-scheduler log (search of the task's first batch, its build) and exits. Why: the
gradient task scheduler sends one batch of every task to the runner before it joins any, so
no callback runs and no record reaches the database before every task has been searched
once; `tune-net`'s records stay empty until then. With `--dump S` Python's stacks are dumped
to stderr every S seconds (py-spy is not installed here).
"""

from __future__ import annotations

import argparse
import faulthandler
import glob
import json
import os
import re
import sys
import time

T0 = time.perf_counter()


def worker_cpu_s() -> float:
    """CPU seconds of this process's live child processes (MetaSchedule's pool workers)."""
    total = 0
    for kids in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        for pid in open(kids).read().split():  # noqa: SIM115 - /proc, read once
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime after the comm field
    return total / os.sysconf("SC_CLK_TCK")


def mark(stage: str, **extra) -> None:
    line = {"stage": stage, "wall_s": round(time.perf_counter() - T0, 1),
            "cpu_s": round(time.process_time(), 1),
            "workers_cpu_s": round(worker_cpu_s(), 1)}  # fmt: skip
    print(json.dumps({**line, **extra}), flush=True)


_LINE = re.compile(r"^(\S+ \S+) \[\w+\] \[[^\]]+\] (.*)$")  # date time [INFO] [file:line] msg


def task_phases(log_path: str) -> list[dict]:
    """Per task, from the scheduler's log: seconds from being picked to its first batch going
    to the builder (the search) and from there to the runner (the build)."""
    rows: list[dict] = []
    for raw in open(log_path):  # noqa: SIM115 - read once
        m = _LINE.match(raw.strip())
        if not m:
            continue
        t = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S"))
        msg = m.group(2)
        if msg.startswith("TaskScheduler picks Task"):
            rows.append({"task": msg.split('"')[1], "picked": t})
        elif rows and "to builder" in msg and "search_s" not in rows[-1]:
            rows[-1]["search_s"] = t - rows[-1]["picked"]
            rows[-1]["built_at"] = t
            rows[-1]["batch"] = int(msg.split()[1])
        elif rows and "to runner" in msg and "build_s" not in rows[-1]:
            rows[-1]["build_s"] = t - rows[-1].pop("built_at")
    for row in rows:
        row.pop("picked")
    return rows


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--onnx", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--trials-per-iter", type=int, default=16)
    p.add_argument("--dump", type=float, default=0, help="dump stacks every S seconds")
    args = p.parse_args()
    if args.dump:
        faulthandler.dump_traceback_later(args.dump, repeat=True, file=sys.stderr)
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.measure_callback import PyMeasureCallback

    import _tvm_metaschedule as msh
    import _tvm_time_to_quality as ttq

    mark("import tvm")
    target, _ = msh.llvm_target(1)
    mod = ttq._network(args.onnx)
    mark("relax from_onnx")
    mod = ttq._fused(mod, target)
    mark("_fused (legalize, fold constants, fuse)")
    mark("extract_tasks", tasks=len(ms.relax_integration.extract_tasks(mod, target)))
    log = os.path.join(args.work_dir, "logs", "tvm.s_tir.meta_schedule.logging.task_scheduler.log")

    @derived_object
    class FirstBatch(PyMeasureCallback):
        def apply(self, task_scheduler, task_id, candidates, builder_results, runner_results):
            mark("first measure callback", task=int(task_id), candidates=len(candidates))
            for row in task_phases(log):
                print(json.dumps(row), flush=True)
            os._exit(0)

    builder = ms.builder.LocalBuilder(f_build=msh.build_without_intrinsics, timeout_sec=120)
    runner = ms.runner.LocalRunner(timeout_sec=120)
    mark("tune_relax start (builder and runner pools up)")
    callbacks = [*ms.measure_callback.MeasureCallback.create("default"), FirstBatch()]
    ms.relax_integration.tune_relax(
        mod, None, target, args.work_dir, max_trials_global=100000,
        num_trials_per_iter=args.trials_per_iter, builder=builder, runner=runner,
        measure_callbacks=callbacks, seed=0,
    )  # fmt: skip
    return 1


if __name__ == "__main__":
    sys.exit(main())
