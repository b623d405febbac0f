"""The tensor-core kernels' index math, checked without a GPU: the generated CUDA C itself is
compiled as C++ for this CPU against a small emulation of what it uses (a block's threads as
real threads, `__syncthreads` a barrier, `__shared__` arrays shared by the block, and
`mma.sync` done by the warp's 32 threads together from the fragment layout of the PTX ISA,
written here independently of the renderer). The kernel's staging, im2col gathers, fragment
reads, tile placement and stores then have to compute the conv / dense that numpy computes
from the same rounded operands. The inline PTX (rounding, mma) is what the emulation
replaces; the rest is the exact text NVRTC compiles."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.backends.cuda import tensorcore, tensorcore_gemm
from tunefarm.backends.gpu_common.render import parse_launch
from tunefarm.ir import reference as R
from tunefarm.measure import Config, MeasureInput
from tunefarm.task import Task

pytestmark = pytest.mark.skipif(not shutil.which("g++"), reason="needs g++ (C++20)")

SHIM = r"""
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __restrict__
#define __shared__ static
struct Dim3 { int x = 0, y = 0, z = 0; };
thread_local Dim3 threadIdx;
Dim3 blockIdx;  // blocks run one after another
std::barrier<>* block_barrier;
void __syncthreads() { block_barrier->arrive_and_wait(); }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline unsigned tf_cvt1(float x) {  // cvt.rna.tf32.f32: 10 mantissa bits, ties away
  return (__float_as_uint(x) + 0x1000u) & 0xFFFFE000u;
}
static inline unsigned short half_bits(float x) {
  _Float16 h = (_Float16)x; unsigned short u; memcpy(&u, &h, 2); return u;
}
static inline float half_value(unsigned short u) { _Float16 h; memcpy(&h, &u, 2); return (float)h; }
static inline float tf_h2f(unsigned short h) { return half_value(h); }  // cvt.f32.f16
static inline unsigned tf_cvt2(float lo, float hi) {  // cvt.rn.f16x2.f32: lo in bits 0..15
  return (unsigned)half_bits(lo) | ((unsigned)half_bits(hi) << 16);
}
// mma.sync m16n8k8 (tf32) / m16n8k16 (fp16), row.col, f32 accumulate, by the warp's lanes
// together. Fragment layout (PTX ISA, "Matrix Fragments for mma.m16n8k8 / k16"): with
// g = lane >> 2 and t = lane % 4,
//   tf32 A: a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4); B: b0 (t, g) b1 (t+4, g)
//   fp16 A: a0 (g, 2t..2t+1) a1 (g+8, 2t..) a2 (g, 2t+8..) a3 (g+8, 2t+8..);
//        B: b0 (2t..2t+1, g) b1 (2t+8..2t+9, g)   (B indexed (k, n))
//   C: c0 (g, 2t) c1 (g, 2t+1) c2 (g+8, 2t) c3 (g+8, 2t+1)
struct Warp { unsigned a[32][4], b[32][2]; std::barrier<>* bar; };
std::vector<Warp> warps;
static float operand(unsigned reg, int half, bool fp16) {
  if (!fp16) return __uint_as_float(reg);
  return half_value((unsigned short)(half ? reg >> 16 : reg & 0xFFFF));
}
static void tf_mma(float* acc, const unsigned* a, const unsigned* b) {
  const int lane = threadIdx.x & 31;
  Warp& w = warps[threadIdx.x >> 5];
  for (int r = 0; r < 4; ++r) w.a[lane][r] = a[r];
  for (int r = 0; r < 2; ++r) w.b[lane][r] = b[r];
  w.bar->arrive_and_wait();
  const bool fp16 = TF_FP16;
  const int kdim = fp16 ? 16 : 8;
  float A[16][16], B[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    if (!fp16) {
      A[g][t] = operand(w.a[l][0], 0, 0); A[g + 8][t] = operand(w.a[l][1], 0, 0);
      A[g][t + 4] = operand(w.a[l][2], 0, 0); A[g + 8][t + 4] = operand(w.a[l][3], 0, 0);
      B[t][g] = operand(w.b[l][0], 0, 0); B[t + 4][g] = operand(w.b[l][1], 0, 0);
    } else {
      for (int h = 0; h < 2; ++h) {
        A[g][2 * t + h] = operand(w.a[l][0], h, 1); A[g + 8][2 * t + h] = operand(w.a[l][1], h, 1);
        A[g][2 * t + 8 + h] = operand(w.a[l][2], h, 1);
        A[g + 8][2 * t + 8 + h] = operand(w.a[l][3], h, 1);
        B[2 * t + h][g] = operand(w.b[l][0], h, 1); B[2 * t + 8 + h][g] = operand(w.b[l][1], h, 1);
      }
    }
  }
  const int g = lane >> 2, t = lane & 3;
  const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
  for (int e = 0; e < 4; ++e) {
    double s = 0.0;
    for (int k = 0; k < kdim; ++k) s += (double)A[rows[e]][k] * B[k][cols[e]];
    acc[e] += (float)s;
  }
  w.bar->arrive_and_wait();  // nobody overwrites the registers before all have read them
}
"""

MAIN = r"""
int main(int argc, char** argv) {
  // argv: gx gy threads nargs then per argument: path count (the last is the output)
  const int gx = atoi(argv[1]), gy = atoi(argv[2]), threads = atoi(argv[3]), nargs = atoi(argv[4]);
  const int gz = atoi(argv[5 + 2 * nargs]);
  std::vector<std::vector<char>> bufs(nargs);  // bytes; the call casts each to its type
  for (int i = 0; i < nargs; ++i) {
    bufs[i].resize(atol(argv[6 + 2 * i]));
    FILE* f = fopen(argv[5 + 2 * i], "rb");
    if (fread(bufs[i].data(), 1, bufs[i].size(), f) != bufs[i].size()) return 3;
    fclose(f);
  }
  std::barrier<> bar(threads);
  block_barrier = &bar;
  warps.resize(threads / 32);
  std::vector<std::barrier<>*> wb;
  for (auto& w : warps) w.bar = new std::barrier<>(32);
  for (int bz = 0; bz < gz; ++bz)
  for (int by = 0; by < gy; ++by)
    for (int bx = 0; bx < gx; ++bx) {
      blockIdx.x = bx; blockIdx.y = by; blockIdx.z = bz;
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] { threadIdx.x = t; CALL; });
      for (auto& th : pool) th.join();
    }
  FILE* f = fopen(argv[5 + 2 * (nargs - 1)], "wb");
  fwrite(bufs[nargs - 1].data(), 1, bufs[nargs - 1].size(), f);
  fclose(f);
  return 0;
}
"""


def emulate(code: str, prec: str, arrays: list[np.ndarray], out_shape, tmp_path) -> np.ndarray:
    """Run the generated kernel `code` on the CPU over `arrays` (inputs), return its output."""
    kernel = code.replace(tensorcore.HELPERS[prec], "").replace(
        tensorcore_gemm.mma_function(prec), ""
    )
    kernel = kernel.replace(tensorcore_gemm.H2F, "")
    nargs = len(arrays) + 1
    ctype = {np.dtype(np.float32): "float*", np.dtype(np.float16): "unsigned short*"}
    types = [ctype[a.dtype] for a in arrays] + ["float*"]
    call = "tf_kernel(" + ", ".join(f"({t})bufs[{i}].data()" for i, t in enumerate(types)) + ")"
    src = (
        SHIM.replace("TF_FP16", "1" if prec == "fp16" else "0")
        + _without_asm(kernel)
        + MAIN.replace("CALL", call)
    )
    cpp = tmp_path / "emu.cpp"
    cpp.write_text(src)
    exe = tmp_path / "emu"
    subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-w", "-o", str(exe), str(cpp)],
                   check=True)  # fmt: skip
    launch = parse_launch(code)
    argv = [str(exe), str(launch["grid"][0]), str(launch["grid"][1]), str(launch["block"][0]),
            str(nargs)]  # fmt: skip
    out = np.zeros(out_shape, np.float32)
    for i, a in enumerate([*arrays, out]):
        path = tmp_path / f"arg{i}.bin"
        np.ascontiguousarray(a).tofile(path)
        argv += [str(path), str(a.nbytes)]
    argv.append(str(launch["grid"][2]))
    subprocess.run(argv, check=True, timeout=300)
    return np.fromfile(tmp_path / f"arg{nargs - 1}.bin", np.float32).reshape(out_shape)


def _without_asm(kernel: str) -> str:
    """The dense template inlines its mma as asm in the kernel: route it to tf_mma."""
    if "asm volatile" not in kernel:
        return kernel
    start = kernel.index('asm volatile("mma')
    end = kernel.index(");", start) + 2
    return kernel[:start] + "tf_mma(acc[i][j], a[i], b[j]);" + kernel[end:]


def rounded(prec: str, x: np.ndarray) -> np.ndarray:
    return tensorcore.round_to(prec, x.astype(np.float32)).astype(np.float64)


def config(task: Task, **knobs) -> Config:
    space = registry.config_space(task)
    values = space.validate({**registry.default_config(task).as_dict(), **knobs})
    return Config.make(values, index=space.index_of(values))


@pytest.mark.parametrize(
    "prec, knobs",
    [
        ("tf32", dict(wm=1, wn=2, warps_m=2, warps_n=2, kchunk=2)),
        ("fp16", dict(wm=2, wn=1, warps_m=1, warps_n=2, kchunk=1)),
        ("fp16", dict(wm=1, wn=4, warps_m=2, warps_n=1, kchunk=4)),
    ],
)
def test_emulated_tensor_core_conv_computes_the_conv(prec, knobs, tmp_path):
    """Awkward sizes: channels, pixels and K not multiples of the tiles; stride, padding on
    one side only, dilation, batch 2, bias + residual + relu."""
    task = Task.make(
        "conv2d", target=f"cuda -arch=sm_80 -precision={prec}", data=(2, 5, 9, 7),
        weight=(19, 5, 3, 2), strides=(2, 1), padding=(1, 0, 1, 1), dilation=(1, 2),
        epilogue=("bias", "residual", "relu"),
    )  # fmt: skip
    code = registry.generate_source(MeasureInput(task, config(task, **knobs))).code
    rng = np.random.default_rng(0)
    data = rng.standard_normal((2, 5, 9, 7)).astype(np.float32)
    weight = rng.standard_normal((19, 5, 3, 2)).astype(np.float32)
    conv = R.conv2d_nchw(rounded(prec, data), rounded(prec, weight), (2, 1), (1, 0, 1, 1), (1, 2))
    bias = rng.standard_normal(19).astype(np.float32)
    residual = rng.standard_normal(conv.shape).astype(np.float32)
    want = np.maximum(conv + bias[None, :, None, None] + residual, 0.0)
    packed = registry.instantiate(task, config(task, **knobs)).packers[1](weight)
    assert packed.dtype == (np.float16 if prec == "fp16" else np.float32)
    got = emulate(code, prec, [data, packed, bias, residual], conv.shape, tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("prec", ["tf32", "fp16"])
def test_emulated_tensor_core_dense_computes_the_dense(prec, tmp_path):
    task = Task.make("dense", target=f"cuda -precision={prec}", data=(21, 40), weight=(27, 40))
    code = registry.generate_source(MeasureInput(task, config(task, wm=2, wn=2, warps=2))).code
    rng = np.random.default_rng(1)
    data = rng.standard_normal((21, 40)).astype(np.float32)
    weight = rng.standard_normal((27, 40)).astype(np.float32)
    want = rounded(prec, data) @ rounded(prec, weight).T
    got = emulate(code, prec, [data, weight], want.shape, tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def sketch_code(task: Task, **knobs) -> str:
    """The source of a tensor-core sketch state with these tile knobs."""
    from tunefarm.schedule import steps as S

    sks, params = registry.sketches(task)
    sk = next(sk for sk in sks if type(sk.plans[-1]).__name__ == "TensorCorePlan")
    plan = sk.plans[-1]
    steps = [S.Pragma(plan.stage, "x", f"tensor_core.{k}", v) for k, v in knobs.items()]
    return registry.generate_source(MeasureInput(task, registry.sketch_config(steps))).code


@pytest.mark.parametrize("transpose_b, batches", [(False, (3, 3)), (True, (1, 2))])
def test_emulated_tensor_core_batch_matmul(transpose_b, batches, tmp_path):
    """batch_matmul through a sketch state: a batch per grid z, a batch of 1 broadcast."""
    prec = "fp16"
    a_shape = (batches[0], 19, 24)
    b_shape = (batches[1], 13, 24) if transpose_b else (batches[1], 24, 13)
    task = Task.make("batch_matmul", target=f"cuda -precision={prec}", a=a_shape, b=b_shape,
                     transpose_b=transpose_b)  # fmt: skip
    code = sketch_code(task, wm=1, wn=1, warps_m=2, warps_n=2, kchunk=1)
    rng = np.random.default_rng(2)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    want = R.batch_matmul(rounded(prec, a), rounded(prec, b), transpose_b)
    got = emulate(code, prec, [a, b], want.shape, tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


def test_emulated_tensor_core_dense_with_an_epilogue_through_a_sketch_state(tmp_path):
    prec = "tf32"
    task = Task.make("dense", target=f"cuda -precision={prec}", data=(9, 40), weight=(21, 40),
                     epilogue=("bias", "leaky_relu:0.1"))  # fmt: skip
    code = sketch_code(task, wm=2, wn=1, warps_m=1, warps_n=2, kchunk=2)
    rng = np.random.default_rng(3)
    data = rng.standard_normal((9, 40)).astype(np.float32)
    weight = rng.standard_normal((21, 40)).astype(np.float32)
    bias = rng.standard_normal(21).astype(np.float32)
    lin = rounded(prec, data) @ rounded(prec, weight).T + bias
    want = np.where(lin > 0, lin, 0.1 * lin)
    got = emulate(code, prec, [data, weight.astype(np.float32), bias], want.shape, tmp_path)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
