"""The sketch rule that puts a contraction on tensor cores (`cuda -precision=tf32|fp16`).

Auto-tensorization in the spirit of MetaSchedule: a rule looks at the compute definition
for a stage the instruction can compute, here a sum over reduce axes of the product of two
float operands that are each reused across some output axis (dense, conv2d with groups 1,
batch_matmul: the GEMM's A and B; depthwise reuses only its weight and does not qualify),
and offers a sketch whose whole kernel is the instruction's tile structure, beside the
CUDA-core sketches the GPU tiling rule derives (so the search can still pick fp32 where it
is faster). The tile sizes are sampled as multiples of the instruction's shape, m16n8k8
(tf32) or m16n8k16 (fp16): tiles per warp (16 wm rows, 8 wn columns), warps per block
(warps_m x warps_n) and instruction steps per staged K chunk (kchunk), within the limits
the template checks (shared memory, accumulator registers).

The renderer has no warp-level operands, so the state is recorded as its steps like any
other: `tensor_core.*` pragmas carrying the tile, on a stand-in schedule (the output's axes
fused over blocks of the tile's thread count, `BindPlan`) that lowers like any GPU state,
which gives the cost model and the device-limit check something real to look at. When a
state with those pragmas is built, the task's tensor-core template renders it
(`TensorCoreGemm.tensorize`, through `registry.instantiate`), never the stand-in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends.cuda.tensorcore import K_STEP
from tunefarm.backends.cuda.tensorcore_gemm import KNOBS, check_limits, tensorize_steps
from tunefarm.backends.gpu_common.sketch_rules import (
    CROSS,
    BindPlan,
    GpuSketchParams,
    GpuTilingRule,
    bind_alternative,
    reduction_of,
)
from tunefarm.ir.expr import Binary, Cast, Load, Reduce
from tunefarm.ir.tensor import ComputeOp, Tensor
from tunefarm.measure.errors import DeviceLimitError
from tunefarm.schedule import steps as S
from tunefarm.schedule.sketch import DagInfo, Plan, identity_reader
from tunefarm.schedule.sketch_state import Decisions


def _operand(e: Any) -> Load | None:
    while isinstance(e, Cast):
        e = e.value
    return e if isinstance(e, Load) else None


def is_contraction(t: Tensor) -> bool:
    """sum over reduce axes of a * b, both float loads, each free of some output axis."""
    op = t.op
    if not isinstance(op, ComputeOp) or not op.reduce_axes or not t.dtype.startswith("float"):
        return False
    body = op.body
    if not isinstance(body, Reduce) or body.combiner != "sum":
        return False
    prod = body.source
    if not isinstance(prod, Binary) or prod.op != "*":
        return False
    loads = [_operand(prod.a), _operand(prod.b)]
    if any(ld is None for ld in loads):
        return False
    spatial = {a.name for a in op.axes if a.extent > 1}
    for ld in loads:
        used = {v.name for idx in ld.indices for v in _names(idx)}  # type: ignore[union-attr]
        if not spatial - used:
            return False
    return True


def _names(e: Any) -> list[Any]:
    from tunefarm.ir.expr import Var
    from tunefarm.ir.tensor import walk

    return [n for n in walk(e) if isinstance(n, Var)]


@dataclass(frozen=True)
class TensorCorePlan:
    """The instruction's tile structure for the whole kernel (see the module docstring)."""

    stand_in: BindPlan
    prec: str

    stage = property(lambda self: self.stand_in.stage)
    spatial = property(lambda self: self.stand_in.spatial)
    reduce = property(lambda self: ())

    def _keys(self) -> dict[str, str]:
        return {k: f"tile:{self.stage}:tc_{k}" for k in KNOBS}

    def knobs(self, d: Decisions) -> dict[str, int]:
        return {k: int(d[key]) for k, key in self._keys().items()}

    def fits(self, d: Decisions, params: GpuSketchParams | None = None) -> bool:
        try:
            check_limits(self.prec, self.knobs(d))
        except DeviceLimitError:
            return False
        return True

    def sample(self, params: GpuSketchParams, rng: np.random.Generator) -> Decisions:
        d: Decisions = {key: int(rng.choice(KNOBS[k])) for k, key in self._keys().items()}
        keys = self._keys()
        while not self.fits(d):  # shrink the largest knob until the tile fits
            k = max(KNOBS, key=lambda name: (d[keys[name]] / KNOBS[name][0], name))
            d[keys[k]] = max(v for v in KNOBS[k] if v < d[keys[k]])
        d.update(self.stand_in.sample(params, rng))
        return d

    def mutate(self, key: str, d: Decisions, params: GpuSketchParams, rng) -> Any:
        if key.startswith(f"tile:{self.stage}:tc_"):
            name = key.rsplit(":tc_", 1)[1]
            value = int(rng.choice(KNOBS[name]))
            return value if self.fits({**d, key: value}) else None
        return self.stand_in.mutate(key, d, params, rng)

    def steps(self, d: Decisions, outer: dict[str, list[str]]) -> list[S.Step]:
        knobs = self.knobs(d)
        threads = 32 * knobs["warps_m"] * knobs["warps_n"]
        steps = self.stand_in.steps({**d, f"par:{self.stage}": threads}, outer)
        return steps + tensorize_steps(self.stage, outer[self.stage][0], knobs)

    def tile_shape(self, d: Decisions) -> tuple[int, int, int]:
        """(rows, columns, K) of the block's tile: multiples of the instruction's shape."""
        k = self.knobs(d)
        return (16 * k["wm"] * k["warps_m"], 8 * k["wn"] * k["warps_n"],
                K_STEP[self.prec] * k["kchunk"])  # fmt: skip


class TensorCoreRule:
    """A contraction stage: the tensor-core plan, and the GPU tiling rule's alternatives."""

    name = "tensor_core"

    def __init__(self, prec: str):
        self.prec = prec
        self.tiling = GpuTilingRule(CROSS)

    def derive(self, info: DagInfo, t: Tensor) -> list[list[Plan]] | None:
        if not is_contraction(t):
            return None
        readers = info.readers(t)
        if info.is_output(t):
            anchor, inner, reds = t, [], (reduction_of(t, f"{t.name}.local"),)
        elif len(readers) == 1 and identity_reader(readers[0], t, info):
            anchor, inner, reds = readers[0], [t], (reduction_of(t),)
            if not info.is_output(anchor):
                return None
        else:
            return None
        *skips, stand_in = bind_alternative(anchor, inner, reds)
        plan = TensorCorePlan(stand_in, self.prec)  # type: ignore[arg-type]
        return [[*skips, plan], *(self.tiling.derive(info, t) or [])]  # type: ignore[list-item]
