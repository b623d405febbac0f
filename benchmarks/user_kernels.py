"""Untuned kernels of users' models against ONNX Runtime: ViT's dense and attention
matmuls, ResNeXt's and RegNet's grouped convs, each tunefarm's default config.

Per layer: build the default config (the runner checks it against numpy), make a one-node
ONNX model of the same op (MatMul with the weight as an initializer, MatMul of two inputs,
Conv with `group`), then `--rounds` interleaved rounds: one repeat of tunefarm, one of ONNX
Runtime, so machine load hits both alike. Optionally (`--baseline`) the kernel the op ran
before (the generic template) joins the rounds. Prints a table of medians and the ratio
ORT time / tunefarm time (> 1: tunefarm faster), and the load average before and after.

    python benchmarks/user_kernels.py --cores 1 --rounds 5 [--layers a,b] [--baseline]
    python benchmarks/user_kernels.py --cores 1 --rounds 5 --models vit.onnx,resnext.onnx

With `--models` (ONNX files, e.g. torchvision exports) it times whole networks instead:
each compiled untuned (`tunefarm compile` without records, target `cpu -cores=N`), its
output checked against ONNX Runtime's, then interleaved rounds of the compiled network's
`benchmark` and an ORT session with N intra-op threads.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _timing
from tunefarm.backends import registry
from tunefarm.measure import MeasureInput, MeasureSettings
from tunefarm.task import Task

FINAL_MIN_REPEAT_MS = 100


@dataclass(frozen=True)
class Layer:
    name: str
    op: str
    params: dict[str, Any]
    baseline: tuple[str, dict[str, Any]] | None = None  # the op and params it ran as before


def _gconv(name: str, c: int, hw: int, groups: int, stride: int = 1) -> Layer:
    params = dict(
        data=(1, c, hw, hw),
        weight=(c, c // groups, 3, 3),
        groups=groups,
        padding=1,
        strides=stride,
    )
    return Layer(name, "conv2d", params, ("group_conv2d", params))


LAYERS: tuple[Layer, ...] = (
    Layer("vit_qkv", "dense", dict(data=(197, 768), weight=(2304, 768))),
    Layer("vit_proj", "dense", dict(data=(197, 768), weight=(768, 768))),
    Layer("vit_fc1", "dense", dict(data=(197, 768), weight=(3072, 768))),
    Layer("vit_fc2", "dense", dict(data=(197, 3072), weight=(768, 3072))),
    Layer("vit_qk", "batch_matmul", dict(a=(12, 197, 64), b=(12, 64, 197))),
    Layer("vit_pv", "batch_matmul", dict(a=(12, 197, 197), b=(12, 197, 64))),
    Layer("vit8_fc1", "dense", dict(data=(1576, 768), weight=(3072, 768))),  # batch 8
    Layer("vit8_qk", "batch_matmul", dict(a=(96, 197, 64), b=(96, 64, 197))),
    _gconv("resnext_s1", 128, 56, 32),
    _gconv("resnext_s2", 256, 28, 32),
    _gconv("resnext_s3", 512, 14, 32),
    _gconv("resnext_s4", 1024, 7, 32),
    _gconv("regnet_s1", 48, 56, 6, 2),
    _gconv("regnet_s3", 208, 14, 26),
)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def ort_model(layer: Layer, inputs: dict[str, np.ndarray]) -> tuple[bytes, dict[str, np.ndarray]]:
    """A one-node ONNX model of the layer and its feeds."""
    from onnx import TensorProto, helper, numpy_helper

    p = layer.params
    inits, feeds = [], {}
    if layer.op == "dense":
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
        inits.append(numpy_helper.from_array(np.ascontiguousarray(inputs["weight"].T), "w"))
        feeds["x"] = inputs["data"]
    elif layer.op == "batch_matmul":
        node = helper.make_node("MatMul", ["x", "b"], ["y"])
        feeds["x"], feeds["b"] = inputs["a"], inputs["b"]
    else:
        node = helper.make_node(
            "Conv",
            ["x", "w"],
            ["y"],
            group=p["groups"],
            pads=[p["padding"]] * 4,
            strides=[p["strides"]] * 2,
        )
        inits.append(numpy_helper.from_array(inputs["weight"], "w"))
        feeds["x"] = inputs["data"]
    graph_inputs = [
        helper.make_tensor_value_info(k, TensorProto.FLOAT, list(v.shape)) for k, v in feeds.items()
    ]
    graph = helper.make_graph(
        [node],
        layer.name,
        graph_inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model.SerializeToString(), feeds


def bench(layer: Layer, args: argparse.Namespace, builder, runner) -> dict[str, Any]:
    target = f"cpu -cores={args.cores}"
    tasks = {"tunefarm": Task.make(layer.op, target=target, **layer.params)}
    if args.baseline and layer.baseline:
        tasks["before"] = Task.make(layer.baseline[0], target=target, **layer.baseline[1])
    built = {}
    for who, task in tasks.items():
        inp = MeasureInput(task, registry.default_config(task))
        build = builder.build([inp])[0]
        built[who] = (inp, build)
    main = tasks["tunefarm"]
    inputs = registry.random_inputs(main, 0)
    expected = registry.template(main).reference(main, inputs)
    model, feeds = ort_model(layer, inputs)
    sess = _timing.ort_session(model, args.cores)
    got = sess.run(None, feeds)[0].reshape(expected.shape)
    ort_err = float(np.abs(got - expected).max() / max(1.0, np.abs(expected).max()))
    costs: dict[str, list[float]] = {who: [] for who in [*tasks, "ort"]}
    errors: dict[str, str] = {}
    for r in range(args.rounds):
        for who, (inp, build) in built.items():
            if who in errors:
                continue
            res = runner.run([inp], [build])[0]
            if res.ok:
                costs[who].append(res.costs[0])
            else:
                errors[who] = f"{res.error_no.name}: {res.error_msg[:200]}"
        costs["ort"].append(_timing.time_once(lambda: sess.run(None, feeds), FINAL_MIN_REPEAT_MS))
        log(
            f"[{layer.name}] round {r + 1}: " + ", ".join(f"{k} {_ms(v)}" for k, v in costs.items())
        )
    med = {k: statistics.median(v) if v else math.nan for k, v in costs.items()}
    flops = registry.flops(main)
    return {
        "name": layer.name,
        "task": str(main),
        "config": registry.default_config(main).as_dict(),
        "gflop": flops / 1e9,
        "median_s": med,
        "gflops": {k: flops / v / 1e9 if v == v else math.nan for k, v in med.items()},
        "ratio_ort": med["ort"] / med["tunefarm"],
        "ort_max_rel_err": ort_err,
        "errors": errors,
    }


def bench_model(path: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """One ONNX model: compile untuned, check against ORT, interleaved rounds."""
    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.models import load_model
    from tunefarm.graph.ir import random_inputs
    from tunefarm.recipe import onnxruntime_outputs, relative_error
    from tunefarm.runtime.executor import GraphExecutor

    name = Path(path).stem
    model, graph = load_model(path)
    start = time.perf_counter()
    compiled = compile_graph(graph, f"cpu -cores={args.cores}", optimized=True)
    compiled.save(tmp / f"{name}.tfa")
    compile_s = time.perf_counter() - start
    ex = GraphExecutor.load(tmp / f"{name}.tfa")
    feeds = random_inputs(graph)
    err = relative_error(ex.run(feeds), onnxruntime_outputs(model, feeds))
    sess = _timing.ort_session(model.SerializeToString(), args.cores)
    costs: dict[str, list[float]] = {"tunefarm": [], "ort": []}
    for r in range(args.rounds):
        costs["tunefarm"].append(ex.benchmark(repeat=1, min_repeat_ms=200).costs[0])
        costs["ort"].append(_timing.time_once(lambda: sess.run(None, feeds), 200))
        log(f"[{name}] round {r + 1}: " + ", ".join(f"{k} {_ms(v)}" for k, v in costs.items()))
    med = {k: statistics.median(v) for k, v in costs.items()}
    return {"name": name, "median_s": med, "ratio_ort": med["ort"] / med["tunefarm"],
            "rel_err": err, "compile_s": compile_s}  # fmt: skip


def _ms(costs: list[float]) -> str:
    return f"{costs[-1] * 1e3:.3f} ms" if costs else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, default=1, help="tunefarm cores = ORT threads")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--layers", default="", help="comma-separated names (default: all)")
    ap.add_argument("--baseline", action="store_true", help="also time the op's old kernel")
    ap.add_argument("--models", default="", help="comma-separated ONNX files: whole networks")
    args = ap.parse_args(argv)
    if args.models:
        return main_models(args)
    wanted = {n for n in args.layers.split(",") if n}
    layers = [la for la in LAYERS if not wanted or la.name in wanted]
    settings = MeasureSettings(repeat=1, min_repeat_ms=FINAL_MIN_REPEAT_MS, timeout_s=60)
    load_before = os.getloadavg()
    rows = []
    with registry.local_builder() as builder, registry.local_runner(settings) as runner:
        for layer in layers:
            rows.append(bench(layer, args, builder, runner))
    load_after = os.getloadavg()
    head = "| layer | task | tunefarm ms | ORT ms | ORT/tunefarm | GFLOP/s tf / ORT |"
    print(head + " before ms |" * args.baseline)
    print(f"|---|---|---|---|---|---|{'---|' * args.baseline}")
    for r in rows:
        m, g = r["median_s"], r["gflops"]
        extra = f" {m.get('before', math.nan) * 1e3:.2f} |" if args.baseline else ""
        print(
            f"| {r['name']} | {r['task']} | {m['tunefarm'] * 1e3:.3f} | {m['ort'] * 1e3:.3f} | "
            f"{r['ratio_ort']:.2f} | {g['tunefarm']:.1f} / {g['ort']:.1f} |{extra}"
        )
        if r["errors"]:
            print(f"  errors: {r['errors']}")
    ratios = [r["ratio_ort"] for r in rows if r["ratio_ort"] == r["ratio_ort"]]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"\ngeomean ORT/tunefarm {geo:.2f} over {len(ratios)} layers")
    cpus = os.cpu_count()
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({cpus} cpus)")
    return 0


def main_models(args: argparse.Namespace) -> int:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [bench_model(p, args, Path(tmp)) for p in args.models.split(",") if p]
    load_after = os.getloadavg()
    print("| model | tunefarm ms | ORT ms | ORT/tunefarm | rel. error vs ORT | compile s |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        m = r["median_s"]
        print(
            f"| {r['name']} | {m['tunefarm'] * 1e3:.1f} | {m['ort'] * 1e3:.1f} | "
            f"{r['ratio_ort']:.2f} | {r['rel_err']:.1e} | {r['compile_s']:.0f} |"
        )
    cpus = os.cpu_count()
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} ({cpus} cpus)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
