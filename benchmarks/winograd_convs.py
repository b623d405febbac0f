"""Every 3x3 conv that has a Winograd alternative in the given networks: the direct kernel
against `conv2d_winograd`, both at their default configs (what an untuned compile runs).

The networks are ONNX files (e.g. the full exports in /work/models-full); each is imported
and optimised as `tunefarm compile` does, and its anchor tasks extracted for `cpu -cores=1`.
Each conv task that has a `conv2d_winograd` alternative (`backends/cpu/layout.winograd_pays`)
is built twice, checked against the numpy reference, and both kernels are timed alone by the
calling thread's CPU time, interleaved over `--rounds` rounds of median-of-`--repeat`. The
"untuned" column is what `backends/cpu/layout.winograd_by_default` picks without records; the
measurements here are what that rule rests on.

    python benchmarks/winograd_convs.py --dir /work/models-full \\
        --only resnet50.dynamo,googlenet.dynamo [--rounds 3] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from _timing import median_ms  # noqa: E402
from resnet_convs import task_kernel  # noqa: E402
from tunefarm.backends.cpu import layout  # noqa: E402
from tunefarm.backends.cpu.conv2d import conv_params  # noqa: E402
from tunefarm.frontend.onnx_import import load_onnx  # noqa: E402
from tunefarm.graph.extract import extract_tasks  # noqa: E402
from tunefarm.graph.passes import optimize  # noqa: E402
from tunefarm.task import Task  # noqa: E402

TARGET = "cpu -cores=1"


def winograd_pairs(path: Path) -> list[tuple[Task, Task, int]]:
    """(direct task, its Winograd alternative, calls per run) of the network at `path`."""
    tasks = extract_tasks(optimize(load_onnx(path)), TARGET)
    groups: dict[int, list] = {}
    for t in tasks:
        groups.setdefault(t.group, []).append(t)
    pairs = []
    for alts in groups.values():
        ops = [t.task.op for t in alts]
        if ops == ["conv2d", "conv2d_winograd"]:
            pairs.append((alts[0].task, alts[1].task, alts[0].weight))
    return pairs


def describe(task: Task) -> str:
    p = conv_params(task)
    return f"{p['c']} -> {p['o']}, {p['h']} -> {p['oh']}x{p['ow']}, s{p['strides'][0]}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, required=True, help="folder of ONNX files")
    ap.add_argument("--only", required=True, help="comma-separated model names (file stems)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    seen: dict[Task, tuple[Task, list[str]]] = {}
    for name in args.only.split(","):
        for direct, wino, calls in winograd_pairs(args.dir / f"{name}.onnx"):
            seen.setdefault(direct, (wino, []))[1].append(f"{name.split('.')[0]} x{calls}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| conv (C -> O, input -> output, stride) | used by | direct ms | winograd ms "
        "| winograd / direct | untuned |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="tf-wino-") as tmp:
        for direct, (wino, users) in seen.items():
            kd, _ = task_kernel(direct, Path(tmp))
            kw, _ = task_kernel(wino, Path(tmp))
            d_ms, w_ms = [], []
            for _ in range(args.rounds):
                d_ms.append(median_ms(kd.run, args.repeat, time.thread_time))
                w_ms.append(median_ms(kw.run, args.repeat, time.thread_time))
            kd.close()
            kw.close()
            d, w = statistics.median(d_ms), statistics.median(w_ms)
            pick = "winograd" if layout.winograd_by_default(conv_params(direct)) else "direct"
            print(
                f"| {describe(direct)} | {', '.join(users)} | {d:.2f} | {w:.2f} | "
                f"{w / d:.2f} | {pick} |",
                flush=True,
            )
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
