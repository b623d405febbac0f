"""`tunefarm zoo`: write a standard CNN (ResNet, MobileNet, ...) or a BERT encoder as ONNX
with random weights.

    tunefarm zoo resnet-50 -o resnet50.onnx --batch 8
    tunefarm zoo inception-v3 -o inc.onnx --image-size 149 --opset 11 --json
    tunefarm zoo --list                   # or `tunefarm zoo list`: names, shapes, sizes

No download is possible where tunefarm runs, so these stand in for the pretrained models:
the structure and parameter count are the published ones, only the weights are random
(reproducible with --seed). Input "data" is (batch, 3, H, W) float32, output "output" the
(batch, 1000) logits; bert-base and bert-tiny take int64 input_ids, attention_mask and
token_type_ids of (batch, seq), seq = --image-size (default 128). Every action takes `--json`
for one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import asdict
from typing import Any

from tunefarm.cli import CommandError
from tunefarm.cli._args import number

NAME = "zoo"
HELP = "write a standard CNN (resnet-50, ...) or BERT as ONNX with random weights"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """NAME -o FILE with the build options, or --list."""
    p.add_argument("name", nargs="?", metavar="NAME", help="a model name, or `list`")
    p.add_argument("-o", "--output", metavar="FILE", help="the .onnx file to write")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("--batch", type=number(int, 1), default=1, metavar="N", help="batch size")
    p.add_argument(
        "--image-size",
        type=number(int, 1),
        metavar="S",
        help="input height and width (default 224, 299 for inception-v3); BERT: sequence length",
    )
    p.add_argument("--seed", type=number(int, 0), default=0, metavar="K", help="weights' seed")
    p.add_argument(
        "--opset", type=int, metavar="V", help="ONNX opset (default 13; BERT: 17, the only one)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _shape(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def _list(as_json: bool) -> int:
    """Every model at its default size, described without drawing weights."""
    from tunefarm.frontend import zoo

    infos = [asdict(zoo.describe(name)) for name in zoo.names()]
    if as_json:
        print(json.dumps({"models": infos}, indent=2))
        return 0
    rows = [["name", "input", "nodes", "params"]]
    rows += [
        [i["name"], _shape(i["input_shape"]), str(i["nodes"]), f"{i['params']:,}"] for i in infos
    ]
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        print("  ".join([*cells, r[2].rjust(widths[2]), r[3].rjust(widths[3])]))
    return 0


def _write(args: argparse.Namespace) -> dict[str, Any]:
    """Build and save the model; what was written, as the JSON document."""
    from tunefarm.frontend import zoo

    try:
        info = zoo.describe(args.name, args.batch, args.image_size, args.opset)  # checks first
        if not args.output:
            raise CommandError("give the file to write with -o FILE")
        model = zoo.save(args.name, args.output, args.batch, args.seed, args.image_size, args.opset)
    except zoo.ZooError as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    dims = model.graph.input[0].type.tensor_type.shape.dim
    return {
        "name": args.name,
        "path": args.output,
        "inputs": [i.name for i in model.graph.input],
        "input_dtype": "int64" if args.name.startswith("bert") else "float32",
        "input_shape": [d.dim_value for d in dims],
        "output_shape": list(info.output_shape),
        "nodes": len(model.graph.node),
        "params": zoo.param_count(model),
        "bytes": os.path.getsize(args.output),
        "opset": info.opset,
        "seed": args.seed,
    }


def run(args: argparse.Namespace) -> int:
    if args.list or args.name == "list":
        return _list(args.json)
    if args.name is None:
        raise CommandError("give a model NAME (see `tunefarm zoo --list`)")
    doc = _write(args)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"wrote {doc['name']} to {doc['path']} ({doc['bytes'] / 1e6:.1f} MB)")
    shapes = _shape(doc["input_shape"]), _shape(doc["output_shape"])
    ins = ", ".join(doc["inputs"])
    print(f"  input   {ins} {shapes[0]} {doc['input_dtype']} -> output {shapes[1]}")
    print(f"  nodes   {doc['nodes']} (opset {doc['opset']})")
    print(f"  params  {doc['params']:,} (random, seed {doc['seed']})")
    return 0
