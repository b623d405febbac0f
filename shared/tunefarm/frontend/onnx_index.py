"""Import of ONNX's index and mask ops onto the graph's few data-movement ops.

Why no new graph op per ONNX op: every op here either moves elements to places that are
known at import (the indices are constants, or computed from static shapes) or is a
fixed linear map along one axis. Both already have fast, checked kernels:

- a constant index pattern is one `gather` on the flattened input (GatherND,
  GatherElements, ScatterND as a gather from `concat(data, updates)`, Slice with steps,
  Gather with indices of any rank);
- run-time indices (GatherND, GatherElements) become one flat index computed in float32
  (exact below 2**24: every tensor the importer takes is far smaller), cast to int64;
- CumSum is a `dense` with a triangular 0/1 matrix; Trilu a `where` with a constant mask;
  Tile a reshape, `expand`, reshape;
- IsNaN is `1 - equal(x, x)`, IsInf an `equal` with +-inf (booleans are float 0/1 at run
  time, and integers are float32 values too, cast to int only where an index is read).
"""

from __future__ import annotations

import math

import numpy as np

NUMERIC = "biuf"


# ---------------------------------------------------------------- helpers
def flat_value(cx, i: int) -> tuple[str, tuple[int, ...]]:
    """Input i as a 1-D float32 graph value (run-time integers are float32 values: the
    gather kernel moves float32 data), and its shape."""
    shape = cx.shape(i)
    name = cx.number(i)
    if len(shape) == 1:
        return name, shape
    return cx.emit("reshape", [name], {"shape": [math.prod(shape)]}), shape


def gather_flat(cx, src: str, flat_idx: np.ndarray, out_shape, out: str | None = None) -> str:
    """out[...] = src[flat_idx[...]] for 1-D `src` and constant indices of out_shape."""
    idx = np.asarray(flat_idx, np.int64).reshape(tuple(out_shape) or (1,))
    name = cx.emit("gather", [src, cx.param(f"{cx.name}/flat_idx", idx)], {"axis": 0})
    if tuple(out_shape) == idx.shape:
        return cx.emit("reshape", [name], {"shape": list(idx.shape)}, out) if out else name
    return cx.emit("reshape", [name], {"shape": list(out_shape)}, out)


def const_indices(cx, i: int, what: str = "indices") -> np.ndarray | None:
    """Constant integer input i, or None when it is computed at run time."""
    idx = cx.maybe_const(i)
    if idx is None:
        return None
    if idx.dtype.kind not in "iu":
        raise cx.fail(f"input {i} ({what}) {cx.input(i)!r} must be integers, got {idx.dtype}")
    return idx.astype(np.int64)


def in_range(cx, idx: np.ndarray, size, what: str) -> np.ndarray:
    """Indices with negatives counted from the end; FrontendError for any out of range."""
    size = np.asarray(size, np.int64)
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise cx.fail(f"{what} {int(idx[bad][0])} is out of range (sizes {size.tolist()})")
    return np.where(idx < 0, idx + size, idx)


def as_index(cx, name: str) -> str:
    """A run-time index value as int64: float32 values (integers computed at run time)
    go through one cast node."""
    if cx.imp.graph.values[name].dtype != "float32":
        return name
    return cx.emit("cast", [name], {"dtype": "int64"})


def truncate(cx, x: str, out: str | None = None) -> str:
    """float32 -> int32 -> float32: ONNX's cast of a float to an integer (toward zero)."""
    return cx.emit("cast", [cx.emit("cast", [x], {"dtype": "int32"})], {"dtype": "float32"}, out)


def wrap_negative(cx, idx: str, sizes: np.ndarray) -> str:
    """Run-time float32 indices in [-size, size) -> [0, size): idx - size * floor(idx / size),
    with floor(idx / size) = trunc((idx - size + 0.5) / size) on that range (no compare op)."""
    size = cx.param(f"{cx.name}/sizes", np.asarray(sizes, np.float32))
    shifted = cx.emit("sub", [idx, cx.emit("add", [size, cx.scalar("neg_half", -0.5)], {})], {})
    wraps = truncate(cx, cx.emit("div", [shifted, size], {}))
    return cx.emit("sub", [idx, cx.emit("mul", [wraps, size], {})], {})


def strides(shape) -> np.ndarray:
    """Row-major element strides of `shape`."""
    out = np.ones(len(shape), np.int64)
    for k in range(len(shape) - 2, -1, -1):
        out[k] = out[k + 1] * shape[k + 1]
    return out


# ---------------------------------------------------------------- Gather family
def gather_nd(cx) -> None:
    """GatherND: out[b..., i...] = data[b..., idx[b..., i..., :], ...] (batch_dims b)."""
    shape = cx.shape(0)
    b = int(cx.attr("batch_dims", 0))
    ishape = cx.shape(1)
    k = ishape[-1] if ishape else 0
    if not ishape or not 0 <= b < len(ishape) or b + k > len(shape):
        raise cx.fail(f"indices {list(ishape)} and batch_dims={b} do not fit data {list(shape)}")
    if tuple(ishape[:b]) != tuple(shape[:b]):
        raise cx.fail(f"batch dims of indices {list(ishape)} and data {list(shape)} differ")
    rest = tuple(shape[b + k :])
    out_shape = (*ishape[:-1], *rest)
    inner = math.prod(rest)
    # data viewed as [B, D_b..D_{b+k-1}, inner]: an element's flat position is
    # ((batch * prod(D) + sum idx_j * stride_j) * inner + r)
    block = strides((*shape[b : b + k], 1))[:-1] if k else np.zeros(0, np.int64)
    per_batch = math.prod(shape[b : b + k])
    n_batch = math.prod(shape[:b])
    m = math.prod(ishape[b:-1])
    idx = const_indices(cx, 1)
    src, _ = flat_value(cx, 0)
    if idx is not None:
        idx = in_range(cx, idx, shape[b : b + k], "index").reshape(n_batch, m, k)
        base = idx @ block + np.arange(n_batch)[:, None] * per_batch
        flat = base[..., None] * inner + np.arange(inner)
        gather_flat(cx, src, flat, out_shape, cx.outputs[0])
        return
    # run-time indices: base = idx . block (a dense), + batch offset; then rows of `inner`
    idx_f = wrap_negative(cx, cx.number(1), np.asarray(shape[b : b + k], np.float32))
    rows = cx.emit("reshape", [idx_f], {"shape": [n_batch * m, k]})
    w = cx.param(f"{cx.name}/strides", block.astype(np.float32).reshape(1, k))
    base = cx.emit("dense", [rows, w], {"epilogue": []})
    off = (np.arange(n_batch)[:, None] * per_batch * np.ones((1, m))).reshape(-1, 1)
    if n_batch > 1:
        base = cx.emit("add", [base, cx.param(f"{cx.name}/batch", off.astype(np.float32))], {})
    if inner > 1:
        base = cx.emit("mul", [base, cx.scalar("inner", float(inner))], {})
        lanes = cx.param(f"{cx.name}/lanes", np.arange(inner, dtype=np.float32).reshape(1, -1))
        base = cx.emit("add", [base, lanes], {})
    flat = cx.emit("reshape", [as_index(cx, base)], {"shape": [n_batch * m * inner]})
    y = cx.emit("gather", [src, flat], {"axis": 0})
    cx.emit("reshape", [y], {"shape": list(out_shape)}, cx.outputs[0])


def gather_elements(cx) -> None:
    """GatherElements: out[p] = data[p with p[axis] = idx[p]]."""
    shape = cx.shape(0)
    axis = _axis(cx, int(cx.attr("axis", 0)), len(shape))
    ishape = cx.shape(1)
    if len(ishape) != len(shape):
        raise cx.fail(f"indices {list(ishape)} and data {list(shape)} differ in rank")
    data, idx = cx.maybe_const(0), const_indices(cx, 1)
    if data is not None and idx is not None:  # folded here: ONNX's reference misreads some
        idx = in_range(cx, idx, shape[axis], "index")
        cx.imp.consts[cx.outputs[0]] = np.take_along_axis(data, idx, axis=axis)
        return
    st = strides(shape)
    grid = np.indices(ishape, dtype=np.int64)
    base = sum(grid[d] * st[d] for d in range(len(shape)) if d != axis)
    src, _ = flat_value(cx, 0)
    if idx is not None:
        flat = base + in_range(cx, idx, shape[axis], "index") * st[axis]
        gather_flat(cx, src, flat, ishape, cx.outputs[0])
        return
    idx_f = wrap_negative(cx, cx.number(1), np.float32(shape[axis]))
    scaled = cx.emit("mul", [idx_f, cx.scalar("stride", float(st[axis]))], {})
    flat_f = cx.emit("add", [scaled, cx.param(f"{cx.name}/base", base.astype(np.float32))], {})
    flat = cx.emit("reshape", [as_index(cx, flat_f)], {"shape": [math.prod(ishape)]})
    y = cx.emit("gather", [src, flat], {"axis": 0})
    cx.emit("reshape", [y], {"shape": list(ishape)}, cx.outputs[0])


def scatter_nd(cx) -> None:
    """ScatterND (no reduction) with constant indices: a gather from concat(data, updates)
    whose index map sends each written position to its update."""
    if cx.attr("reduction", "none") != "none":
        raise cx.fail(f"reduction={cx.attr('reduction')!r} is not supported; only 'none'")
    shape = cx.shape(0)
    idx = const_indices(cx, 1)
    if idx is None:
        raise cx.fail(
            f"input 1 (indices) {cx.input(1)!r} is computed at run time; ScatterND needs "
            "constant indices"
        )
    k = idx.shape[-1]
    inner = math.prod(shape[k:])
    total = math.prod(shape)
    pos = in_range(cx, idx.reshape(-1, k), shape[:k], "index") @ strides(shape[:k])
    mapping = np.arange(total, dtype=np.int64).reshape(-1, inner)
    n_upd = pos.shape[0] * inner
    mapping[pos] = total + np.arange(n_upd).reshape(-1, inner)  # later updates win, as ORT
    data, _ = flat_value(cx, 0)
    upd, _ = flat_value(cx, 2)
    if cx.imp.graph.values[data].dtype != cx.imp.graph.values[upd].dtype:
        data, upd = _as_float_flat(cx, 0), _as_float_flat(cx, 2)
    both = cx.emit("concat", [data, upd], {"axis": 0})
    gather_flat(cx, both, mapping.reshape(shape), shape, cx.outputs[0])


def _as_float_flat(cx, i: int) -> str:
    x = cx.number(i)
    n = math.prod(cx.shape(i))
    return cx.emit("reshape", [x], {"shape": [n]})


def _axis(cx, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise cx.fail(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


# ---------------------------------------------------------------- masks and sums
def is_nan(cx) -> None:
    x = cx.value(0)
    same = cx.emit("equal", [x, x], {})
    cx.emit("sub", [cx.scalar("one", 1.0), same], {}, cx.outputs[0])


def is_inf(cx) -> None:
    """IsInf: equal(x, +inf) + equal(x, -inf), as detect_positive/negative ask."""
    x = cx.value(0)
    pos, neg = bool(cx.attr("detect_positive", 1)), bool(cx.attr("detect_negative", 1))
    if not (pos or neg):
        same = cx.emit("equal", [x, x], {})
        cx.emit("sub", [same, same], {}, cx.outputs[0])
        return
    if pos != neg:
        value = cx.scalar("inf", np.inf if pos else -np.inf)
        cx.emit("equal", [x, value], {}, cx.outputs[0])
        return
    hits = [
        cx.emit("equal", [x, cx.scalar(n, v)], {}) for n, v in (("inf", np.inf), ("ninf", -np.inf))
    ]
    cx.emit("add", hits, {}, cx.outputs[0])


def along_last(cx, x: str, shape, axis: int, matrix: np.ndarray, out: str) -> None:
    """y = matrix applied along `axis` of x (a dense on rows, transposes around it)."""
    rank = len(shape)
    perm = [d for d in range(rank) if d != axis] + [axis]
    moved = tuple(shape[d] for d in perm)
    if axis != rank - 1:
        x = cx.emit("transpose", [x], {"perm": perm})
    rows = cx.emit("reshape", [x], {"shape": [math.prod(moved[:-1]), moved[-1]]})
    w = cx.param(f"{cx.name}/matrix", matrix.astype(np.float32))
    y = cx.emit("dense", [rows, w], {"epilogue": []})
    new = (*moved[:-1], matrix.shape[0])
    if axis == rank - 1:
        cx.emit("reshape", [y], {"shape": list(new)}, out)
        return
    y = cx.emit("reshape", [y], {"shape": list(new)})
    cx.emit("transpose", [y], {"perm": [int(p) for p in np.argsort(perm)]}, out)


def cumsum(cx) -> None:
    """CumSum along a constant axis: a dense with a 0/1 triangular matrix (exact for the
    integer counts transformers build position ids from)."""
    shape = cx.shape(0)
    axis = _axis(cx, int(cx.scalar_const(1, "axis")), len(shape))
    n = shape[axis]
    out_i, in_i = np.indices((n, n))
    if cx.attr("reverse", 0):
        keep = in_i > out_i if cx.attr("exclusive", 0) else in_i >= out_i
    else:
        keep = in_i < out_i if cx.attr("exclusive", 0) else in_i <= out_i
    along_last(cx, cx.number(0), shape, axis, keep.astype(np.float32), cx.outputs[0])


def trilu(cx) -> None:
    """Trilu: where(constant triangle mask, x, 0) over the last two dims."""
    shape = cx.shape(0)
    if len(shape) < 2:
        raise cx.fail(f"input must be at least 2-D, got shape {list(shape)}")
    k = int(cx.scalar_const(1, "k")) if cx.has(1) else 0
    rows, cols = np.indices(shape[-2:])
    keep = cols - rows >= k if cx.attr("upper", 1) else cols - rows <= k
    mask = cx.param(f"{cx.name}/mask", keep.astype(np.float32))
    cx.emit("where", [mask, cx.number(0), cx.scalar("zero", 0.0)], {}, cx.outputs[0])


def tile(cx) -> None:
    """Tile with constant repeats: reshape to [1, d0, 1, d1, ...], expand, reshape."""
    shape = cx.shape(0)
    reps = cx.axes_const(1, "repeats")
    if len(reps) != len(shape) or min(reps, default=1) < 1:
        raise cx.fail(f"repeats {reps} must be {len(shape)} ints >= 1")
    if all(r == 1 for r in reps):
        cx.alias(cx.outputs[0], cx.input(0))
        return
    x = cx.value(0, ints_ok=True)
    pairs = [v for d in shape for v in (1, d)]
    y = cx.emit("reshape", [x], {"shape": pairs})
    y = cx.emit(
        "expand",
        [y],
        {"shape": [v for r, d in zip(reps, shape, strict=True) for v in (r, d)]},
        None,
    )
    cx.emit(
        "reshape", [y], {"shape": [r * d for r, d in zip(reps, shape, strict=True)]}, cx.outputs[0]
    )


def stepped_slice(cx, shape, cuts, x: str) -> None:
    """Slice with any steps: one gather of constant positions per cut axis (`cuts` holds
    (axis, positions kept))."""
    y = x
    for i, (ax, positions) in enumerate(cuts):
        out = cx.outputs[0] if i == len(cuts) - 1 else None
        idx = cx.param(f"{cx.name}/positions", np.asarray(positions, np.int64))
        y = cx.emit("gather", [y, idx], {"axis": ax}, out)


def slice_positions(dim: int, start: int, end: int, step: int) -> list[int]:
    """The positions ONNX Slice keeps on an axis of size `dim` (its clamping rules)."""
    return list(range(dim)[slice(start, end, step)])


def _einsum_terms(cx, n_inputs: int) -> tuple[list[str], str]:
    eq = str(cx.required("equation")).replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if "." in eq or not arrow or len(terms) != n_inputs:
        raise cx.fail(
            f"equation {eq!r}: only explicit forms ('ij,jk->ik') without '...' are supported"
        )
    for t, i in zip(terms, range(n_inputs), strict=True):
        if len(t) != len(cx.shape(i)) or len(set(t)) != len(t):
            raise cx.fail(f"equation {eq!r}: term {t!r} does not fit input {i} of shape "
                          f"{list(cx.shape(i))} (or repeats a letter)")  # fmt: skip
    return terms, out


def einsum(cx) -> None:
    """Einsum of one operand (a transpose) or two (a batched matmul between transposes and
    reshapes): every letter is a batch, a contracted, a left or a right dim."""
    n = len(cx.node.input)
    terms, out = _einsum_terms(cx, n)
    if n == 1:
        if sorted(out) != sorted(terms[0]):
            raise cx.fail("a one-operand einsum must be a transpose (no sums, no diagonals)")
        perm = [terms[0].index(c) for c in out]
        cx.emit("transpose", [cx.value(0)], {"perm": perm}, cx.outputs[0])
        return
    if n != 2:
        raise cx.fail(f"einsum of {n} operands is not supported (one or two)")
    a, b = terms
    if (set(a) ^ set(b)) - set(out) or not set(out) <= set(a) | set(b):
        raise cx.fail(f"equation {a},{b}->{out}: a letter summed in one operand only")
    batch = [c for c in out if c in a and c in b]
    left = [c for c in out if c in a and c not in b]
    right = [c for c in out if c in b and c not in a]
    k = [c for c in a if c in b and c not in out]
    sizes = {c: d for t, i in ((a, 0), (b, 1)) for c, d in zip(t, cx.shape(i), strict=True)}

    def arrange(i: int, term: str, order: list[str], rows: list[list[str]]) -> str:
        x = cx.value(i)
        perm = [term.index(c) for c in order]
        if perm != list(range(len(term))):
            x = cx.emit("transpose", [x], {"perm": perm})
        shape = [math.prod(sizes[c] for c in group) for group in rows]
        return cx.emit("reshape", [x], {"shape": shape})

    xa = arrange(0, a, batch + left + k, [batch, left, k])
    xb = arrange(1, b, batch + k + right, [batch, k, right])
    y = cx.emit("matmul", [xa, xb], {})
    order = batch + left + right
    y = cx.emit("reshape", [y], {"shape": [sizes[c] for c in order] or [1]})
    perm = [order.index(c) for c in out]
    if perm == list(range(len(out))):
        cx.emit("reshape", [y], {"shape": [sizes[c] for c in out]}, cx.outputs[0])
    else:
        cx.emit("transpose", [y], {"perm": perm}, cx.outputs[0])


HANDLERS = {
    "Einsum": einsum,
    "CumSum": cumsum,
    "GatherElements": gather_elements,
    "GatherND": gather_nd,
    "IsInf": is_inf,
    "IsNaN": is_nan,
    "ScatterND": scatter_nd,
    "Tile": tile,
    "Trilu": trilu,
}
