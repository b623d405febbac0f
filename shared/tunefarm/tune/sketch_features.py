"""Per-statement features of a lowered kernel, in the style of the auto-scheduler's.

Every store statement of the loop nest gets a row (`STATEMENT_NAMES`, `BUFFER_NAMES` per
buffer): what it computes, how it touches memory, how its loops are annotated. A kernel's
vector is its `SLOTS` heaviest statements (most iterations first) followed by totals over all
statements, so kernels of any op and any sketch share one layout and one model ranks them all
(the model is shared by every task of a job, and transfers across jobs).

Per statement:
- arithmetic counts by kind, times the iterations (log2): float add/sub, mul, div, min/max,
  math calls, comparisons and selects, integer index arithmetic;
- loop annotations: parallel extent, vector width, unrolled extent product, the largest
  auto-unroll max step around it, loop depth; on a GPU, the threads of a block and the
  blocks its loops are bound to (a CPU kernel has 0 for both);
- outer-loop products: iterations of the whole nest, of the parallel loops' bodies;
- allocation sizes: local buffers declared in the nest, static scratch;
- per buffer access (`TOP_BUFFERS` biggest): bytes accessed, unique bytes (in the whole
  nest and in its innermost 2, 4 and 6 loops: the footprints of the register and cache
  tiles), cache lines, reuse distance (iterations between two touches of one element),
  stride of the innermost loop, whether it is a read, a write or both.
"""

from __future__ import annotations

import math

import numpy as np

from tunefarm.codegen.loops import Buffer, BufferLoad, LoweredFunc, Store
from tunefarm.ir.expr import Binary, Call, Compare, Select, is_float
from tunefarm.ir.tensor import walk
from tunefarm.tune.features import _decls, _distinct, _log2, _nbytes, _Site, _sites, _Strides

SLOTS = 3
TOP_BUFFERS = 4
LINE = 64  # bytes per cache line
ARITH = ("f_addsub", "f_mul", "f_div", "f_minmax", "f_call", "cmp_select", "int_ops")
STATEMENT_NAMES = (
    "present",
    *(f"log2_{a}" for a in ARITH),
    "log2_iterations",
    "log2_parallel",
    "log2_vector",
    "log2_unrolled",
    "log2_auto_unroll",
    "depth",
    "log2_iterations_per_thread",
    "log2_innermost_extent",
    "guarded",
    "log2_block_threads",
    "log2_blocks",
)
BUFFER_NAMES = (
    "log2_bytes",
    "log2_unique_bytes",
    "log2_unique_bytes_inner2",
    "log2_unique_bytes_inner4",
    "log2_unique_bytes_inner6",
    "log2_lines",
    "log2_reuse_distance",
    "log2_stride",
    "is_read",
    "is_write",
    "is_local",
    "is_shared",
)
ROW = len(STATEMENT_NAMES) + TOP_BUFFERS * len(BUFFER_NAMES)
TOTAL_NAMES = ("log2_flops", "n_statements", "log2_local_bytes", "log2_static_bytes")
LENGTH = SLOTS * ROW + len(TOTAL_NAMES) + len(ARITH)


def statement_features(func: LoweredFunc, flops: float) -> np.ndarray:
    """The fixed-length vector of a lowered kernel (see the module docstring)."""
    sites: list[_Site] = []
    _sites(func.body, [], False, sites)
    sites.sort(key=lambda s: -s.iterations)
    rows = [_statement(s) for s in sites[:SLOTS]]
    rows += [np.zeros(ROW)] * (SLOTS - len(rows))
    arith = np.zeros(len(ARITH))
    for s in sites:
        arith += _arith(s.store) * s.iterations
    totals = [
        _log2(flops),
        float(len(sites)),
        _log2(1 + sum(_nbytes(b, b.size) for b in _decls(func.body))),
        _log2(1 + sum(_nbytes(b, b.size) for b in func.statics)),
    ]
    return np.concatenate([*rows, totals, [_log2(1 + x) for x in arith]])


def _arith(store: Store) -> np.ndarray:
    out = np.zeros(len(ARITH))
    for node in walk(store.value):
        if isinstance(node, Binary):
            if not is_float(node.dtype):
                out[6] += 1
            elif node.op in ("+", "-"):
                out[0] += 1
            elif node.op == "*":
                out[1] += 1
            elif node.op == "/":
                out[2] += 1
            else:
                out[3] += 1
        elif isinstance(node, Call):
            out[4] += 1
        elif isinstance(node, (Compare, Select)):
            out[5] += 1
    out[6] += sum(1 for n in walk(store.index) if isinstance(n, Binary))
    return out


def _statement(site: _Site) -> np.ndarray:
    loops = site.loops
    iters = site.iterations
    parallel = math.prod(f.extent for f in loops if f.kind in ("parallel", "bind"))
    vector = next((f.extent for f in reversed(loops) if f.kind == "vectorize"), 1)
    unrolled = math.prod(f.extent for f in loops if f.kind == "unroll")
    head = [
        1.0,
        *(_log2(1 + x * iters) for x in _arith(site.store)),
        _log2(iters),
        _log2(parallel),
        _log2(vector),
        _log2(unrolled),
        _log2(
            1
            + max(
                (v for f in loops for k, v in f.pragmas if k == "auto_unroll_max_step"), default=0
            )
        ),
        float(len(loops)),
        _log2(iters / parallel),
        _log2(loops[-1].extent) if loops else 0.0,
        float(site.guarded),
        _log2(_bound(loops, "threadIdx")),
        _log2(_bound(loops, "blockIdx")),
    ]
    return np.concatenate([head, _buffers(site)])


def _bound(loops, prefix: str) -> int:
    """Threads (or blocks) of the launch around a statement: per GPU tag starting with
    `prefix`, the widest loop bound to it (a cooperative fetch binds a tag again inside the
    loop already bound to it), multiplied over the tags; 1 on a CPU."""
    widest: dict[str, int] = {}
    for f in loops:
        if f.kind == "bind" and str(f.thread).startswith(prefix):
            widest[f.thread] = max(widest.get(f.thread, 1), f.extent)
    return math.prod(widest.values())


def _buffers(site: _Site) -> list[float]:
    access: dict[str, tuple[Buffer, list, bool, bool]] = {}
    found = [(site.store.buffer, site.store.index, False, True)]
    found += [
        (n.buffer, n.index, True, False)
        for n in walk(site.store.value)
        if isinstance(n, BufferLoad)
    ]
    for buf, index, read, write in found:
        old = access.get(buf.name)
        if old is None:
            access[buf.name] = (buf, [index], read, write)
        else:
            access[buf.name] = (buf, old[1] + [index], old[2] or read, old[3] or write)
    rows = []
    for buf, indices, read, write in access.values():
        rows.append(_buffer_row(site, buf, indices[0], read, write))
    rows.sort(key=lambda r: -r[0])
    flat = [x for r in rows[:TOP_BUFFERS] for x in r]
    return flat + [0.0] * (TOP_BUFFERS * len(BUFFER_NAMES) - len(flat))


def _buffer_row(site: _Site, buf: Buffer, index, read: bool, write: bool) -> list[float]:
    loops = site.loops
    strides = _Strides(index)
    unique = _distinct(strides, loops)
    innermost = strides(loops[-1].var) if loops else 0
    contiguous = innermost is not None and abs(innermost) <= 1
    lines = unique * _nbytes(buf, 1) / LINE if contiguous else unique
    # reuse distance: iterations inside the innermost loop that does not move the index
    distance = 1
    for f in reversed(loops):
        if strides(f.var) == 0:
            break
        distance *= f.extent
    return [
        _log2(_nbytes(buf, site.iterations)),
        _log2(_nbytes(buf, unique)),
        *(_log2(_nbytes(buf, _distinct(strides, loops[-n:]))) for n in (2, 4, 6)),
        _log2(max(1.0, lines)),
        _log2(distance),
        -1.0 if innermost is None else _log2(1 + abs(innermost)),
        float(read),
        float(write),
        float(buf.scope == "local"),
        float(buf.scope == "shared"),
    ]
