"""conv2d on tensor cores: `cuda -precision=tf32|fp16`, an implicit GEMM through `mma.sync`.

Our GPU conv keeps NCHW data and OIHW weights (the layout policy of `gpu_common`), so the
GEMM is read straight off them, with no im2col buffer: C[m, p] = sum_k A[m, k] * B[k, p],
with m an output channel, p an output pixel (n, y, x flattened, so x is fastest) and
k = (c, ky, kx) flattened. A is the weight as it lies (O rows of C*KH*KW); B's column p is
the input window of pixel p, gathered at load time (padding reads as zero). Channels are
the instruction's M (16 rows), pixels its N (8 columns): the two accumulators a lane holds
side by side (c0, c1) are neighbouring x, so stores are contiguous along rows of the output.

A block computes a BM x BN tile (BM = 16 wm warps_m channels, BN = 8 wn warps_n pixels); its
warps sit on a warps_m x warps_n grid, each holding wm x wn accumulator tiles. The K loop
goes in chunks of BK = kchunk instruction steps (8 for tf32, 16 for fp16): all threads
stage the chunk's A (BM x BK) and B (BN x BK, k fastest, so a lane's fragment reads are
one shared word each) in shared memory, rows padded by 4 words so the fragment reads of a
warp hit 32 different banks; a barrier; each warp loads its fragments (fragment layout in
`tensorcore.py`) and issues wm x wn mma per step; a barrier. tf32 operands are rounded once
when staged (`cvt.rna.tf32.f32`), fp16 pairs when a fragment is read (`cvt.rn.f16x2.f32`);
accumulation is fp32. The fused epilogue (bias, residual, activations) is applied to the
accumulators at the store.

Knobs: wm, wn (tiles per warp), warps_m, warps_n (warps per block), kchunk (steps per
staged chunk). A candidate whose staging does not fit in 48 KiB of shared memory, or whose
accumulators exceed 64 registers, is a DeviceLimitError (a build error naming the limit).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tunefarm.backends.cuda.tensorcore import HELPERS, K_STEP, MMA, precision
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.epilogue import epilogue_inputs, parse_epilogue, reference_epilogue
from tunefarm.measure.errors import DeviceLimitError
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    KernelDef,
    Template,
    check_config,
    conv_params,
    identity,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

PAD = 4  # words of padding per staged row (bank spread of the fragment reads)
MAX_SHARED = 48 * 1024
MAX_ACCUMULATORS = 64  # fp32 registers of accumulators per thread
EPILOGUE_C = {
    "relu": "v = fmaxf(v, 0.0f);",
    "clip": "v = fminf(fmaxf(v, {0}f), {1}f);",
    "sigmoid": "v = 1.0f / (1.0f + expf(-v));",
    "hard_swish": "v = v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);",
    "leaky_relu": "v = v > 0.0f ? v : v * {0}f;",
    "gelu": "v = v * 0.5f * (1.0f + erff(v * 0.7071067811865476f));",
}


def shared_bytes(bm: int, bn: int, bk: int) -> int:
    return (bm + bn) * (bk + PAD) * 4


def _epilogue(spec: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(extra kernel parameters, C statements on `v` at channel `ch`, output index `idx`)."""
    params, lines = [], []
    for kind, args in parse_epilogue(spec):
        if kind == "bias":
            params.append("const float* __restrict__ bias")
            lines.append("v += bias[ch];")
        elif kind == "residual":
            params.append("const float* __restrict__ residual")
            lines.append("v += residual[idx];")
        elif kind in EPILOGUE_C:
            lines.append(EPILOGUE_C[kind].format(*(repr(float(a)) for a in args)))
        else:
            raise TaskError(f"conv2d on tensor cores: epilogue {kind!r} is not supported")
    return params, lines


def _fragments(prec: str) -> list[str]:
    """C lines loading the warp's A and B fragments of step `ks` from shared memory."""
    if prec == "tf32":
        a = ["As[ar + g][ks + t]", "As[ar + g + 8][ks + t]", "As[ar + g][ks + t + 4]",
             "As[ar + g + 8][ks + t + 4]"]  # fmt: skip
        b = ["Bs[bc + g][ks + t]", "Bs[bc + g][ks + t + 4]"]
        a_regs = [f"__float_as_uint({e})" for e in a]
        b_regs = [f"__float_as_uint({e})" for e in b]
    else:
        pair = "tf_cvt2({0}[{1}][{2}], {0}[{1}][{2} + 1])"
        a_regs = [
            pair.format("As", r, c)
            for r, c in (("ar + g", "ks + 2 * t"), ("ar + g + 8", "ks + 2 * t"),
                         ("ar + g", "ks + 2 * t + 8"), ("ar + g + 8", "ks + 2 * t + 8"))
        ]  # fmt: skip
        b_regs = [pair.format("Bs", "bc + g", c) for c in ("ks + 2 * t", "ks + 2 * t + 8")]
    lines = ["        #pragma unroll", "        for (int i = 0; i < WM; ++i) {",
             "          const int ar = wrow + i * 16;"]  # fmt: skip
    lines += [f"          a[i][{r}] = {e};" for r, e in enumerate(a_regs)]
    lines += ["        }", "        #pragma unroll", "        for (int j = 0; j < WN; ++j) {",
              "          const int bc = wcol + j * 8;"]  # fmt: skip
    lines += [f"          b[j][{r}] = {e};" for r, e in enumerate(b_regs)]
    lines.append("        }")
    return lines


def render_conv(p: dict[str, Any], prec: str, c: dict[str, int]) -> str:
    """The CUDA C of one candidate (see the module docstring)."""
    wm, wn, warps_m, warps_n = c["wm"], c["wn"], c["warps_m"], c["warps_n"]
    bm, bn, bk = 16 * wm * warps_m, 8 * wn * warps_n, K_STEP[prec] * c["kchunk"]
    kk = p["c"] * p["kh"] * p["kw"]
    pixels = p["n"] * p["oh"] * p["ow"]
    threads = 32 * warps_m * warps_n
    grid = ((pixels + bn - 1) // bn, (p["o"] + bm - 1) // bm, 1)
    line = (
        f"// tunefarm-launch entry=tf_kernel grid={grid[0]},{grid[1]},1 "
        f"block={threads},1,1 shared={shared_bytes(bm, bn, bk)}"
    )
    extra, epi = _epilogue(tuple(p["epilogue"]))
    sh, sw = p["strides"]
    dh, dw = p["dilation"]
    pt, pl = p["padding"][0], p["padding"][1]
    cvt_a = "__uint_as_float(tf_cvt1(v))" if prec == "tf32" else "v"
    defines = dict(WM=wm, WN=wn, BM=bm, BN=bn, BK=bk, KSTEP=K_STEP[prec], O=p["o"], K=kk,
                   P=pixels, C=p["c"], H=p["h"], W=p["w"], KH=p["kh"], KW=p["kw"], OH=p["oh"],
                   OW=p["ow"], SH=sh, SW=sw, DH=dh, DW=dw, PT=pt, PL=pl)  # fmt: skip
    body = [
        line,
        f'extern "C" __device__ const char tf_launch[] = "{line}";',
        *(f"#define {k} {v}" for k, v in defines.items()),
        HELPERS[prec],
        mma_function(prec),
        'extern "C"',
        f"__global__ void __launch_bounds__({threads}) tf_kernel("
        + ", ".join(
            [
                "const float* __restrict__ data",
                "const float* __restrict__ weight",
                *extra,
                "float* __restrict__ out",
            ]
        )
        + ") {",  # fmt: skip
        "  __shared__ float As[BM][BK + 4];",
        "  __shared__ float Bs[BN][BK + 4];",
        "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;",
        "  const int g = lane >> 2, t = lane & 3;",
        f"  const int wrow = (warp / {warps_n}) * (16 * WM), wcol = (warp % {warps_n}) * (8 * WN);",
        "  const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;",
        "  float acc[WM][WN][4];",
        "  #pragma unroll",
        "  for (int i = 0; i < WM; ++i)",
        "    #pragma unroll",
        "    for (int j = 0; j < WN; ++j)",
        "      acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;",
        "  for (int k0 = 0; k0 < K; k0 += BK) {",
        f"    for (int e = tid; e < BM * BK; e += {threads}) {{  // weight rows: k fastest",
        "      const int r = e / BK, kk = e % BK, m = m0 + r, k = k0 + kk;",
        "      const float v = (m < O && k < K) ? weight[m * K + k] : 0.0f;",
        f"      As[r][kk] = {cvt_a};",
        "    }",
        f"    for (int e = tid; e < BN * BK; e += {threads}) {{  // input windows: x fastest",
        "      const int q = e % BN, kk = e / BN, pix = p0 + q, k = k0 + kk;",
        "      float v = 0.0f;",
        "      if (pix < P && k < K) {",
        "        const int ci = k / (KH * KW), kr = k % (KH * KW), ky = kr / KW, kx = kr % KW;",
        "        const int b = pix / (OH * OW), yx = pix % (OH * OW), y = yx / OW, x = yx % OW;",
        "        const int iy = y * SH - PT + ky * DH, ix = x * SW - PL + kx * DW;",
        "        if (iy >= 0 && iy < H && ix >= 0 && ix < W)",
        "          v = data[((b * C + ci) * H + iy) * W + ix];",
        "      }",
        f"      Bs[q][kk] = {cvt_a};",
        "    }",
        "    __syncthreads();",
        "    #pragma unroll",
        "    for (int ks = 0; ks < BK; ks += KSTEP) {",
        "      unsigned a[WM][4], b[WN][2];",
        *_fragments(prec),
        "      #pragma unroll",
        "      for (int i = 0; i < WM; ++i)",
        "        #pragma unroll",
        "        for (int j = 0; j < WN; ++j)",
        "          tf_mma(acc[i][j], a[i], b[j]);",
        "    }",
        "    __syncthreads();",
        "  }",
        "  #pragma unroll",
        "  for (int i = 0; i < WM; ++i)",
        "    #pragma unroll",
        "    for (int j = 0; j < WN; ++j)",
        "      #pragma unroll",
        "      for (int e = 0; e < 4; ++e) {",
        "        const int ch = m0 + wrow + i * 16 + g + (e >> 1) * 8;",
        "        const int pix = p0 + wcol + j * 8 + 2 * t + (e & 1);",
        "        if (ch < O && pix < P) {",
        "          const int idx = ((pix / (OH * OW)) * O + ch) * (OH * OW) + pix % (OH * OW);",
        "          float v = acc[i][j][e];",
        *(f"          {s}" for s in epi),
        "          out[idx] = v;",
        "        }",
        "      }",
        "}",
        "",
    ]
    return "\n".join(body)


def mma_function(prec: str) -> str:
    """`tf_mma(acc, a, b)`: one mma.sync on a 16 x 8 accumulator tile."""
    return (
        "__device__ __forceinline__ void tf_mma(float* acc, const unsigned* a, "
        "const unsigned* b) {\n"
        f'  asm volatile("{MMA[prec]}"\n'
        '      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])\n'
        '      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));\n'
        "}"
    )


class Conv2dTensorCore(Template):
    """conv2d (groups 1, NCHW) through tensor cores at the target's precision."""

    op = "conv2d"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if p["groups"] != 1:
            raise TaskError("conv2d on tensor cores: groups must be 1 (depthwise stays fp32)")
        _epilogue(tuple(p["epilogue"]))
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        extra = epilogue_inputs(p["epilogue"], p["o"], (p["n"], p["o"], p["oh"], p["ow"]))
        data = ("data", (p["n"], p["c"], p["h"], p["w"]))
        return [data, ("weight", (p["o"], p["c"], p["kh"], p["kw"])), *extra]

    def reference(self, task, inputs):
        p = self.validate(task)
        out = R.conv2d_nchw(
            inputs["data"], inputs["weight"], p["strides"], p["padding"], p["dilation"]
        )
        return reference_epilogue(out, p["epilogue"], inputs)

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["o"] * p["oh"] * p["ow"] * p["c"] * p["kh"] * p["kw"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        self.validate(task)
        sp = ConfigSpace()
        sp.define_knob("wm", [1, 2, 4])
        sp.define_knob("wn", [1, 2, 4, 8])
        sp.define_knob("warps_m", [1, 2, 4])
        sp.define_knob("warps_n", [1, 2, 4])
        sp.define_knob("kchunk", [1, 2, 4])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        return {"wm": 2 if p["o"] >= 64 else 1, "wn": 4, "warps_m": 2, "warps_n": 2,
                "kchunk": 2}  # fmt: skip

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        c = check_config(self.space(task, target), config, "conv2d")
        prec = precision(target)
        if prec not in K_STEP:
            raise TaskError(f"conv2d on tensor cores needs -precision=tf32 or fp16, not {prec}")
        check_limits(prec, c)
        data = te.placeholder((p["n"], p["c"], p["h"], p["w"]), name="data")
        weight = te.placeholder((p["o"], p["c"], p["kh"], p["kw"]), name="weight")
        out_shape = (p["n"], p["o"], p["oh"], p["ow"])
        specs = epilogue_inputs(p["epilogue"], p["o"], out_shape)
        extra = [te.placeholder(shape, name=name) for name, shape in specs]
        out = te.placeholder(out_shape, name="out")
        code = render_conv(p, prec, c)
        return KernelDef(
            [data, weight, *extra], [out], [], [np.ascontiguousarray] * (2 + len(extra)),
            identity, io_key(task, layout="NCHW"), notes={"precision": prec}, code=code,
        )  # fmt: skip


def check_limits(prec: str, c: dict[str, int]) -> None:
    """DeviceLimitError for a candidate that cannot launch or would spill (see the module)."""
    bm, bn = 16 * c["wm"] * c["warps_m"], 8 * c["wn"] * c["warps_n"]
    need = shared_bytes(bm, bn, K_STEP[prec] * c["kchunk"])
    if need > MAX_SHARED:
        raise DeviceLimitError(
            f"tensor-core conv tile {bm}x{bn}x{K_STEP[prec] * c['kchunk']} stages {need} B of "
            f"shared memory, over the {MAX_SHARED} B limit per block"
        )
    if 4 * c["wm"] * c["wn"] > MAX_ACCUMULATORS:
        raise DeviceLimitError(
            f"tensor-core conv: {c['wm']}x{c['wn']} tiles per warp hold "
            f"{4 * c['wm'] * c['wn']} accumulators per thread, over {MAX_ACCUMULATORS}"
        )
