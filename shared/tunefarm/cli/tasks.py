"""`tunefarm tasks`: the tuning tasks of a network (index, workload key, shapes, weight, FLOPs).

    tunefarm tasks model.onnx --target "cpu -isa=avx512"
    tunefarm tasks zoo:resnet-18 --json > resnet18_tasks.json   # input of tune-tasks
    tunefarm tasks zoo:resnet-18 --target vta --quantize int8   # the packed convs (graph_pack)
    tunefarm tasks zoo:inception-v3 --policy sketch   # + pools, concats, ... (compiler.tasks)

The tasks are the distinct fused conv2d/dense subgraphs of the optimised graph; the weight is
how often each occurs. With `--policy sketch` or `auto`, every other kernel the network runs
with a visible share of its time (pools, concats, elementwise ops, softmax, transforms) is a
task too, in the physical shapes and layouts the compiled network calls it with. `--json`
prints the TASKS.json document `tunefarm tune-tasks` reads.
"""

from __future__ import annotations

import argparse
import json

from tunefarm.cli import CommandError
from tunefarm.cli._args import add_policy_argument, add_target_argument
from tunefarm.cli._model import add_model_arguments, add_packed_arguments, load, packed_flow, target

HELP = "print the tuning tasks of a network (ONNX file or zoo model)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_model_arguments(p)
    add_target_argument(p)
    add_packed_arguments(p)
    add_policy_argument(p)
    p.add_argument("--json", action="store_true", help="print a TASKS.json document")


def run(args: argparse.Namespace) -> int:
    from tunefarm.compiler import CompileError
    from tunefarm.compiler.tasks import network_tasks
    from tunefarm.recipe import print_tasks

    tgt = target(args, packed_ok=True)
    _, graph = load(args)
    if packed_flow(args, tgt):
        return _packed(args, graph, tgt)
    if args.quantize:
        raise CommandError(
            f"--quantize int8 here is the packed flow of the vta target, not {tgt!r}; the "
            "int8 CPU tasks come with `tunefarm tune MODEL --quantize int8`"
        )
    try:
        tasks = network_tasks(graph, tgt, args.policy)
    except CompileError as exc:  # the light ops come from the compiler's lowering
        raise CommandError(str(exc)) from None
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


def _packed(args: argparse.Namespace, graph, tgt: str) -> int:
    """The packed convs of the graph_pack'ed network, as a table or a TASKS.json."""
    import sys

    from tunefarm.graph.ir import GraphError
    from tunefarm.graph.passes.graph_pack import packed_tasks
    from tunefarm.recipe.packed import pack_for_target, print_packed_tasks

    try:
        packed = pack_for_target(graph, tgt, args.global_scale)
    except GraphError as exc:
        raise CommandError(str(exc)) from None
    tasks = packed_tasks(packed, tgt)
    if not args.json:
        print_packed_tasks(tasks, sys.stdout)
        return 0
    doc = {
        "network": graph.name,
        "target": tgt,
        "tasks": [
            {
                "op": t.op,
                "dtype": "int8",
                "params": t.to_json()["params"],
                "weight": n,
                "workload_key": t.workload_key,
            }
            for t, n in tasks
        ],
    }
    print(json.dumps(doc, indent=2))
    return 0
