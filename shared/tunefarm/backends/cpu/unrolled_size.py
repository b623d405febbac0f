"""How much C a lowered CPU kernel unrolls into, counted before it is emitted (issue 27).

The C emitter repeats a loop's body once per iteration where the loop is unrolled (`unroll`
loops up to `c_emitter.UNROLL_EXPLICIT_MAX`, and under `auto_unroll_max_step` every serial
nest of at most that many steps). A sketch state can multiply those into a body of hundreds
of thousands of expression nodes: 0.3-1.2 MB of C, for which gcc alone took up to 3.5 s of
CPU (Zen 4; 4-8 s on Zen 3) where an average conv candidate takes 0.45 s, and the Python
emitter about half that again.
None of the 50 sketch bests recorded in benchmarks/results-*.json is over 84,000 nodes
(135 KB of C), so the search drops such states before they are built, as it drops a local
tile over `SketchParams.max_local` (`check`, the CPU's `SketchParams.check_lowered`). That
trades a rare fast one for the builds: in one 48-trial trace on a loaded core the best state
(5.5 GFLOP/s, the next 5.3) was over the limit.

`emitted_nodes` follows the emitter's unroll rules on the lowered loop nest, without
substituting anything: every stored expression's node count times the copies the emitter
writes of it. Measured against the emitted text: 1.2-4.1 bytes of C per node on the conv
states over 30,000 nodes (seven of a 48-trial search, six of 12 random states), so the
limit below is about 0.2-0.6 MB of C.
"""

from __future__ import annotations

from tunefarm.backends.cpu.c_emitter import is_unrolled, max_step_in
from tunefarm.codegen.loops import For, If, LoweredFunc, Stmt, Store
from tunefarm.ir.tensor import Expr, walk

# expression nodes a kernel may unroll into; past it the state is not built
MAX_EMITTED_NODES = 150_000


def _nodes(e: Expr) -> int:
    return sum(1 for _ in walk(e))


def _count(stmts: list[Stmt], max_step: int) -> int:
    total = 0
    for s in stmts:
        if isinstance(s, For):
            inner_step = max_step_in(s, max_step)
            inner = _count(s.body, inner_step)
            total += s.extent * inner if s.extent > 1 and is_unrolled(s, inner_step) else inner
        elif isinstance(s, If):
            total += _nodes(s.cond) + _count(s.body, max_step)
        elif isinstance(s, Store):
            total += _nodes(s.index) + _nodes(s.value)
        else:
            total += 1
    return total


def emitted_nodes(func: LoweredFunc) -> int:
    """Expression nodes the C emitter writes for `func`, unrolled copies counted."""
    return _count(func.body, 0)


def check(func: LoweredFunc, limit: int = MAX_EMITTED_NODES) -> None:
    """Raise ValueError where `func` unrolls into more than `limit` expression nodes."""
    nodes = emitted_nodes(func)
    if nodes > limit:
        raise ValueError(
            f"unrolled body over {limit} expression nodes; this one has {nodes}, and gcc "
            "would take seconds on its C"
        )
