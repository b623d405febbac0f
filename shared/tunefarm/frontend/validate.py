"""Whole-model checks the importer runs before it trusts anything in a model.

Why apart from the ONNX checker: the checker validates structure (schemas, topological order,
attribute types) but lets through what hurts an importer on a server: element types that do
not exist, tensors whose declared size is gigabytes, external data that a model given as bytes
would have read from the process's working directory. Each check returns None or the reason
(naming the tensor, value or node), and the importer turns it into a FrontendError.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper

from tunefarm.frontend.limits import fmt_bytes, over_budget

__all__ = [
    "checkable",
    "elem_dtype",
    "external_data",
    "external_files",
    "tensor_problem",
    "value_info_problem",
]

ATTR = onnx.AttributeProto


def elem_dtype(code: int) -> np.dtype | None:
    """The numpy dtype of ONNX element type `code`, or None if there is no such type."""
    if code == onnx.TensorProto.UNDEFINED or code not in onnx.TensorProto.DataType.values():
        return None
    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, TypeError, ValueError):
        return None


def _node_where(node: onnx.NodeProto, index: int) -> str:
    return f"node {node.name or f'#{index}'!r} ({node.op_type})"


def iter_tensors(graph: onnx.GraphProto) -> Iterator[tuple[str, onnx.TensorProto]]:
    """Every tensor stored in `graph` and its subgraphs (initializers, sparse initializers,
    node attributes), with how a message names it. Iterative: subgraphs can nest deeply."""
    stack: list[tuple[str, onnx.GraphProto]] = [("", graph)]
    while stack:
        prefix, g = stack.pop()
        for t in g.initializer:
            yield f"{prefix}initializer {t.name!r}", t
        for s in g.sparse_initializer:
            yield f"{prefix}sparse initializer {s.values.name!r}", s.values
            yield f"{prefix}sparse initializer {s.values.name!r} indices", s.indices
        for index, node in enumerate(g.node):
            where = f"{prefix}{_node_where(node, index)}"
            for a in node.attribute:
                if a.type == ATTR.TENSOR or a.HasField("t"):
                    yield f"{where} attribute {a.name!r}", a.t
                for t in a.tensors:
                    yield f"{where} attribute {a.name!r}", t
                if a.HasField("g"):
                    stack.append((f"{where} attribute {a.name!r}: ", a.g))
                stack.extend((f"{where} attribute {a.name!r}: ", sub) for sub in a.graphs)


def _location(t: onnx.TensorProto) -> tuple[str, int, int | None]:
    """(location, offset, length) of an external tensor (offset 0, length None if unset)."""
    info = {e.key: e.value for e in t.external_data}
    try:
        offset = int(info.get("offset", 0))
        length = int(info["length"]) if "length" in info else None
    except ValueError:
        offset, length = -1, None
    return info.get("location", ""), offset, length


def external_data(proto: onnx.ModelProto) -> str | None:
    """A model given as bytes or a ModelProto has no directory: its external data would be
    resolved against the working directory, so any is refused."""
    for where, t in iter_tensors(proto.graph):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            loc = _location(t)[0]
            return (
                f"{where} keeps its data in an external file ({loc!r}); external data is read "
                "only for a model given as a file path (pass the .onnx path, not bytes or a "
                "ModelProto without its data)"
            )
    return None


def tensor_problem(proto: onnx.ModelProto, limit: int) -> str | None:
    """A stored tensor whose element type does not exist or whose declared size is above
    `limit` (checked on its dims, before its data is read or converted)."""
    for where, t in iter_tensors(proto.graph):
        dtype = elem_dtype(t.data_type)
        if dtype is None:
            return f"{where} has element type {t.data_type}, which is no ONNX element type"
        if any(d < 0 for d in t.dims):
            return f"{where} has negative dims {list(t.dims)}"
        reason = over_budget(where, list(t.dims), dtype, limit)
        if reason:
            return reason
    return None


def external_files(proto: onnx.ModelProto, base_dir: str, limit: int) -> str | None:
    """An external tensor of a model file whose data (by its `length`, or the rest of its
    file) would be more than `limit` bytes: refused before anything is read."""
    for where, t in iter_tensors(proto.graph):
        if t.data_location != onnx.TensorProto.EXTERNAL:
            continue
        loc, offset, length = _location(t)
        if offset < 0 or (length is not None and length < 0):
            return f"{where}: external data offset/length must be non-negative integers"
        path = Path(base_dir, loc)
        if not loc or os.path.isabs(loc) or not path.is_file():
            continue  # the ONNX loader refuses these, naming the tensor
        size = max(0, path.stat().st_size - offset)
        size = size if length is None else min(size, length)
        if size > limit:
            return (
                f"{where}: its external data in {loc!r} is {fmt_bytes(size)}, above the tensor "
                f"size limit of {fmt_bytes(limit)}"
            )
    return None


def value_info_problem(proto: onnx.ModelProto) -> str | None:
    """A graph input, output or value_info whose element type does not exist."""
    g = proto.graph
    for kind, infos in (("input", g.input), ("output", g.output), ("value_info", g.value_info)):
        for vi in infos:
            if not vi.type.HasField("tensor_type"):
                continue
            code = vi.type.tensor_type.elem_type
            if code != onnx.TensorProto.UNDEFINED and elem_dtype(code) is None:
                return f"{kind} {vi.name!r} has element type {code}, which is no ONNX element type"
    return None


def checkable(proto: onnx.ModelProto) -> onnx.ModelProto:
    """`proto`, or a copy to give the ONNX checker in which graph inputs and outputs declared
    without a type or shape have a placeholder one. ONNX Runtime runs such models, the
    importer infers every output's shape and takes input shapes from `input_shapes` (or names
    the input that needs one), but the checker insists on declared shapes."""

    def untyped(infos: Any) -> list[int]:
        return [
            i
            for i, vi in enumerate(infos)
            if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape")
        ]

    missing = {"input": untyped(proto.graph.input), "output": untyped(proto.graph.output)}
    if not any(missing.values()):
        return proto
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for kind, indices in missing.items():
        for i in indices:
            vi = getattr(copy.graph, kind)[i]
            if vi.type.HasField("sequence_type") or vi.type.HasField("map_type"):
                continue  # not a tensor: the checker and the importer say so
            tt = vi.type.tensor_type
            tt.elem_type = tt.elem_type or onnx.TensorProto.FLOAT
            tt.shape.SetInParent()
    return copy
