"""Resource limits of the importer: how large one tensor may be, checked before it exists.

Why a per-tensor budget: a model of a few hundred bytes can declare an input of
[5, 1024, 1024, 1024] or fold a ConstantOfShape, Expand, Range or Tile to gigabytes; without
a limit the importer (or the compiled network) allocates that and dies, taking its worker
with it. So every tensor the import would create -- a declared input, an initializer, a
folded constant, a graph value -- is sized from its shape and dtype first and refused when
it would exceed the budget, with the node, the bytes and the limit in the message.

The budget is `DEFAULT_MAX_TENSOR_BYTES` (1 GiB), or the environment variable
TUNEFARM_MAX_TENSOR_BYTES (bytes, read once, on first use), or the `max_tensor_bytes`
argument of `load_onnx`, which wins over both.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

__all__ = [
    "DEFAULT_MAX_NODES",
    "DEFAULT_MAX_TENSOR_BYTES",
    "count_nodes",
    "default_max_nodes",
    "nodes_problem",
    "ENV_MAX_TENSOR_BYTES",
    "default_max_tensor_bytes",
    "fmt_bytes",
    "over_budget",
    "predict_outputs",
    "tensor_bytes",
]

DEFAULT_MAX_TENSOR_BYTES = 1 << 30
ENV_MAX_TENSOR_BYTES = "TUNEFARM_MAX_TENSOR_BYTES"
# Nodes of one model (graph, subgraphs, functions). Import and compile are linear in them
# (100,000 chained nodes: ~20 s of CPU); past this a model is refused before any work.
DEFAULT_MAX_NODES = 50_000
ENV_MAX_NODES = "TUNEFARM_MAX_NODES"
# Ops whose output size is set by the values of small inputs rather than by input sizes: their
# folded size must be known before they are evaluated, or they are not folded at all.
GENERATORS = frozenset({"ConstantOfShape", "Expand", "Range", "Tile"})
SMALL_DATA = 1 << 16  # inputs up to this many elements are given to shape inference as data


def max_tensor_bytes_from(environ: Mapping[str, str]) -> int:
    """The budget an environment gives (the default when the variable is unset); ValueError
    naming the variable for anything but a positive integer."""
    text = environ.get(ENV_MAX_TENSOR_BYTES, "").strip()
    if not text:
        return DEFAULT_MAX_TENSOR_BYTES
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{ENV_MAX_TENSOR_BYTES}={text!r} must be a positive number of bytes")
    return value


def max_nodes_from(environ: Mapping[str, str]) -> int:
    """The node limit an environment gives (TUNEFARM_MAX_NODES, else 50,000)."""
    text = environ.get(ENV_MAX_NODES, "").strip()
    if not text:
        return DEFAULT_MAX_NODES
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise ValueError(f"{ENV_MAX_NODES}={text[:20]!r} must be a positive number of nodes")
    return int(text)


@functools.cache
def default_max_nodes() -> int:
    """The process-wide node limit: TUNEFARM_MAX_NODES, read once, or 50,000."""
    return max_nodes_from(os.environ)


def count_nodes(model: onnx.ModelProto) -> int:
    """Nodes of the graph, its subgraphs (iteratively: they can nest deeply) and functions."""
    total, stack = 0, [model.graph, *(onnx.GraphProto(node=f.node) for f in model.functions)]
    while stack:
        graph = stack.pop()
        total += len(graph.node)
        for node in graph.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    stack.append(attr.g)
                stack.extend(attr.graphs)
    return total


def nodes_problem(model: onnx.ModelProto, limit: int | None = None) -> str | None:
    """Why the model has too many nodes to import, or None."""
    limit = default_max_nodes() if limit is None else limit
    count = count_nodes(model)
    if count <= limit:
        return None
    return (
        f"the model has {count:,} nodes, over the limit of {limit:,} ({ENV_MAX_NODES}); "
        "split it, or raise the limit where import time is no concern"
    )


@functools.cache
def default_max_tensor_bytes() -> int:
    """The process-wide budget: TUNEFARM_MAX_TENSOR_BYTES, read once, or 1 GiB."""
    return max_tensor_bytes_from(os.environ)


def tensor_bytes(shape: Sequence[int], dtype: np.dtype | str | type) -> int:
    """Bytes a dense tensor of `shape` and `dtype` needs (exact Python ints: no overflow)."""
    return math.prod(int(d) for d in shape) * np.dtype(dtype).itemsize


def fmt_bytes(n: int) -> str:
    """1536 -> '1.5 KiB'; exact bytes below 1 KiB."""
    units = (("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30),
             ("MiB", 1 << 20), ("KiB", 1 << 10))  # fmt: skip
    for unit, size in units:
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def over_budget(
    what: str, shape: Sequence[int], dtype: np.dtype | str | type, limit: int
) -> str | None:
    """None if a tensor of `shape` and `dtype` fits `limit`, else the reason, naming `what`."""
    if any(int(d) < 0 for d in shape):
        return f"{what} would have negative dims {list(shape)}"
    need = tensor_bytes(shape, dtype)
    if need <= limit:
        return None
    return (
        f"{what} of shape {list(shape)} ({np.dtype(dtype)}) would need {fmt_bytes(need)}, "
        f"above the tensor size limit of {fmt_bytes(limit)} ({ENV_MAX_TENSOR_BYTES} or "
        "max_tensor_bytes)"
    )


Prediction = tuple[tuple[int, ...] | None, np.dtype]


def predict_outputs(
    node: onnx.NodeProto, inputs: Mapping[str, np.ndarray], opset: int
) -> list[Prediction]:
    """(shape, dtype) of each non-empty output of `node` on the constant `inputs`, from ONNX
    shape inference with data propagation, without evaluating the node. The shape is None
    where inference cannot tell; for GENERATORS that, or an inference error, is a ValueError
    (their size cannot be bounded any other way)."""
    outs = [o for o in node.output if o]
    fallback = next((a.dtype for a in inputs.values()), np.dtype(np.float32))
    if node.op_type == "Range" and len(inputs) == 3:
        return [(_range_length(*inputs.values()), fallback)]
    try:
        types, data = {}, {}
        for name, array in inputs.items():
            types[name] = helper.make_tensor_type_proto(
                helper.np_dtype_to_tensor_dtype(array.dtype), array.shape
            )
            if array.size <= SMALL_DATA or node.op_type in GENERATORS:
                data[name] = numpy_helper.from_array(array, name)
        schema = onnx.defs.get_schema(node.op_type, opset, node.domain)
        found = onnx.shape_inference.infer_node_outputs(
            schema, node, types, data, opset_imports=[helper.make_opsetid("", opset)]
        )
    except Exception as err:  # onnx's InferenceError, SchemaError, conversion errors
        if node.op_type in GENERATORS:
            raise ValueError(f"cannot size its output before folding: {err}") from None
        found = {}
    result: list[Prediction] = []
    for o in outs:
        shape, dtype = _tensor_type(found.get(o))
        if shape is None and node.op_type in GENERATORS:
            raise ValueError(f"cannot size its output {o!r} before folding")
        result.append((shape, dtype or fallback))
    return result


def _range_length(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> tuple[int]:
    """Range's output shape in exact arithmetic (ONNX shape inference wraps large counts)."""
    if start.size != 1 or limit.size != 1 or delta.size != 1:
        raise ValueError("start, limit and delta must be scalars")
    a, b, d = (v.reshape(-1)[0].item() for v in (start, limit, delta))
    if d == 0:
        raise ValueError("delta is 0")
    count = (b - a) / d if isinstance(a + b + d, float) else -((a - b) // d)
    if not math.isfinite(count):
        raise ValueError(f"range({a}, {b}, {d}) has no finite length")
    return (max(math.ceil(count), 0),)


def _tensor_type(tp: onnx.TypeProto | None) -> tuple[tuple[int, ...] | None, np.dtype | None]:
    if tp is None or not tp.HasField("tensor_type"):
        return None, None
    tt = tp.tensor_type
    try:
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(tt.elem_type)) if tt.elem_type else None
    except (KeyError, TypeError):
        dtype = None
    if not tt.HasField("shape") or not all(d.HasField("dim_value") for d in tt.shape.dim):
        return None, dtype
    return tuple(int(d.dim_value) for d in tt.shape.dim), dtype
