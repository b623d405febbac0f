"""Everything GPU-side checked and timed in one call, for one short lease of a GPU machine.

    benchmarks/gpu_check.sh [OUT_DIR]            # on a machine with an NVIDIA GPU
    python benchmarks/gpu_check.py --mode pocl --out OUT_DIR   # here: the test mode

Sections (each one's failure is recorded and the next goes on; a table is printed last and
every section's numbers are written to OUT_DIR/gpu_check.json):

1. `gpu tests`: the `gpu`-marked tests (every template's configs, sketch states, networks
   against ONNX Runtime, two threads, the CUDA graph on and off);
2. `build speed`: median wall and CPU seconds per conv candidate, NVRTC in process against
   nvcc, interleaved (needs no GPU);
3. `network`: the model compiled untuned, timed with the CUDA graph and without it, its
   slowest kernels, against PyTorch eager and the same model captured in a CUDA graph;
4. `precision`: the model untuned at tf32 and fp16 (error against ONNX Runtime fp32 next to
   its tolerance and to PyTorch's own error at that precision; latency against PyTorch at
   the same precision), and dense on tensor cores (tf32, fp16) against PyTorch;
5. `convs`: three ResNet-50 convs tuned (`--conv-trials` each) against cuDNN fp32;
6. `trials`: a tune of the model's tasks, trials over wall time, and the measurement alone
   of prebuilt candidates with the persistent measurer on and off;
7. `tuned`: the model tuned (`--trials`) against PyTorch's CUDA graph: last, as the longest
   (on a lent H100 the first run's 96-trial tune did not finish in its 170 s).

`--mode cuda` (default where libcuda finds a device) runs on `cuda -arch=sm_90` with
resnet-50; `--mode pocl` runs the same sections on `opencl` (pocl on the CPU) at tiny sizes:
the PyTorch parts are skipped with the reason, and the whole script is a test
(`tests/unit/test_gpu_check.py`). Sized to finish inside 8 minutes on an H100.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(ROOT / "shared"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "integration"))

from tunefarm.backends import registry  # noqa: E402
from tunefarm.measure import Config, MeasureInput  # noqa: E402
from tunefarm.task import Task  # noqa: E402

GPU_TESTS = [
    "tests/unit/test_gpu_kernels.py",
    "tests/unit/test_gpu_sketch.py",
    "tests/unit/test_gpu_network.py",
    "tests/unit/test_tensorcore.py",
]
CHECK_CONVS = [(64, 56, 56, 64, 3, 1, 1), (256, 14, 14, 256, 3, 1, 1), (1024, 14, 14, 256, 1, 1, 0)]
TINY_CONV = (8, 10, 10, 8, 3, 1, 1)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def cuda_device() -> bool:
    try:
        from tunefarm.backends import get_backend

        get_backend("cuda").device_info()  # type: ignore[attr-defined]
        return True
    except Exception:
        return False


def conv_task(layer: tuple[int, ...], target: str) -> Task:
    c, h, w, o, k, s, p = layer
    return Task.make(
        "conv2d", target=target, data=(1, c, h, w), weight=(o, c, k, k),
        strides=(s, s), padding=(p, p, p, p),
    )  # fmt: skip


# ----------------------------------------------------------------------------- sections


def gpu_tests(args: argparse.Namespace) -> dict:
    if args.mode != "cuda":
        return {"skipped": "no CUDA device (the gpu-marked tests need one)"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-m", "gpu", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    proc = subprocess.run([*cmd, *GPU_TESTS], cwd=ROOT, capture_output=True, text=True)
    tail = proc.stdout.strip().splitlines()[-1:] or [""]
    return {"rc": proc.returncode, "summary": tail[0], "seconds": time.perf_counter() - start,
            "failures": proc.stdout[-3000:] if proc.returncode else ""}  # fmt: skip


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def build_speed(args: argparse.Namespace) -> dict:
    """NVRTC (the toolchain's options, and without its light options: `nvrtc.LIGHT_OPTIONS`)
    and nvcc on the same conv candidates, one after the other per candidate; CPU time is
    this process's (NVRTC) or the children's (nvcc). The process's first NVRTC call (a
    trivial kernel: what a build worker pays once) is reported apart."""
    from tunefarm.backends import parse_target
    from tunefarm.backends.cuda import nvrtc
    from tunefarm.backends.cuda.target import nvcc_toolchain, toolchain

    task = conv_task(CHECK_CONVS[0], "cuda -arch=sm_90")
    space = registry.config_space(task)
    import random

    rng = random.Random(0)
    configs = [registry.default_config(task)]
    picks = [rng.randrange(len(space)) for _ in range(args.builds - 1)]
    configs += [Config.make(dict(space.get(i)), index=i) for i in picks]
    codes = []
    for c in configs:
        try:
            codes.append(registry.generate_source(MeasureInput(task, c)).code)
        except Exception:  # over a device limit: not a candidate
            continue
    target = parse_target("cuda -arch=sm_90")
    tc, flags = nvcc_toolchain(target), toolchain(target).flags
    plain = tuple(f for f in flags if f not in nvrtc.LIGHT_OPTIONS)
    t = time.process_time()
    nvrtc.compile_cubin('extern "C" __global__ void k(float* x) { x[0] = 1.0f; }', flags)
    first = time.process_time() - t
    rows: dict[str, list[float]] = {"nvrtc_wall": [], "nvrtc_cpu": [], "nvrtc_plain_cpu": [],
                                    "nvcc_wall": [], "nvcc_cpu": []}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="tunefarm-bs-") as tmp:
        for i, code in enumerate(codes):
            code = f"{code}\n// candidate {i} {time.time()}\n"  # no cache anywhere
            t, c = time.perf_counter(), time.process_time()
            nvrtc.compile_cubin(code, flags)
            rows["nvrtc_wall"].append(time.perf_counter() - t)
            rows["nvrtc_cpu"].append(time.process_time() - c)
            c = time.process_time()
            nvrtc.compile_cubin(code, plain)
            rows["nvrtc_plain_cpu"].append(time.process_time() - c)
            src = Path(tmp) / f"k{i}.cu"
            src.write_text(code)
            t, c = time.perf_counter(), _cpu_children()
            subprocess.run(tc.command(str(src), str(Path(tmp) / f"k{i}.fatbin")), check=True)
            rows["nvcc_wall"].append(time.perf_counter() - t)
            rows["nvcc_cpu"].append(_cpu_children() - c)
    out = {f"median_{k}_s": statistics.median(v) for k, v in rows.items()}
    return {**out, "first_nvrtc_cpu_s": first, "candidates": len(codes),
            "nvrtc": nvrtc.version(), "nvrtc_flags": list(flags)}  # fmt: skip


def _tune(
    model: str, target: str, trials: int, workdir: Path, extra: list[str], strict: bool = True
) -> dict:
    from tunefarm.cli.main import main as tunefarm_main

    argv = ["tune", model, "--target", target, "--trials", str(trials), "--json"]
    argv += ["--log", str(workdir / f"tune{time.time_ns()}.jsonl"), *extra]
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out):
        rc = tunefarm_main(argv)
    if rc != 0 and (strict or not out.getvalue().strip()):  # not strict: over its tolerance
        raise RuntimeError(f"tunefarm tune exited with {rc}")
    return {**json.loads(out.getvalue()), "seconds": time.perf_counter() - start}


def trials_per_second(args: argparse.Namespace, workdir: Path) -> dict:
    """Trials per second of a tune of the model (build, measure, search: everything), and
    the measurement alone of the same prebuilt candidates with the persistent measurer and
    with a process per candidate, interleaved (on, off, on, off)."""
    from tunefarm.measure import LocalRunner, MeasureSettings

    os.environ["TUNEFARM_CACHE"] = str(workdir / "tune-cache")  # cold: every trial builds
    try:
        rep = _tune(args.model, args.target, args.rate_trials, workdir, args.tune_args)
    finally:
        os.environ.pop("TUNEFARM_CACHE", None)
    out: dict[str, float] = {"tune_trials": args.rate_trials,
                             "tune_trials_per_s": args.rate_trials / rep["seconds"]}  # fmt: skip
    task = conv_task(CHECK_CONVS[0] if args.mode == "cuda" else TINY_CONV, args.target)
    space = registry.config_space(task)
    import random

    rng = random.Random(1)
    picks = [rng.randrange(len(space)) for _ in range(args.rate_trials)]
    inps = [MeasureInput(task, Config.make(dict(space.get(i)), index=i)) for i in picks]
    with registry.local_builder() as builder:
        builds = builder.build(inps)
    kind = "cuda" if args.mode == "cuda" else "opencl"
    loader = registry.get_backend(kind).kernel_loader  # type: ignore[attr-defined]
    settings = MeasureSettings(min_repeat_ms=args.min_repeat_ms, repeat=3, timeout_s=60.0)
    rates: dict[bool, list[float]] = {True: [], False: []}
    for persistent in (True, False, True, False):
        with LocalRunner(settings, registry.reference_io, loader, 0, persistent) as runner:
            start = time.perf_counter()
            runner.run(inps, builds)
            rates[persistent].append(len(inps) / (time.perf_counter() - start))
    out["measure_persistent_per_s"] = max(rates[True])
    out["measure_process_per_candidate_per_s"] = max(rates[False])
    out["measure_speedup"] = max(rates[True]) / max(rates[False])
    out["candidates_built"] = sum(b.ok for b in builds)
    return out


def _latency_ms(artifact: str, min_repeat_ms: float, graphs: str) -> float:
    from tunefarm.runtime.executor import GraphExecutor

    os.environ["TUNEFARM_CUDA_GRAPHS"] = graphs
    try:
        ex = GraphExecutor.load(artifact)
        try:
            return ex.benchmark(repeat=5, min_repeat_ms=min_repeat_ms).median
        finally:
            ex.close()
    finally:
        os.environ.pop("TUNEFARM_CUDA_GRAPHS", None)


def _torch_network(model: str, prec: str = "fp32") -> dict:
    """PyTorch eager and CUDA-graph replay of the same architecture at the same precision
    (fp32: TF32 off; tf32: TF32 on for matmuls and cuDNN convs; fp16: the model and input
    in half precision)."""
    try:
        import torch
        import torchvision
    except ImportError as exc:
        return {"skipped": f"PyTorch/torchvision not installed ({exc})"}
    if not torch.cuda.is_available():
        return {"skipped": "no CUDA device for PyTorch"}
    names = {"zoo:resnet-50": "resnet50", "zoo:resnet-18": "resnet18"}
    if model not in names:
        return {"skipped": f"no torchvision model for {model}"}
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    net = getattr(torchvision.models, names[model])().cuda().eval()
    x = torch.randn(1, 3, 224, 224, device="cuda")
    with torch.no_grad():
        want = net(x).float()  # PyTorch's own fp32: its error at this precision, beside ours
    torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
    torch.backends.cudnn.allow_tf32 = prec == "tf32"
    if prec == "fp16":
        net, x = net.half(), x.half()
    with torch.no_grad():
        got = net(x).float()
    error = float((got - want).abs().max() / want.abs().max())

    def timed(fn: Callable[[], object]) -> float:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
        samples = []
        for _ in range(5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
            start.record()
            for _ in range(50):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / 50)
        return statistics.median(samples)

    with torch.no_grad():
        eager = timed(lambda: net(x))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                net(x)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            net(x)
        replay = timed(graph.replay)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return {
        "eager_ms": eager,
        "cuda_graph_ms": replay,
        "torch": torch.__version__,
        "precision": prec,
        "relative_error_vs_fp32": error,
    }


def _slowest(artifact: str, top: int = 5) -> list[list]:
    """The `top` slowest kernel calls of a network (device events per call): where the
    untuned network's time goes."""
    from tunefarm.runtime.executor import GraphExecutor

    ex = GraphExecutor.load(artifact)
    try:
        calls = sorted(ex.profile(repeat=5), key=lambda p: -p.ms)[:top]
    finally:
        ex.close()
    return [[p.node, p.kernel, round(p.ms, 4)] for p in calls]


def network(args: argparse.Namespace, workdir: Path) -> dict:
    """The model untuned: with and without the CUDA graph, its slowest calls, PyTorch."""
    untuned = _tune(args.model, args.target, 0, workdir, [])
    path = untuned["artifact"]["path"]
    out: dict[str, object] = {
        "untuned_ms": _latency_ms(path, args.min_repeat_ms, "1"),
        "untuned_no_graph_ms": _latency_ms(path, args.min_repeat_ms, "0"),
        "relative_error": untuned.get("relative_error"),
        "slowest": _slowest(path),
    }
    out["torch"] = torch_side = _torch_network(args.model)
    if "cuda_graph_ms" in torch_side:
        out["untuned_over_torch_graph"] = out["untuned_ms"] / torch_side["cuda_graph_ms"]  # type: ignore[operator]
    return out


def tuned(args: argparse.Namespace, workdir: Path) -> dict:
    """The model tuned with `--trials` trials, against PyTorch's eager and CUDA graph."""
    rep = _tune(args.model, args.target, args.trials, workdir, args.tune_args)
    out: dict[str, object] = {
        "tuned_ms": _latency_ms(rep["artifact"]["path"], args.min_repeat_ms, "1"),
        "tuning_seconds": rep["seconds"],
        "trials": args.trials,
        "trials_per_s": args.trials / rep["seconds"],
        "relative_error": rep.get("relative_error"),
    }
    out["torch"] = torch_side = _torch_network(args.model)
    if "cuda_graph_ms" in torch_side:
        out["tuned_over_torch_graph"] = out["tuned_ms"] / torch_side["cuda_graph_ms"]  # type: ignore[operator]
        out["tuned_over_torch_eager"] = out["tuned_ms"] / torch_side["eager_ms"]  # type: ignore[operator]
    return out


def convs(args: argparse.Namespace) -> dict:
    from tunefarm.measure import MeasureSettings
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    layers = CHECK_CONVS if args.mode == "cuda" else [TINY_CONV]
    settings = MeasureSettings(min_repeat_ms=args.min_repeat_ms, repeat=3, timeout_s=30.0)
    rows = []
    for layer in layers:
        task = conv_task(layer, args.target)
        tuner = make_tuner("sketch", task, seed=0)
        kind = "cuda" if args.mode == "cuda" else "opencl"
        option = MeasureOption.local(settings, kind=kind)
        tuner.tune(args.conv_trials, option, batch_size=min(16, args.conv_trials))
        best = min((c for _, c in tuner.history if c == c and c < float("inf")), default=None)
        row: dict[str, object] = {"layer": list(layer), "tunefarm_ms": best and best * 1e3}
        if args.mode == "cuda":
            from gpu import cudnn_seconds

            row["cudnn_ms"] = cudnn_seconds(layer) * 1e3
            if best:
                row["cudnn_over_tunefarm"] = row["cudnn_ms"] / row["tunefarm_ms"]  # type: ignore[operator]
        rows.append(row)
    out: dict[str, object] = {"layers": rows}
    if args.mode != "cuda":
        out["cudnn"] = "skipped: no CUDA device for PyTorch"
    return out


def precision(args: argparse.Namespace, workdir: Path) -> dict:
    """The model untuned at tf32 and fp16 (convs and dense on tensor cores, fp16 weights at
    fp16): its error against ONNX Runtime fp32 next to the precision's stated tolerance, and
    its latency against PyTorch eager and CUDA-graph replay at the same precision; then
    dense on tensor cores tuned briefly against torch.nn.functional.linear."""
    if args.mode != "cuda":
        return {"skipped": "no CUDA device (tensor cores are checked on a GPU only)"}
    import torch

    from tunefarm.backends.cuda import tensorcore
    from tunefarm.measure import MeasureSettings
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    out: dict[str, object] = {}
    for prec in ("tf32", "fp16"):
        built = _tune(args.model, f"{args.target} -precision={prec}", 0, workdir, [], strict=False)
        row: dict[str, object] = {
            "untuned_ms": _latency_ms(built["artifact"]["path"], args.min_repeat_ms, "1"),
            "relative_error": built.get("relative_error"),
            "tolerance": tensorcore.network_tolerance(prec),
        }
        err = row["relative_error"]
        row["within_tolerance"] = isinstance(err, float) and err < row["tolerance"]  # type: ignore[operator]
        side = _torch_network(args.model, prec)
        row["torch"] = side
        if "cuda_graph_ms" in side:
            row["over_torch_graph"] = row["untuned_ms"] / side["cuda_graph_ms"]  # type: ignore[operator]
        out[f"model_{prec}"] = row
    n, k, o = 128, 2048, 1000
    for prec in ("tf32", "fp16"):
        task = Task.make("dense", target=f"cuda -arch=sm_90 -precision={prec}", data=(n, k),
                         weight=(o, k))  # fmt: skip
        tol = tensorcore.tolerance(prec)
        settings = MeasureSettings(min_repeat_ms=args.min_repeat_ms, repeat=3, timeout_s=30.0,
                                   rtol=tol, atol_rel=tol)  # fmt: skip
        tuner = make_tuner("xgb", task, seed=0)
        tuner.tune(args.conv_trials, MeasureOption.local(settings, kind="cuda"), batch_size=16)
        best = min((c for _, c in tuner.history if c < float("inf")), default=None)
        torch.backends.cuda.matmul.allow_tf32 = prec == "tf32"
        dtype = torch.float16 if prec == "fp16" else torch.float32
        x = torch.randn(n, k, device="cuda", dtype=dtype)
        w = torch.randn(o, k, device="cuda", dtype=dtype)
        for _ in range(10):
            torch.nn.functional.linear(x, w)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
        start.record()
        for _ in range(200):
            torch.nn.functional.linear(x, w)
        end.record()
        end.synchronize()
        out[f"dense_{prec}"] = {"tunefarm_ms": best and best * 1e3,
                                "torch_ms": start.elapsed_time(end) / 200}  # fmt: skip
    return out


# ----------------------------------------------------------------------------- driver


def run_section(name: str, fn: Callable[[], dict], results: dict) -> None:
    log(f"== {name}")
    start = time.perf_counter()
    try:
        results[name] = fn()
    except Exception as exc:
        results[name] = {"error": f"{type(exc).__name__}: {exc}",
                         "traceback": traceback.format_exc(limit=5)}  # fmt: skip
    results[name]["section_seconds"] = time.perf_counter() - start


def table(results: dict) -> str:
    """One line per section: its figures, its error or why it was skipped."""
    lines = [f"{'section':14}{'seconds':>9}  result"]
    for name, res in results.items():
        if not isinstance(res, dict) or "section_seconds" not in res:
            continue
        shown = {k: v for k, v in res.items() if k not in ("section_seconds", "traceback",
                                                           "failures")}  # fmt: skip
        text = ", ".join(
            f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in shown.items()
        )
        lines.append(f"{name:14}{res['section_seconds']:9.1f}  {text[:400]}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["auto", "cuda", "pocl"], default="auto")
    p.add_argument("--out", default="gpu-check-out", help="folder for gpu_check.json")
    p.add_argument(
        "--sections", default="gpu_tests,build_speed,network,precision,convs,trials,tuned"
    )
    p.add_argument("--model", default="", help="default: zoo:resnet-50 (cuda), tiny (pocl)")
    p.add_argument("--trials", type=int, default=0, help="network tune (200 cuda, 6 pocl)")
    p.add_argument("--rate-trials", type=int, default=0, help="trials/s tune (160 / 6)")
    p.add_argument("--conv-trials", type=int, default=0, help="per conv (32 / 4)")
    p.add_argument("--builds", type=int, default=0, help="build-speed candidates (12 / 3)")
    p.add_argument("tune_args", nargs="*", help="more `tunefarm tune` options after --")
    args = p.parse_args(argv)
    if args.mode == "auto":
        args.mode = "cuda" if cuda_device() else "pocl"
    big = args.mode == "cuda"
    args.target = "cuda -arch=sm_90" if big else "opencl"
    args.min_repeat_ms = 20.0 if big else 0.0
    args.trials = args.trials or (200 if big else 6)
    args.rate_trials = args.rate_trials or (160 if big else 6)
    args.conv_trials = args.conv_trials or (32 if big else 4)
    args.builds = args.builds or (12 if big else 3)
    if not args.tune_args:
        args.tune_args = ["--policy", "sketch", "--min-repeat-ms", str(args.min_repeat_ms)]
        if not big:
            args.tune_args += ["--select-top", "0", "--repeat", "1"]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    if not args.model:
        if args.mode == "cuda":
            args.model = "zoo:resnet-50"
        else:
            from tiny_model import tiny_model_bytes

            args.model = str(out_dir / "tiny.onnx")
            Path(args.model).write_bytes(tiny_model_bytes())
    results: dict = {"mode": args.mode, "target": args.target, "model": args.model,
                     "host": os.uname().nodename, "load": os.getloadavg()}  # fmt: skip
    if args.mode == "cuda":
        from tunefarm.backends import get_backend

        results["device"] = get_backend("cuda").device_info()  # type: ignore[attr-defined]
    sections = {
        "gpu_tests": lambda: gpu_tests(args),
        "build_speed": lambda: build_speed(args),
        "network": lambda: network(args, work),
        "precision": lambda: precision(args, work),
        "convs": lambda: convs(args),
        "trials": lambda: trials_per_second(args, work),
        "tuned": lambda: tuned(args, work),
    }
    chosen = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in sections]
    if unknown:
        raise SystemExit(f"unknown section(s) {unknown}; sections: {', '.join(sections)}")
    with tempfile.TemporaryDirectory(prefix="tunefarm-gpu-check-") as tmp:
        work = Path(tmp)
        for name in chosen:
            run_section(name, sections[name], results)
            (out_dir / "gpu_check.json").write_text(json.dumps(results, indent=1, default=str))
    print(table(results))
    failed = [n for n in chosen if "error" in results[n] or results[n].get("rc")]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
