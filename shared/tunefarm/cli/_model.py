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


def target(args: argparse.Namespace) -> str:
    """The canonical --target of a network command; CommandError if its backend does not
    compile whole networks."""
    from tunefarm.backends import TargetError, check_networks

    text = str(checked_target(args.target))
    try:
        check_networks(text)
    except TargetError as exc:
        raise CommandError(f"--target: {exc}") from None
    return text


def load(args: argparse.Namespace) -> tuple[Any, Any]:
    """(ONNX model, optimised graph); CommandError with the frontend's message."""
    from tunefarm.frontend.models import load_model
    from tunefarm.frontend.onnx_import import FrontendError
    from tunefarm.frontend.zoo import ZooError
    from tunefarm.graph.ir import GraphError

    try:
        return load_model(args.model, dict(args.input_shape) or None, batch=args.batch)
    except (FrontendError, ZooError, GraphError) as exc:
        raise CommandError(str(exc)) from None
