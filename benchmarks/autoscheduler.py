"""The sketch policy (template-free auto-scheduling) against the template policy, the
generic default schedule and ONNX Runtime, per op, in one run.

For every op and every trial budget:

1. tune with the sketch policy (evolutionary search + cost model) and with the template
   policy (the XGBoost tuner on the op's template), continuing from one budget to the next;
2. re-measure the best of each, and the default schedule, in `--rounds` interleaved rounds
   together with a one-node ONNX Runtime model of the same op (noise hits all alike);
3. print GFLOP/s (median of the rounds) and the ratios sketch/template, sketch/ORT and
   sketch/default, with tuning seconds and trials per second. Progress goes to stderr.

    python benchmarks/autoscheduler.py --trials 64,256 [--ops conv_56_64_3x3,dense_768x768]
        [--rounds 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

import _report
import _timing
from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.target import num_cores
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.tuner import MeasureOption, Tuner

SEARCH = MeasureSettings(repeat=3, min_repeat_ms=10, timeout_s=10)
FINAL = MeasureSettings(repeat=1, min_repeat_ms=50, timeout_s=30)


@dataclass(frozen=True)
class Op:
    name: str
    task: Task
    onnx: tuple[str, dict[str, Any]]  # ONNX op type and attributes
    weight: str | None = None  # the input that is an initializer in the ONNX model


def _conv(size: int, cin: int, cout: int, k: int, stride: int) -> Op:
    task = Task.make(
        "conv2d",
        target="cpu",
        data=(1, cin, size, size),
        weight=(cout, cin, k, k),
        strides=stride,
        padding=k // 2,
    )
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=[k // 2] * 4)
    return Op(f"conv_{size}_{cin}_{cout}_{k}x{k}_s{stride}", task, ("Conv", attrs), "weight")


OPS = {
    op.name: op
    for op in [
        _conv(56, 64, 64, 3, 1),
        _conv(28, 128, 128, 3, 1),
        _conv(14, 256, 256, 3, 1),
        Op("dense_768x768", Task.make("dense", data=(128, 768), weight=(768, 768)),
           ("Gemm", {"transB": 1}), "weight"),
        Op("dense_768x3072", Task.make("dense", data=(128, 768), weight=(3072, 768)),
           ("Gemm", {"transB": 1}), "weight"),
        Op("dense_3072x768", Task.make("dense", data=(128, 3072), weight=(768, 3072)),
           ("Gemm", {"transB": 1}), "weight"),
        Op("bmm_qk", Task.make("batch_matmul", a=(12, 128, 64), b=(12, 64, 128)),
           ("MatMul", {})),
        Op("bmm_av", Task.make("batch_matmul", a=(12, 128, 128), b=(12, 128, 64)),
           ("MatMul", {})),
        Op("softmax_12x128x128", Task.make("softmax", shape=(12, 128, 128), axis=-1),
           ("Softmax", {"axis": -1})),
        Op("layer_norm_128x768",
           Task.make("layer_norm", shape=(1, 128, 768), axis=-1, epsilon=1e-12),
           ("LayerNormalization", {"axis": -1, "epsilon": 1e-12}), "gamma"),
    ]
}  # fmt: skip
DEFAULT_OPS = "conv_56_64_64_3x3_s1,dense_768x768,bmm_qk,softmax_12x128x128"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# -- ONNX Runtime --------------------------------------------------------------------------
def ort_fn(op: Op, threads: int):
    """A callable running the op's one-node model on seeded inputs, checked against numpy."""
    from onnx import TensorProto, helper, numpy_helper

    inputs = registry.random_inputs(op.task, 0)
    expected = registry.template(op.task).reference(op.task, inputs)
    names = list(inputs)
    feeds = {n: v for n, v in inputs.items() if n != op.weight}
    inits = [numpy_helper.from_array(inputs[op.weight], op.weight)] if op.weight else []
    node = helper.make_node(op.onnx[0], names, ["y"], **op.onnx[1])
    graph = helper.make_graph(
        [node],
        f"bench_{op.name}",
        [
            helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape))
            for n, v in feeds.items()
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    sess = _timing.ort_session(model.SerializeToString(), threads)
    err = float(np.abs(sess.run(None, feeds)[0] - expected).max())
    if not err <= 1e-3 * max(1.0, float(np.abs(expected).max())):
        log(f"WARNING: ORT output of {op.name} differs from the reference by {err:.2e}")
    return lambda: sess.run(None, feeds)


# -- tuning and final rounds ---------------------------------------------------------------
def best_config(tuner: Tuner) -> Config | None:
    if tuner.best_index is None:
        return None
    return tuner.inputs_for([tuner.best_index])[0].config


def final_rounds(op: Op, configs: dict[str, Config], ort, rounds: int) -> dict[str, list[float]]:
    inputs = {k: MeasureInput(op.task, c) for k, c in configs.items()}
    costs: dict[str, list[float]] = {k: [] for k in [*inputs, "ort"]}
    with registry.local_builder() as builder, registry.local_runner(FINAL) as runner:
        builds = dict(zip(inputs, builder.build(list(inputs.values())), strict=True))
        for _ in range(rounds):
            for k, inp in inputs.items():
                res = runner.run([inp], [builds[k]])[0]
                if res.ok:
                    costs[k].append(res.costs[0])
            costs["ort"].append(_timing.time_once(ort, FINAL.min_repeat_ms))
    return costs


def bench_op(op: Op, budgets: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    op = Op(op.name, replace(op.task, target=args.target), op.onnx, op.weight)
    flops = registry.flops(op.task)
    ort = ort_fn(op, num_cores(parse_target(op.task.target)))
    option = MeasureOption.local(SEARCH)
    tuners = {"sketch": make_tuner("sketch", op.task, args.seed)}
    tuners["template"] = make_tuner("xgb", op.task, args.seed)
    if args.vs_random:
        tuners["sketch-random"] = make_tuner("sketch-random", op.task, args.seed)
    seconds = {k: 0.0 for k in tuners}
    rows = []
    try:
        for budget in budgets:
            for k, tuner in tuners.items():
                start = time.perf_counter()
                tuner.tune(budget - tuner.trials, option, batch_size=16)
                seconds[k] += time.perf_counter() - start
                log(f"[{op.name}] {k}: {tuner.trials} trials, best {tuner.best_gflops:.1f} GFLOPS")
            configs = {k: best_config(t) for k, t in tuners.items()}
            configs["default"] = registry.default_config(op.task)
            costs = final_rounds(op, {k: c for k, c in configs.items() if c}, ort, args.rounds)
            g = {k: _report.gflops(flops, statistics.median(v)) if v else 0.0
                 for k, v in costs.items()}  # fmt: skip
            row = {
                "op": op.name,
                "trials": budget,
                "gflops": g,
                "tuning_s": dict(seconds),
                "trials_per_s": {k: tuners[k].trials / max(seconds[k], 1e-9) for k in tuners},
                "invalid_dropped": dict(tuners["sketch"].invalid),  # type: ignore[attr-defined]
            }
            for ref in ("template", "ort", "default", "sketch-random"):
                row[f"sketch/{ref}"] = g["sketch"] / g[ref] if g.get(ref) else math.nan
            log(f"[{op.name}] {budget} trials: " + ", ".join(f"{k} {v:.1f}" for k, v in g.items()))
            rows.append(row)
    finally:
        option.close()
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    head = ["op", "trials", "sketch", "template", "default", "ORT", "s/tmpl", "s/ORT", "s/dflt",
            "sketch trials/s"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        g = r["gflops"]
        cells = [r["op"], str(r["trials"])]
        cells += [f"{g.get(k, 0.0):.1f}" for k in ("sketch", "template", "default", "ort")]
        cells += [f"{r[f'sketch/{k}']:.2f}" for k in ("template", "ort", "default")]
        cells.append(f"{r['trials_per_s']['sketch']:.2f}")
        if "sketch-random" in g:
            cells.append(f"random {g['sketch-random']:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    ratios = [r["sketch/ort"] for r in rows if r["sketch/ort"] > 0]
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines.append(f"\ngeomean sketch/ORT: {geo:.2f} over {len(ratios)} rows (GFLOP/s, median)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", default="64", help="comma-separated budgets (default 64)")
    p.add_argument("--ops", default=DEFAULT_OPS, help=f"comma-separated, of: {', '.join(OPS)}")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the rows here")
    p.add_argument(
        "--target",
        default="cpu",
        help="e.g. 'cpu -cores=1' (ONNX Runtime gets as many threads; default: cpu)",
    )
    p.add_argument(
        "--vs-random",
        action="store_true",
        help="also random sketch states at the same budgets (does evolution help?)",
    )
    args = p.parse_args(argv)
    unknown = [o for o in args.ops.split(",") if o not in OPS]
    if unknown:
        p.error(f"--ops: unknown {unknown}; known: {', '.join(OPS)}")
    budgets = sorted(int(b) for b in args.trials.split(","))
    rows = [r for name in args.ops.split(",") for r in bench_op(OPS[name], budgets, args)]
    print(table(rows))
    print(f"machine: {_report.machine_info()}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "machine": _report.machine_info()},
                                              indent=2, default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
