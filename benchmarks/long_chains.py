"""Import and compile ONNX chains of N Relu nodes with `tunefarm compile`, each in a fresh
process, and report its CPU time (user + system of the child) and wall time.

Why: a fuzz corpus's chains of 20,000 and 100,000 nodes did not compile within 120 s on a
busy 2-core host (issue 25): memory placement compared every temp with every other, and the
C driver was one statement per call, which the C compiler handles in superlinear time. CPU
time is the figure to compare on a shared host; wall time says how loaded it was.

    .venv/bin/python benchmarks/long_chains.py [--sizes 20000,100000] [--json FILE]

TUNEFARM_MAX_NODES is raised for the run (its default, 50,000, refuses the larger chain).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def chain_model(n: int) -> bytes:
    from onnx import TensorProto, helper

    names = ["x", *(f"t{i}" for i in range(1, n)), "y"]
    nodes = [helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(n)]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    graph = helper.make_graph(nodes, "chain", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def measure(n: int, tmp: Path) -> dict:
    model = tmp / f"chain{n}.onnx"
    model.write_bytes(chain_model(n))
    env = {**os.environ, "TUNEFARM_MAX_NODES": str(max(n, 50_000))}
    cmd = [sys.executable, "-m", "tunefarm", "compile", str(model), "-o", str(tmp / "c.tfa")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "nodes": n,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "ok": proc.returncode == 0,
        "load_avg": os.getloadavg()[0],
        "last_line": proc.stdout.strip().splitlines()[-1:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,100000")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tunefarm-chains-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            rows.append(measure(n, Path(tmp)))
            print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"cpus": os.cpu_count(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
