"""The execution plan: what the network compiler hands the runtime.

A plan is a flat program: kernels (C sources following the tf_entry ABI), named buffers, and
calls of kernels on buffers in order. It knows nothing of graphs, templates or tuning, so the
runtime (artifact packing, memory planning, the executor) stays small and testable alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

BUFFER_KINDS = ("input", "output", "param", "temp")


@dataclass(frozen=True)
class BufferSpec:
    """A buffer. kind: "input" (set by the user, logical layout), "output" (read by the user),
    "param" (constant, data in ExecPlan.params), "temp" (an intermediate; the memory planner
    places it in the arena). alias_of: this buffer is another buffer's memory viewed with a
    different shape of the same byte size (reshape/flatten need no kernel)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    kind: str
    alias_of: str | None = None

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class KernelCode:
    """One kernel's C source as `emit_c` makes it (exports tf_entry and tf_time). `name` is
    a C identifier unique in the plan; the runtime renames the ABI symbols after it."""

    name: str
    code: str
    n_args: int


@dataclass(frozen=True)
class Call:
    """Run kernel `kernel` on buffers `args` (ABI order: inputs, then outputs). `node` names
    the graph node it computes (for profiles and error messages)."""

    kernel: str
    args: tuple[str, ...]
    node: str


@dataclass
class ExecPlan:
    """inputs/outputs: (name the user uses, e.g. the ONNX name; buffer name)."""

    target: str
    buffers: list[BufferSpec]
    kernels: list[KernelCode]
    calls: list[Call]
    inputs: list[tuple[str, str]]
    outputs: list[tuple[str, str]]
    params: dict[str, np.ndarray]
    manifest: dict[str, Any] = field(default_factory=dict)
