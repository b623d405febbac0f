"""Which parallel loops run without an OpenMP region: those too small to pay for the team.

Compiled networks run with OpenMP's passive wait policy (threads sleep between regions, so
busy neighbours keep their cores; README, "contention"), so every parallel region wakes a
sleeping team and joins it again. For a small kernel that costs more than the second core
saves: bert-tiny's 16K-element transposes took 8-10 us as regions and 1-2 us serially
inside the network (docs/transformers.md, "small kernels"). Shapes are static, so a loop
nest's work is known when the C is emitted: a nest whose estimated work is below
SERIAL_WORK runs on the calling thread, and a target of one core (`-cores=1`) has no regions
at all (a one-thread region still costs the call and the outlined body: bert-tiny's layer
norm took 45 us in one-thread regions against 11 us serially).

The work is counted in the lowered loop IR: each scalar store executed (a vector loop counts
its lanes) weighs the operations of its value, loads included, a transcendental call (expf,
erff, ...) CALL_WORK of them; index arithmetic is not counted.
"""

from __future__ import annotations

from tunefarm.codegen.loops import BufferLoad, For, If, Stmt, Store
from tunefarm.ir.expr import Call, Const, Expr, Var
from tunefarm.ir.tensor import children
from tunefarm.target import Target

# A transcendental call (expf, ...) costs about as much as this many loads or arithmetic
# operations: bert-tiny's softmax spent ~2.5 ns per expf where its elementwise kernels and
# layer norm ran 30-70 operations per ns. sqrt, fma, rounding are one instruction each.
CALL_WORK = 100
COSTLY_CALLS = ("exp", "erf", "tanh", "log", "pow")
# Regions below this much work (operations, as counted above) run serially. Measured on the
# 2-core AMD EPYC development host inside bert-tiny: see docs/transformers.md.
SERIAL_WORK = 1_000_000


def value_work(e: Expr) -> int:
    """Operations to compute one stored value: loads, arithmetic, CALL_WORK per costly call."""
    if isinstance(e, BufferLoad):
        return 1
    if isinstance(e, (Const, Var)):
        return 0
    own = CALL_WORK if isinstance(e, Call) and e.func in COSTLY_CALLS else 1
    return own + sum(value_work(c) for c in children(e))


def nest_work(body: list[Stmt]) -> int:
    """Operations a loop nest executes (an `If` counted as taken)."""
    total = 0
    for s in body:
        if isinstance(s, Store):
            total += 1 + value_work(s.value)
        elif isinstance(s, If):
            total += nest_work(s.body)
        elif isinstance(s, For):
            total += s.extent * nest_work(s.body)
    return total


def runs_serially(loop: For, target: Target) -> bool:
    """Whether parallel `loop` should be emitted as a plain loop on the calling thread."""
    return target.get("cores") == "1" or nest_work([loop]) < SERIAL_WORK
