"""`tunefarm run`: run a compiled network on inputs from an .npz file, outputs to an .npz.

tunefarm run net.tfa --inputs in.npz -o out.npz      # arrays named by the ONNX names
tunefarm run net.tfa --random-inputs 0 -o out.npz    # seeded uniform [-1, 1) inputs
                                                     # (ints: token ids below the vocab
                                                     # size, 0/1 masks)
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


def _inputs(args: argparse.Namespace, ex) -> dict:
    import numpy as np

    info = ex.input_info()
    if args.inputs is None:
        rng = np.random.default_rng(args.random_inputs)
        ranges = ex.manifest.get("input_ranges") or {}
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


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tunefarm.runtime.executor import ExecutorError

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
    quant = ex.manifest.get("quantization")
    if args.json:
        doc = {"outputs": summary, "written": args.output}
        if quant is not None:  # an int8 network: its accuracy against the float one
            doc["quantization"] = quant
        print(json.dumps(doc, indent=2))
    else:
        for name, s in summary.items():
            print(
                f"{name}: shape {s['shape']} {s['dtype']}, min {s['min']:.4g}, "
                f"max {s['max']:.4g}, argmax {s['argmax']}"
            )
        if args.output:
            print(f"outputs written to {args.output}")
    return 0
