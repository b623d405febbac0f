"""Load a model for a network job: an ONNX file or a zoo model, imported and optimised.

model, graph = load_model("zoo:resnet-18")       # or "resnet.onnx", or ONNX bytes
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tunefarm.frontend import zoo
from tunefarm.frontend.onnx_import import FrontendError, load_onnx, read_model
from tunefarm.graph.ir import Graph
from tunefarm.graph.passes import optimize
from tunefarm.graph.passes.qdq import fold_qdq

ZOO_PREFIX = "zoo:"


def load_model(
    source: str | os.PathLike | bytes | Any,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    batch: int = 1,
) -> tuple[Any, Graph]:
    """(ONNX model, optimised graph) of a model file, of a zoo model named "zoo:NAME" (or a
    bare zoo name when no file of that name exists) built at `batch`, or of an ONNX model
    given as bytes or a ModelProto."""
    model: Any = source
    name = None
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        zoo_name = text[len(ZOO_PREFIX) :] if text.startswith(ZOO_PREFIX) else None
        if zoo_name is None and not Path(text).exists() and text in zoo.names():
            zoo_name = text
        if zoo_name is not None:
            model, name = zoo.build(zoo_name, batch=batch), zoo_name
        elif not Path(text).exists():
            raise FrontendError(
                f"{text}: no such model file (zoo models: "
                f"{', '.join(ZOO_PREFIX + n for n in zoo.names())})"
            )
        elif text.endswith(".npz"):  # a saved graph, e.g. the int8 one `tunefarm quantize` writes
            return None, Graph.load(text)
        else:
            model, name = read_model(text)[0], Path(text).stem
    graph = load_onnx(model, input_shapes=input_shapes, name=name)
    return model, optimize(fold_qdq(graph))
