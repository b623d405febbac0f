"""Compiled networks of one ONNX export, side by side with ONNX Runtime, one core.

    tunefarm compile M.onnx --target "cpu -cores=1" -o head.tfa           # this checkout
    (cd MAIN && tunefarm compile M.onnx --target "cpu -cores=1" -o main.tfa)
    python benchmarks/artifacts_ab.py M.onnx main=main.tfa head=head.tfa --rounds 3

Each artifact was compiled beforehand by whichever checkout's code it stands for (the
compiles are the slow part, and they run in parallel that way); here each is loaded, checked
against ONNX Runtime on the export's saved input, and ORT and every artifact are timed in
interleaved rounds by the calling thread's CPU time (each round: the median of `--repeat`
runs of each). Per label: the median over rounds of its ms and of its ratio to ORT's;
`--profile`: each artifact's share of its run per kernel kind (dense, attention, ...).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import machine_info  # noqa: E402
from _timing import median_ms  # noqa: E402
from transformers_tuned import kind_shares  # noqa: E402
from tunefarm.recipe import onnxruntime_session, relative_error  # noqa: E402
from tunefarm.runtime.executor import GraphExecutor  # noqa: E402


def labelled(text: str) -> tuple[str, Path]:
    """LABEL=PATH of a compiled network."""
    label, sep, path = text.partition("=")
    if not sep or not label or not Path(path).is_file():
        raise argparse.ArgumentTypeError(f"expected LABEL=NET.tfa of an existing file: {text!r}")
    return label, Path(path)


def timed(session, nets: dict, feeds: dict, rounds: int, repeat: int) -> dict:
    """ORT and every net in the same rounds, by thread CPU time."""
    clock = time.thread_time
    ms: dict[str, list[float]] = {"ort": [], **{label: [] for label in nets}}
    loads = []
    for _ in range(rounds):
        loads.append(os.getloadavg()[0])
        ms["ort"].append(median_ms(lambda: session.run(None, feeds), repeat, clock))
        for label, net in nets.items():
            ms[label].append(median_ms(lambda net=net: net.run(feeds), repeat, clock))
    row: dict = {"load_avg_1m": [round(x, 1) for x in loads]}
    row["ort_ms"] = [round(x, 2) for x in ms["ort"]]
    for label in nets:
        ratios = [b / a for a, b in zip(ms["ort"], ms[label], strict=True)]
        row[label] = {
            "ms": [round(x, 2) for x in ms[label]],
            "median_ms": round(statistics.median(ms[label]), 2),
            "ratio": round(statistics.median(ratios), 3),
        }
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path, help="the ONNX export (its NAME.inputs.npz beside it)")
    ap.add_argument("nets", type=labelled, nargs="+", help="LABEL=NET.tfa, compiled -cores=1")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="per-kernel-kind shares per net")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    inputs = args.model.with_name(args.model.name.replace(".onnx", ".inputs.npz"))
    feeds = dict(np.load(inputs))
    feeds.pop("__output__", None)
    session = onnxruntime_session(onnx.load(str(args.model)), threads=1)
    names = [o.name for o in session.get_outputs()]
    want = dict(zip(names, session.run(None, feeds), strict=True))
    nets = {label: GraphExecutor.load(path) for label, path in args.nets}
    row: dict = {"model": args.model.name, "clock": "thread CPU time"}
    row["rel_err"] = {label: relative_error(net.run(feeds), want) for label, net in nets.items()}
    row.update(timed(session, nets, feeds, args.rounds, args.repeat))
    if args.profile:
        row["profile_pct"] = {label: kind_shares(net) for label, net in nets.items()}
    doc = {"machine": machine_info(), "row": row}
    print(json.dumps(doc))
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
