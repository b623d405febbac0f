"""The main job (`tunefarm tune`, as `make run` runs it) on two commits, side by side.

For a refactor that must not change what users get: each commit tunes and compiles the same
network with the same budget and seed in its own process (its own code on PYTHONPATH, a git
worktree for the base), then both delivered networks and ONNX Runtime are timed in
interleaved rounds in one process, on the same input.

    python3 benchmarks/commits.py --base 0808729 --trials 300
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))


def tune(tree: Path, args: argparse.Namespace, out: Path) -> dict:
    """`tunefarm tune` with `tree`'s code; its JSON summary."""
    log, net = out / "net.jsonl", out / "net.tfa"
    cmd = [sys.executable, "-m", "tunefarm", "tune", args.model, "--trials", str(args.trials)]
    cmd += ["--seed", str(args.seed), "--log", str(log), "-o", str(net), "--json"]
    env = {**os.environ, "PYTHONPATH": str(tree / "shared")}
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"tunefarm tune failed in {tree}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="the commit to compare with (e.g. HEAD~1)")
    ap.add_argument("--model", default="zoo:resnet-18")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds")
    args = ap.parse_args(argv)

    from _report import machine_info
    from tunefarm.frontend.models import load_model
    from tunefarm.recipe import end_to_end

    with tempfile.TemporaryDirectory(prefix="tunefarm-commits-") as tmp:
        base_tree = Path(tmp) / "base"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run([*git, "add", "-q", "--detach", str(base_tree), args.base], check=True)
        try:
            runs = {}
            for label, tree in (("base", base_tree), ("head", ROOT)):
                out = Path(tmp) / f"run-{label}"
                out.mkdir()
                runs[label] = (tune(tree, args, out), out / "net.tfa")
            model, graph = load_model(args.model)
            paths = {label: path for label, (_, path) in runs.items()}
            result = end_to_end(model, graph, paths, "head", rounds=args.rounds)
        finally:
            subprocess.run([*git, "remove", "--force", str(base_tree)], check=False)
    info = machine_info()
    host = f"{info['cpu']}, {info['cores']} cores, onnxruntime {info['onnxruntime']}"
    print(f"# {host}; {args.model}, {args.trials} trials, seed {args.seed}")
    print(f"# base {args.base}, head = the working tree; medians of {args.rounds} rounds")
    ort = result.median("onnxruntime")
    print("| build | tuned ms (median) | min | ORT/tuned | tuning s | rel. error vs ORT |")
    print("|---|---|---|---|---|---|")
    print(f"| ONNX Runtime | {ort:.2f} | {result.min('onnxruntime'):.2f} | 1.00 | | |")
    for label, (doc, _) in runs.items():
        median = result.median(label)
        seconds = (doc.get("scheduler") or {}).get("seconds", float("nan"))
        row = f"| {label} | {median:.2f} | {result.min(label):.2f} | {ort / median:.2f} | "
        print(row + f"{seconds:.0f} | {doc['relative_error']:.1e} |")
    print(f"head/base latency: {result.median('head') / result.median('base'):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
