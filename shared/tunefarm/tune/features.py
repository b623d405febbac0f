"""Features of candidate configs, kept apart from the cost model that learns from them.

Two kinds, named in `FEATURE_TYPES`:

* "knob": the space's own numeric knob features (`ConfigSpace.features`). Cheap (tens of
  microseconds) but tied to one space: a model trained on them only ranks configs of the
  same workload.
* "loop": a fixed-length summary of the lowered loop nest. Every task yields a vector of
  `LOOP_FEATURE_LENGTH` slots with the same meaning, so a model trained on conv2d records
  can rank dense or pool configs (transfer learning). Lowering costs a few milliseconds,
  so vectors are cached per (task, config values).

Layout of a loop feature vector (the slot names are in `LOOP_FEATURE_NAMES`):

1. Globals (`GLOBAL_NAMES`): whether lowering succeeded; log2 of the task's flops; log2 of
   the parallel extent, vector width, iterations and iterations per parallel task of the
   main statement; whether the main statement is guarded (a split that does not divide);
   log2(1 + x) of the unrolled statement count, local (register) and static scratch bytes;
   the number of stores, of root loop nests, and the main statement's loop depth.
2. `DEPTH` loop levels of the main statement, outermost to innermost and right-aligned so
   the last slot is always the innermost loop (padding zeros at the front); loops of
   extent 1 are skipped because they emit no code. Per level (`LEVEL_NAMES`): log2 extent,
   one-hot serial/parallel/unroll/vectorize, and whether the loop variable indexes the
   stored element (spatial) rather than being a reduction.
3. `TOP_BUFFERS` buffers accessed by the main statement, largest footprint first, zero
   padded. Per buffer (`BUFFER_NAMES`): log2 bytes touched within the innermost 2 and
   `INNER_LOOPS` loops and the whole nest, log2 reuse (iterations / distinct elements)
   within the innermost `INNER_LOOPS` loops, log2(1 + |stride|) in the innermost loop
   (its `coefficient`; -1 when not affine), whether the buffer is local, whether it is
   the stored buffer.

The *main statement* is the store executed most often (ties: the one reading most
buffers); for a reduction that is the update of the accumulator, which dominates runtime.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends import registry
from tunefarm.codegen.arith import to_affine
from tunefarm.codegen.loops import Buffer, BufferLoad, Decl, For, If, LoweredFunc, Stmt, Store
from tunefarm.codegen.lower import lower
from tunefarm.ir.expr import Expr
from tunefarm.ir.tensor import walk
from tunefarm.ir.transform import free_vars
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.space import ConfigSpace
from tunefarm.task import Task

FEATURE_TYPES = ("knob", "loop")
DEPTH = 8  # loop levels kept, innermost last
TOP_BUFFERS = 4  # buffers kept, biggest footprint first
INNER_LOOPS = 4  # the "innermost N loops" window for footprint and reuse
KINDS = ("serial", "parallel", "unroll", "vectorize")

GLOBAL_NAMES = (
    "valid",
    "log2_flops",
    "log2_parallel_extent",
    "log2_vector_width",
    "log2_iterations",
    "log2_iterations_per_task",
    "guarded",
    "log2_unrolled_stmts",
    "log2_local_bytes",
    "log2_static_bytes",
    "n_stores",
    "n_root_nests",
    "depth",
)
LEVEL_NAMES = ("log2_extent", *(f"is_{k}" for k in KINDS), "spatial")
BUFFER_NAMES = (
    "log2_bytes_inner2",
    f"log2_bytes_inner{INNER_LOOPS}",
    "log2_bytes_nest",
    f"log2_reuse_inner{INNER_LOOPS}",
    "log2_stride",
    "is_local",
    "is_store",
)
LOOP_FEATURE_NAMES = (
    GLOBAL_NAMES
    + tuple(f"level{d}.{n}" for d in range(DEPTH) for n in LEVEL_NAMES)
    + tuple(f"buf{b}.{n}" for b in range(TOP_BUFFERS) for n in BUFFER_NAMES)
)
LOOP_FEATURE_LENGTH = len(LOOP_FEATURE_NAMES)
# Lowering errors that mean "this config is invalid" (ScheduleError and TaskError are both
# ValueErrors); anything else is a bug and propagates.
_INVALID = (ValueError, KeyError, IndexError, ZeroDivisionError)


def knob_features(space: ConfigSpace, indices: Sequence[int]) -> np.ndarray:
    """One row of `space.features(i)` per index; shape (len(indices), n_knob_features)."""
    rows = [space.features(int(i)) for i in indices]
    if not rows:
        width = len(space.features(0)) if space.size else 0
        return np.zeros((0, width))
    return np.stack(rows)


def featurize(
    task: Task, space: ConfigSpace, indices: Sequence[int], feature_type: str
) -> np.ndarray:
    """Feature matrix of configs `indices` of `space` (the space of `task`)."""
    if feature_type == "knob":
        return knob_features(space, indices)
    if feature_type == "loop":
        rows = [loop_features(task, space.get(int(i))) for i in indices]
        return np.stack(rows) if rows else np.zeros((0, LOOP_FEATURE_LENGTH))
    raise ValueError(f"unknown feature_type {feature_type!r}; known: {FEATURE_TYPES}")


def loop_features(task: Task, values: Mapping[str, Any]) -> np.ndarray:
    """The fixed-length loop-nest summary of one config (see the module docstring).

    A config whose template or lowering rejects it gets a vector with `valid` = 0 and the
    task's flops, so the model can still learn that such configs fail.
    """
    return _cached_loop_features(task, _freeze(dict(values)))


def _freeze(value: Any) -> Any:
    """Hashable, order-independent form of a values dict (lists become tuples)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


@functools.lru_cache(maxsize=1 << 16)
def _cached_loop_features(task: Task, frozen: tuple) -> np.ndarray:
    # Keyed on the whole task (workload and target: vector lanes change the kernel).
    flops = registry.flops(task)
    out = np.zeros(LOOP_FEATURE_LENGTH)
    out[1] = _log2(flops)
    try:
        kdef = registry.instantiate(task, dict(frozen))
        func = lower(Schedule(kdef.outputs, kdef.inputs).apply_all(kdef.steps))
    except _INVALID:
        out.flags.writeable = False
        return out
    out[:] = _summarise(func, flops)
    out.flags.writeable = False  # shared by every caller through the cache
    return out


# ------------------------------------------------------------------------------ the nest


@dataclass
class _Site:
    """One store and the non-trivial loops around it, outermost first."""

    store: Store
    loops: list[For]
    guarded: bool

    @property
    def iterations(self) -> int:
        return math.prod(f.extent for f in self.loops)


def _sites(stmts: list[Stmt], loops: list[For], guarded: bool, out: list[_Site]) -> None:
    for s in stmts:
        if isinstance(s, For):
            _sites(s.body, loops + [s] if s.extent > 1 else loops, guarded, out)
        elif isinstance(s, If):
            _sites(s.body, loops, True, out)
        elif isinstance(s, Store):
            out.append(_Site(s, loops, guarded))


def _decls(stmts: list[Stmt]) -> list[Buffer]:
    found: list[Buffer] = []
    for s in stmts:
        if isinstance(s, Decl):
            found.append(s.buffer)
        elif isinstance(s, (For, If)):
            found += _decls(s.body)
    return found


def _summarise(func: LoweredFunc, flops: float) -> np.ndarray:
    sites: list[_Site] = []
    _sites(func.body, [], False, sites)
    if not sites:
        return np.concatenate([[1.0, _log2(flops)], np.zeros(LOOP_FEATURE_LENGTH - 2)])
    accesses = {id(s): _accesses(s.store) for s in sites}
    main = max(sites, key=lambda s: (s.iterations, len(accesses[id(s)])))
    parallel = math.prod(f.extent for f in main.loops if f.kind in ("parallel", "bind"))
    vector = next((f.extent for f in reversed(main.loops) if f.kind == "vectorize"), 1)
    unrolled = sum(math.prod(f.extent for f in s.loops if f.kind == "unroll") for s in sites)
    local_bytes = sum(_nbytes(b, b.size) for b in _decls(func.body))
    static_bytes = sum(_nbytes(b, b.size) for b in func.statics)
    glob = [
        1.0,
        _log2(flops),
        _log2(parallel),
        _log2(vector),
        _log2(main.iterations),
        _log2(main.iterations / parallel),
        float(main.guarded),
        _log2(1 + unrolled),
        _log2(1 + local_bytes),
        _log2(1 + static_bytes),
        float(len(sites)),
        float(sum(isinstance(s, For) for s in func.body)),
        float(len(main.loops)),
    ]
    parts = [glob, _level_features(main), _buffer_features(main, accesses[id(main)])]
    return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])


def _level_features(site: _Site) -> list[float]:
    out = [0.0] * (DEPTH * len(LEVEL_NAMES))
    kept = site.loops[-DEPTH:]
    first = DEPTH - len(kept)
    strides = _Strides(site.store.index)
    for slot, loop in enumerate(kept, start=first):
        kind = "parallel" if loop.kind == "bind" else loop.kind
        row = [_log2(loop.extent), *(float(kind == k) for k in KINDS)]
        row.append(float(strides(loop.var) != 0))
        out[slot * len(LEVEL_NAMES) : (slot + 1) * len(LEVEL_NAMES)] = row
    return out


# ------------------------------------------------------------------------------ buffers


def _accesses(store: Store) -> list[tuple[Buffer, Expr, bool]]:
    """(buffer, flat index, is the store) of every access of the statement."""
    found = [(store.buffer, store.index, True)]
    found += [(n.buffer, n.index, False) for n in walk(store.value) if isinstance(n, BufferLoad)]
    return found


class _Strides:
    """Per-loop-variable strides of one index: `coefficient` with one affine analysis
    shared by every variable (this is the hot spot of the loop features)."""

    def __init__(self, index: Expr):
        aff = to_affine(index)
        self.coefs = aff.coefs
        self.opaque = set().union(*(free_vars(e) for e, _ in aff.opaque))

    def __call__(self, var: str) -> int | None:
        return None if var in self.opaque else self.coefs.get(var, 0)


def _distinct(strides: _Strides, loops: Sequence[For]) -> int:
    """Distinct elements `index` touches over `loops` (an estimate, exact for tilings).

    Loops with the same stride move along the same dimension, so together they touch
    their summed extents (a sliding window such as `ow + kw`), not the product; the total
    is also at most the span of the index. A non-affine index gets the product of the
    extents of the loops it uses, an upper bound.
    """
    by_stride: dict[int, list[int]] = {}
    count, span, affine = 1, 1, True
    for loop in loops:
        c = strides(loop.var)
        if c is None:
            count, affine = count * loop.extent, False
        elif c != 0:
            by_stride.setdefault(abs(c), []).append(loop.extent)
            span += abs(c) * (loop.extent - 1)
    for extents in by_stride.values():
        count *= min(math.prod(extents), 1 + sum(e - 1 for e in extents))
    return min(count, span) if affine else count


def _buffer_features(site: _Site, accesses: list[tuple[Buffer, Expr, bool]]) -> list[float]:
    inner = site.loops[-INNER_LOOPS:]
    iterations = math.prod(f.extent for f in inner)
    rows: dict[str, tuple[float, list[float]]] = {}
    for buf, index, is_store in accesses:
        strides = _Strides(index)
        touched = [_distinct(strides, site.loops[-n:] if n else site.loops) for n in (2, 0)]
        distinct = _distinct(strides, inner)
        stride = strides(site.loops[-1].var) if site.loops else 0
        row = [
            _log2(_nbytes(buf, touched[0])),
            _log2(_nbytes(buf, distinct)),
            _log2(_nbytes(buf, touched[1])),
            _log2(iterations / distinct),
            -1.0 if stride is None else _log2(1 + abs(stride)),
            float(buf.scope == "local"),
            float(is_store),
        ]
        key = (-touched[1], -distinct)
        old = rows.get(buf.name)
        if old is None:
            rows[buf.name] = (key, row)
        else:  # several accesses of one buffer: keep the largest, remember any store
            best = min((old, (key, row)), key=lambda kv: kv[0])
            best[1][-1] = max(old[1][-1], row[-1])
            rows[buf.name] = best
    ordered = [row for _, row in sorted(rows.values(), key=lambda kv: kv[0])][:TOP_BUFFERS]
    flat = [x for row in ordered for x in row]
    return flat + [0.0] * (TOP_BUFFERS * len(BUFFER_NAMES) - len(flat))


def _nbytes(buf: Buffer, elements: float) -> float:
    try:
        itemsize = np.dtype(buf.dtype).itemsize
    except TypeError:
        itemsize = 4
    return float(elements) * itemsize


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else 0.0
