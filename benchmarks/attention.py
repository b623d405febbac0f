"""tunefarm's fused attention kernel against ONNX Runtime's unfused attention subgraph.

Per shape (bert-base: 12 heads, seq 128, head dim 64, a [B, 1, 1, 128] padding mask;
vit_b_16: 12 heads, seq 197, head dim 64, no mask; each at batch 1 and 8): tunefarm's
`attention` task at a config (its default, or the best of `--sweep N` random configs plus
the default, each checked against numpy by the runner), and an ONNX model of what the
exporters write: MatMul(Q, K^T), Mul by 1/sqrt(d), Add mask, Softmax, MatMul V, run by an
ORT session with its graph optimisations on. Then `--rounds` interleaved rounds, one
repeat of each, so machine load hits both alike. Prints the medians and ORT time /
tunefarm time (> 1: tunefarm faster), the load average, and writes JSON (`--json`).
`--cpu-time` (with `--cores 1`) times both by the calling thread's CPU time instead, the
kernel loaded into this process and called on this thread (a `-cores=1` kernel runs no
OpenMP region; ORT with one intra-op thread runs on the caller): on a loaded host the time
other processes take the core is not counted, so the figures stay near a quiet host's.

    python benchmarks/attention.py --cores 1 --rounds 7 [--sweep 16] [--cpu-time] [--json out.json]

`--models a.onnx,b.onnx` times whole networks instead, each compiled untuned with and
without the attention pass (`optimize(graph, attention=False)`), against ORT, interleaved.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _timing
from tunefarm.backends import registry
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.measure.host import load_host_kernel
from tunefarm.task import Task

FINAL_MIN_REPEAT_MS = 100
SHAPES = {  # name -> (heads, seq, head dim, masked)
    "bert-base": (12, 128, 64, True),
    "vit_b_16": (12, 197, 64, False),
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def attention_task(name: str, batch: int, target: str) -> Task:
    h, s, d, masked = SHAPES[name]
    mask = {"mask": (batch, 1, 1, s)} if masked else {}
    return Task.make(
        "attention", target=target, q=(batch, h, s, d), k=(batch, h, d, s),
        v=(batch, h, s, d), **mask, scale=1.0 / math.sqrt(d), k_layout="BHDS",
    )  # fmt: skip


def ort_model(task: Task, inputs: dict[str, np.ndarray]) -> bytes:
    """MatMul, Mul (scale), Add (mask), Softmax, MatMul: the legacy exporter's spelling."""
    from onnx import TensorProto, helper, numpy_helper

    scale = numpy_helper.from_array(np.array(task.args["scale"], np.float32), "scale")
    nodes = [
        helper.make_node("MatMul", ["q", "k"], ["s"]),
        helper.make_node("Mul", ["s", "scale"], ["t"]),
    ]
    logits = "t"
    if "mask" in inputs:
        nodes.append(helper.make_node("Add", ["t", "mask"], ["u"]))
        logits = "u"
    nodes += [
        helper.make_node("Softmax", [logits], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "attention",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape))
         for k, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [scale],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model.SerializeToString()


def feeds(task: Task) -> dict[str, np.ndarray]:
    """Random q, kt, v; the mask of a padded batch (0, or -10000 on the last quarter)."""
    xs = registry.random_inputs(task, 0)
    if "mask" in xs:
        m = np.zeros(xs["mask"].shape, np.float32)
        m[..., 3 * m.shape[-1] // 4 :] = -10000.0
        xs["mask"] = m
    return xs


def pick_config(task: Task, sweep: int, builder, runner, cpu_time=None) -> tuple[Config, dict]:
    """The default config, or the fastest of it and `sweep` random ones (each timed by
    the runner, or in-process by `cpu_time(build)`, which gives seconds or None)."""
    space = registry.config_space(task)
    configs = [registry.default_config(task)]
    rng = np.random.default_rng(0)
    for i in rng.permutation(len(space))[:sweep]:
        cfg = Config.make(space.get(int(i)))
        if cfg not in configs:
            configs.append(cfg)
    inputs = [MeasureInput(task, c) for c in configs]
    builds = builder.build(inputs)
    if cpu_time is not None:
        costs = [cpu_time(b) if b.artifact else None for b in builds]
    else:
        costs = [r.costs[0] if r.ok else None for r in runner.run(inputs, builds)]
    timed = [(t, c) for t, c in zip(costs, configs, strict=True) if t is not None]
    best = min(timed, key=lambda x: x[0])[1] if timed else configs[0]
    return best, {"configs_tried": len(configs), "ok": len(timed)}


def cpu_seconds(fn, min_ms: float = FINAL_MIN_REPEAT_MS) -> float:
    """Thread CPU seconds per call of `fn`: the call count doubles until a batch of calls
    takes `min_ms` of this thread's CPU time."""
    number = 1
    while True:
        start = time.thread_time()
        for _ in range(number):
            fn()
        spent = time.thread_time() - start
        if spent * 1e3 >= min_ms:
            return spent / number
        number *= 2


def in_process(build, xs: dict[str, np.ndarray], want: np.ndarray):
    """The built kernel loaded here (a `HostKernel`), its output checked against `want`."""
    specs = build.arg_specs
    args = [xs[s.name] for s in specs[:-1]] + [np.zeros(specs[-1].shape, np.float32)]
    kernel = load_host_kernel(build.artifact, args)
    if kernel.run() != 0:
        raise SystemExit("attention kernel failed in-process")
    got = kernel.outputs()[-1]
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    if err > 1e-4:
        raise SystemExit(f"attention kernel in-process: max rel. error {err:.1e}")
    return kernel


def bench(name: str, batch: int, args: argparse.Namespace, builder, runner) -> dict[str, Any]:
    task = attention_task(name, batch, f"cpu -cores={args.cores}")
    xs = feeds(task)
    want = registry.template(task).reference(task, xs)

    def cpu_time(build) -> float:
        kernel = in_process(build, xs, want)
        try:
            return cpu_seconds(kernel.run, FINAL_MIN_REPEAT_MS / 4)
        finally:
            kernel.close()

    config, info = pick_config(
        task, args.sweep, builder, runner, cpu_time if args.cpu_time else None
    )
    inp = MeasureInput(task, config)
    build = builder.build([inp])[0]
    sess = _timing.ort_session(ort_model(task, xs), args.cores)
    got = sess.run(None, xs)[0]
    ort_err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    costs: dict[str, list[float]] = {"tunefarm": [], "ort": []}
    kernel = in_process(build, xs, want).run if args.cpu_time else None
    for r in range(args.rounds):
        if kernel is not None:
            costs["tunefarm"].append(cpu_seconds(kernel))
            costs["ort"].append(cpu_seconds(lambda: sess.run(None, xs)))
        else:
            res = runner.run([inp], [build])[0]
            if not res.ok:
                raise SystemExit(f"{task}: {res.error_no.name}: {res.error_msg[:300]}")
            costs["tunefarm"].append(res.costs[0])
            costs["ort"].append(_timing.time_once(lambda: sess.run(None, xs), FINAL_MIN_REPEAT_MS))
        log(f"[{name} b{batch}] round {r + 1}: tunefarm {costs['tunefarm'][-1] * 1e3:.3f} ms, "
            f"ORT {costs['ort'][-1] * 1e3:.3f} ms")  # fmt: skip
    med = {k: statistics.median(v) for k, v in costs.items()}
    flops = registry.flops(task)
    return {
        "name": name, "batch": batch, "task": str(task), "config": config.as_dict(), **info,
        "median_s": med, "gflops": {k: flops / v / 1e9 for k, v in med.items()},
        "tunefarm_over_ort": med["tunefarm"] / med["ort"], "ort_max_rel_err": ort_err,
        "clock": "thread CPU time" if args.cpu_time else "wall",
    }  # fmt: skip


def bench_model(path: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """One ONNX model compiled untuned with and without the attention pass, against ORT."""
    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.models import load_model
    from tunefarm.frontend.onnx_import import load_onnx
    from tunefarm.graph.ir import random_inputs
    from tunefarm.graph.passes import optimize
    from tunefarm.recipe import onnxruntime_outputs, relative_error
    from tunefarm.runtime.executor import GraphExecutor

    name = Path(path).stem
    model, _ = load_model(path)  # its graph is optimised already: import it again, raw
    graph = load_onnx(model, name=name)
    feeds_ = random_inputs(graph)
    want = onnxruntime_outputs(model, feeds_)
    runs, errs = {}, {}
    for who, fused in (("before", False), ("after", True)):
        g = optimize(graph, attention=fused)
        compile_graph(g, f"cpu -cores={args.cores}", optimized=True).save(tmp / f"{who}.tfa")
        runs[who] = GraphExecutor.load(tmp / f"{who}.tfa")
        errs[who] = relative_error(runs[who].run(feeds_), want)
    sess = _timing.ort_session(model.SerializeToString(), args.cores)
    costs: dict[str, list[float]] = {"before": [], "after": [], "ort": []}
    for r in range(args.rounds):
        for who, ex in runs.items():
            costs[who].append(ex.benchmark(repeat=1, min_repeat_ms=200).costs[0])
        costs["ort"].append(_timing.time_once(lambda: sess.run(None, feeds_), 200))
        log(f"[{name}] round {r + 1}: " + ", ".join(f"{k} {v[-1] * 1e3:.1f} ms"
                                                   for k, v in costs.items()))  # fmt: skip
    med = {k: statistics.median(v) for k, v in costs.items()}
    return {"name": name, "median_s": med, "rel_err": errs,
            "before_over_ort": med["before"] / med["ort"],
            "after_over_ort": med["after"] / med["ort"]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, default=1, help="tunefarm cores = ORT threads")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--sweep", type=int, default=0, help="random configs tried beside the default")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--models", default="", help="comma-separated ONNX files: whole networks")
    ap.add_argument("--json", default="", help="write the results here")
    ap.add_argument("--cpu-time", action="store_true", help="time by thread CPU time (--cores 1)")
    args = ap.parse_args(argv)
    if args.cpu_time and (args.cores != 1 or args.models):
        ap.error("--cpu-time needs --cores 1 and times kernels, not --models")
    load_before = os.getloadavg()
    if args.models:
        with tempfile.TemporaryDirectory() as tmp:
            rows = [bench_model(p, args, Path(tmp)) for p in args.models.split(",") if p]
    else:
        settings = MeasureSettings(repeat=1, min_repeat_ms=FINAL_MIN_REPEAT_MS, timeout_s=60)
        with registry.local_builder() as builder, registry.local_runner(settings) as runner:
            rows = [
                bench(name, int(b), args, builder, runner)
                for name in args.shapes.split(",")
                for b in args.batches.split(",")
            ]
    load_after = os.getloadavg()
    if args.models:
        print("| model | untuned before ms | untuned after ms | ORT ms | before/ORT | after/ORT |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            m = r["median_s"]
            print(f"| {r['name']} | {m['before'] * 1e3:.1f} | {m['after'] * 1e3:.1f} | "
                  f"{m['ort'] * 1e3:.1f} | {r['before_over_ort']:.2f} | "
                  f"{r['after_over_ort']:.2f} |")  # fmt: skip
    else:
        print("| shape | batch | config | tunefarm ms | ORT ms | tunefarm/ORT | GFLOP/s tf / ORT |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            m, g = r["median_s"], r["gflops"]
            cfg = " ".join(f"{k}={v}" for k, v in r["config"].items())
            print(f"| {r['name']} | {r['batch']} | {cfg} | {m['tunefarm'] * 1e3:.3f} | "
                  f"{m['ort'] * 1e3:.3f} | {r['tunefarm_over_ort']:.2f} | "
                  f"{g['tunefarm']:.1f} / {g['ort']:.1f} |")  # fmt: skip
    cpus = os.cpu_count()
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({cpus} cpus)")
    if args.json:
        doc = {"rows": rows, "load_before": load_before, "load_after": load_after, "cpus": cpus}
        Path(args.json).write_text(json.dumps(doc, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
