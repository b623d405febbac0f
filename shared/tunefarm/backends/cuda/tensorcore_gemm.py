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

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tunefarm.backends.anchor_ops import dense_params
from tunefarm.backends.cuda.tensorcore import HELPERS, K_STEP, MMA, precision
from tunefarm.backends.gpu_common.conv2d import Conv2dDirect
from tunefarm.backends.gpu_common.dense import DenseShared
from tunefarm.backends.gpu_common.generic import TEMPLATES as GENERIC_TEMPLATES
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.epilogue import epilogue_inputs, parse_epilogue
from tunefarm.measure.errors import DeviceLimitError
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

H2F = """__device__ __forceinline__ float tf_h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}"""
PAD = 4  # words of padding per staged row (bank spread of the fragment reads)
MAX_SHARED = 48 * 1024
GENERIC = {t.op: t for t in GENERIC_TEMPLATES}
MAX_ACCUMULATORS = 64  # fp32 registers of accumulators per thread
EPILOGUE_C = {
    "relu": "v = fmaxf(v, 0.0f);",
    "clip": "v = fminf(fmaxf(v, {0}f), {1}f);",
    "sigmoid": "v = 1.0f / (1.0f + expf(-v));",
    "silu": "v = v * (1.0f / (1.0f + expf(-v)));",
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


@dataclass(frozen=True)
class Gemm:
    """One implicit GEMM: C[m, p] = sum_k A[m, k] * B[k, p] for each of `batch` batches (the
    grid's z), with the C text that reads its operands and places its result. `a_load`
    reads A (z, m, k in bounds); `b_lines` set `v` to B (z, pix, k in bounds; they may leave
    it 0, as padding does); `out_index` is where (z, ch, pix) is stored."""

    m: int
    p: int
    k: int
    batch: int
    params: tuple[str, ...]  # the input parameters' names, in the kernel's order
    a_load: str
    b_lines: tuple[str, ...]
    out_index: str
    epilogue: tuple[str, ...] = ()
    defines: tuple[tuple[str, int], ...] = ()
    weight_param: bool = False  # A is a constant (a network's weight): stored fp16 at fp16


def conv_gemm(p: dict[str, Any]) -> Gemm:
    """conv2d NCHW / OIHW: channels x pixels, k = (c, ky, kx); B is the input window."""
    sh, sw = p["strides"]
    dh, dw = p["dilation"]
    extra = [name for name, _ in epilogue_inputs(p["epilogue"], p["o"], (1, 1, 1, 1))]
    return Gemm(
        m=p["o"], p=p["n"] * p["oh"] * p["ow"], k=p["c"] * p["kh"] * p["kw"], batch=1,
        params=("data", "weight", *extra),
        a_load="weight[m * K + k]",
        weight_param=True,
        b_lines=(
            "const int ci = k / (KH * KW), kr = k % (KH * KW), ky = kr / KW, kx = kr % KW;",
            "const int b = pix / (OH * OW), yx = pix % (OH * OW), y = yx / OW, x = yx % OW;",
            "const int iy = y * SH - PT + ky * DH, ix = x * SW - PL + kx * DW;",
            "if (iy >= 0 && iy < H && ix >= 0 && ix < W)",
            "  v = data[((b * C + ci) * H + iy) * W + ix];",
        ),
        out_index="((pix / (OH * OW)) * M + ch) * (OH * OW) + pix % (OH * OW)",
        epilogue=tuple(p["epilogue"]),
        defines=(("C", p["c"]), ("H", p["h"]), ("W", p["w"]), ("KH", p["kh"]),
                 ("KW", p["kw"]), ("OH", p["oh"]), ("OW", p["ow"]), ("SH", sh), ("SW", sw),
                 ("DH", dh), ("DW", dw), ("PT", p["padding"][0]), ("PL", p["padding"][1])),
    )  # fmt: skip


def dense_gemm(n: int, k: int, o: int, epilogue: tuple[str, ...] = ()) -> Gemm:
    """dense out[i, j] = sum_k data[i, k] weight[j, k]: features x rows (a 1x1 conv)."""
    extra = [name for name, _ in epilogue_inputs(epilogue, o, (n, o))]
    return Gemm(
        m=o, p=n, k=k, batch=1, params=("data", "weight", *extra),
        a_load="weight[m * K + k]", b_lines=("v = data[pix * K + k];",), weight_param=True,
        out_index="pix * M + ch", epilogue=epilogue,
    )  # fmt: skip


def batch_matmul_gemm(a: tuple[int, ...], b: tuple[int, ...], transpose_b: bool) -> Gemm:
    """batch_matmul out[z, i, j] = sum_k a[z, i, k] b[z, k, j] (b[z, j, k] transposed): rows
    of a x columns of b; a batch of 1 on either side broadcasts."""
    ba, m, k = a
    bb = b[0]
    n = b[1] if transpose_b else b[2]
    za = "0" if ba == 1 else "z"
    zb = "0" if bb == 1 else "z"
    load_b = f"b[({zb} * N + pix) * K + k]" if transpose_b else f"b[({zb} * K + k) * N + pix]"
    return Gemm(
        m=m, p=n, k=k, batch=max(ba, bb), params=("a", "b"),
        a_load=f"a[({za} * M + m) * K + k]", b_lines=(f"v = {load_b};",),
        out_index="(z * M + ch) * N + pix", defines=(("N", n),),
    )  # fmt: skip


def render_gemm(gemm: Gemm, prec: str, c: dict[str, int]) -> str:
    """The CUDA C of one candidate (see the module docstring)."""
    wm, wn, warps_m, warps_n = c["wm"], c["wn"], c["warps_m"], c["warps_n"]
    bm, bn, bk = 16 * wm * warps_m, 8 * wn * warps_n, K_STEP[prec] * c["kchunk"]
    threads = 32 * warps_m * warps_n
    grid = ((gemm.p + bn - 1) // bn, (gemm.m + bm - 1) // bm, gemm.batch)
    line = (
        f"// tunefarm-launch entry=tf_kernel grid={grid[0]},{grid[1]},{grid[2]} "
        f"block={threads},1,1 shared={shared_bytes(bm, bn, bk)}"
    )
    extra, epi = _epilogue(gemm.epilogue)
    cvt = "__uint_as_float(tf_cvt1(v))" if prec == "tf32" else "v"
    defines = dict(WM=wm, WN=wn, BM=bm, BN=bn, BK=bk, KSTEP=K_STEP[prec], M=gemm.m, K=gemm.k,
                   P=gemm.p)  # fmt: skip
    defines.update(dict(gemm.defines))
    # at fp16 a weight is stored as fp16 (converted once, by the packer) and widened when
    # staged; activations stay fp32 in memory and are rounded when staged
    half = prec == "fp16" and gemm.weight_param
    a_load = f"tf_h2f({gemm.a_load})" if half else gemm.a_load
    types = {name: "const float*" for name in gemm.params[:2]}
    if half:
        types["weight"] = "const unsigned short*"
    inputs = [f"{types[name]} __restrict__ {name}" for name in gemm.params[:2]]
    body = [
        line,
        f'extern "C" __device__ const char tf_launch[] = "{line}";',
        *(f"#define {k} {v}" for k, v in defines.items()),
        HELPERS[prec],
        *([H2F] if half else []),
        mma_function(prec),
        'extern "C"',
        f"__global__ void __launch_bounds__({threads}) tf_kernel("
        + ", ".join([*inputs, *extra, "float* __restrict__ out"])
        + ") {",
        "  __shared__ float As[BM][BK + 4];",
        "  __shared__ float Bs[BN][BK + 4];",
        "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, z = blockIdx.z;",
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
        f"    for (int e = tid; e < BM * BK; e += {threads}) {{  // A rows: k fastest",
        "      const int r = e / BK, kk = e % BK, m = m0 + r, k = k0 + kk;",
        f"      const float v = (m < M && k < K) ? {a_load} : 0.0f;",
        f"      As[r][kk] = {cvt};",
        "    }",
        f"    for (int e = tid; e < BN * BK; e += {threads}) {{  // B columns: pixels fastest",
        "      const int q = e % BN, kk = e / BN, pix = p0 + q, k = k0 + kk;",
        "      float v = 0.0f;",
        "      if (pix < P && k < K) {",
        *(f"        {ln}" for ln in gemm.b_lines),
        "      }",
        f"      Bs[q][kk] = {cvt};",
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
        "        if (ch < M && pix < P) {",
        f"          const int idx = {gemm.out_index};",
        "          float v = acc[i][j][e];",
        *(f"          {st}" for st in epi),
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


KNOBS: dict[str, tuple[int, ...]] = {
    "wm": (1, 2, 4),
    "wn": (1, 2, 4, 8),
    "warps_m": (1, 2, 4),
    "warps_n": (1, 2, 4),
    "kchunk": (1, 2, 4),
}
PRAGMA = "tensor_core."  # a sketch state's steps carry the tile as pragmas of this prefix


def gemm_space() -> ConfigSpace:
    sp = ConfigSpace()
    for name, values in KNOBS.items():
        sp.define_knob(name, list(values))
    return sp


def tensorize_steps(stage: str, axis: str, knobs: dict[str, int]) -> list[S.Step]:
    """The steps a tensor-core sketch state is recorded as: one pragma per tile knob."""
    return [S.Pragma(stage, axis, PRAGMA + k, int(knobs[k])) for k in KNOBS]


def knobs_of(steps: list[S.Step]) -> dict[str, int] | None:
    """The tile knobs of a tensor-core state's steps, None for any other state."""
    found = {
        st.key[len(PRAGMA) :]: int(st.value)
        for st in steps
        if isinstance(st, S.Pragma) and st.key.startswith(PRAGMA)
    }
    if not found:
        return None
    missing = sorted(set(KNOBS) - set(found))
    if missing:
        raise TaskError(f"tensor-core state without knob(s) {', '.join(missing)}")
    return found


class TensorCoreGemm(Template):
    """What the tensor-core templates share: the compute definition is the fp32 GPU
    template's (what sketches derive from and references check), the code this module's;
    a sketch state of `TensorCoreRule` (`tensor_core.*` pragmas) is rendered here too."""

    fallback: Template

    def gemm(self, task: Task) -> Gemm:
        raise NotImplementedError

    def validate(self, task: Task) -> dict[str, Any]:
        return self.fallback.validate(task)  # type: ignore[attr-defined]

    def logical_inputs(self, task):
        return self.fallback.logical_inputs(task)

    def reference(self, task, inputs):
        return self.fallback.reference(task, inputs)

    def flops(self, task):
        return self.fallback.flops(task)

    def exact_output(self, task):
        return False

    def space(self, task: Task, target: Target) -> ConfigSpace:
        self.gemm(task)
        return gemm_space()

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        c = check_config(self.space(task, target), config, task.op)
        return self.render(task, c, target)

    def compute_kernel(self, task: Task, target: Target) -> KernelDef:
        """The fp32 template's default kernel: the compute definition sketches derive from
        (registry.base_kernel), with fp32 arguments."""
        return self.fallback.instantiate(task, self.fallback.default_config(task, target), target)

    def render(self, task: Task, knobs: dict[str, int], target: Target) -> KernelDef:
        prec = precision(target)
        if prec not in K_STEP:
            raise TaskError(f"{task.op} on tensor cores needs -precision=tf32 or fp16, not {prec}")
        check_limits(prec, knobs)
        gemm = self.gemm(task)
        code = render_gemm(gemm, prec, knobs)
        base = self.compute_kernel(task, target)
        kdef = replace(base, steps=[], code=code, notes={**base.notes, "precision": prec})
        if prec == "fp16" and gemm.weight_param:
            return half_weight(kdef)
        return kdef

    def sketch_rules(self, target: Target) -> tuple:
        """The rule that offers tensor-core sketches (`tensorcore_sketch.py`)."""
        from tunefarm.backends.cuda.tensorcore_sketch import TensorCoreRule

        return (TensorCoreRule(precision(target)),)

    def tensorize(self, task: Task, steps: list[S.Step], target: Target) -> KernelDef | None:
        """The kernel of a tensor-core sketch state (None: not one, the steps apply)."""
        knobs = knobs_of(steps)
        return None if knobs is None else self.render(task, knobs, target)


class Conv2dTensorCore(TensorCoreGemm):
    """conv2d (groups 1, NCHW) through tensor cores at the target's precision."""

    op = "conv2d"
    fallback = Conv2dDirect()

    def validate(self, task: Task) -> dict[str, Any]:
        p = self.fallback.validate(task)
        _epilogue(tuple(p["epilogue"]))
        return p

    def gemm(self, task: Task) -> Gemm:
        return conv_gemm(self.validate(task))

    def preferred(self, task, space, target):
        p = self.validate(task)
        return {"wm": 2 if p["o"] >= 64 else 1, "wn": 4, "warps_m": 2, "warps_n": 2,
                "kchunk": 2}  # fmt: skip


class DenseGemmTensorCore(TensorCoreGemm):
    """dense (with any fused epilogue) through the staged GEMM: features x rows."""

    op = "dense"
    fallback = DenseShared()

    def validate(self, task: Task) -> dict[str, Any]:
        p = dense_params(task)
        _epilogue(tuple(p["epilogue"]))
        return p

    def gemm(self, task: Task) -> Gemm:
        p = self.validate(task)
        return dense_gemm(p["n"], p["k"], p["o"], tuple(p["epilogue"]))

    def preferred(self, task, space, target):
        p = self.validate(task)
        return {"wm": 2 if p["o"] >= 64 else 1, "wn": 1 if p["n"] <= 8 else 2, "warps_m": 2,
                "warps_n": 1 if p["n"] <= 16 else 2, "kchunk": 2}  # fmt: skip


class BatchMatmulTensorCore(TensorCoreGemm):
    """batch_matmul through tensor cores (rows of a on the instruction's M)."""

    op = "batch_matmul"
    fallback = GENERIC["batch_matmul"]

    def validate(self, task: Task) -> dict[str, Any]:
        return {}

    def gemm(self, task: Task) -> Gemm:
        a, b = tuple(task.args["a"]), tuple(task.args["b"])
        return batch_matmul_gemm(a, b, bool(task.args.get("transpose_b", False)))

    def preferred(self, task, space, target):
        return {"wm": 2, "wn": 4, "warps_m": 2, "warps_n": 2, "kchunk": 2}


def to_half(x: np.ndarray) -> np.ndarray:
    """A weight as the fp16 kernels read it (a network's params are packed once, when it
    is compiled)."""
    return np.ascontiguousarray(x, dtype=np.float16)


def half_weight(kdef: KernelDef) -> KernelDef:
    """The kernel with its weight (input 1) stored as fp16 and packed by `to_half`."""
    inputs, packers = list(kdef.inputs), list(kdef.packers)
    w = inputs[1]
    inputs[1] = te.placeholder(w.shape, "float16", w.name)
    packers[1] = to_half
    return replace(kdef, inputs=inputs, packers=packers)


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
