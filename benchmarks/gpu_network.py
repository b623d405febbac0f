"""GPU benchmark of a whole network: tuned by tunefarm for a GPU target, against PyTorch.

On a machine with an NVIDIA GPU, nvcc and PyTorch (the `device` tool's H100/H200 machines
have them), in one run:

1. `tunefarm tune MODEL --target TARGET --policy POLICY --trials N` (the recipe: tune,
   compile the GPU network, check it against ONNX Runtime), with its tuning time;
2. the delivered artifact timed with device events (`GraphExecutor.benchmark`, 300 ms per
   repeat);
3. the same architecture in PyTorch (torchvision's resnet-50 with random weights, batch 1,
   fp32, cuDNN benchmark mode on, TF32 off), eager and `torch.compile(mode="max-autotune")`,
   timed with CUDA events;
4. a table: latency of each, and tunefarm's speed-up over each (above 1: tunefarm faster).

    python benchmarks/gpu_network.py [--model zoo:resnet-50] [--trials 2000]
        [--policy sketch] [--target "cuda -arch=sm_90"] [--json out.json]

Without a GPU it still runs the tunefarm half on `--target opencl` (pocl; the timings then
say nothing about a GPU) and skips PyTorch, saying why: that is how it is checked here.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from tunefarm.cli.main import main as tunefarm_main
from tunefarm.runtime.executor import GraphExecutor

TORCH_MODELS = {"zoo:resnet-50": "resnet50", "zoo:resnet-18": "resnet18"}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def tune(args: argparse.Namespace, workdir: Path) -> dict:
    """Run the recipe through the CLI; its JSON report plus the wall time it took."""
    argv = ["tune", args.model, "--target", args.target, "--policy", args.policy]
    argv += ["--trials", str(args.trials), "--log", str(workdir / "tune.jsonl"), "--json"]
    argv += args.tune_args
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        rc = tunefarm_main(argv)
    seconds = time.perf_counter() - start
    if rc != 0:
        raise SystemExit(f"tunefarm tune exited with {rc}")
    return {**json.loads(out.getvalue()), "tuning_seconds": seconds}


def tunefarm_ms(artifact: str, min_repeat_ms: float) -> float:
    ex = GraphExecutor.load(artifact)
    return ex.benchmark(repeat=10, min_repeat_ms=min_repeat_ms).median


def torch_ms(model: str) -> dict[str, float | str]:
    """Eager and max-autotune latency (ms) of the model in PyTorch on CUDA, or why not."""
    try:
        import torch
        import torchvision
    except ImportError as exc:
        return {"skipped": f"PyTorch/torchvision not installed ({exc})"}
    if not torch.cuda.is_available():
        return {"skipped": "no CUDA device for PyTorch"}
    if model not in TORCH_MODELS:
        return {"skipped": f"no torchvision model for {model}"}
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    net = getattr(torchvision.models, TORCH_MODELS[model])().cuda().eval()
    x = torch.randn(1, 3, 224, 224, device="cuda")

    def timed(fn) -> float:
        with torch.no_grad():
            for _ in range(10):
                fn(x)
            torch.cuda.synchronize()
            samples = []
            for _ in range(10):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
                number = 0
                start.record()
                t0 = time.perf_counter()
                while number == 0 or time.perf_counter() - t0 < 0.3:
                    fn(x)
                    number += 1
                end.record()
                end.synchronize()
                samples.append(start.elapsed_time(end) / number)
        return statistics.median(samples)

    result: dict[str, float | str] = {"eager": timed(net)}
    compiled = torch.compile(net, mode="max-autotune")
    result["max_autotune"] = timed(compiled)
    result["torch"] = torch.__version__
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="zoo:resnet-50")
    p.add_argument("--target", default="cuda -arch=sm_90")
    p.add_argument("--policy", default="sketch", choices=["template", "sketch", "auto"])
    p.add_argument("--trials", type=int, default=2000, help="total trials over all tasks")
    p.add_argument("--min-repeat-ms", type=float, default=300.0, help="per timed repeat")
    p.add_argument("--json", default="", help="also write the results to this file")
    p.add_argument(
        "tune_args", nargs="*", help="more `tunefarm tune` options, after --, e.g. -- --repeat 1"
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tunefarm-gpu-net-") as tmp:
        log(f"tuning {args.model} on {args.target} ({args.policy}, {args.trials} trials)")
        report = tune(args, Path(tmp))
        ours = tunefarm_ms(report["artifact"]["path"], args.min_repeat_ms)
    theirs = torch_ms(args.model)
    rows = [("tunefarm " + args.policy, ours)]
    rows += [(f"PyTorch {k}", v) for k, v in theirs.items() if isinstance(v, float)]
    print(f"{args.model} batch 1 on {args.target}; {args.trials} trials, tuned in "
          f"{report['tuning_seconds'] / 60:.1f} min; max rel. error vs ONNX Runtime "
          f"{report['relative_error']:.1e}")  # fmt: skip
    print(f"{'':24}{'ms':>10}{'tunefarm speed-up':>20}")
    for name, ms in rows:
        print(f"{name:24}{ms:10.3f}{ms / ours:20.2f}")
    if "skipped" in theirs:
        print(f"PyTorch: {theirs['skipped']}")
    if args.json:
        doc = {
            "model": args.model, "target": args.target, "policy": args.policy,
            "trials": args.trials, "tuning_seconds": report["tuning_seconds"],
            "relative_error": report["relative_error"], "tunefarm_ms": ours, "torch": theirs,
        }  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
