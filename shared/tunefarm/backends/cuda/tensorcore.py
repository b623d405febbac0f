"""Dense on tensor cores: `cuda -precision=tf32|fp16`, through `mma.sync` (inline PTX).

The instruction multiplies a 16 x k tile of A by a k x 8 tile of B into a 16 x 8 fp32 tile
held by one warp (k = 8 for tf32, 16 for fp16); each of the 32 lanes holds fixed elements of
each operand (PTX ISA, "Matrix fragments for mma.m16n8k8 / m16n8k16"): with g = lane / 4 and
t = lane % 4,

- tf32 m16n8k8: A a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); B b0 (k=t, n=g),
  b1 (k=t+4, n=g);
- fp16 m16n8k16: A a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..);
  B b0 (k=2t..2t+1, n=g), b1 (k=2t+8..2t+9, n=g);
- C/D (both): c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1).

Dense is out[i, j] = sum_k data[i, k] * weight[j, k], so A = data (row-major) and B's
column j is weight's row j (`.col`). Operands are read from global memory as fp32 and
rounded to the precision in registers (`cvt.rna.tf32.f32`, `cvt.rn.f16x2.f32`), outside the
tile's edges as zeros; accumulation is fp32 throughout. Each warp computes `wm` x `wn` tiles
(16 wm rows x 8 wn columns), a block `warps` warps along the columns; `kunroll` unrolls the
K loop. The code is this module's, not the GPU lowering's (the renderer has no
warp-level operands): a template that makes its own code, as VTA's does.

Tolerance against fp32 references, relative to the output's largest magnitude (checked on
a GPU by the `gpu`-marked tests): tf32 5e-3, fp16 2e-2.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from tunefarm.backends.anchor_ops import dense_params
from tunefarm.backends.gpu_common.dense import DenseShared
from tunefarm.ir import reference as R
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import KernelDef, Template, check_config
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

PRECISIONS = ("fp32", "tf32", "fp16")
_FP32_DENSE = DenseShared()
TOLERANCE = {"tf32": 5e-3, "fp16": 2e-2}
K_STEP = {"tf32": 8, "fp16": 16}

MMA = {
    "tf32": (
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    ),
    "fp16": (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
    ),
}

HELPERS = {
    "tf32": """__device__ __forceinline__ unsigned tf_cvt1(float x) {
  unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return r;
}""",
    "fp16": """__device__ __forceinline__ unsigned tf_cvt2(float lo, float hi) {
  unsigned r; asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); return r;
}""",
}


def precision(target: Target) -> str:
    return target.get("precision") or "fp32"


def _load(matrix: str, rows: int, cols: int, r: str, c: str) -> str:
    """A bounds-checked fp32 load of matrix[r][c] (row-major, rows x cols), 0 outside."""
    return f"(({r}) < {rows} && ({c}) < {cols} ? {matrix}[({r}) * {cols} + ({c})] : 0.0f)"


def _a_regs(prec: str, n: int, k: int, row0: str, k0: str) -> list[str]:
    """The four A registers of one 16-row tile at (row0, k0)."""
    if prec == "tf32":
        spots = [("g", "t"), ("g + 8", "t"), ("g", "t + 4"), ("g + 8", "t + 4")]
        return [f"tf_cvt1({_load('data', n, k, f'{row0} + {r}', f'{k0} + {c}')})" for r, c in spots]
    spots = [("g", "2 * t"), ("g + 8", "2 * t"), ("g", "2 * t + 8"), ("g + 8", "2 * t + 8")]
    return [
        f"tf_cvt2({_load('data', n, k, f'{row0} + {r}', f'{k0} + {c}')}, "
        f"{_load('data', n, k, f'{row0} + {r}', f'{k0} + {c} + 1')})"
        for r, c in spots
    ]


def _b_regs(prec: str, o: int, k: int, col0: str, k0: str) -> list[str]:
    """The two B registers of one 8-column tile at (col0, k0): weight[col][k]."""
    if prec == "tf32":
        return [
            f"tf_cvt1({_load('weight', o, k, f'{col0} + g', f'{k0} + {d}')})"
            for d in ("t", "t + 4")
        ]
    return [
        f"tf_cvt2({_load('weight', o, k, f'{col0} + g', f'{k0} + {d}')}, "
        f"{_load('weight', o, k, f'{col0} + g', f'{k0} + {d} + 1')})"
        for d in ("2 * t", "2 * t + 8")
    ]


def render_dense(n: int, k: int, o: int, prec: str, wm: int, wn: int, warps: int,
                 kunroll: int) -> str:  # fmt: skip
    """The CUDA C of one candidate (see the module docstring)."""
    rows, cols = 16 * wm, 8 * wn * warps  # per block
    grid = ((o + cols - 1) // cols, (n + rows - 1) // rows, 1)
    threads = 32 * warps
    line = (
        f"// tunefarm-launch entry=tf_kernel grid={grid[0]},{grid[1]},1 "
        f"block={threads},1,1 shared=0"
    )
    step = K_STEP[prec]
    body = [
        line,
        f'extern "C" __device__ const char tf_launch[] = "{line}";',
        HELPERS[prec],
        'extern "C"',
        f"__global__ void __launch_bounds__({threads}) tf_kernel("
        "const float* __restrict__ data, const float* __restrict__ weight, "
        "float* __restrict__ out) {",
        "  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;",
        "  const int g = lane >> 2, t = lane & 3;",
        f"  const int row_base = blockIdx.y * {rows};",
        f"  const int col_base = blockIdx.x * {cols} + warp * {8 * wn};",
        f"  float acc[{wm}][{wn}][4];",
        f"  #pragma unroll\n  for (int i = 0; i < {wm}; ++i)",
        f"    #pragma unroll\n    for (int j = 0; j < {wn}; ++j)",
        "      acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0f;",
        f"  #pragma unroll {kunroll}",
        f"  for (int k0 = 0; k0 < {k}; k0 += {step}) {{",
        f"    unsigned a[{wm}][4], b[{wn}][2];",
        f"    #pragma unroll\n    for (int i = 0; i < {wm}; ++i) {{",
        "      const int row0 = row_base + i * 16;",
        *(f"      a[i][{r}] = {e};" for r, e in enumerate(_a_regs(prec, n, k, "row0", "k0"))),
        "    }",
        f"    #pragma unroll\n    for (int j = 0; j < {wn}; ++j) {{",
        "      const int col0 = col_base + j * 8;",
        *(f"      b[j][{r}] = {e};" for r, e in enumerate(_b_regs(prec, o, k, "col0", "k0"))),
        "    }",
        f"    #pragma unroll\n    for (int i = 0; i < {wm}; ++i)",
        f"      #pragma unroll\n      for (int j = 0; j < {wn}; ++j)",
        f'        asm volatile("{MMA[prec]}"',
        '            : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), '
        '"+f"(acc[i][j][3])',
        '            : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), '
        '"r"(b[j][0]), "r"(b[j][1]));',
        "  }",
        f"  #pragma unroll\n  for (int i = 0; i < {wm}; ++i)",
        f"    #pragma unroll\n    for (int j = 0; j < {wn}; ++j)",
        "      #pragma unroll\n      for (int e = 0; e < 4; ++e) {",
        "        const int r = row_base + i * 16 + g + (e >> 1) * 8;",
        "        const int c = col_base + j * 8 + 2 * t + (e & 1);",
        f"        if (r < {n} && c < {o}) out[r * {o} + c] = acc[i][j][e];",
        "      }",
        "}",
        "",
    ]
    return "\n".join(body)


class DenseTensorCore(Template):
    """Dense through tensor cores at the target's precision (tf32 or fp16)."""

    op = "dense"

    def validate(self, task: Task) -> dict[str, Any]:
        p = dense_params(task)
        if p["epilogue"]:
            raise TaskError(
                "this dense on tensor cores takes no epilogue (dense with one goes through "
                "tensorcore_gemm.DenseGemmTensorCore)"
            )
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        return [("data", (p["n"], p["k"])), ("weight", (p["o"], p["k"]))]

    def reference(self, task, inputs):
        return R.dense(inputs["data"], inputs["weight"])

    def flops(self, task):
        p = self.validate(task)
        return 2.0 * p["n"] * p["k"] * p["o"]

    def space(self, task: Task, target: Target) -> ConfigSpace:
        self.validate(task)
        sp = ConfigSpace()
        sp.define_knob("wm", [1, 2, 4])
        sp.define_knob("wn", [1, 2, 4])
        sp.define_knob("warps", [1, 2, 4, 8])
        sp.define_knob("kunroll", [1, 2, 4])
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        return {"wm": 1 if p["n"] <= 16 else 2, "wn": 2, "warps": 4, "kunroll": 2}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        """This module's code over the fp32 dense's compute definition (which sketches
        derive from)."""
        p = self.validate(task)
        c = check_config(self.space(task, target), config, "dense")
        prec = precision(target)
        if prec not in K_STEP:
            raise TaskError(f"dense on tensor cores needs -precision=tf32 or fp16, not {prec}")
        code = render_dense(p["n"], p["k"], p["o"], prec, c["wm"], c["wn"], c["warps"],
                            c["kunroll"])  # fmt: skip
        base = self.compute_kernel(task, target)
        return replace(base, steps=[], code=code, notes={**base.notes, "precision": prec})

    def compute_kernel(self, task: Task, target: Target) -> KernelDef:
        """The fp32 dense's default kernel: what sketches derive from (registry.base_kernel)."""
        return _FP32_DENSE.instantiate(task, _FP32_DENSE.default_config(task, target), target)

    def sketch_rules(self, target: Target) -> tuple:
        """The rule that offers tensor-core sketches (`tensorcore_sketch.py`)."""
        from tunefarm.backends.cuda.tensorcore_sketch import TensorCoreRule

        return (TensorCoreRule(precision(target)),)

    def tensorize(self, task: Task, steps: list, target: Target) -> KernelDef | None:
        """A tensor-core sketch state (`sketch_rules.TensorCoreRule`) renders through the
        staged GEMM of `tensorcore_gemm`, as dense with an epilogue does."""
        from tunefarm.backends.cuda.tensorcore_gemm import DenseGemmTensorCore

        return DenseGemmTensorCore().tensorize(task, steps, target)


# A whole network against ONNX Runtime in fp32, relative to the output's largest magnitude
# (the `gpu`-marked network tests check these): tf32 keeps 10 mantissa bits per operand, fp16
# too but with fp16 weights and a narrower range; fp32 is the CUDA-core path. tf32 was 3e-4
# until a lent H100 measured resnet-50 at 3.7-4.0e-4 against fp32, and PyTorch's own tf32
# resnet-50 at 5.6e-4 against its fp32 in the same run (benchmarks/results-gpu-check-h100.json).
NETWORK_TOLERANCE = {"fp32": 1e-5, "tf32": 1e-3, "fp16": 1e-2}


def network_tolerance(prec: str) -> float:
    return NETWORK_TOLERANCE[prec]


def tolerance(prec: str) -> float:
    """The relative tolerance of a precision against an fp32 reference (0 for fp32)."""
    return TOLERANCE.get(prec, 0.0)


def round_to(prec: str, x: np.ndarray) -> np.ndarray:
    """`x` rounded as the tensor cores read it (for references at the same precision)."""
    if prec == "fp16":
        return x.astype(np.float16).astype(np.float32)
    if prec == "tf32":
        bits = x.astype(np.float32).view(np.uint32)
        return ((bits + 0x1000) & 0xFFFFE000).view(np.float32)
    return x
