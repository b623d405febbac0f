"""Plan checks and static memory planning: every temp buffer gets an offset in one arena.

A network's intermediates are mostly short-lived: a temp is needed from the call that writes
it to the last call that reads it. Placing temps whose lifetimes do not overlap at the same
offsets makes the arena much smaller than the sum of the temps (better cache reuse, smaller
footprint), and being static it costs nothing at run time. Placement is greedy by size with
best fit (largest temps first, each into the smallest gap that no overlapping temp uses).

The checks live here because liveness needs them anyway: a plan that names an unknown buffer
or reads a temp before any call wrote it is a compiler bug that must fail clearly now rather
than as wrong numbers later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.runtime.plan import BUFFER_KINDS, BufferSpec, Call, ExecPlan, KernelCode

ALIGN = 64  # every buffer, arena offsets included, starts on a cache line
_C_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
RESERVED_KERNEL_NAMES = ("net",)  # tf_net_* are the driver's exports


class PlanError(ValueError):
    """An execution plan that is inconsistent (unknown names, wrong arity, bad liveness)."""


def align_up(n: int, align: int = ALIGN) -> int:
    return -(-n // align) * align


@dataclass(frozen=True)
class MemoryPlan:
    """Where every buffer's memory is.

    roots: buffer name -> the buffer that owns its memory (itself unless it is an alias).
    offsets: arena byte offset of every buffer whose root is a temp (aliases included).
    lifetimes: temp root -> (first call, last call) it is live in, inclusive.
    arena_bytes: size of the arena; naive_bytes: sum of the (aligned) temp sizes, i.e. the
        arena without reuse.
    """

    roots: dict[str, str]
    offsets: dict[str, int]
    lifetimes: dict[str, tuple[int, int]]
    arena_bytes: int
    naive_bytes: int

    @property
    def saved_bytes(self) -> int:
        return self.naive_bytes - self.arena_bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "roots": dict(self.roots),
            "offsets": dict(self.offsets),
            "lifetimes": {k: list(v) for k, v in self.lifetimes.items()},
            "arena_bytes": self.arena_bytes,
            "naive_bytes": self.naive_bytes,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MemoryPlan:
        return MemoryPlan(
            dict(obj["roots"]),
            {k: int(v) for k, v in obj["offsets"].items()},
            {k: (int(v[0]), int(v[1])) for k, v in obj["lifetimes"].items()},
            int(obj["arena_bytes"]),
            int(obj["naive_bytes"]),
        )


# ----------------------------------------------------------------------------- checks


def _check_buffer(buf: BufferSpec) -> None:
    if buf.kind not in BUFFER_KINDS:
        raise PlanError(f"buffer {buf.name!r}: kind {buf.kind!r} is not one of {BUFFER_KINDS}")
    if not all(isinstance(d, (int, np.integer)) and d >= 0 for d in buf.shape):
        raise PlanError(f"buffer {buf.name!r}: shape {buf.shape} must be non-negative ints")
    try:
        np.dtype(buf.dtype)
    except TypeError:
        raise PlanError(f"buffer {buf.name!r}: dtype {buf.dtype!r} is not a dtype") from None


def buffer_table(plan: ExecPlan) -> dict[str, BufferSpec]:
    """Buffers by name, checked one by one (kind, shape, dtype, unique names)."""
    table: dict[str, BufferSpec] = {}
    for buf in plan.buffers:
        if buf.name in table:
            raise PlanError(f"buffer {buf.name!r} is defined twice")
        _check_buffer(buf)
        table[buf.name] = buf
    return table


def resolve_roots(table: dict[str, BufferSpec]) -> dict[str, str]:
    """Buffer name -> the buffer owning its memory, following alias chains."""
    roots: dict[str, str] = {}
    for name in table:
        seen, cur = [name], table[name]
        while cur.alias_of is not None:
            if cur.alias_of not in table:
                raise PlanError(f"buffer {cur.name!r} aliases unknown buffer {cur.alias_of!r}")
            if cur.nbytes != table[cur.alias_of].nbytes:
                raise PlanError(
                    f"buffer {cur.name!r} ({cur.nbytes} bytes) aliases {cur.alias_of!r} "
                    f"({table[cur.alias_of].nbytes} bytes); an alias must have the same size"
                )
            if cur.alias_of in seen:
                raise PlanError(f"buffer {name!r}: alias cycle {' -> '.join(seen)}")
            seen.append(cur.alias_of)
            cur = table[cur.alias_of]
        roots[name] = cur.name
    return roots


def _check_kernels(kernels: list[KernelCode]) -> dict[str, KernelCode]:
    found: dict[str, KernelCode] = {}
    for k in kernels:
        if not _C_NAME.match(k.name) or k.name in RESERVED_KERNEL_NAMES:
            raise PlanError(f"kernel name {k.name!r} must be a C identifier other than 'net'")
        if k.name in found:
            raise PlanError(f"kernel {k.name!r} is defined twice")
        found[k.name] = k
    return found


def _check_call(index: int, call: Call, kernels: dict[str, KernelCode], buffers: set[str]) -> None:
    where = f"call {index} (node {call.node!r})"
    kernel = kernels.get(call.kernel)
    if kernel is None:
        raise PlanError(f"{where}: unknown kernel {call.kernel!r}")
    if len(call.args) != kernel.n_args:
        raise PlanError(
            f"{where}: kernel {call.kernel!r} takes {kernel.n_args} args, got {len(call.args)}"
        )
    for arg in call.args:
        if arg not in buffers:
            raise PlanError(f"{where}: unknown buffer {arg!r}")


def _check_io(plan: ExecPlan, table: dict[str, BufferSpec]) -> None:
    for what, pairs in (("input", plan.inputs), ("output", plan.outputs)):
        names = [user for user, _ in pairs]
        if len(set(names)) != len(names):
            raise PlanError(f"{what} names are not unique: {names}")
        for user, buf in pairs:
            if buf not in table:
                raise PlanError(f"{what} {user!r} refers to unknown buffer {buf!r}")
            if what == "input" and (table[buf].kind != "input" or table[buf].alias_of):
                raise PlanError(f"input {user!r}: buffer {buf!r} must be a kind 'input' buffer")


def _check_params(plan: ExecPlan, table: dict[str, BufferSpec]) -> None:
    for name in plan.params:
        if name not in table or table[name].kind != "param" or table[name].alias_of:
            raise PlanError(f"params has {name!r}, which is no (non-alias) param buffer")
    for buf in table.values():
        if buf.kind != "param" or buf.alias_of:
            continue
        if buf.name not in plan.params:
            raise PlanError(f"param buffer {buf.name!r} has no data in plan.params")
        data = np.asarray(plan.params[buf.name])
        if tuple(data.shape) != tuple(buf.shape):
            raise PlanError(f"param {buf.name!r}: data shape {data.shape}, buffer {buf.shape}")


def check_plan(plan: ExecPlan) -> dict[str, str]:
    """Raise PlanError for an inconsistent plan; return the buffer roots."""
    table = buffer_table(plan)
    roots = resolve_roots(table)
    kernels = _check_kernels(plan.kernels)
    names = set(table)  # once: a set per call made this quadratic in the node count
    for i, call in enumerate(plan.calls):
        _check_call(i, call, kernels, names)
    _check_io(plan, table)
    _check_params(plan, table)
    return roots


# ----------------------------------------------------------------------------- liveness


def n_outputs(kernel: KernelCode) -> int:
    """How many trailing args a kernel writes (the ABI puts outputs last; one by default)."""
    return int(getattr(kernel, "n_outputs", 1))


def temp_lifetimes(plan: ExecPlan, roots: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Temp root -> (first writing call, last call using it), inclusive.

    Temps read by the user (an output aliasing a temp) stay live to the end. A temp no call
    uses is left out. Reading a temp before any call wrote it raises PlanError.
    """
    kinds = {b.name: b.kind for b in plan.buffers}
    kernels = {k.name: k for k in plan.kernels}
    spans: dict[str, list[int]] = {}
    for i, call in enumerate(plan.calls):
        first_out = len(call.args) - n_outputs(kernels[call.kernel])
        for pos, arg in enumerate(call.args):
            root = roots[arg]
            if kinds[root] != "temp":
                continue
            if root not in spans:
                if pos < first_out:
                    raise PlanError(
                        f"call {i} (node {call.node!r}): reads temp buffer {arg!r} before any "
                        "call writes it"
                    )
                spans[root] = [i, i]
            spans[root][1] = i
    end = max(len(plan.calls) - 1, 0)
    for _, buf in plan.outputs:
        if roots[buf] in spans:
            spans[roots[buf]][1] = end
    return {name: (s[0], s[1]) for name, s in spans.items()}


# ----------------------------------------------------------------------------- placement


PLACE_STRETCH = 64  # calls per stretch of the placement index


def _best_gap(taken: list[tuple[int, int]], size: int) -> int:
    """Lowest-waste offset for `size` bytes among `taken` (offset, size) blocks."""
    best: tuple[int, int] | None = None  # (gap, offset)
    end = 0
    for offset, used in sorted(taken):
        gap = offset - end
        if gap >= size and (best is None or gap < best[0]):
            best = (gap, end)
        end = max(end, offset + used)
    return best[1] if best is not None else end


def place(blocks: dict[str, tuple[int, int, int]]) -> tuple[dict[str, int], int]:
    """Offsets for blocks name -> (size, first, last) so that blocks live at the same time
    never overlap; returns (offsets, arena size). Sizes must be multiples of the alignment
    (offsets are then multiples of it too)."""
    order = sorted(blocks, key=lambda n: (-blocks[n][0], blocks[n][1], n))
    offsets: dict[str, int] = {}
    arena = 0
    # Placed blocks by the stretches of calls they live in: a block is compared with those
    # sharing a stretch only, not with every placed block (quadratic: a chain of 20,000
    # nodes took minutes). The blocks found, and so the offsets, are the same.
    stretches: dict[int, list[str]] = {}
    for name in order:
        size, first, last = blocks[name]
        span = range(first // PLACE_STRETCH, last // PLACE_STRETCH + 1)
        seen: set[str] = set()
        taken = []
        for stretch in span:
            for other in stretches.get(stretch, ()):
                if other not in seen:
                    seen.add(other)
                    if blocks[other][1] <= last and first <= blocks[other][2]:
                        taken.append((offsets[other], blocks[other][0]))
        offsets[name] = _best_gap(taken, size)
        arena = max(arena, offsets[name] + size)
        for stretch in span:
            stretches.setdefault(stretch, []).append(name)
    return offsets, arena


def plan_memory(plan: ExecPlan, align: int = ALIGN) -> MemoryPlan:
    """Check `plan` and place its temps in one arena (see the module docstring), every offset
    a multiple of `align` (a GPU's arena is cut into sub-buffers, whose origins the device
    wants aligned more coarsely than a cache line)."""
    roots = check_plan(plan)
    table = {b.name: b for b in plan.buffers}
    lifetimes = temp_lifetimes(plan, roots)
    temps = [b for b in plan.buffers if b.kind == "temp" and b.alias_of is None]
    sizes = {b.name: align_up(max(b.nbytes, 1), align) for b in temps}
    blocks = {n: (sizes[n], *lifetimes[n]) for n in sizes if n in lifetimes}
    root_offsets, arena = place(blocks)
    for name in sizes:  # unused temps: nobody touches them, any in-bounds offset will do
        if name not in root_offsets:
            root_offsets[name] = 0
            arena = max(arena, sizes[name])
    offsets = {n: root_offsets[r] for n, r in roots.items() if table[r].kind == "temp"}
    return MemoryPlan(roots, offsets, lifetimes, arena, sum(sizes.values()))
