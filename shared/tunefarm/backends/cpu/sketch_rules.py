"""The CPU's sketch rules: which derivation rules run, in which order, with which numbers.

On x86 the structure of a stage with data reuse is "SSRSRS" (`MultiLevelTilingRule` with four
spatial and two reduce levels): the outer S S levels are the parallel tiles, R S R S the cache
and register tile, whose innermost spatial level is vectorised. Its elementwise consumer (an
epilogue) is fused into the tile, or a cache-write stage is added for an output. Everything
else is inlined (elementwise), factored (`RFactorRule`: a reduction over a long axis with
few outputs gets vectorised partial results) or runs at root with parallel outer loops
(`SimpleRule`). Reduce-then-broadcast chains (softmax, layer norm) may then be computed one row
at a time inside their output's row loop (`RowFusionRule`), which keeps the row in L1.
The sampling numbers follow the vector width of the target: the innermost tile of the last
axis prefers one vector register's lanes; a register tile computed columns outer (`ord:` 1)
may hold more accumulators where the ISA has 32 vector registers.
"""

from __future__ import annotations

from tunefarm.backends.cpu import unrolled_size
from tunefarm.backends.cpu.target import num_cores, vector_lanes
from tunefarm.schedule.sketch import (
    InlineRule,
    MultiLevelTilingRule,
    RFactorRule,
    RowFusionRule,
    SimpleRule,
    SketchRule,
)
from tunefarm.schedule.sketch_state import SketchParams
from tunefarm.target import Target

RULES: tuple[SketchRule, ...] = (
    InlineRule(),
    MultiLevelTilingRule(),
    RFactorRule(max_spatial=4096, min_reduce=32),
    SimpleRule(),
    RowFusionRule(),
)


def sketch_params(target: Target) -> SketchParams:
    lanes = vector_lanes(target)
    return SketchParams(
        lanes=lanes,
        unroll_steps=(0, 16, 64, 512),
        min_parallel=8 * num_cores(target),
        # AVX-512's 32 vector registers hold 28 accumulators when the tile runs columns
        # outer (the template's 7 x 4 and 14 x 2 tiles, conv2d.pass_register_tile); in the
        # other order gcc keeps a broadcast per column live, and 16 is the most that fits
        max_register_columns=28 if lanes >= 16 else 0,
        # a state whose unrolled body would be some 0.2-0.6 MB of C is not built: gcc takes
        # seconds on it, and the 50 recorded bests are all well under it (`unrolled_size`)
        check_lowered=unrolled_size.check,
    )
