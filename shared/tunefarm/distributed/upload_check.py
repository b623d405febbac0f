"""The check of an uploaded ONNX model, in a child process with an address-space limit.

Why a child: parsing a ModelProto can cost far more memory than the file's size (packed
varints: each zero byte of an int64 field becomes an 8-byte integer and more), and the
gateway serves every open stream from one process, so an upload must never be parsed there.
The child's limit grows with the upload (`BASE_MB` plus `PER_UPLOAD_MB` times its size), so
any model whose weights are stored as raw bytes fits, and one that inflates past that is
refused in one line instead of killing the gateway.

    python -m tunefarm.distributed.upload_check LIMIT_MB < model.onnx
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

BASE_MB = 256  # the child's interpreter, onnx and numpy: ~120 MiB of address space
PER_UPLOAD_MB = 3  # the upload read, its parsed copy and slack
TIMEOUT_S = 60.0
MAX_NAME = 200
OK, PROBLEM = 0, 1


class UploadProblem(ValueError):
    """The upload is not a model we accept; the message is one line for the user."""


def memory_limit_mb(size: int) -> int:
    """The child's address space for an upload of `size` bytes."""
    return BASE_MB + PER_UPLOAD_MB * -(-size // (1 << 20))


def check_upload(data: bytes, timeout_s: float = TIMEOUT_S) -> None:
    """Raise UploadProblem unless `data` is an ONNX model with a graph, no external data
    (main graph, subgraphs and functions) and declared sizes within the tensor budget."""
    limit = memory_limit_mb(len(data))
    cmd = [sys.executable, "-m", "tunefarm.distributed.upload_check", str(limit)]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run(cmd, input=data, env=env, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise UploadProblem(f"checking the model took longer than {timeout_s:.0f} s") from None
    if proc.returncode == OK:
        return
    message = proc.stdout.decode("utf-8", "replace").strip()
    if proc.returncode == PROBLEM and message:
        raise UploadProblem(message)
    how = (
        f"killed by {signal.Signals(-proc.returncode).name}"
        if proc.returncode < 0
        else f"status {proc.returncode}"
    )
    raise UploadProblem(
        f"reading the model needs more than {limit} MiB of memory for a {len(data)}-byte "
        f"file (the checker stopped: {how}); store weights as raw bytes"
    )


# -- in the child ---------------------------------------------------------------------------
def problem(data: bytes) -> str | None:
    """What is wrong with the upload, or None."""
    import onnx

    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and friends
        if "alloc failed" in str(exc):  # upb's arena hit the address-space limit
            raise MemoryError(str(exc)) from None
        return f"not an ONNX model: {exc or type(exc).__name__}"
    if not model.HasField("graph") or not model.graph.node:
        return "not an ONNX model: it has no graph with at least one node"
    from tunefarm.frontend.limits import nodes_problem

    return nodes_problem(model) or external_data(model) or declared_sizes(model)


def model_tensors(model: Any) -> Iterator[tuple[str, Any]]:
    """Every stored tensor of the main graph, its subgraphs and the model's functions."""
    import onnx

    from tunefarm.frontend.validate import iter_tensors

    yield from iter_tensors(model.graph)
    for function in model.functions:
        # a function's nodes are a graph's nodes: wrap them to reuse the walk
        body = onnx.GraphProto(node=function.node)
        for where, tensor in iter_tensors(body):
            yield f"function {function.name[:MAX_NAME]!r}: {where}", tensor


def external_data(model: Any) -> str | None:
    """An upload is one file: a tensor whose data lives in another file would be read from
    the job's directory in the artifact store (another job's files, or its own records)."""
    import onnx

    for where, tensor in model_tensors(model):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            return (
                f"{where[:MAX_NAME]}: its data is in an external file, which an upload cannot "
                "carry; save the model with its weights inside (onnx.save with "
                "save_as_external_data=False)"
            )
    return None


def declared_sizes(model: Any) -> str | None:
    """The first declared input or initializer over the importer's per-tensor budget
    (TUNEFARM_MAX_TENSOR_BYTES), from shapes alone: nothing is allocated. The converter
    checks every folded and computed tensor again, in a child with a memory limit."""
    from tunefarm.frontend.limits import default_max_tensor_bytes

    limit = default_max_tensor_bytes()
    graph = model.graph
    for value in graph.input:
        tensor = value.type.tensor_type
        dims = [d.dim_value for d in tensor.shape.dim if d.HasField("dim_value")]
        if len(dims) != len(tensor.shape.dim) or not tensor.elem_type:
            continue  # dynamic or untyped: sized at conversion, from input_shapes
        found = _budget(f"input {value.name[:MAX_NAME]!r}", dims, tensor.elem_type, limit)
        if found:
            return found
    for init in graph.initializer:
        what = f"initializer {init.name[:MAX_NAME]!r}"
        found = _budget(what, list(init.dims), init.data_type, limit)
        if found:
            return found
    return None


def _budget(what: str, dims: list[int], elem_type: int, limit: int) -> str | None:
    from onnx import helper

    from tunefarm.frontend.limits import over_budget

    try:
        dtype = helper.tensor_dtype_to_np_dtype(elem_type)
    except Exception:  # an unknown element type: the converter names it
        return None
    return over_budget(what, dims, dtype, limit)


def _child(limit_mb: str) -> int:
    import resource

    limit = int(limit_mb) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        found = problem(sys.stdin.buffer.read())
    except MemoryError:
        found = (
            f"reading the model needs more than {limit_mb} MiB of memory, far more than its "
            "size (e.g. huge packed integer fields); store weights as raw bytes"
        )
    if found:
        sys.stdout.write(" ".join(found.split()))
        return PROBLEM
    return OK


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1]))
