"""ResNet-50 and FCN-ResNet50 convs one by one, untuned, against ONNX Runtime by CPU time.

Each layer is a one-node ONNX model (Conv with bias, then Relu, as the networks run them
after batch-norm folding) at batch 1; tunefarm compiles it untuned for `cpu -cores=1`,
ONNX Runtime runs it with one intra-op thread, and both are timed by the calling thread's
CPU time (`time.thread_time`), interleaved over `--rounds` rounds of median-of-`--repeat`.
Both sides include their layout reorders around the conv (tunefarm's NCHW -> NCHW[x]c
transforms, ORT's ReorderInput/ReorderOutput), so a ratio compares like with like; on the
small layers those reorders are much of the time, which inside a network neither side pays.
The "kernel" columns are tunefarm's conv alone: the task as a network pins it (blocks of 16,
or 1 for RGB input; bias and ReLU fused) at its default config, loaded in-process and timed
the same way, against ORT's one-node time (reorders included, so ORT's side is an upper
bound). The "winograd" columns are the layer's `conv2d_winograd` task alone, where the
network gives the node that alternative (`backends/cpu/layout.winograd_pays`: 3x3 at stride
1, and at stride 2 from a 14x14 output up), at its default config, timed the same way in the
same rounds. `--config JSON` (repeatable) times the direct kernel at other configs too
(knob values over the default's, e.g. '{"tile_ow": [16, 7], "tile_oc": [1, 4, 16]}'), each
checked against numpy and timed in the same rounds. The whole-model figures come from
`benchmarks/models.py --cores 1 --cpu-time`.

    python benchmarks/resnet_convs.py [--only r50_l3,fcn_] [--rounds 3] [--repeat 5] [--config J]
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

import numpy as np

try:
    import tunefarm  # noqa: F401
except ImportError:  # run from a checkout without the editable install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from _timing import median_ms
from tunefarm.backends import parse_target, registry
from tunefarm.backends.cpu.conv2d import conv_params, network_blocks
from tunefarm.backends.cpu.layout import winograd_pays
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.compiler import compile_graph
from tunefarm.frontend.onnx_import import load_onnx
from tunefarm.measure import Config, MeasureInput
from tunefarm.measure.host import load_host_kernel
from tunefarm.recipe import onnxruntime_session, relative_error
from tunefarm.runtime.executor import GraphExecutor
from tunefarm.task import Task

# name: (input size, in channels, out channels, kernel, stride, dilation)
LAYERS: dict[str, tuple[int, int, int, int, int, int]] = {
    "r50_stem": (224, 3, 64, 7, 2, 1),
    "r50_l1_1x1a": (56, 64, 64, 1, 1, 1),
    "r50_l1_3x3": (56, 64, 64, 3, 1, 1),
    "r50_l1_1x1b": (56, 64, 256, 1, 1, 1),
    "r50_l1_1x1c": (56, 256, 64, 1, 1, 1),
    "r50_l2_1x1a": (56, 256, 128, 1, 1, 1),
    "r50_l2_3x3s2": (56, 128, 128, 3, 2, 1),
    "r50_l2_ds": (56, 256, 512, 1, 2, 1),
    "r50_l2_1x1b": (28, 128, 512, 1, 1, 1),
    "r50_l2_1x1c": (28, 512, 128, 1, 1, 1),
    "r50_l2_3x3": (28, 128, 128, 3, 1, 1),
    "r50_l3_1x1a": (28, 512, 256, 1, 1, 1),
    "r50_l3_3x3s2": (28, 256, 256, 3, 2, 1),
    "r50_l3_ds": (28, 512, 1024, 1, 2, 1),
    "r50_l3_1x1b": (14, 256, 1024, 1, 1, 1),
    "r50_l3_1x1c": (14, 1024, 256, 1, 1, 1),
    "r50_l3_3x3": (14, 256, 256, 3, 1, 1),
    "r50_l4_1x1a": (14, 1024, 512, 1, 1, 1),
    "r50_l4_3x3s2": (14, 512, 512, 3, 2, 1),
    "r50_l4_ds": (14, 1024, 2048, 1, 2, 1),
    "r50_l4_1x1b": (7, 512, 2048, 1, 1, 1),
    "r50_l4_1x1c": (7, 2048, 512, 1, 1, 1),
    "r50_l4_3x3": (7, 512, 512, 3, 1, 1),
    # fcn_resnet50: layers 3 and 4 dilated instead of strided, so they stay at 28x28
    "fcn_l3_3x3d2": (28, 256, 256, 3, 1, 2),
    "fcn_l3_1x1b": (28, 256, 1024, 1, 1, 1),
    "fcn_l3_1x1c": (28, 1024, 256, 1, 1, 1),
    "fcn_l4_1x1a": (28, 1024, 512, 1, 1, 1),
    "fcn_l4_3x3d4": (28, 512, 512, 3, 1, 4),
    "fcn_l4_1x1b": (28, 512, 2048, 1, 1, 1),
    "fcn_l4_1x1c": (28, 2048, 512, 1, 1, 1),
    "fcn_head_3x3": (28, 2048, 512, 3, 1, 1),
    # squeezenet1_1's classifier: 512 -> 1000 on 13x13, run padded to 1008 (63 blocks of 16)
    "sq_cls": (13, 512, 1008, 1, 1, 1),
}


def conv_model(size: int, c: int, o: int, k: int, stride: int, dil: int, seed: int = 0):
    """Conv(x, W, b) -> Relu as an ONNX model, weights as initializers."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((o, c, k, k)) / math.sqrt(c * k * k)).astype(np.float32)
    b = rng.standard_normal(o).astype(np.float32)
    pad = dil * (k // 2)
    conv = helper.make_node(
        "Conv", ["x", "w", "b"], ["c"], kernel_shape=[k, k], strides=[stride] * 2,
        pads=[pad] * 4, dilations=[dil] * 2,
    )  # fmt: skip
    relu = helper.make_node("Relu", ["c"], ["y"])
    graph = helper.make_graph(
        [conv, relu],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    feeds = {"x": rng.standard_normal((1, c, size, size)).astype(np.float32)}
    return model, feeds


def layer_task(name: str, op: str = "conv2d") -> Task:
    """The layer's task as a one-core network pins it (`network_blocks` for the host's
    vector width: blocks of 16 with AVX-512, 8 with AVX2, 1 for RGB input; bias and ReLU
    fused)."""
    size, c, o, k, stride, dil = LAYERS[name]
    lanes = vector_lanes(parse_target("cpu -cores=1"))
    return Task.make(
        op, target="cpu -cores=1", data=(1, c, size, size), weight=(o, c, k, k),
        strides=stride, padding=dil * (k // 2), dilation=dil, epilogue=("bias", "relu"),
        blocks=network_blocks(c, o, lanes),
    )  # fmt: skip


def conv_kernel(name: str, workdir: Path, op: str = "conv2d", overrides: dict | None = None):
    """The layer's `op` kernel alone (conv2d or conv2d_winograd), as a one-core network
    compiles it, at its default config or with `overrides` of its knobs: (kernel, its
    config). Checked against the numpy reference before it is timed."""
    return task_kernel(layer_task(name, op), workdir, overrides)


def task_kernel(task: Task, workdir: Path, overrides: dict | None = None):
    """`task`'s kernel alone at its default config or with `overrides` of its knobs:
    (kernel, its config), checked against the numpy reference."""
    name = task.op
    values = registry.default_config(task).as_dict()
    for knob, value in (overrides or {}).items():
        values[knob] = tuple(value) if isinstance(value, list) else value
    inp = MeasureInput(task, Config.make(values))
    with registry.local_builder(n_parallel=1, cache_dir=workdir) as builder:
        (built,) = builder.build([inp])
    if not built.ok:
        raise RuntimeError(f"{name}: {built.error_msg[:300]}")
    io = registry.reference_io(inp, 0)
    kernel = load_host_kernel(built.artifact, io.args)
    kernel.run()
    want = io.expected[len(io.args) - 1]
    err = float(np.max(np.abs(kernel.outputs()[-1] - want)) / np.max(np.abs(want)))
    assert err <= 1e-4, (name, err)
    return kernel, inp.config.as_dict()


def bench(name: str, rounds: int, repeat: int, workdir: Path, configs: list[dict]) -> dict:
    size, c, o, k, stride, dil = LAYERS[name]
    model, feeds = conv_model(size, c, o, k, stride, dil)
    path = workdir / f"{name}.onnx"
    path.write_bytes(model.SerializeToString())
    compile_graph(load_onnx(path), "cpu -cores=1").save(workdir / "net.tfa")
    net = GraphExecutor.load(workdir / "net.tfa")
    session = onnxruntime_session(model, threads=1)
    err = relative_error(net.run(feeds), {"y": session.run(None, feeds)[0]})
    kernel, config = conv_kernel(name, workdir)
    wino = None
    if winograd_pays(conv_params(layer_task(name))):
        wino, _ = conv_kernel(name, workdir, "conv2d_winograd")
    others = [conv_kernel(name, workdir, overrides=c)[0] for c in configs]
    ort_ms, tf_ms, kernel_ms, wino_ms = [], [], [], []
    other_ms: list[list[float]] = [[] for _ in others]
    for _ in range(rounds):
        ort_ms.append(median_ms(lambda: session.run(None, feeds), repeat, time.thread_time))
        tf_ms.append(median_ms(lambda: net.run(feeds), repeat, time.thread_time))
        kernel_ms.append(median_ms(kernel.run, repeat, time.thread_time))
        if wino is not None:
            wino_ms.append(median_ms(wino.run, repeat, time.thread_time))
        for other, times in zip(others, other_ms, strict=True):
            times.append(median_ms(other.run, repeat, time.thread_time))
    for other in others:
        other.close()
    kernel.close()
    if wino is not None:
        wino.close()
    out = (size + 2 * dil * (k // 2) - dil * (k - 1) - 1) // stride + 1
    gflop = 2 * o * out * out * c * k * k / 1e9
    ort, tf, alone = (statistics.median(x) for x in (ort_ms, tf_ms, kernel_ms))
    return dict(
        name=name, gflop=gflop, ort_ms=ort, tf_ms=tf, ratio=tf / ort, kernel_ms=alone,
        kernel_ratio=alone / ort, rel_err=err, config=config,
        winograd_ms=statistics.median(wino_ms) if wino_ms else None,
        configs=[(c, statistics.median(t)) for c, t in zip(configs, other_ms, strict=True)],
    )  # fmt: skip


def _wino(r: dict) -> str:
    """The Winograd kernel's ms and its ratio to ORT's time, or dashes where the node has
    no such alternative."""
    if r["winograd_ms"] is None:
        return "- | -"
    return f"{r['winograd_ms']:.2f} | {r['winograd_ms'] / r['ort_ms']:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated layer-name prefixes")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--config", action="append", type=json.loads, default=[],
        help="knob values over the direct kernel's default, as JSON (repeatable)",
    )  # fmt: skip
    args = ap.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    names = [n for n in LAYERS if not prefixes or any(n.startswith(p) for p in prefixes)]
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| layer | GFLOP | ORT ms | tunefarm ms | ratio | kernel ms | kernel ratio "
        "| ORT GFLOP/s | kernel GFLOP/s | tile (cols x vectors, passes) "
        "| winograd ms | winograd ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    ratios, kernel_ratios = [], []
    with tempfile.TemporaryDirectory(prefix="tf-convs-") as tmp:
        for name in names:
            r = bench(name, args.rounds, args.repeat, Path(tmp), args.config)
            assert r["rel_err"] <= 1e-4, (name, r["rel_err"])
            ratios.append(r["ratio"])
            kernel_ratios.append(r["kernel_ratio"])
            cfg = r["config"]
            tile = f"{cfg['tile_ow'][1]} x {cfg['tile_oc'][1]}, {cfg.get('ic_passes', 1)}"
            print(
                f"| {name} | {r['gflop']:.3f} | {r['ort_ms']:.2f} | {r['tf_ms']:.2f} | "
                f"{r['ratio']:.2f} | {r['kernel_ms']:.2f} | {r['kernel_ratio']:.2f} | "
                f"{r['gflop'] / r['ort_ms'] * 1e3:.0f} | "
                f"{r['gflop'] / r['kernel_ms'] * 1e3:.0f} | {tile} | {_wino(r)} |",
                flush=True,
            )
            for cfg, ms in r["configs"]:
                print(
                    f"  config {json.dumps(cfg)}: {ms:.2f} ms, {ms / r['ort_ms']:.2f}x ORT, "
                    f"{r['gflop'] / ms * 1e3:.0f} GFLOP/s",
                    flush=True,
                )

    def geo(xs: list[float]) -> float:
        return math.exp(statistics.fmean(math.log(x) for x in xs))

    print(
        f"geomean ratio {geo(ratios):.3f}, kernel alone {geo(kernel_ratios):.3f}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
