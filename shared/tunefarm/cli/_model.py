"""Arguments shared by the network commands (tasks, tune, compile): the model to load and
its input shapes (not a command: the leading "_" hides it from main)."""

from __future__ import annotations

import argparse
from typing import Any

from tunefarm.cli import CommandError
from tunefarm.cli._args import checked_target, number


def input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """NAME:D1,D2,... as given to --input-shape."""
    name, sep, dims = text.rpartition(":")
    try:
        shape = tuple(int(d) for d in dims.split(","))
    except ValueError:
        shape = ()
    if not sep or not name or not shape or min(shape) < 1:
        raise argparse.ArgumentTypeError(
            f"expected NAME:D1,D2,... with positive dims (e.g. data:1,3,224,224), got {text!r}"
        )
    return name, shape


def add_model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "model",
        metavar="MODEL",
        help="an ONNX file or zoo:NAME (e.g. zoo:resnet-18; see tunefarm zoo --list)",
    )
    p.add_argument(
        "--input-shape",
        type=input_shape,
        action="append",
        default=[],
        metavar="NAME:DIMS",
        help="static shape of an input with dynamic dims, e.g. data:1,3,224,224 (repeatable)",
    )
    p.add_argument("--batch", type=number(int, 1), default=1, help="batch size of zoo models")


def add_packed_arguments(p: argparse.ArgumentParser) -> None:
    """--quantize int8 and --global-scale of the packed (VTA) network flow."""
    p.add_argument(
        "--quantize",
        choices=("int8",),
        help="with --target vta: quantize the network's body to int8 with power-of-two "
        "scales and pack it for the accelerator (graph_pack), as the VTA tutorial",
    )
    p.add_argument(
        "--global-scale",
        type=number(float, 0.0, strict=True),
        default=8.0,
        help="activation range [-g, g] of the packed flow, g / 128 a power of two (default 8)",
    )


def target(args: argparse.Namespace, packed_ok: bool = False) -> str:
    """The canonical --target, of a backend that compiles whole networks (or, where the
    command runs the packed flow, `packed_ok`, one that packs them with --quantize int8)."""
    from tunefarm.backends import get_backend, network_target_error

    parsed = checked_target(args.target)
    problem = network_target_error(parsed.kind)
    packs = hasattr(get_backend(parsed.kind), "pack_blocks")
    if packed_ok and packs and getattr(args, "quantize", None) == "int8":
        return str(parsed)
    if problem:
        raise CommandError(f"--target {str(parsed)!r}: {problem}")
    return str(parsed)


def packed_flow(args: argparse.Namespace, tgt: str) -> bool:
    """Whether a network command runs the packed flow: --quantize int8 on a target whose
    backend packs networks (vta); other targets quantize their own way (the int8 pass)."""
    from tunefarm.backends import get_backend, parse_target

    if getattr(args, "quantize", None) != "int8":
        return False
    return hasattr(get_backend(parse_target(tgt).kind), "pack_blocks")


def load(args: argparse.Namespace) -> tuple[Any, Any]:
    """(ONNX model, optimised graph); CommandError with the frontend's message."""
    from pathlib import Path

    from tunefarm.cli._files import input_file
    from tunefarm.frontend.models import load_model
    from tunefarm.frontend.onnx_import import FrontendError
    from tunefarm.frontend.zoo import ZooError
    from tunefarm.graph.ir import GraphError

    if Path(args.model).exists():  # else a zoo name, or the frontend's "no such model file"
        input_file(args.model, "MODEL", what="model (.onnx, or a .npz graph)")
    try:
        model, graph = load_model(args.model, dict(args.input_shape) or None, batch=args.batch)
    except (FrontendError, ZooError, GraphError) as exc:
        raise CommandError(str(exc)) from None
    if not graph.inputs:
        raise CommandError(
            f"MODEL {args.model!r} has no inputs: its output is a constant, there is nothing "
            "to tune or run (export the model with its input tensors)"
        )
    return model, graph
