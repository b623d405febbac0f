"""The sketch policy (template-free auto-scheduling) against the template policy, the
generic default schedule and ONNX Runtime, per op, in one run.

For every op and every trial budget:

1. tune with the sketch policy (evolutionary search + cost model) and with the template
   policy (the XGBoost tuner on the op's template), continuing from one budget to the next;
2. re-measure the best of each, and the default schedule, in `--rounds` interleaved rounds
   together with a one-node ONNX Runtime model of the same op (noise hits all alike);
3. print GFLOP/s (median of the rounds) and the ratios sketch/template, sketch/ORT and
   sketch/default, with tuning seconds and trials per second. Progress goes to stderr.

`--ops` takes op names and groups: `resnet18-convs` (the 11 distinct convs of ResNet-18 at
batch 1, the tasks of `examples/resnet18_tasks.json` that the tuner benchmark uses too),
`bert` (BERT-base's three dense layers, two attention batch matmuls, softmax and layer norm
at sequence 128) and `all`. `--json` is rewritten after every row, so a run that is stopped
keeps what it finished; `--report FILE` prints the tables of such a file again.

Whole networks (`--networks`): each is tuned by the sketch policy alone through the job
`tunefarm tune` runs (`tunefarm.recipe.run_job`: tune, compile, in-network selection, check
against ONNX Runtime, time tuned, untuned and ONNX Runtime with as many threads as the
target's -cores), with its trials and tuning seconds.

    python benchmarks/autoscheduler.py --trials 64,256 [--ops resnet18-convs,bert]
        [--rounds 5] [--json out.json] [--target "cpu -cores=1"]
    python benchmarks/autoscheduler.py --ops none --networks resnet-18,bert-base \
        --network-trials 1000 --target "cpu -cores=1" --json out.json
    python benchmarks/autoscheduler.py --report out.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
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
from _select import select_names
from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.target import num_cores
from tunefarm.cli.tune_tasks import load_tasks
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.task import Task
from tunefarm.tune.factory import make_tuner
from tunefarm.tune.policy import uses_sketch
from tunefarm.tune.tuner import MeasureOption, Tuner

RESNET18_TASKS = Path(__file__).resolve().parents[1] / "examples" / "resnet18_tasks.json"

SEARCH = MeasureSettings(repeat=3, min_repeat_ms=10, timeout_s=10)
FINAL = MeasureSettings(repeat=1, min_repeat_ms=50, timeout_s=30)


@dataclass(frozen=True)
class Op:
    name: str
    task: Task
    onnx: tuple[str, dict[str, Any]]  # ONNX op type and attributes
    weight: str | None = None  # the input that is an initializer in the ONNX model


def _conv_op(name: str, task: Task) -> Op:
    """A conv2d task with its ONNX Conv node (square kernel, symmetric padding)."""
    a = task.args
    k, stride, pad = a["weight"][2], a.get("strides", 1), a.get("padding", 0)
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)
    return Op(name, task, ("Conv", attrs), "weight")


def resnet18_convs() -> list[Op]:
    """The 11 distinct conv2d of ResNet-18 (batch 1, 224x224), as the tuner benchmark has
    them: the 7x7 stem, the 3x3 convs of the four stages, strided 3x3 and 1x1 downsamples."""
    tasks, _, names = load_tasks(str(RESNET18_TASKS), "cpu")
    return [_conv_op(n, t) for t, n in zip(tasks, names, strict=True) if t.op == "conv2d"]


_GEMM = ("Gemm", {"transB": 1})
BERT_OPS = [
    Op("dense_768x768", Task.make("dense", data=(128, 768), weight=(768, 768)), _GEMM, "weight"),
    Op("dense_768x3072", Task.make("dense", data=(128, 768), weight=(3072, 768)), _GEMM,
       "weight"),
    Op("dense_3072x768", Task.make("dense", data=(128, 3072), weight=(768, 3072)), _GEMM,
       "weight"),
    Op("bmm_qk", Task.make("batch_matmul", a=(12, 128, 64), b=(12, 64, 128)), ("MatMul", {})),
    Op("bmm_av", Task.make("batch_matmul", a=(12, 128, 128), b=(12, 128, 64)), ("MatMul", {})),
    Op("softmax_12x128x128", Task.make("softmax", shape=(12, 128, 128), axis=-1),
       ("Softmax", {"axis": -1})),
    Op("layer_norm_128x768",
       Task.make("layer_norm", shape=(1, 128, 768), axis=-1, epsilon=1e-12),
       ("LayerNormalization", {"axis": -1, "epsilon": 1e-12}), "gamma"),
]  # fmt: skip
OPS = {op.name: op for op in [*resnet18_convs(), *BERT_OPS]}
GROUPS = {
    "resnet18-convs": [op.name for op in OPS.values() if op.task.op == "conv2d"],
    "bert": [op.name for op in BERT_OPS],
    "all": list(OPS),
    "none": [],
}
DEFAULT_OPS = "conv_56_64_64_3x3,dense_768x768,bmm_qk,softmax_12x128x128"


def select_ops(text: str) -> list[str]:
    """Op names from a comma-separated list of names and groups, in order, each once;
    ValueError naming what is unknown."""
    return select_names(text, OPS, GROUPS)


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


def sketch_options(text: str) -> dict[str, Any]:
    """`key=value,...` -> SketchTuner keyword arguments (numbers parsed); ValueError naming
    an item that is not key=value."""
    out: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {item!r}")
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def sketch_tuner(task: Task, args: argparse.Namespace) -> Tuner:
    """The sketch policy's tuner, with --sketch-options when given."""
    if not args.sketch_options:
        return make_tuner("sketch", task, args.seed)
    from tunefarm.tune.sketch_search import SketchTuner

    return SketchTuner(task, seed=args.seed, **args.sketch_options)


def bench_op(
    op: Op, budgets: list[int], args: argparse.Namespace, emit=lambda row: None
) -> list[dict[str, Any]]:
    """The op's rows, one per budget; `emit(row)` as soon as each is ready."""
    op = Op(op.name, replace(op.task, target=args.target), op.onnx, op.weight)
    flops = registry.flops(op.task)
    ort = ort_fn(op, num_cores(parse_target(op.task.target)))
    option = MeasureOption.local(SEARCH)
    tuners: dict[str, Tuner] = {"sketch": sketch_tuner(op.task, args)}
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
                "has_template": not uses_sketch("auto", op.task),
                "gflops": g,
                # from the fastest round: a loaded host only ever slows a kernel down, so the
                # best round is the steadier figure there (docs/autoscheduler.md, "Search at
                # depth")
                "gflops_best_round": {
                    k: _report.gflops(flops, min(v)) if v else 0.0 for k, v in costs.items()
                },  # fmt: skip
                "load_average": os.getloadavg(),
                "search_best_gflops": {k: t.best_gflops for k, t in tuners.items()},
                "tuning_s": dict(seconds),
                "trials_per_s": {k: tuners[k].trials / max(seconds[k], 1e-9) for k in tuners},
                "invalid_dropped": dict(tuners["sketch"].invalid),  # type: ignore[attr-defined]
                # the cost model's Kendall tau at proposal time, on all measured states and
                # on the top 10% (tune/rank_quality.py)
                "sketch_model": tuners["sketch"].model_quality(),  # type: ignore[attr-defined]
            }
            for ref in ("template", "ort", "default", "sketch-random"):
                row[f"sketch/{ref}"] = g["sketch"] / g[ref] if g.get(ref) else math.nan
            gb = row["gflops_best_round"]
            row["sketch/template best round"] = (
                gb["sketch"] / gb["template"] if gb.get("template") else math.nan
            )
            q = row["sketch_model"]
            log(f"[{op.name}] {budget} trials: " + ", ".join(f"{k} {v:.1f}" for k, v in g.items())
                + f"; sketch model tau {q['tau']:.2f}, top 10% {q['tau_top10']:.2f}")  # fmt: skip
            rows.append(row)
            emit(row)
    finally:
        option.close()
    return rows


# -- whole networks --------------------------------------------------------------------------
def bench_network(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Tune one network by the sketch policy alone with the job `tunefarm tune` runs, and
    report its trials, tuning seconds and tuned / untuned / ONNX Runtime latency."""
    from tunefarm.frontend.models import load_model
    from tunefarm.recipe import JobOptions, run_job

    model, graph = load_model(name if name.startswith("zoo:") or "/" in name else f"zoo:{name}")
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{graph.name}-sketch-{args.network_trials}"
    records, artifact = log_dir / f"{stem}.jsonl", log_dir / f"{stem}.tfa"
    options = JobOptions(
        trials=args.network_trials, target=args.target, policy="sketch", seed=args.seed
    )
    log(f"[{graph.name}] tuning by the sketch policy, {args.network_trials} trials -> {records}")
    start = time.perf_counter()
    result = run_job(model, graph, options, records, artifact, args.resume, sys.stderr)
    wall = time.perf_counter() - start
    summary, evaluation = result.summary, result.evaluation
    latency = evaluation.latency_ms
    row = {
        "network": graph.name,
        "target": args.target,
        "tasks": len(result.tasks),
        "trials": summary.trials if summary else 0,
        "tuning_s": summary.seconds if summary else 0.0,
        "job_s": wall,
        "latency_ms": latency,
        "relative_error": evaluation.relative_error,
        "delivered": result.delivered,
        "ort/tuned": latency["onnxruntime"] / latency["tuned"],
        "untuned/tuned": latency["untuned"] / latency["tuned"],
        "log": str(records),
    }
    log(f"[{graph.name}] " + ", ".join(f"{k} {v:.3f} ms" for k, v in latency.items()))
    return row


# -- tables ----------------------------------------------------------------------------------
def geomean(values: list[float]) -> float:
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def table(rows: list[dict[str, Any]]) -> str:
    head = ["op", "trials", "sketch", "template", "default", "ORT", "s/tmpl", "s/ORT", "s/dflt",
            "sketch trials/s"]  # fmt: skip
    if any("sketch-random" in r["gflops"] for r in rows):
        head.append("random states")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        g = r["gflops"]
        cells = [r["op"], str(r["trials"])]
        cells += [f"{g.get(k, 0.0):.1f}" for k in ("sketch", "template", "default", "ort")]
        cells += [f"{r[f'sketch/{k}']:.2f}" for k in ("template", "ort", "default")]
        cells.append(f"{r['trials_per_s']['sketch']:.2f}")
        if "sketch-random" in g:
            cells.append(f"{g['sketch-random']:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + [""] + goal_lines(rows))


def goal_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Per budget: geomean sketch/template over the convs, and sketch/ORT over all ops and
    over the ops with no template (the issue's two per-op goals), GFLOP/s medians."""
    out = []
    for budget in sorted({r["trials"] for r in rows}):
        at = [r for r in rows if r["trials"] == budget]
        convs = [r["sketch/template"] for r in at if r["op"].startswith("conv_")]
        no_tmpl = [r["sketch/ort"] for r in at if not r.get("has_template", True)]
        parts = [f"sketch/ORT {geomean([r['sketch/ort'] for r in at]):.2f} over {len(at)} ops"]
        if convs:
            parts.append(f"sketch/template {geomean(convs):.2f} over {len(convs)} convs")
        if no_tmpl:
            parts.append(f"sketch/ORT {geomean(no_tmpl):.2f} over {len(no_tmpl)} untemplated ops")
        out.append(f"geomean at {budget} trials: " + "; ".join(parts))
    return out


def network_table(rows: list[dict[str, Any]]) -> str:
    head = ["network", "tasks", "trials", "tuning s", "tuned ms", "untuned ms", "ORT ms",
            "ORT/tuned", "untuned/tuned", "rel. error"]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        ms = r["latency_ms"]
        cells = [r["network"], str(r["tasks"]), str(r["trials"]), f"{r['tuning_s']:.0f}"]
        cells += [f"{ms[k]:.3f}" for k in ("tuned", "untuned", "onnxruntime")]
        cells += [f"{r['ort/tuned']:.2f}", f"{r['untuned/tuned']:.2f}"]
        cells.append(f"{r['relative_error']:.1e}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def print_report(doc: dict[str, Any]) -> None:
    if doc.get("rows"):
        print(table(doc["rows"]))
    if doc.get("networks"):
        print(network_table(doc["networks"]))
    print(f"machine: {doc.get('machine')}")


# -- the command -----------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", default="64", help="comma-separated budgets (default 64)")
    p.add_argument(
        "--ops",
        default=DEFAULT_OPS,
        help=f"comma-separated ops and groups ({', '.join(GROUPS)}); 'none' for networks only",
    )
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the rows here (rewritten after every row)")
    p.add_argument("--report", metavar="JSON", help="print the tables of an earlier --json")
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
    p.add_argument(
        "--sketch-options",
        default="",
        help="SketchTuner options for the ops, e.g. 'kinds=applicable,local_share=0.5'",
    )
    p.add_argument("--networks", default="", help="zoo networks to tune by the sketch policy")
    p.add_argument("--network-trials", type=int, default=1000, help="trials per network")
    p.add_argument("--log-dir", default="benchmarks/logs", help="the networks' tuning logs")
    p.add_argument("--resume", action="store_true", help="continue the networks' logs")
    args = p.parse_args(argv)
    try:
        args.op_names = select_ops(args.ops)
    except ValueError as exc:
        p.error(f"--ops: {exc}")
    try:
        args.sketch_options = sketch_options(args.sketch_options)
    except ValueError as exc:
        p.error(f"--sketch-options: {exc}")
    try:
        args.budgets = sorted({int(b) for b in args.trials.split(",")})
    except ValueError:
        p.error(f"--trials: expected comma-separated integers, got {args.trials!r}")
    if any(b <= 0 for b in args.budgets) or args.network_trials < 0 or args.rounds < 1:
        p.error("--trials and --rounds must be positive, --network-trials not negative")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report:
        print_report(json.loads(Path(args.report).read_text()))
        return 0
    doc: dict[str, Any] = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": shlex.join([sys.executable, *sys.argv]),
        "target": args.target,
        "machine": _report.machine_info(),
        "rows": [],
        "networks": [],
    }

    def save(kind: str, row: dict[str, Any]) -> None:
        doc[kind].append(row)
        if args.json:
            Path(args.json).write_text(json.dumps(doc, indent=2, default=str) + "\n")

    for name in args.op_names:
        bench_op(OPS[name], args.budgets, args, lambda row: save("rows", row))
    for net in filter(None, args.networks.split(",")):
        save("networks", bench_network(net.strip(), args))
    print_report(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
