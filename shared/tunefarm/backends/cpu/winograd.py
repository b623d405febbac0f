"""x86 3x3 conv2d (stride 1 or 2) by Winograd's minimal filtering, blocked layout.

A direct 3x3 conv already runs near the FMA peak here, so the way past that is fewer
multiplications: at stride 1 each m x m output tile costs (m+2)^2 products per input/output
channel pair instead of 9 m^2 (F(2,3): 2.25x fewer, F(4,3): 4x). A stride-2 conv is split by
the parity of the input position (`STRIDED_MATRICES`): its even taps (w0, w2 of each row) are
a 2-tap stride-1 correlation over the even inputs, which F(m, 2) computes with m+1 products
for m outputs, and its odd tap (w1) one product per output, so a row of m outputs costs 2m+1
products instead of 3m and a tile (2m+1)^2 instead of 9 m^2 (m=2: 1.44x fewer, m=4: 1.78x).
The input tile is then 2m+1 wide and tiles start 2m inputs apart. Three stages, each a loop
nest of its own:

1. input transform   V[n, e1, e2, icc, t, icb]  = B^T d B for every alpha^2 input tile t;
2. batched GEMM      M[n, e1, e2, occ, t, ocb]  = sum_c U[e1, e2, occ, c, ocb] V[.., c, t, ..],
   with the same register-tiled micro-kernel as the direct conv (tiles x channel vectors);
3. output transform  out[n, occ, oh, ow, ocb]   = A^T M A, with the conv's epilogue applied
   as each output tile is stored.

The weight transform U = G g G^T is done once, at pack time, like any weight packing. The
transform matrices are unrolled into constant coefficients; `codegen.arith` folds the zero and
unit ones away, so each transform costs only its non-zero terms, written separably so the C
compiler shares the inner sums. Data and output stay NCHW[ib]c / NCHW[ob]c, so the kernel is a
drop-in alternative for the direct conv2d of the same node (`op` conv2d_winograd, same params).

Knobs: tile_ic (ib), tile_oc (blocks, oc_inner, ob), m (output tile: 2 or 4), reg_n (tiles
per register block; the tile count is rounded up to a multiple of it, the extra tiles read
zero padding), unroll_ic (unroll the input-channel lanes of the GEMM's reduction).
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np

from tunefarm.backends.cpu.conv2d import (
    ConvTemplate,
    blocked_conv_kernel,
    channel_splits,
    conv_params,
    network_blocks,
)
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import Expr, const, eq, select
from tunefarm.ir.ops.conv import pad
from tunefarm.ir.ops.epilogue import build_epilogue
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

# (B^T, G, A^T) of F(m, 3) with interpolation points 0, +-1, +-2 and infinity (Lavin & Gray,
# "Fast Algorithms for Convolutional Neural Networks", 2016).
MATRICES: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    2: (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], dtype=np.float64),
        np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], dtype=np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], dtype=np.float64),
    ),
    4: (
        np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            dtype=np.float64,
        ),
        np.array(
            [
                [1 / 4, 0, 0],
                [-1 / 6, -1 / 6, -1 / 6],
                [-1 / 6, 1 / 6, -1 / 6],
                [1 / 24, 1 / 12, 1 / 6],
                [1 / 24, -1 / 12, 1 / 6],
                [0, 0, 1],
            ],
            dtype=np.float64,
        ),
        np.array(
            [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]],
            dtype=np.float64,
        ),
    ),
}


def _strided(bt2: np.ndarray, g2: np.ndarray, at2: np.ndarray) -> tuple[np.ndarray, ...]:
    """(B^T, G, A^T) of a 3-tap stride-2 correlation with m outputs from F(m, 2)'s matrices:
    the 2m+1 inputs split into m+1 even ones, transformed by F(m, 2)'s B^T and multiplied by
    its G applied to the even taps (w0, w2), and m odd ones, multiplied by the odd tap (w1)
    as they are; A^T adds the two parts."""
    m = at2.shape[0]
    n = 2 * m + 1
    bt, g, at = np.zeros((n, n)), np.zeros((n, 3)), np.zeros((m, n))
    bt[: m + 1, 0::2] = bt2
    g[: m + 1, 0::2] = g2
    at[:, : m + 1] = at2
    for i in range(m):
        bt[m + 1 + i, 2 * i + 1] = 1.0
        g[m + 1 + i, 1] = 1.0
        at[i, m + 1 + i] = 1.0
    return bt, g, at


# (B^T, G, A^T) of a stride-2 3-tap correlation, built from F(m, 2) with interpolation points
# 0, 1 and infinity (m=2) or 0, +-1, 2 and infinity (m=4); F(4, 2)'s fractions are moved
# into G (the weight transform, at pack time) so the input transform has integer terms.
STRIDED_MATRICES: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
    2: _strided(
        np.array([[1, -1, 0], [0, 1, 0], [0, -1, 1]], dtype=np.float64),
        np.array([[1, 0], [1, 1], [0, 1]], dtype=np.float64),
        np.array([[1, 1, 0], [0, 1, 1]], dtype=np.float64),
    ),
    4: _strided(
        np.array(
            [
                [2, -1, -2, 1, 0],
                [0, 2, 1, -1, 0],
                [0, -2, 3, -1, 0],
                [0, -1, 0, 1, 0],
                [0, 2, -1, -2, 1],
            ],
            dtype=np.float64,
        ),
        np.array(
            [[1 / 2, 0], [1 / 2, 1 / 2], [1 / 6, -1 / 6], [1 / 6, 1 / 3], [0, 1]],
            dtype=np.float64,
        ),
        np.array(
            [[1, 1, 1, 1, 0], [0, 1, -1, 2, 0], [0, 1, 1, 4, 0], [0, 1, -1, 8, 1]],
            dtype=np.float64,
        ),
    ),
}
REG_TILES = (4, 6, 7, 8, 12, 14)


def max_accumulators(lanes: int) -> int:
    """The most accumulator vectors (tiles x channel vectors) of the default GEMM block: any
    with AVX-512's 32 registers (14 x 2 fits, the broadcasts hoisted as needed); 16 with
    AVX2's 16, where 14 x 2 spills in the GEMM's reduction. One Zen 3 core, default blocks
    of 8, Winograd alone by CPU time: resnet50's 64 -> 64 at 56 x 56 2.23 ms at 4 x 2
    against 3.48 at 14 x 2 (ORT's conv 3.81)."""
    return 28 if lanes >= 16 else 16


def matrices(m: int, stride: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(B^T, G, A^T) for output tile m at stride 1 or 2."""
    return (MATRICES if stride == 1 else STRIDED_MATRICES)[m]


def default_m(p: dict[str, Any]) -> int:
    """The output tile of the default config: 4 at stride 1; 2 at stride 2, whose transformed
    weights (25 per tap set, against 81 at m=4) stay smaller: resnet50's 256 -> 256 stride-2
    conv at 28 -> 14, one core: 2.12 ms at m=2, 2.49 ms at m=4 (direct 2.20); at 56 -> 28
    (128 channels) the two are even."""
    return 4 if p["strides"] == (1, 1) else 2


def winograd_eligible(p: dict[str, Any]) -> bool:
    """Whether conv params (`conv_params`) describe a conv this template computes: a 3x3
    conv, dilation 1, groups 1, strides 1 or 2 (the same in both directions); a stride-2 one
    only where its tiles' reads reach the last input row and column that the conv reads
    (`_fits_stride2`)."""
    return (
        (p["kh"], p["kw"]) == (3, 3)
        and p["strides"] in ((1, 1), (2, 2))
        and p["dilation"] == (1, 1)
        and p["groups"] == 1
        and (p["strides"] == (1, 1) or _fits_stride2(p))
    )


def _fits_stride2(p: dict[str, Any]) -> bool:
    """The tiles of a stride-2 conv read 2 oh + 1 rows from the padded top (as many as the
    conv reads); the input must not run further than that below (no padding at the top and
    an even height would leave a row unread, which the zero-padding stage cannot cut)."""
    top, left = p["padding"][0], p["padding"][1]
    return 2 * p["oh"] + 1 >= p["h"] + top and 2 * p["ow"] + 1 >= p["w"] + left


def transform_weight(weight: np.ndarray, m: int, ib: int, ob: int, stride: int = 1) -> np.ndarray:
    """OIHW 3x3 weights -> U = G g G^T in [alpha, alpha, O/ob, C/ib, ib, ob]."""
    g = matrices(m, stride)[1]
    o, c = weight.shape[:2]
    u = np.einsum("ak,ockl,bl->aboc", g, weight.astype(np.float64), g)
    alpha = g.shape[0]
    u = u.reshape(alpha, alpha, o // ob, ob, c // ib, ib).transpose(0, 1, 2, 4, 5, 3)
    return np.ascontiguousarray(u, dtype=np.float32)


def _coef(column: np.ndarray, index: Expr) -> Expr:
    """column[index] as an expression: a chain of selects that folds to one constant once
    `index` is a constant (an unrolled loop variable)."""
    expr: Expr = const(float(column[-1]))
    for k in range(len(column) - 2, -1, -1):
        expr = select(eq(index, k), const(float(column[k])), expr)
    return expr


def _sum(terms: list[Expr]) -> Expr:
    return functools.reduce(operator.add, terms)


def _tiles(p: dict[str, Any], m: int, reg: int) -> tuple[int, int, int]:
    """(tile rows incl. the extra ones, tile columns, tiles rounded up to a multiple of reg)."""
    tw = math.ceil(p["ow"] / m)
    tiles = math.ceil(math.ceil(p["oh"] / m) * tw / reg) * reg
    return math.ceil(tiles / tw), tw, tiles


class Conv2dWinograd(ConvTemplate):
    op = "conv2d_winograd"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if not winograd_eligible(p):
            raise TaskError(
                f"{task.op}: needs a 3x3 kernel with strides 1 or 2, dilation 1 and groups 1"
                " (at stride 2, padding that reaches the last input row and column); got "
                f"kernel {p['kh']}x{p['kw']}, strides {list(p['strides'])}, dilation "
                f"{list(p['dilation'])}, groups {p['groups']}"
            )
        return p

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = channel_splits(p, max_inner=2)
        sp.define_knob("m", [2, 4])
        sp.define_knob("reg_n", list(REG_TILES))
        sp.define_knob("unroll_ic", [False, True])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        ib, ob = p["blocks"] or network_blocks(p["c"], p["o"], vector_lanes(target))
        inner = 2 if (p["o"] // ob) % 2 == 0 else 1
        m = default_m(p)
        # the register block that wastes the fewest tiles, the larger on a tie; at stride 2
        # at most 8 tiles (x 2 vectors): 14 x 2 measured 2.53 ms against 1.90 for 7 x 2
        # (the same 128-channel conv)
        regs = REG_TILES if m == 4 else tuple(r for r in REG_TILES if r <= 8)
        regs = tuple(r for r in regs if r * inner <= max_accumulators(vector_lanes(target)))
        reg = min(regs, key=lambda r: (_tiles(p, m, r)[2], -r))
        return {
            "tile_ic": (p["c"] // ib, ib),
            "tile_oc": (p["o"] // ob // inner, inner, ob),
            "m": m,
            "reg_n": reg,
            "unroll_ic": False,
        }

    def instantiate(self, task: Task, config: dict[str, Any], target: Target):
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, self.op)
        ib, inner, ob = cfg["tile_ic"][1], cfg["tile_oc"][1], cfg["tile_oc"][2]
        m, reg, stride = cfg["m"], cfg["reg_n"], p["strides"][0]
        bt, _g, at = matrices(m, stride)
        alpha, (rows, tw, tiles) = bt.shape[0], _tiles(p, m, reg)
        step = m * stride  # input positions between two tiles
        n, icc_n, occ_n = p["n"], p["c"] // ib, p["o"] // ob

        data = te.placeholder((n, icc_n, p["h"], p["w"], ib), name="data")
        weight = te.placeholder((alpha, alpha, occ_n, icc_n, ib, ob), name="weight")
        top, left = p["padding"][0], p["padding"][1]
        padded = pad(
            data,
            (0, 0, top, left, 0),
            (
                0,
                0,
                rows * step + alpha - step - p["h"] - top,
                tw * step + alpha - step - p["w"] - left,
                0,
            ),
            name="wino_pad",
            axis_names=("n", "icc", "h", "w", "icb"),
        )

        def v_body(n, e1, e2, icc, t, icb):
            y0, x0 = (t // tw) * step, (t % tw) * step
            return _sum(
                [
                    _coef(bt[:, r1], e1)
                    * _sum(
                        [
                            padded[n, icc, y0 + r1, x0 + r2, icb] * _coef(bt[:, r2], e2)
                            for r2 in range(alpha)
                        ]
                    )
                    for r1 in range(alpha)
                ]
            )

        v = te.compute((n, alpha, alpha, icc_n, tiles, ib), v_body, name="wino_v")
        ric, rib = te.reduce_axis(icc_n, "icc"), te.reduce_axis(ib, "icb")
        gemm = te.compute(
            (n, alpha, alpha, occ_n, tiles, ob),
            lambda n, e1, e2, occ, t, ocb: te.sum(
                v[n, e1, e2, ric, t, rib] * weight[e1, e2, occ, ric, rib, ocb], axis=[ric, rib]
            ),
            name="wino_m",
        )

        def y_body(n, occ, oh, ow, ocb):
            t, i, j = (oh // m) * tw + ow // m, oh % m, ow % m
            return _sum(
                [
                    _coef(at[:, e1], i)
                    * _sum(
                        [gemm[n, e1, e2, occ, t, ocb] * _coef(at[:, e2], j) for e2 in range(alpha)]
                    )
                    for e1 in range(alpha)
                ]
            )

        conv = te.compute((n, occ_n, p["oh"], p["ow"], ob), y_body, name="conv")
        out, extra = build_epilogue(conv, p["epilogue"], lambda i: (i[1], i[4]), (occ_n, ob), "out")
        steps = _steps(out.name, inline_conv=out is not conv, inner=inner, reg=reg, m=m)
        steps += [S.Unroll("wino_m.local", "icb")] if cfg["unroll_ic"] else []
        name = f"winograd{m}" if stride == 1 else f"winograd{m}s{stride}"
        kdef = blocked_conv_kernel(
            task, [data, weight], extra, out, steps, ib, ob, f"{name}:OIHW{ib}i{ob}o"
        )
        kdef.packers[1] = lambda x: transform_weight(x, m, ib, ob, stride)
        kdef.io_key = io_key(task, ib=ib, ob=ob, m=m)
        return kdef


def _steps(out: str, inline_conv: bool, inner: int, reg: int, m: int) -> list[S.Step]:
    """Each stage parallel over its outer loops, vectorised over the channel lanes; the GEMM
    accumulates a (reg tiles x inner channel vectors) block in registers."""
    acc = "wino_m.local"
    steps: list[S.Step] = [
        S.Fuse("wino_pad", ("n", "icc", "h")),
        S.Parallel("wino_pad", "n+icc+h"),
        S.Vectorize("wino_pad", "icb"),
        S.Reorder("wino_v", ("n", "icc", "t", "e1", "e2", "icb")),
        S.Fuse("wino_v", ("n", "icc", "t")),
        S.Parallel("wino_v", "n+icc+t"),
        S.Unroll("wino_v", "e1"),
        S.Unroll("wino_v", "e2"),
        S.Vectorize("wino_v", "icb"),
        S.CacheWrite("wino_m"),
        S.Split("wino_m", "occ", (inner,)),
        S.Split("wino_m", "t", (reg,)),
        S.Reorder("wino_m", ("n", "e1", "e2", "occ.0", "t.0", "occ.1", "t.1", "ocb")),
        S.Fuse("wino_m", ("n", "e1", "e2", "occ.0")),
        S.Parallel("wino_m", "n+e1+e2+occ.0"),
        S.Unroll("wino_m", "occ.1"),
        S.Unroll("wino_m", "t.1"),
        S.Vectorize("wino_m", "ocb"),
        S.ComputeAt(acc, "wino_m", "t.0"),
        S.Reorder(acc, ("n", "e1", "e2", "icc", "icb", "occ", "t", "ocb")),
        S.Unroll(acc, "occ"),
        S.Unroll(acc, "t"),
        S.Vectorize(acc, "ocb"),
    ]
    if inline_conv:
        steps.append(S.ComputeInline("conv"))
    steps += [
        S.Split(out, "oh", (m,)),
        S.Split(out, "ow", (m,)),
        S.Reorder(out, ("n", "occ", "oh.0", "ow.0", "oh.1", "ow.1", "ocb")),
        S.Fuse(out, ("n", "occ", "oh.0")),
        S.Parallel(out, "n+occ+oh.0"),
        S.Unroll(out, "oh.1"),
        S.Unroll(out, "ow.1"),
        S.Vectorize(out, "ocb"),
    ]
    return steps
