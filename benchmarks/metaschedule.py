"""tunefarm's sketch policy against Apache TVM's MetaSchedule at equal trials, in one run:
GFLOP/s of the best schedule each found, and trials per second while tuning, with ONNX
Runtime on the same op as a fixed point.

TVM runs in a virtual environment of its own (created on first use under
benchmarks/.tvm/, see ../shared/notes/tvm-metaschedule.md for why the pinned FFI), one
subprocess per op and budget (`_tvm_metaschedule.py`); tunefarm's sketch search continues from
one budget to the next, and its tuning time counts only its own trials.

    python benchmarks/metaschedule.py --trials 64,256 [--ops conv_56_64_64_3x3,dense_768x3072]
        [--tvm-python PATH] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _report
import autoscheduler as autosched
from tunefarm.backends import registry
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption

HERE = Path(__file__).resolve().parent
TVM_DIR = HERE / ".tvm"
TVM_PACKAGES = ["apache-tvm==0.27.0.post1", "xgboost", "onnx", "psutil", "cloudpickle"]
TVM_FFI = "apache-tvm-ffi==0.1.14.post1"  # later FFI builds segfault in MetaSchedule's database
# tunefarm op name -> (TVM op, shape string for _tvm_metaschedule.py)
TVM_SHAPES = {
    "conv_56_64_64_3x3": ("conv", "1,64,56,56,64,3,1"),
    "conv_28_128_128_3x3": ("conv", "1,128,28,28,128,3,1"),
    "dense_768x768": ("dense", "128,768,768"),
    "dense_768x3072": ("dense", "128,3072,768"),
}
DEFAULT_OPS = "conv_56_64_64_3x3,dense_768x3072"


def tvm_python(given: str | None) -> Path:
    """The TVM environment's interpreter (`given`, else one created under benchmarks/.tvm on
    first use, a few minutes of pip), with the pinned FFI beside it."""
    python = Path(given) if given else TVM_DIR / "venv" / "bin" / "python"
    if not python.exists():
        autosched.log(f"creating TVM's environment in {TVM_DIR} (once)")
        subprocess.run([sys.executable, "-m", "venv", str(TVM_DIR / "venv")], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *TVM_PACKAGES], check=True)
    ffi = TVM_DIR / "ffi"
    if not ffi.exists():
        pip = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--target", str(ffi)]
        subprocess.run([*pip, TVM_FFI], check=True)
    return python


def run_tvm(python: Path, op: str, trials: int, cores: int) -> dict[str, Any]:
    """MetaSchedule's result for one op and budget (the subprocess's JSON line)."""
    kind, shape = TVM_SHAPES[op]
    env = dict(os.environ, PYTHONPATH=str(TVM_DIR / "ffi"), TVM_NUM_THREADS=str(cores))
    with tempfile.TemporaryDirectory(prefix="tvm-ms-") as work:
        cmd = [str(python), str(HERE / "_tvm_metaschedule.py"), "--op", kind, "--shape", shape]
        cmd += ["--trials", str(trials), "--work-dir", work, "--cores", str(cores)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout)[-2000:]
        return {"error": f"TVM run failed (rc {proc.returncode}): {tail}"}
    result = json.loads(lines[-1])
    result["wall_s"] = time.perf_counter() - start
    return result


def bench_op(name: str, budgets: list[int], python: Path, args) -> list[dict[str, Any]]:
    op = autosched.OPS[name]
    flops = registry.flops(op.task)
    ort = autosched.ort_fn(op, args.cores)
    tuner = make_tuner("sketch", op.task, args.seed)
    option = MeasureOption.local(autosched.SEARCH)
    tune_s, rows = 0.0, []
    try:
        for budget in budgets:
            start = time.perf_counter()
            tuner.tune(budget - tuner.trials, option, batch_size=16)
            tune_s += time.perf_counter() - start
            config = autosched.best_config(tuner)
            costs = autosched.final_rounds(op, {"sketch": config}, ort, args.rounds)
            ours = _report.gflops(flops, statistics.median(costs["sketch"]))
            ort_g = _report.gflops(flops, statistics.median(costs["ort"]))
            autosched.log(f"[{name}] tunefarm {tuner.trials} trials: {ours:.1f} GFLOPS")
            tvm = run_tvm(python, name, budget, args.cores)
            autosched.log(f"[{name}] TVM {budget} trials: {tvm}")
            rows.append(_row(name, budget, ours, tuner.trials / tune_s, tune_s, ort_g, tvm))
    finally:
        option.close()
    return rows


def _row(name, budget, ours, ours_tps, tune_s, ort_g, tvm) -> dict[str, Any]:
    row = {"op": name, "trials": budget, "tunefarm_gflops": ours, "tunefarm_trials_per_s": ours_tps,
           "tunefarm_tune_s": tune_s, "ort_gflops": ort_g, "tvm": tvm}  # fmt: skip
    if "gflops" in tvm:
        tvm_tps = tvm["trials"] / max(tvm["tune_s"], 1e-9)
        row.update(gflops_ratio=ours / tvm["gflops"], trials_per_s_ratio=ours_tps / tvm_tps)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = ["op", "trials", "tunefarm GFLOPS", "TVM MS GFLOPS", "ORT GFLOPS", "GFLOPS ratio",
            "tunefarm trials/s", "TVM trials/s", "trials/s ratio"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        tvm = r["tvm"]
        if "gflops" not in tvm:
            cells = [r["op"], str(r["trials"]), f"{r['tunefarm_gflops']:.1f}", "failed"]
            lines.append("| " + " | ".join(cells + [""] * (len(head) - 4)) + " |")
            continue
        tvm_tps = tvm["trials"] / max(tvm["tune_s"], 1e-9)
        cells = [r["op"], str(r["trials"]), f"{r['tunefarm_gflops']:.1f}", f"{tvm['gflops']:.1f}",
                 f"{r['ort_gflops']:.1f}", f"{r['gflops_ratio']:.2f}",
                 f"{r['tunefarm_trials_per_s']:.2f}", f"{tvm_tps:.2f}",
                 f"{r['trials_per_s_ratio']:.2f}"]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", default="64,256", help="comma-separated budgets")
    p.add_argument("--ops", default=DEFAULT_OPS, help=f"of: {', '.join(TVM_SHAPES)}")
    p.add_argument("--cores", type=int, default=2, help="threads for both (default 2)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tvm-python", help="an interpreter with TVM (default: benchmarks/.tvm)")
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args(argv)
    unknown = [o for o in args.ops.split(",") if o not in TVM_SHAPES]
    if unknown:
        p.error(f"--ops: unknown {unknown}; known: {', '.join(TVM_SHAPES)}")
    python = tvm_python(args.tvm_python)
    budgets = sorted(int(b) for b in args.trials.split(","))
    rows = [r for name in args.ops.split(",") for r in bench_op(name, budgets, python, args)]
    print(table(rows))
    print(f"machine: {_report.machine_info()}")
    if args.json:
        payload = {"rows": rows, "machine": _report.machine_info()}
        Path(args.json).write_text(json.dumps(payload, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
