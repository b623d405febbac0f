"""`tunefarm run`: run a compiled network on inputs from an .npz file, outputs to an .npz.

tunefarm run net.tfa --inputs in.npz -o out.npz      # arrays named by the ONNX names
tunefarm run net.tfa --random-inputs 0 -o out.npz    # seeded uniform [-1, 1) inputs
                                                     # (ints: token ids below the vocab
                                                     # size, 0/1 masks)

A packed network (`tunefarm compile --target vta --quantize int8`) runs split between this CPU
and the accelerator's simulator; the command also prints the top-1 class and the time: the
accelerator's simulated at its clock, the CPU parts measured here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tunefarm.cli import CommandError

HELP = "run a compiled network (.tfa) on inputs from an .npz file"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("artifact", metavar="NET.tfa", help="a compiled network")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--inputs", metavar="IN.npz", help="input arrays by input name")
    src.add_argument("--random-inputs", type=int, metavar="SEED", help="random inputs instead")
    p.add_argument("-o", "--output", metavar="OUT.npz", help="write the outputs here")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def load_executor(path: str):
    from tunefarm.runtime.artifact import ArtifactError
    from tunefarm.runtime.executor import GraphExecutor

    try:
        return GraphExecutor.load(path)
    except ArtifactError as exc:
        raise CommandError(str(exc)) from None


def _inputs(args: argparse.Namespace, ex, info: dict | None = None) -> dict:
    """The inputs by name; `info` (name -> (shape, dtype)) defaults to the executor's."""
    import numpy as np

    info = info if info is not None else ex.input_info()
    if args.inputs is None:
        rng = np.random.default_rng(args.random_inputs)
        ranges = (ex.manifest.get("input_ranges") if ex is not None else None) or {}
        return {
            n: rng.integers(*ranges.get(n, (0, 2)), size=s).astype(d)
            if np.dtype(d).kind in "iu"
            else rng.uniform(-1, 1, size=s).astype(d)
            for n, (s, d) in info.items()
        }
    if not Path(args.inputs).is_file():
        raise CommandError(f"--inputs {args.inputs!r}: no such file")
    try:
        with np.load(args.inputs, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except Exception as exc:
        raise CommandError(f"--inputs {args.inputs!r}: not a readable .npz file ({exc})") from None
    missing = [n for n in info if n not in arrays]
    extra = [n for n in arrays if n not in info]
    if missing or extra:
        want = ", ".join(f"{n}{list(s)}" for n, (s, _) in info.items())
        raise CommandError(
            f"--inputs {args.inputs!r}: missing {missing}, unknown {extra}; "
            f"the network takes {want}"
        )
    return arrays


def _run_packed(args: argparse.Namespace) -> tuple[dict, dict]:
    """Outputs and the time split of a packed network's run."""
    from tunefarm.recipe.packed_artifact import PackedArtifactError, load_packed

    try:
        net = load_packed(args.artifact)
    except PackedArtifactError as exc:
        raise CommandError(str(exc)) from None
    with net:
        info = {v.name: (tuple(v.shape), v.dtype) for v in net.graph.inputs}
        outputs, timing = net.run(_inputs(args, None, info))
        device = net.network.device_totals()
    name = net.graph.outputs[0]
    top1 = int(outputs[name].reshape(outputs[name].shape[0], -1)[0].argmax())
    packed = {"target": net.target, "top1": top1, **timing.to_json(), "device": device}
    return outputs, packed


def _print_packed(packed: dict) -> None:
    print(f"top-1 class: {packed['top1']}")
    print(f"time: accelerator {packed['accel_ms']:.3f} ms (simulated, {packed['target']}) + "
          f"CPU {packed['cpu_ms']:.3f} ms = {packed['total_ms']:.3f} ms")  # fmt: skip
    device = packed.get("device")
    if device:
        shares = ", ".join(f"{m} {v:.0%}" for m, v in device["busy_share"].items())
        print(f"accelerator: {device['cycles']} cycles; busy: {shares}")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tunefarm.recipe.packed_artifact import is_packed_artifact
    from tunefarm.runtime.executor import ExecutorError

    packed = ex = None
    if is_packed_artifact(args.artifact):
        outputs, packed = _run_packed(args)
    else:
        ex = load_executor(args.artifact)
        try:
            outputs = ex.run(_inputs(args, ex))
        except ExecutorError as exc:
            raise CommandError(str(exc)) from None
    if args.output:
        np.savez(args.output, **outputs)
    summary = {
        name: {
            "shape": list(a.shape),
            "dtype": str(a.dtype),
            "min": float(a.min()),
            "max": float(a.max()),
            "argmax": int(a.reshape(a.shape[0], -1)[0].argmax()),
        }
        for name, a in outputs.items()
    }
    quant = ex.manifest.get("quantization") if ex is not None else None
    if args.json:
        doc = {"outputs": summary, "written": args.output}
        if quant is not None:  # an int8 network: its accuracy against the float one
            doc["quantization"] = quant
        if packed is not None:
            doc["packed"] = packed
        print(json.dumps(doc, indent=2))
    else:
        for name, s in summary.items():
            print(
                f"{name}: shape {s['shape']} {s['dtype']}, min {s['min']:.4g}, "
                f"max {s['max']:.4g}, argmax {s['argmax']}"
            )
        if packed is not None:
            _print_packed(packed)
        if args.output:
            print(f"outputs written to {args.output}")
    return 0
