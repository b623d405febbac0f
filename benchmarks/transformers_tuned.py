"""Tuned transformers against ONNX Runtime, one core, by thread CPU time (issue 23).

    python benchmarks/transformers_tuned.py --models DIR/bert-base.legacy.onnx,DIR/vit.onnx \
        --trials 64 --log tune.jsonl [--policy template] [--rounds 3] [--timeout 120] \
        [--tune-only] [--profile] [--json out.json]

Per model (an export with its `NAME.inputs.npz`, e.g. `tools/export_test_models.py --full
[--batch 8]`): its dense and attention tasks on `cpu -cores=1` (`network_tasks`), tuned
`--trials` trials each into `--log` (`--resume`-style: trials already there are loaded, not
measured again; `--trials 0` tunes nothing and uses the log as it is). Then

1. each dense task alone, default and tuned config, against ONNX Runtime's MatMul + Add
   (+ the same residual Add or erf GELU) on the same shape, one intra-op thread: the
   kernel loaded into this process and called on this thread (`attention.in_process`),
   checked against numpy, timed by thread CPU time, interleaved; GFLOP/s of each;
2. the whole network compiled untuned and tuned (`records=--log`), checked against ORT,
   then `--rounds` interleaved rounds of (ORT, untuned, tuned), each the median of
   `--repeat` runs by thread CPU time (`GraphExecutor.run` on this thread, one core; ORT
   with one intra-op thread runs on the caller too), so the time other processes hold the
   core is not counted;
3. `--profile`: each network's share of time per kernel kind (dense, attention, ...).

Prints tables with ratios tunefarm / ORT (below 1: tunefarm faster) and the load average.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _timing  # noqa: E402
from _report import machine_info  # noqa: E402
from attention import cpu_seconds  # noqa: E402
from tunefarm.backends import registry  # noqa: E402
from tunefarm.compiler import compile_graph  # noqa: E402
from tunefarm.compiler.tasks import network_tasks  # noqa: E402
from tunefarm.frontend.onnx_import import load_onnx  # noqa: E402
from tunefarm.graph.passes import optimize  # noqa: E402
from tunefarm.measure import MeasureInput  # noqa: E402
from tunefarm.measure.host import load_host_kernel  # noqa: E402
from tunefarm.recipe import relative_error  # noqa: E402
from tunefarm.recipe.job import network_settings, tune_network  # noqa: E402
from tunefarm.runtime.executor import GraphExecutor  # noqa: E402
from tunefarm.task import Task  # noqa: E402
from tunefarm.tune.dispatch import ApplyHistoryBest  # noqa: E402
from tunefarm.tune.records import load_records  # noqa: E402
from tunefarm.tune.tuner import MeasureOption  # noqa: E402

TARGET = "cpu -cores=1"
TUNED_OPS = ("dense", "attention")
MATCH = 1e-4


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def heavy_tasks(graph, policy: str) -> list:
    """The network's dense and attention tasks (what holds a transformer's time)."""
    return [t for t in network_tasks(graph, TARGET, policy) if t.task.op in TUNED_OPS]


def ort_dense_model(task: Task, xs: dict[str, np.ndarray]) -> bytes:
    """MatMul by a constant [K, O] weight, Add bias, then the task's residual Add or erf
    GELU: the exporters' spelling of the projection, which ORT fuses as it does in the
    network."""
    from onnx import TensorProto, helper, numpy_helper

    n, k = task.args["data"]
    epi = tuple(task.args.get("epilogue", ()))
    inits = [numpy_helper.from_array(np.ascontiguousarray(xs["weight"].T), "w")]
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y0"])]
    last, feeds = "y0", [("x", (n, k))]
    for i, kind in enumerate(epi):
        out = f"y{i + 1}"
        if kind == "bias":
            inits.append(numpy_helper.from_array(xs["bias"], "b"))
            nodes.append(helper.make_node("Add", [last, "b"], [out]))
        elif kind == "residual":
            feeds.append(("r", xs["residual"].shape))
            nodes.append(helper.make_node("Add", [last, "r"], [out]))
        elif kind == "gelu":
            consts = {"c_sqrt2": 2**0.5, "c_one": 1.0, "c_half": 0.5}
            inits += [
                numpy_helper.from_array(np.array(v, np.float32), c) for c, v in consts.items()
            ]
            nodes += [
                helper.make_node("Div", [last, "c_sqrt2"], [f"{out}a"]),
                helper.make_node("Erf", [f"{out}a"], [f"{out}b"]),
                helper.make_node("Add", [f"{out}b", "c_one"], [f"{out}c"]),
                helper.make_node("Mul", [last, f"{out}c"], [f"{out}d"]),
                helper.make_node("Mul", [f"{out}d", "c_half"], [out]),
            ]
        else:
            raise SystemExit(f"dense epilogue {kind!r}: no ORT spelling here")
        last = out
    graph = helper.make_graph(
        nodes, "dense",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(s)) for name, s in feeds],
        [helper.make_tensor_value_info(last, TensorProto.FLOAT, None)], inits,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model.SerializeToString()


def kernel_seconds(build, inp: MeasureInput) -> callable:
    """The built kernel in this process on seeded inputs, checked against numpy; its run."""
    io = registry.reference_io(inp, 0)
    kernel = load_host_kernel(build.artifact, io.args)
    if kernel.run() != 0:
        raise SystemExit(f"{inp.task}: kernel failed in-process")
    ((index, want),) = io.expected.items()
    got = kernel.outputs()[index]
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    if err > MATCH:
        raise SystemExit(f"{inp.task}: in-process max rel. error {err:.1e}")
    return kernel


def kernel_rows(tasks, history, rounds: int, builder) -> list[dict[str, Any]]:
    """Each task at its default and tuned config, and each dense against ORT, interleaved;
    `checked`: whether the tuned config is the faster of the two by thread CPU time."""
    rows = []
    for t in tasks:
        task = t.task
        tuned = history.query(task)[0] if history is not None and history.knows(task) else None
        configs = {"default": registry.default_config(task), "tuned": tuned}
        kernels = {}
        for who, cfg in configs.items():
            if cfg is not None:
                inp = MeasureInput(task, cfg)
                kernels[who] = kernel_seconds(builder.build([inp])[0], inp)
        run_ort, ort_err = _ort_dense(task) if task.op == "dense" else (None, None)
        costs = collections.defaultdict(list)
        for _ in range(rounds):
            if run_ort is not None:
                costs["ort"].append(cpu_seconds(run_ort))
            for who, k in kernels.items():
                costs[who].append(cpu_seconds(k.run))
        for k in kernels.values():
            k.close()
        med = {k: statistics.median(v) for k, v in costs.items()}
        gf = {k: t.flops / v / 1e9 for k, v in med.items()}
        row = {
            "task": str(task),
            "op": task.op,
            "workload_key": task.workload_key,
            "calls": t.weight,
            "median_s": med,
            "gflops": gf,
            "ort_rel_err": ort_err,
            "configs": {k: (v.as_dict() if v else None) for k, v in configs.items()},
            "checked": "tuned" in med and med["tuned"] < med["default"],
        }
        log(
            f"  {task}: "
            + ", ".join(f"{k} {v * 1e3:.3f} ms {gf[k]:.0f} GF/s" for k, v in med.items())
        )
        rows.append(row)
    return rows


def _ort_dense(task: Task):
    """ORT's session of the dense's spelling on seeded inputs: (its run, max rel. error)."""
    xs = registry.random_inputs(task, 0)
    sess = _timing.ort_session(ort_dense_model(task, xs), 1)
    feeds = {"x": xs["data"], **({"r": xs["residual"]} if "residual" in xs else {})}
    want = registry.template(task).reference(task, xs)
    got = sess.run(None, feeds)[0]
    err = float(np.abs(got - want).max() / max(1.0, np.abs(want).max()))
    return (lambda: sess.run(None, feeds)), err


def checked_history(log_path: str, kernels: list[dict[str, Any]]) -> ApplyHistoryBest | None:
    """The log's records of only the tasks whose tuned config beat the default when both
    were re-timed by thread CPU time (`kernel_rows`): on a loaded host the search's wall
    clock crowns noise winners, some twice as slow as the default."""
    keep = {r["workload_key"] for r in kernels if r["checked"]}
    records = [r for r in load_records(log_path) if r.workload_key in keep]
    return ApplyHistoryBest(records) if records else None


def network_row(path: Path, graph, history, checked, args, tmp: Path) -> dict[str, Any]:
    """The network untuned and tuned against ORT, interleaved, by thread CPU time."""
    feeds = dict(np.load(path.with_name(path.name.replace(".onnx", ".inputs.npz"))))
    feeds.pop("__output__", None)
    sess = _timing.ort_session(onnx.load(str(path)).SerializeToString(), 1)
    names = [o.name for o in sess.get_outputs()]
    want = dict(zip(names, sess.run(None, feeds), strict=True))
    nets, errs = {}, {}
    builds = {"untuned": None, "tuned": history, "checked": checked}
    builds = {k: v for k, v in builds.items() if k == "untuned" or v is not None}
    for who, records in builds.items():
        compile_graph(graph, TARGET, records=records, optimized=True).save(tmp / f"{who}.tfa")
        nets[who] = GraphExecutor.load(tmp / f"{who}.tfa")
        errs[who] = relative_error(nets[who].run(feeds), want)
    clock = time.thread_time
    costs = collections.defaultdict(list)
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        costs["ort"].append(_median(lambda: sess.run(None, feeds), args.repeat, clock))
        for who, net in nets.items():
            costs[who].append(_median(lambda n=net: n.run(feeds), args.repeat, clock))
        log(
            f"[{path.name}] round {r + 1}: "
            + ", ".join(f"{k} {v[-1] * 1e3:.1f} ms" for k, v in costs.items())
        )
    loads.append(os.getloadavg()[0])
    med = {k: statistics.median(v) for k, v in costs.items()}
    row = {"model": path.name, "median_s": med, "rounds_s": dict(costs), "rel_err": errs,
           "ratio": {k: med[k] / med["ort"] for k in nets}, "load_avg_1m": loads}  # fmt: skip
    if args.profile:
        row["profile_ms"] = {who: kind_shares(net) for who, net in nets.items()}
    return row


def _median(fn, repeat: int, clock) -> float:
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def kind_shares(net: GraphExecutor) -> dict[str, float]:
    """Percent of the run per kernel kind (k12_dense -> dense), from the executor's per-call
    profile: its calls are timed by the wall clock, which a loaded host inflates, so only
    the shares are kept."""
    out: dict[str, float] = collections.defaultdict(float)
    for e in net.profile(repeat=3):
        out[re.sub(r"^k\d+_", "", str(e.kernel)).split("(")[0]] += e.ms
    total = sum(out.values())
    return {k: round(100 * v / total, 2) for k, v in sorted(out.items(), key=lambda kv: -kv[1])}


def one_model(path: Path, args, builder, tmp: Path) -> dict[str, Any]:
    graph = optimize(load_onnx(path))
    tasks = heavy_tasks(graph, args.policy)
    log(f"[{path.name}] {len(tasks)} tasks: " + ", ".join(f"{t.task.op}x{t.weight}" for t in tasks))
    if args.trials:
        start = time.perf_counter()
        # the network timing settings, with limits a loaded host needs: at load 20 on two
        # cores, nearly every candidate ran past the default 10 s and was killed
        settings = dataclasses.replace(network_settings(), timeout_s=args.timeout)
        option = MeasureOption.local(settings, build_timeout_s=args.timeout)
        try:
            tune_network(
                tasks,
                args.trials * len(tasks),
                args.log,
                tuner=args.tuner,
                policy=args.policy,
                resume=Path(args.log).exists(),
                stream=sys.stderr,
                measure_option=option,
            )
        finally:
            option.close()
        log(f"[{path.name}] tuned in {time.perf_counter() - start:.0f} s")
    history = ApplyHistoryBest(args.log) if Path(args.log).exists() else None
    if args.tune_only:
        return {"model": path.name, "tuned_tasks": len(tasks)}
    row = {"tasks": [str(t.task) for t in tasks], "trials_per_task": args.trials}
    row["dense"] = kernel_rows(tasks, history, args.rounds, builder) if args.dense else []
    checked = checked_history(args.log, row["dense"]) if history is not None else None
    row.update(network_row(path, graph, history, checked, args, tmp))
    return row


def print_tables(rows: list[dict[str, Any]]) -> None:
    who = ("untuned", "tuned", "checked")
    print("| model | ORT ms | " + " | ".join(f"{w} ms" for w in who) + " | "
          + " | ".join(f"{w}/ORT" for w in who) + " | rel. err |")  # fmt: skip
    print("|---" * 8 + "|---|")
    for r in rows:
        m, q = r["median_s"], r["ratio"]
        ms = " | ".join(f"{m[w] * 1e3:.1f}" if w in m else "-" for w in who)
        qs = " | ".join(f"{q[w]:.3f}" if w in q else "-" for w in who)
        err = max(r["rel_err"].values())
        print(f"| {r['model']} | {m['ort'] * 1e3:.1f} | {ms} | {qs} | {err:.1e} |")
    print("\n| model | kernel | calls | GFLOP/s ORT | default | tuned | tuned kept |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        for d in r["dense"]:
            g = {k: f"{v:.0f}" for k, v in d["gflops"].items()}
            name = d["task"].split("(")[-1][:60]
            print(f"| {r['model']} | {name} | {d['calls']} | {g.get('ort', '-')} | "
                  f"{g['default']} | {g.get('tuned', '-')} | {d['checked']} |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", required=True, help="comma-separated ONNX exports")
    ap.add_argument("--trials", type=int, default=0, help="trials per dense/attention task")
    ap.add_argument("--log", default="transformers-tune.jsonl", help="tuning records")
    ap.add_argument("--policy", choices=("template", "sketch", "auto"), default="template")
    ap.add_argument("--tuner", default="xgb")
    ap.add_argument("--timeout", type=float, default=120, help="s per candidate build / run")
    ap.add_argument("--tune-only", action="store_true", help="tune into --log, time nothing")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-dense", dest="dense", action="store_false", help="skip the dense table")
    ap.add_argument("--profile", action="store_true", help="per-kernel-kind time per network")
    ap.add_argument("--json", default="", help="write the results here")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    with registry.local_builder() as builder, tempfile.TemporaryDirectory() as tmp:
        rows = [one_model(Path(p), args, builder, Path(tmp)) for p in args.models.split(",") if p]
    load_after = os.getloadavg()
    if not args.tune_only:
        print_tables(rows)
    print(
        f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f}; "
        "one core, thread CPU time"
    )
    if args.json:
        doc = {"machine": machine_info(), "args": vars(args), "rows": rows,
               "load_before": load_before, "load_after": load_after}  # fmt: skip
        Path(args.json).write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
