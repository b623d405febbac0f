"""GPU benchmark: the ResNet-50 convolutions tuned by tunefarm against PyTorch's cuDNN conv.

On a machine with an NVIDIA GPU, nvcc and PyTorch (the `device` tool's H100/H200 machines
have them), in one run:

1. every distinct conv2d of ResNet-50 (batch 1, 224 x 224) is tuned with each tuner of
   `--tuners` for `--trials` trials on the `cuda` target (nvcc builds, the libcuda runner
   measures with events, min_repeat_ms 300 and an L2 flush, checked against numpy): by
   default `xgb` (the template policy: the conv2d template's knobs) and `sketch` (the sketch
   policy: the GPU sketch rules' states, evolutionary search with the cost model);
2. the same layer runs through `torch.nn.functional.conv2d` with cuDNN (benchmark mode on,
   TF32 off so both compute in fp32), timed with CUDA events over at least 300 ms;
3. a table per layer: tuned ms per tuner, cuDNN ms, the ratio cuDNN / tunefarm (above 1:
   tunefarm faster), and the geometric mean of the ratios (the goal: at least 1.0).

    python benchmarks/gpu.py [--trials 256] [--tuners xgb,sketch] [--layers 0,3]
        [--arch sm_90] [--json out.json]

The whole-network comparison (tuned resnet-50 against PyTorch eager and torch.compile) needs
the GPU graph runtime, which tunefarm does not have yet; this script says so in its report.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from tunefarm.backends import registry
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption

# (C, H, W, O, K, stride, pad): the distinct convs of torchvision's resnet50 at 224 x 224
RESNET50_CONVS = [
    (3, 224, 224, 64, 7, 2, 3),
    (64, 56, 56, 64, 1, 1, 0),
    (64, 56, 56, 64, 3, 1, 1),
    (64, 56, 56, 256, 1, 1, 0),
    (256, 56, 56, 64, 1, 1, 0),
    (256, 56, 56, 128, 1, 1, 0),
    (128, 56, 56, 128, 3, 2, 1),
    (128, 28, 28, 512, 1, 1, 0),
    (256, 56, 56, 512, 1, 2, 0),
    (512, 28, 28, 128, 1, 1, 0),
    (128, 28, 28, 128, 3, 1, 1),
    (512, 28, 28, 256, 1, 1, 0),
    (256, 28, 28, 256, 3, 2, 1),
    (256, 14, 14, 1024, 1, 1, 0),
    (512, 28, 28, 1024, 1, 2, 0),
    (1024, 14, 14, 256, 1, 1, 0),
    (256, 14, 14, 256, 3, 1, 1),
    (1024, 14, 14, 512, 1, 1, 0),
    (512, 14, 14, 512, 3, 2, 1),
    (512, 7, 7, 2048, 1, 1, 0),
    (1024, 14, 14, 2048, 1, 2, 0),
    (2048, 7, 7, 512, 1, 1, 0),
    (512, 7, 7, 512, 3, 1, 1),
]
MIN_REPEAT_MS = 300.0


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def conv_task(layer: tuple[int, ...], arch: str) -> Task:
    c, h, w, o, k, s, p = layer
    return Task.make(
        "conv2d", target=f"cuda -arch={arch}", data=(1, c, h, w), weight=(o, c, k, k),
        strides=(s, s), padding=(p, p, p, p),
    )  # fmt: skip


def tune_layer(task: Task, tuner_name: str, trials: int, option: MeasureOption) -> float:
    """Seconds per run of the best config the tuner found (inf if none ran)."""
    tuner = make_tuner(tuner_name, task, seed=0)
    tuner.tune(trials, option, batch_size=16)
    costs = [cost for _, cost in tuner.history if math.isfinite(cost)]
    return min(costs, default=math.inf)


def cudnn_seconds(layer: tuple[int, ...]) -> float:
    """PyTorch's cuDNN conv of the layer, fp32, timed with CUDA events."""
    import torch

    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    c, h, w, o, k, s, p = layer
    x = torch.randn(1, c, h, w, device="cuda")
    wt = torch.randn(o, c, k, k, device="cuda")

    def run() -> None:
        torch.nn.functional.conv2d(x, wt, stride=s, padding=p)

    for _ in range(10):  # warm-up, and cuDNN's algorithm search
        run()
    torch.cuda.synchronize()
    number, start, end = 1, torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
    while True:
        start.record()
        for _ in range(number):
            run()
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end)
        if ms >= MIN_REPEAT_MS:
            return ms * 1e-3 / number
        number = max(number * 2, int(number * MIN_REPEAT_MS / max(ms, 1e-3) * 1.2))


def device_line() -> str:
    """The GPU, its memory and driver (from libcuda, as the agent reports them) and the CUDA
    version PyTorch was built with."""
    import torch

    from tunefarm.backends import get_backend

    info = get_backend("cuda").device_info()  # type: ignore[attr-defined]
    gib = int(info["memory"]) / 2**30
    driver, built = info["driver"], torch.version.cuda
    return f"{info['name']}, {gib:.0f} GiB, driver CUDA {driver}, torch CUDA {built}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=256, help="trials per layer and tuner")
    p.add_argument(
        "--tuners",
        default="xgb,sketch",
        help="comma-separated tuner names (xgb: template policy, sketch: sketch policy)",
    )
    p.add_argument("--layers", default="", help="comma-separated layer indices (default: all)")
    p.add_argument("--arch", default="sm_90", choices=["sm_80", "sm_90"])
    p.add_argument("--json", default="", help="also write the results to this file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tuners = [t for t in args.tuners.split(",") if t]
    picked = [int(i) for i in args.layers.split(",") if i] or range(len(RESNET50_CONVS))
    settings = MeasureSettings(min_repeat_ms=MIN_REPEAT_MS, repeat=3, timeout_s=60.0)
    option = MeasureOption.local(settings, build_timeout_s=120.0, kind="cuda")
    rows = []
    for i in picked:
        layer = RESNET50_CONVS[i]
        task = conv_task(layer, args.arch)
        log(f"[{i}] {task}")
        start = time.perf_counter()
        tuned = {t: tune_layer(task, t, args.trials, option) for t in tuners}
        rows.append(
            {"layer": i, "shape": layer, "flops": registry.flops(task), "tuned_s": tuned,
             "cudnn_s": cudnn_seconds(layer), "tune_wall_s": time.perf_counter() - start}
        )  # fmt: skip
    print(f"device: {device_line()}; {args.trials} trials per layer and tuner")
    print(f"{'layer':>5} {'C,H,W,O,K,s,p':<28}" + "".join(f"{t + ' ms':>12}" for t in tuners)
          + f"{'cuDNN ms':>12}{'ratio':>8}")  # fmt: skip
    ratios = []
    for r in rows:
        best = min(r["tuned_s"].values())
        ratio = r["cudnn_s"] / best if math.isfinite(best) else 0.0
        ratios.append(ratio)
        cells = "".join(f"{r['tuned_s'][t] * 1e3:12.4f}" for t in tuners)
        shape = ",".join(map(str, r["shape"]))
        print(f"{r['layer']:>5} {shape:<28}{cells}{r['cudnn_s'] * 1e3:12.4f}{ratio:8.2f}")
    positive = [x for x in ratios if x > 0]
    geomean = math.exp(sum(map(math.log, positive)) / len(positive)) if positive else 0.0
    print(f"geomean cuDNN / tunefarm: {geomean:.2f} (goal >= 1.0)")
    print("whole resnet-50: not measured (tunefarm has no GPU graph runtime yet)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "geomean": geomean}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
