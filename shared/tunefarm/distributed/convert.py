"""The converter's model loading, in a child process with an address-space limit.

Why a child: the importer checks every tensor against its budget before allocating it
(`frontend/limits.py`), but a model is hostile input and the budget is per tensor; an
upload that still makes protobuf, ONNX's checker or a fold allocate gigabytes must cost one
clear job failure, not the converter worker (a killed worker's message is redelivered and
kills the next one). The child runs with RLIMIT_AS at `TUNEFARM_CONVERT_MEMORY_MB` (default
4096 MiB) and a time limit, and hands back the model and the graph through files.

    python -m tunefarm.distributed.convert SOURCE OUT_DIR SHAPES_JSON BATCH
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ENV_MEMORY_MB = "TUNEFARM_CONVERT_MEMORY_MB"
DEFAULT_MEMORY_MB = 4096
TIMEOUT_S = 540  # below the convert task's soft time limit (600 s)
ERROR_FILE, MODEL_OUT, GRAPH_OUT = "error.txt", "model.onnx", "graph.npz"


class ConversionError(RuntimeError):
    """The model could not be converted; the message says why in one line."""


def memory_limit_mb(environ: Mapping[str, str] | None = None) -> int:
    env = os.environ if environ is None else environ
    text = (env.get(ENV_MEMORY_MB) or "").strip()
    if not text:
        return DEFAULT_MEMORY_MB
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 256:
        raise ConversionError(f"{ENV_MEMORY_MB}={text!r}: expected an integer >= 256 (MiB)")
    return value


def load_isolated(
    source: str,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    batch: int = 1,
    timeout_s: float = TIMEOUT_S,
) -> tuple[Any, Any]:
    """`load_model(source, input_shapes, batch)` in a child process under the address-space
    limit; (ONNX model, optimised graph), or ConversionError saying what went wrong."""
    import onnx

    from tunefarm.graph.ir import Graph

    limit = memory_limit_mb()
    with tempfile.TemporaryDirectory(prefix="tunefarm-convert-") as tmp:
        cmd = [
            *(sys.executable, "-m", "tunefarm.distributed.convert", source, tmp),
            *(json.dumps(dict(input_shapes or {})), str(batch), str(limit)),
        ]
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise ConversionError(f"the conversion took longer than {timeout_s:.0f} s") from None
        out = Path(tmp)
        if proc.returncode != 0:
            raise ConversionError(_failure(out, proc, limit))
        return onnx.load(str(out / MODEL_OUT)), Graph.load(str(out / GRAPH_OUT))


def _failure(out: Path, proc: subprocess.CompletedProcess, limit_mb: int) -> str:
    error = out / ERROR_FILE
    if error.exists():
        return error.read_text().strip()
    if proc.returncode < 0:
        name = signal.Signals(-proc.returncode).name
        return (
            f"the converter was killed by {name}: most likely it needed more than its "
            f"{limit_mb} MiB of address space ({ENV_MEMORY_MB})"
        )
    tail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
    return f"the converter exited with status {proc.returncode}: {tail[0]}"


def _child(source: str, out_dir: str, shapes_json: str, batch: str, limit_mb: str) -> int:
    import resource

    limit = int(limit_mb) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    out = Path(out_dir)
    try:
        from tunefarm.frontend.models import load_model

        model, graph = load_model(source, json.loads(shapes_json) or None, int(batch))
        (out / MODEL_OUT).write_bytes(model.SerializeToString())
        graph.save(str(out / GRAPH_OUT))
    except MemoryError:
        (out / ERROR_FILE).write_text(
            f"the model needs more memory than the converter's {limit_mb} MiB of address "
            f"space ({ENV_MEMORY_MB})"
        )
        return 1
    except Exception as exc:  # FrontendError names the node, field or limit
        message = " ".join((str(exc) or type(exc).__name__).split())
        if "MemoryError" in message:  # the importer caught it: say which limit it hit
            message += f" (the converter's address space is {limit_mb} MiB, {ENV_MEMORY_MB})"
        (out / ERROR_FILE).write_text(message)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:6]))
