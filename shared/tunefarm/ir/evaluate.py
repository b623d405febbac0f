"""A numpy interpreter of the tensor IR, to test ops without compiling them.

Each compute stage is evaluated in one vectorised step: every axis (spatial, then reduce)
gets an index array shaped for broadcasting (like `np.ogrid`), the body's expression tree is
evaluated to an array over that grid, and reduce-axis dimensions are reduced away. Stages
run in topological order and keep their whole output, so this is for small workloads: it
exists to check that an op's IR means what it should, not to judge kernels (that is
`tunefarm.ir.reference`).

Loads outside a select must be in bounds (an out-of-bounds load is a bug in the op and
raises IndexError); loads inside a select's branches are clipped into range first, because
the select discards the values of the branch it does not take.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tunefarm.ir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    Const,
    Expr,
    Load,
    Logical,
    Reduce,
    Select,
    Var,
    is_float,
)
from tunefarm.ir.tensor import ComputeDAG, ComputeOp, PlaceholderOp, Tensor

__all__ = ["MAX_GRID", "evaluate"]

MAX_GRID = 20_000_000  # grid points of one stage evaluated at once (about 80 MB per float32 array)

_erf = np.vectorize(math.erf, otypes=[np.float64])
_CALLS: dict[str, Any] = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "fabs": np.abs,
    "erf": _erf,
    "pow": np.power,
    "nearbyint": np.rint,
    "dot4": lambda a, b: _dot4(a, b),
    "fma": lambda a, b, c: fma32(a, b, c),
}


def fma32(a, b, c) -> np.ndarray:
    """float32 a * b + c rounded once: the product of two float32 is exact in float64, and so
    is the sum unless the exponents are more than ~29 bits apart (then the float64 rounding
    is far below a float32 ulp and only a sum on a float32 midpoint could round twice)."""
    wide = np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
    return wide.astype(np.float32)


def _dot4(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """dot4 on packed words: bytes of `a` as uint8, of `b` as int8, summed in int32."""
    a = np.asarray(a, np.int64) & 0xFFFFFFFF
    b = np.asarray(b, np.int64) & 0xFFFFFFFF
    total = np.zeros(np.broadcast(a, b).shape, np.int64)
    for k in range(4):
        ua = (a >> (8 * k)) & 0xFF
        sb = ((b >> (8 * k)) & 0xFF).astype(np.int64)
        total += ua * np.where(sb > 127, sb - 256, sb)
    return total.astype(np.int32)


_COMPARE: dict[str, Any] = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
_REDUCE: dict[str, Any] = {"sum": np.sum, "max": np.max, "min": np.min}


def _np_dtype(dtype: str) -> np.dtype:
    return np.dtype(np.bool_) if dtype == "bool" else np.dtype(dtype)


def _int_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's integer `/`: truncation toward zero (numpy's // floors)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


_BINARY: dict[str, Any] = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "//": np.floor_divide,
    "%": np.mod,
    "min": np.minimum,
    "max": np.maximum,
}


class _StageEval:
    """Evaluates the expressions of one stage over an index grid given as `env`.

    Results are memoised by node identity (a body may share subtrees, e.g. a load used twice)
    and by whether the node sits inside a select branch, since that changes bounds handling.
    """

    def __init__(self, stage: str, env: dict[str, np.ndarray], values: dict[int, np.ndarray]):
        self.stage = stage
        self.env = env
        self.values = values
        self.memo: dict[tuple[int, bool], np.ndarray] = {}

    def eval(self, e: Expr, guarded: bool = False) -> np.ndarray:
        key = (id(e), guarded)
        if key not in self.memo:
            self.memo[key] = self._eval(e, guarded)
        return self.memo[key]

    def _eval(self, e: Expr, guarded: bool) -> np.ndarray:
        if isinstance(e, Const):
            return np.asarray(e.value, _np_dtype(e.dtype) if is_float(e.dtype) else None)
        if isinstance(e, Var):
            if e.name not in self.env:
                raise ValueError(f"stage {self.stage!r}: variable {e.name!r} is not an axis")
            return self.env[e.name]
        if isinstance(e, Binary):
            a, b = self.eval(e.a, guarded), self.eval(e.b, guarded)
            if e.op == "/":
                out = np.divide(a, b) if is_float(e.dtype) else _int_div(a, b)
            elif e.op in _BINARY:
                out = _BINARY[e.op](a, b)
            else:
                raise ValueError(f"stage {self.stage!r}: unknown binary op {e.op!r}")
            return out.astype(_np_dtype(e.dtype), copy=False) if is_float(e.dtype) else out
        if isinstance(e, Compare):
            return _COMPARE[e.op](self.eval(e.a, guarded), self.eval(e.b, guarded))
        if isinstance(e, Logical):
            a = self.eval(e.a, guarded).astype(bool)
            if e.op == "not":
                return np.logical_not(a)
            b = self.eval(e.b, guarded).astype(bool)
            return np.logical_and(a, b) if e.op == "and" else np.logical_or(a, b)
        if isinstance(e, Select):
            cond = self.eval(e.cond, guarded).astype(bool)
            out = np.where(cond, self.eval(e.true_value, True), self.eval(e.false_value, True))
            return out.astype(_np_dtype(e.dtype), copy=False)
        if isinstance(e, Cast):
            v = self.eval(e.value, guarded)
            return v != 0 if e.dtype == "bool" else v.astype(_np_dtype(e.dtype))
        if isinstance(e, Call):
            args = [self.eval(a, guarded) for a in e.args]
            return np.asarray(_CALLS[e.func](*args)).astype(_np_dtype(e.dtype), copy=False)
        if isinstance(e, Load):
            return self._load(e, guarded)
        if isinstance(e, Reduce):
            raise ValueError(f"stage {self.stage!r}: a reduction must be the whole stage body")
        raise ValueError(f"stage {self.stage!r}: cannot evaluate {type(e).__name__} node")

    def _load(self, e: Load, guarded: bool) -> np.ndarray:
        arr = self.values[id(e.tensor)]
        idx = []
        for d, (ie, dim) in enumerate(zip(e.indices, arr.shape, strict=True)):
            i = np.asarray(self.eval(ie, guarded)).astype(np.int64, copy=False)
            if guarded:
                i = np.clip(i, 0, dim - 1)
            elif i.size and (i.min() < 0 or i.max() >= dim):
                raise IndexError(
                    f"stage {self.stage!r} reads {e.tensor.name!r} dim {d} at indices "
                    f"[{i.min()}, {i.max()}] outside [0, {dim}) and not under a select"
                )
            idx.append(i)
        return arr[tuple(idx)]


def _eval_block(
    t: Tensor, values: dict[int, np.ndarray], ranges: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Stage `t` over the box `ranges` ([lo, hi) per spatial axis) and its full reduce axes."""
    op: ComputeOp = t.op
    axes = op.all_axes
    bounds = list(ranges) + [(0, ax.extent) for ax in op.reduce_axes]
    env: dict[str, np.ndarray] = {}
    for k, (ax, (lo, hi)) in enumerate(zip(axes, bounds, strict=True)):
        shape = [1] * len(axes)
        shape[k] = hi - lo
        env[ax.name] = np.arange(lo, hi, dtype=np.int64).reshape(shape)
    grid = [hi - lo for lo, hi in bounds]
    ev = _StageEval(t.name, env, values)
    dtype = _np_dtype(t.dtype)
    body = op.body
    if not isinstance(body, Reduce):
        return np.broadcast_to(ev.eval(body), grid).astype(dtype)
    if body.combiner not in _REDUCE:
        raise ValueError(f"stage {t.name!r}: unknown reduction {body.combiner!r}")
    src = np.broadcast_to(ev.eval(body.source), grid)
    red_dims = tuple(range(len(op.axes), len(axes)))
    # Sums accumulate in float64 so that a mismatch in a test means a wrong op, not rounding.
    acc = {"dtype": np.float64} if body.combiner == "sum" and dtype.kind == "f" else {}
    return _REDUCE[body.combiner](src, axis=red_dims, **acc).astype(dtype)


def _eval_stage(t: Tensor, values: dict[int, np.ndarray], max_grid: int) -> np.ndarray:
    """Whole stage, in boxes of at most `max_grid` grid points where possible.

    Leading spatial axes are taken one index at a time until the rest of the grid fits, then
    the next axis is cut into chunks; the remaining axes are whole. (Slicing only the
    outermost axis is not enough: it is often a batch of 1.)
    """
    op: ComputeOp = t.op
    spatial = [ax.extent for ax in op.axes]
    inner = math.prod(ax.extent for ax in op.all_axes)
    if inner <= max_grid:
        return _eval_block(t, values, [(0, e) for e in spatial])
    splits: list[list[tuple[int, int]]] = []
    for e in spatial:
        inner //= e
        step = max(1, max_grid // inner)  # the rest of the grid (inner) times step fits
        splits.append([(lo, min(lo + step, e)) for lo in range(0, e, step)])
        if step > 1 or inner <= max_grid:
            break
    rest = [(0, e) for e in spatial[len(splits) :]]
    out = np.empty(t.shape, _np_dtype(t.dtype))
    for box in itertools.product(*splits):
        out[tuple(slice(lo, hi) for lo, hi in box)] = _eval_block(t, values, [*box, *rest])
    return out


def _fed(t: Tensor, feed: Mapping[str, Any]) -> np.ndarray:
    if t.name not in feed:
        raise ValueError(
            f"feed has no array for placeholder {t.name!r} (shape {t.shape}, {t.dtype}); "
            f"got keys {sorted(feed)}"
        )
    arr = np.asarray(feed[t.name])
    if arr.shape != t.shape:
        raise ValueError(f"feed[{t.name!r}] must have shape {t.shape}, got {arr.shape}")
    return arr.astype(_np_dtype(t.dtype), copy=False)


def evaluate(
    outputs: Sequence[Tensor], feed: Mapping[str, Any], max_grid: int = MAX_GRID
) -> list[np.ndarray]:
    """Values of `outputs` given arrays for the DAG's placeholders, by name.

    Extra keys in `feed` are ignored, so one feed can serve several sub-DAGs. A stage whose
    full index grid (spatial x reduce extents) exceeds `max_grid` elements is evaluated in
    slices of its outer spatial axes to bound memory.
    """
    if isinstance(outputs, Tensor) or not isinstance(outputs, Sequence) or not outputs:
        raise ValueError(f"outputs must be a non-empty list of Tensors, got {outputs!r}")
    bad = [o for o in outputs if not isinstance(o, Tensor)]
    if bad:
        raise ValueError(f"outputs must all be Tensors, got {bad!r}")
    if not isinstance(feed, Mapping):
        raise ValueError(f"feed must be a dict of name -> array, got {type(feed).__name__}")
    if not isinstance(max_grid, int) or max_grid < 1:
        raise ValueError(f"max_grid must be a positive int, got {max_grid!r}")
    dag = ComputeDAG(outputs)
    values: dict[int, np.ndarray] = {}
    # Generated code does not trap on inf/nan either (e.g. exp overflowing in sigmoid).
    with np.errstate(all="ignore"):
        for t in dag.tensors:
            if isinstance(t.op, PlaceholderOp):
                values[id(t)] = _fed(t, feed)
            else:
                values[id(t)] = _eval_stage(t, values, max_grid)
    return [values[id(o)] for o in outputs]
