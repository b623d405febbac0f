"""Dense kernels of two checkouts side by side with ONNX Runtime's MatMul + Add, one core.

    python benchmarks/dense_ab.py --tree main=/work/wt/main --tree head=. \
        --shapes 128x768x3072:bias,gelu,197x3072x768:bias,residual --rounds 7 [--json out.json]

Each `--tree LABEL=PATH[@CONFIG_JSON]` builds every shape's dense (`rows x K -> O`, with the
epilogue after the colon) with that checkout's code (a child Python with PATH/shared first
on its path: the template, the emitter and the packing are that checkout's), at the
template's default config or the knobs given, saves the library, its packed arguments and
the numpy reference. This process loads every kernel, checks it (max relative error
<= 1e-4), and times ORT's spelling of the same projection (`ort_dense_model`, one intra-op
thread) and each checkout's kernel in interleaved rounds by the calling thread's CPU time:
the base and the change are measured in the same run, on the same inputs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402
from _report import machine_info  # noqa: E402

TARGET = "cpu -cores=1"
MATCH = 1e-4


def parse_shapes(text: str) -> list[tuple[int, int, int, tuple[str, ...]]]:
    """'NxKxO:epi,epi,NxKxO' -> [(N, K, O, epilogue)]; a token with an x starts a shape."""
    shapes: list[tuple[int, int, int, tuple[str, ...]]] = []
    for token in text.split(","):
        dims, _, epi = token.partition(":")
        if "x" in dims:
            n, k, o = (int(v) for v in dims.split("x"))
            shapes.append((n, k, o, (epi,) if epi else ()))
        elif shapes:
            n, k, o, have = shapes[-1]
            shapes[-1] = (n, k, o, (*have, dims))
        else:
            raise SystemExit(f"--shapes: {token!r} before any NxKxO shape")
    return shapes


def emit(shapes_text: str, config: str, out: Path) -> None:
    """Child mode: build each shape with this interpreter's tunefarm, save what a timer
    needs under `out`, print one JSON line per shape."""
    from tunefarm.backends import registry
    from tunefarm.measure import MeasureInput
    from tunefarm.measure.types import Config
    from tunefarm.task import Task

    knobs = json.loads(config) if config else {}
    with registry.local_builder() as builder:
        for i, (n, k, o, epi) in enumerate(parse_shapes(shapes_text)):
            task = Task.make("dense", TARGET, data=(n, k), weight=(o, k), epilogue=epi)
            cfg = {**registry.default_config(task).as_dict(), **knobs}
            inp = MeasureInput(task, Config.make(cfg))
            build = builder.build([inp])[0]
            if build.artifact is None:
                raise SystemExit(f"{task}: build failed: {build.error_msg}")
            io = registry.reference_io(inp, 0)
            lib = out / f"k{i}.so"
            shutil.copy(build.artifact, lib)
            np.savez(out / f"k{i}.npz", *io.args)
            ((index, want),) = io.expected.items()
            np.save(out / f"k{i}.want.npy", want)
            logical = registry.random_inputs(task, 0)
            np.savez(out / f"k{i}.logical.npz", **logical)
            row = {"lib": str(lib), "out_index": index, "config": _plain(cfg),
                   "flops": registry.flops(task), "task": str(task)}  # fmt: skip
            print(json.dumps(row), flush=True)


def _plain(cfg: dict) -> dict:
    """A config as JSON-ready lists."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()}


def build_tree(label: str, spec: str, shapes: str, tmp: Path) -> list[dict]:
    """Run `emit` with checkout PATH's code; its rows."""
    path, _, config = spec.partition("@")
    out = tmp / label
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(path).resolve() / "shared")}
    cmd = [sys.executable, __file__, "--shapes", shapes, "--emit", shapes,
           "--emit-config", config, "--emit-out", str(out)]  # fmt: skip
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"--tree {label}: {done.stderr.strip().splitlines()[-1:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def load_kernel(row: dict):
    """The saved kernel on its saved arguments, checked against the saved reference."""
    from tunefarm.measure.host import load_host_kernel

    base = row["lib"][: -len(".so")]
    saved = np.load(base + ".npz")
    args = [saved[f"arr_{i}"] for i in range(len(saved.files))]
    kernel = load_host_kernel(row["lib"], args)
    if kernel.run() != 0:
        raise SystemExit(f"{row['task']}: kernel failed")
    want = np.load(base + ".want.npy")
    got = kernel.outputs()[row["out_index"]]
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    if err > MATCH:
        raise SystemExit(f"{row['task']} ({row['lib']}): max rel. error {err:.1e}")
    return kernel, err


def ort_run(row: dict, n: int, k: int, epi: tuple[str, ...]):
    """ORT's MatMul + Add (+ epilogue) on the kernel's logical inputs."""
    from transformers_tuned import ort_dense_model
    from tunefarm.task import Task

    xs = dict(np.load(row["lib"][: -len(".so")] + ".logical.npz"))
    task = Task.make("dense", TARGET, data=(n, k), weight=(xs["weight"].shape[0], k),
                     epilogue=epi)  # fmt: skip
    sess = _timing.ort_session(ort_dense_model(task, xs), 1)
    feeds = {"x": xs["data"], **({"r": xs["residual"]} if "residual" in xs else {})}
    return lambda: sess.run(None, feeds)


def cpu_ms(fn, repeat: int) -> float:
    """Median of `repeat` calls by thread CPU time, one warm call first."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return statistics.median(times) * 1e3


def time_shape(shape, kernels: dict, ort, rounds: int, repeat: int, flops: float) -> dict:
    """ORT and each tree's kernel in interleaved rounds."""
    n, k, o, epi = shape
    ms: dict[str, list[float]] = {"ort": [], **{label: [] for label in kernels}}
    loads = []
    for _ in range(rounds):
        loads.append(round(os.getloadavg()[0], 1))
        ms["ort"].append(cpu_ms(ort, repeat))
        for label, kern in kernels.items():
            ms[label].append(cpu_ms(kern.run, repeat))
    med = {label: statistics.median(v) for label, v in ms.items()}
    return {
        "shape": f"{n}x{k}x{o}",
        "epilogue": list(epi),
        "load_avg_1m": loads,
        "ms": {label: [round(x, 3) for x in v] for label, v in ms.items()},
        "median_ms": {label: round(v, 3) for label, v in med.items()},
        "gflops": {label: round(flops / v / 1e6, 1) for label, v in med.items()},
        "vs_ort": {label: round(v / med["ort"], 3) for label, v in med.items() if label != "ort"},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", required=True, help="NxKxO[:epi,epi],... (rows x K -> O)")
    ap.add_argument("--tree", action="append", default=[], help="LABEL=PATH[@CONFIG_JSON]")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5, help="calls per round (median)")
    ap.add_argument("--json", default="")
    ap.add_argument("--emit", help=argparse.SUPPRESS)
    ap.add_argument("--emit-config", default="", help=argparse.SUPPRESS)
    ap.add_argument("--emit-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.emit:
        emit(args.emit, args.emit_config, Path(args.emit_out))
        return 0
    shapes = parse_shapes(args.shapes)
    trees = dict(t.split("=", 1) for t in (args.tree or ["head=."]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        built = {
            label: build_tree(label, spec, args.shapes, Path(tmp)) for label, spec in trees.items()
        }
        for i, shape in enumerate(shapes):
            kernels, errs = {}, {}
            for label in trees:
                kernels[label], errs[label] = load_kernel(built[label][i])
            first = built[next(iter(trees))][i]
            row = time_shape(shape, kernels, ort_run(first, *shape[:2], shape[3]),
                             args.rounds, args.repeat, first["flops"])  # fmt: skip
            row["rel_err"] = errs
            row["configs"] = {label: built[label][i]["config"] for label in trees}
            for kern in kernels.values():
                kern.close()
            rows.append(row)
            print(f"{row['shape']} {','.join(shape[3])}: "
                  + ", ".join(f"{lb} {v:.2f} ms {row['gflops'][lb]:.0f} GF/s"
                              for lb, v in row["median_ms"].items())
                  + " | /ORT " + ", ".join(f"{lb} {v:.3f}" for lb, v in row["vs_ort"].items()),
                  flush=True)  # fmt: skip
    if args.json:
        doc = {"machine": machine_info(), "trees": trees, "target": TARGET, "rows": rows,
               "command": " ".join(sys.argv)}  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
