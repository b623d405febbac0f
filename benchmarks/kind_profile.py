"""Where a network's time goes, by kind of kernel, next to ONNX Runtime's by op type (one core).

    taskset -c 0 nice -n 5 python benchmarks/kind_profile.py /work/models-full/bert-base.dynamo.onnx
        [--repeat 5] [--json out.json]

Compiles the export untuned for `cpu -cores=1`, profiles it call by call (the executor's
per-call profile, thread CPU time) and sums the calls per kernel kind (dense, attention,
layer_norm, transpose, ...); ONNX Runtime (one intra-op thread) runs the same input with its
profiler on and its node times are summed per op type. The two columns are different
splits of different graphs (ORT's MatMul + Add against our dense with its epilogue), so only
the big lines compare: the denses, the attention against ORT's MatMul/Softmax/Transpose.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_info  # noqa: E402
from tunefarm.compiler import compile_graph  # noqa: E402
from tunefarm.frontend.onnx_import import load_onnx  # noqa: E402
from tunefarm.runtime.executor import GraphExecutor  # noqa: E402


def ours(path: Path, feeds: dict, repeat: int) -> dict[str, float]:
    """ms per kernel kind (the kernel name without its `kNN_` prefix), summed over calls."""
    with tempfile.TemporaryDirectory() as tmp:
        compile_graph(load_onnx(str(path)), "cpu -cores=1").save(Path(tmp) / "n.tfa")
        net = GraphExecutor.load(Path(tmp) / "n.tfa")
        net.run(feeds)
        kinds: dict[str, float] = defaultdict(float)
        for _node, kernel, ms in net.profile(repeat):
            kinds[kernel.split("_", 1)[-1]] += ms
    return dict(kinds)


def onnxruntime(path: Path, feeds: dict, repeat: int) -> dict[str, float]:
    """ms per ONNX op type in ORT's own profile (one thread), per run (the median run)."""
    with tempfile.TemporaryDirectory() as tmp:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.enable_profiling = True
        opts.profile_file_prefix = os.path.join(tmp, "ort")
        sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        for _ in range(repeat + 1):
            sess.run(None, feeds)
        events = json.loads(Path(sess.end_profiling()).read_text())
    runs: list[dict[str, float]] = []
    for ev in events:
        if ev.get("name") == "model_run":
            runs.append(defaultdict(float))
        elif ev.get("cat") == "Node" and ev["name"].endswith("_kernel_time") and runs:
            runs[-1][ev["args"]["op_name"]] += ev["dur"] / 1000.0
    runs = runs[1:] or runs  # the first run warms up
    kinds = {k for r in runs for k in r}
    return {k: float(np.median([r.get(k, 0.0) for r in runs])) for k in kinds}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    saved = np.load(args.model.with_name(args.model.name.replace(".onnx", ".inputs.npz")))
    feeds = {k: saved[k] for k in saved.files if not k.startswith("__")}  # not "__output__"
    row = {
        "model": args.model.name,
        "machine": machine_info(),
        "load_avg_1m": round(os.getloadavg()[0], 1),
        "tunefarm_ms": ours(args.model, feeds, args.repeat),
        "ort_ms": onnxruntime(args.model, feeds, args.repeat),
    }
    for side in ("tunefarm_ms", "ort_ms"):
        total = sum(row[side].values())
        print(f"{side}: total {total:.1f}")
        for k, ms in sorted(row[side].items(), key=lambda kv: -kv[1]):
            print(f"  {k:24s} {ms:9.2f}  {100 * ms / total:5.1f}%")
    if args.json:
        args.json.write_text(json.dumps(row, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
