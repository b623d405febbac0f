"""The VTA tutorial's network flow for a target whose backend packs networks (`pack_blocks`):
quantize and graph_pack, extract the packed convs, tune them, compile with the best records,
run split between the CPU and the accelerator (the float stem and head compiled natively for
the host, with default configs), check it.

    result = run_packed_job(graph, PackedJobOptions(target="vta", trials=64), "r18.jsonl")

The check: the network's output equals bit for bit the same network with its packed convs
run on the CPU by their numpy kernels (the int8 CPU reference, same shift requantization,
same native stem and head), and its top-1 class is compared with the float network's.
Times: the accelerator's simulated time at its clock plus the CPU parts measured on the host,
for the tuned and the untuned (default configs) network.
"""

from __future__ import annotations

import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from tunefarm.backends import get_backend, parse_target
from tunefarm.compiler.cpu_segments import compile_segments
from tunefarm.compiler.packed import PackedNetwork, PackedTiming
from tunefarm.graph.interpret import run_graph
from tunefarm.graph.ir import Graph, GraphError, random_inputs
from tunefarm.graph.passes.graph_pack import PackOptions, graph_pack, packed_tasks
from tunefarm.graph.passes.quantize import accuracy
from tunefarm.measure.types import MeasureSettings
from tunefarm.recipe.job import LOCAL_DEVICE_KEY
from tunefarm.tune.dispatch import ApplyHistoryBest


@dataclass(frozen=True)
class PackedJobOptions:
    target: str
    trials: int = 0
    tuner: str = "xgb"
    strategy: str = "gradient"
    early_stopping: int | None = None
    settings: MeasureSettings = MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=60)
    trials_per_round: int = 16
    global_scale: float = 8.0
    seed: int = 0
    native_cpu: bool = True  # the float stem and head compiled for the host (else numpy)


@dataclass
class PackedJobResult:
    tasks: list[tuple[Any, int]]
    summary: Any  # the scheduler's, None when not tuned
    kernels: list[dict[str, Any]]
    tuned: PackedTiming
    untuned: PackedTiming
    top1: int
    float_top1: int
    exact: bool  # the network's output equals the CPU int8 reference bit for bit
    accuracy: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks": [{"params": t.to_json()["params"], "weight": n} for t, n in self.tasks],
            "scheduler": self.summary.to_json() if self.summary else None,
            "kernels": self.kernels,
            "tuned": self.tuned.to_json(),
            "untuned": self.untuned.to_json(),
            "top1": self.top1,
            "float_top1": self.float_top1,
            "bit_exact": self.exact,
            "accuracy": self.accuracy,
        }


def pack_for_target(graph: Graph, target: str, global_scale: float = 8.0) -> Graph:
    """graph_pack with the blocks of the target's backend; GraphError if it packs nothing."""
    parsed = parse_target(target)
    blocks = getattr(get_backend(parsed.kind), "pack_blocks", None)
    if blocks is None:
        raise GraphError(f"target {target!r} does not run packed networks (only vta does)")
    return graph_pack(graph, PackOptions(tuple(blocks(parsed)), global_scale))


_SHOWN = ("data", "weight", "strides", "padding")


def print_packed_tasks(tasks: list[tuple[Any, int]], out: TextIO) -> None:
    print(f"{len(tasks)} packed conv task(s):", file=out)
    print("   #  data              weight             strides padding  nodes", file=out)
    for i, (t, n) in enumerate(tasks):
        data, weight, strides, padding = (str(list(t.args[k])) for k in _SHOWN)
        print(f"  {i:2d}  {data:<17} {weight:<18} {strides:<7} {padding:<8} {n}", file=out)


def _tune(tasks, opts: PackedJobOptions, log: str, resume: bool, out: TextIO, remote):
    """Tune the packed tasks under the trial budget: locally (the simulator on this host), or
    through `remote` = (MeasureOption, device key), e.g. Celery to a `vta` agent."""
    from tunefarm.tune.task_scheduler import TaskScheduler
    from tunefarm.tune.tuner import MeasureOption

    scheduler = TaskScheduler(
        [t for t, _ in tasks],
        [float(n) for _, n in tasks],
        tuner_factory=opts.tuner,
        strategy=opts.strategy,
        seed=opts.seed,
        early_stopping_per_task=opts.early_stopping,
        stream=out,
    )
    option, device_key = remote or (None, LOCAL_DEVICE_KEY)
    if resume and Path(log).exists():
        scheduler.load_log(log, device_key=device_key)
    if option is None:
        option = MeasureOption.local(opts.settings, kind=parse_target(opts.target).kind)
    try:
        return scheduler.tune(
            opts.trials,
            option,
            trials_per_round=opts.trials_per_round,
            log_file=log,
            device_key=device_key,
        )
    finally:
        if remote is None:
            option.close()


def run_packed_job(
    graph: Graph,
    opts: PackedJobOptions,
    log: str,
    resume: bool = False,
    out: TextIO = sys.stdout,
    remote: tuple[Any, str] | None = None,
) -> PackedJobResult:
    """The whole flow; `remote` = (MeasureOption, device key) tunes through the services
    instead of on this host (the network itself always runs here, on the simulator)."""
    packed = pack_for_target(graph, opts.target, opts.global_scale)
    tasks = packed_tasks(packed, opts.target)
    print_packed_tasks(tasks, out)
    summary = _tune(tasks, opts, log, resume, out, remote) if opts.trials > 0 else None
    history = ApplyHistoryBest(log) if Path(log).exists() else None
    inputs = random_inputs(graph, opts.seed)
    with tempfile.TemporaryDirectory(prefix="tunefarm-packed-") as tmp:
        segments = compile_segments(packed, Path(tmp) / "cpu") if opts.native_cpu else None
        tuned = PackedNetwork(packed, opts.target, history, Path(tmp) / "tuned", segments)
        got, tuned_time = tuned.run(inputs)
        untuned = PackedNetwork(packed, opts.target, None, Path(tmp) / "untuned", segments)
        _, untuned_time = untuned.run(inputs)
        want, _ = tuned.run(inputs, on_cpu=True)
    reference = run_graph(graph, inputs)
    name = graph.outputs[0]
    return PackedJobResult(
        tasks=tasks,
        summary=summary,
        kernels=tuned.summary(),
        tuned=tuned_time,
        untuned=untuned_time,
        top1=int(np.argmax(got[name])),
        float_top1=int(np.argmax(reference[name])),
        exact=all(np.array_equal(got[k], want[k]) for k in want),
        accuracy=accuracy(reference[name], got[name]),
    )


def print_nodes(result: PackedJobResult, out: TextIO) -> None:
    """Per packed conv: its shapes and its accelerator time untuned and tuned."""
    print("packed conv                    data              weight          untuned    tuned",
          file=out)  # fmt: skip
    for k in result.kernels:
        node, w = k["node"], k["workload"]
        before, after = result.untuned.nodes[node] * 1e3, result.tuned.nodes[node] * 1e3
        print(f"  {node:<28} {str(list(w['data'])):<17} {str(list(w['weight'])):<15} "
              f"{before:7.3f}  {after:7.3f} ms", file=out)  # fmt: skip


def print_result(result: PackedJobResult, clock_note: str, out: TextIO) -> None:
    print_nodes(result, out)
    tuned_from = sum(k["source"] == "record" for k in result.kernels)
    print(f"compiled: {len(result.kernels)} packed conv(s), {tuned_from} with a tuned config",
          file=out)  # fmt: skip
    print(f"top-1 class: {result.top1} (float network: {result.float_top1}); cosine vs float "
          f"{result.accuracy['cosine']:.5f}", file=out)  # fmt: skip
    verdict = "equal bit for bit" if result.exact else "DIFFERENT"
    print(f"output vs the int8 CPU reference (same shift requantization): {verdict}", file=out)
    print(f"time ({clock_note}):        accelerator       CPU     total", file=out)
    for label, t in (("untuned", result.untuned), ("tuned", result.tuned)):
        print(f"  {label:<8} {t.accel_s * 1e3:31.3f} ms {t.cpu_s * 1e3:7.3f} ms "
              f"{t.total_s * 1e3:7.3f} ms", file=out)  # fmt: skip
    native = sum(s for name, s in result.tuned.nodes.items() if ".cpu" in name)
    print(f"  CPU parts: {native * 1e3:.3f} ms compiled stem and head, "
          f"{(result.tuned.cpu_s - native) * 1e3:.3f} ms quantize / layout / residual adds "
          "(numpy)", file=out)  # fmt: skip
    if result.tuned.accel_s > 0 and math.isfinite(result.untuned.accel_s):
        print(f"accelerator speed-up from tuning: "
              f"{result.untuned.accel_s / result.tuned.accel_s:.2f}x", file=out)  # fmt: skip


# -- the flow as steps, for `tunefarm compile` / `tunefarm run` and the services --------------
def compile_packed_builds(
    packed: Graph,
    target: str,
    records: str | Path | None,
    device_key: str | None,
    tuned_path: str | Path,
    untuned_path: str | Path,
) -> dict[str, Any]:
    """Both builds of a packed network as files (`packed_artifact`): tuned (each packed conv's
    best record of `device_key`) and untuned (default configs). Returns their infos and the
    packed convs that run their default config in the tuned build, with why."""
    from tunefarm.recipe.packed_artifact import save_packed

    history = None
    if records is not None and Path(records).is_file():
        history = ApplyHistoryBest(str(records), device_key)
    tuned = save_packed(packed, target, history, tuned_path)
    untuned = save_packed(packed, target, None, untuned_path)
    fallbacks = [f"{k['node']}: {k['source']}" for k in tuned.choices if k["source"] != "record"]
    return {"tuned": tuned.to_json(), "untuned": untuned.to_json(), "fallbacks": fallbacks}


def _run_file(path: str | Path, inputs: dict[str, np.ndarray], reference: bool):
    """(outputs, timing, device totals, kernels, CPU reference outputs or None) of one run."""
    from tunefarm.recipe.packed_artifact import load_packed

    with load_packed(path) as net:
        got, timing = net.run(inputs)
        totals = net.network.device_totals()
        want = net.run(inputs, on_cpu=True)[0] if reference else None
        return got, timing, totals, net.network.summary(), want


def evaluate_packed(
    graph: Graph, tuned_path: str | Path, untuned_path: str | Path, seed: int = 0
) -> dict[str, Any]:
    """Run both builds on a seeded input (the packed convs on the device's simulator, the rest
    on this CPU) and check the tuned one: bit-exact against the int8 CPU reference (its
    packed convs by their numpy kernels), top-1 against the float network `graph`. The result
    is the job document's `packed` entry."""
    inputs = random_inputs(graph, seed)
    got, tuned, totals, kernels, want = _run_file(tuned_path, inputs, reference=True)
    _, untuned, _, _, _ = _run_file(untuned_path, inputs, reference=False)
    reference = run_graph(graph, inputs)
    name = graph.outputs[0]
    tuned_nodes = {k["node"]: tuned.nodes[k["node"]] * 1e3 for k in kernels}
    untuned_nodes = {k["node"]: untuned.nodes[k["node"]] * 1e3 for k in kernels}
    native = sum(s for n, s in tuned.nodes.items() if ".cpu" in n)
    return {
        "tuned": tuned.to_json(),
        "untuned": untuned.to_json(),
        "cpu_compiled_ms": native * 1e3,  # the float stem and head; the rest of cpu_ms: numpy
        "device": totals,  # cycles of the packed convs and each module's busy share
        "kernels": [
            {**k, "tuned_ms": tuned_nodes[k["node"]], "untuned_ms": untuned_nodes[k["node"]]}
            for k in kernels
        ],
        "top1": int(np.argmax(got[name])),
        "float_top1": int(np.argmax(reference[name])),
        "bit_exact": all(np.array_equal(got[k], want[k]) for k in want),
        "accuracy": accuracy(reference[name], got[name]),
    }
