"""`tunefarm tasks`: the tuning tasks of a network (index, workload key, shapes, weight, FLOPs).

    tunefarm tasks model.onnx --target "cpu -isa=avx512"
    tunefarm tasks zoo:resnet-18 --json > resnet18_tasks.json   # input of tune-tasks

The tasks are the distinct fused conv2d/dense subgraphs of the optimised graph; the weight is
how often each occurs. `--json` prints the TASKS.json document `tunefarm tune-tasks` reads.
"""

from __future__ import annotations

import argparse
import json

from tunefarm.cli._args import add_target_argument
from tunefarm.cli._model import add_model_arguments, load, target

HELP = "print the tuning tasks of a network (ONNX file or zoo model)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    add_target_argument(p)
    p.add_argument("--json", action="store_true", help="print a TASKS.json document")


def run(args: argparse.Namespace) -> int:
    from tunefarm.graph.extract import extract_tasks
    from tunefarm.recipe import print_tasks

    tgt = target(args)
    _, graph = load(args)
    tasks = extract_tasks(graph, tgt)
    if args.json:
        doc = {
            "network": graph.name,
            "target": tgt,
            "tasks": [
                {
                    "name": t.describe(graph),
                    "op": t.task.op,
                    "dtype": "int8" if t.task.op.endswith("_int8") else "float32",
                    "params": t.task.to_json()["params"],
                    "weight": t.weight,
                    "workload_key": t.task.workload_key,
                    "flops": t.flops,
                    "nodes": list(t.nodes),
                    "group": t.group,
                }
                for t in tasks
            ],
        }
        print(json.dumps(doc, indent=2))
    else:
        print_tasks(tasks, graph)
    return 0
