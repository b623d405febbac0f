"""GPU lowering on hand-written schedules: shared tiles relaxed over the block's threads, a
thread loop narrower than its launch, and the schedules a GPU kernel refuses, each run on the
OpenCL device (pocl) against numpy or checked for its message."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends.gpu_common.kernel import DeviceLimits, GpuCodegenError, to_kernel
from tunefarm.backends.gpu_common.render import CUDA, OPENCL, RenderError, render
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.expr import const, max_
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule

LIMITS = DeviceLimits("test")


def matmul_relu() -> Schedule:
    """P[i, j] = sum_k A[i, k] * B[k, j]; out = relu(P), 8 x 10 from 8 x 6 and 6 x 10."""
    a, b = te.placeholder((8, 6), name="A"), te.placeholder((6, 10), name="B")
    k = te.reduce_axis(6, "k")
    p = te.compute((8, 10), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="P")
    out = te.compute((8, 10), lambda i, j: max_(p[i, j], const(0.0)), name="out")
    return Schedule([out], [a, b])


def shared_steps() -> list[S.Step]:
    """A row per block, a column per thread (10 threads); A's row (6 wide: a thread loop
    narrower than the launch) and all of B in shared memory."""
    return [
        S.CacheRead("A", "shared", ("P",)),
        S.CacheRead("B", "shared", ("P",)),
        S.Bind("out", "i", "blockIdx.x"),
        S.Bind("out", "j", "threadIdx.x"),
        S.ComputeAt("P", "out", "j"),
        S.ComputeAt("A.shared", "P", "i"),
        S.ComputeAt("B.shared", "P", "i"),
        S.Bind("A.shared", "ax1", "threadIdx.x"),
        S.Fuse("B.shared", ("ax0", "ax1")),
        S.Split("B.shared", "ax0+ax1", (10,)),
        S.Bind("B.shared", "ax0+ax1.1", "threadIdx.x"),
    ]


def run_opencl(source: str, args: list[np.ndarray], tmp_path) -> list[np.ndarray]:
    from tunefarm.backends.opencl import driver

    try:
        driver.first_device()
    except driver.OpenCLError as exc:
        pytest.skip(f"no OpenCL device: {exc}")
    path = tmp_path / "kernel.cl"
    path.write_text(source)
    kernel = driver.load_opencl_kernel(str(path), args)
    assert kernel.run() == 0
    return kernel.outputs()


def test_shared_tiles_cover_every_thread_and_a_narrow_loop_is_guarded(tmp_path):
    kernel = to_kernel(lower(matmul_relu().apply_all(shared_steps())), LIMITS)
    assert (kernel.grid, kernel.block) == ((8, 1, 1), (10, 1, 1))
    sizes = {b.name: b.size for b in kernel.shared}
    assert sizes == {"A_shared": 6, "B_shared": 60}, "B's tile is relaxed over the 10 threads"
    source = render(kernel, OPENCL)
    assert "if (A_shared_ax1 < 6) {" in source  # 6 of the 10 threads fetch A's row
    assert source.count(OPENCL.barrier) == 3  # two fills share a fence
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 6), np.float32), rng.standard_normal((6, 10), np.float32)
    out = run_opencl(source, [a, b, np.zeros((8, 10), np.float32)], tmp_path)[2]
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    cuda = render(kernel, CUDA)
    assert "__syncthreads();" in cuda and "__shared__ __align__(16) float B_shared[60];" in cuda


def test_a_root_intermediate_is_refused_naming_it():
    sch = matmul_relu().apply_all([S.Bind("out", "i", "blockIdx.x")])
    with pytest.raises(GpuCodegenError, match="P are computed at the root"):
        to_kernel(lower(sch), LIMITS)


def test_a_parallel_loop_is_refused_on_a_gpu():
    sch = matmul_relu().apply_all([S.ComputeAt("P", "out", "j"), S.Parallel("out", "i")])
    with pytest.raises(RenderError, match="bind it to blockIdx/threadIdx"):
        render(to_kernel(lower(sch), LIMITS), OPENCL)


def test_a_shared_fill_under_a_narrow_thread_loop_is_refused():
    """Its barrier would be reached by only some threads of the block."""
    steps = [
        S.CacheRead("B", "shared", ("P",)),
        S.Bind("out", "i", "blockIdx.x"),
        S.Split("out", "j", (5,)),
        S.Bind("out", "j.1", "threadIdx.x"),
        S.ComputeAt("P", "out", "j.1"),
        S.ComputeAt("B.shared", "P", "i"),
        S.Fuse("B.shared", ("ax0", "ax1")),
        S.Split("B.shared", "ax0+ax1", (8,)),  # 8 threads here, 5 in the output stage
        S.Bind("B.shared", "ax0+ax1.1", "threadIdx.x"),
    ]
    with pytest.raises(GpuCodegenError, match="under a thread guard"):
        to_kernel(lower(matmul_relu().apply_all(steps)), LIMITS)


def row_sum() -> Schedule:
    """out[i] = sum_k A[i, k], 4 x 100."""
    a = te.placeholder((4, 100), name="A")
    k = te.reduce_axis(100, "k")
    out = te.compute((4,), lambda i: te.sum(a[i, k], axis=k), name="out")
    return Schedule([out], [a])


@pytest.mark.parametrize("cached", [True, False], ids=["register", "memory"])
def test_a_reduce_loop_bound_to_threads_is_a_cross_thread_reduction(cached, tmp_path):
    """32 threads each sum a strided share of a row (100 = 4 x 32 with a guard), then
    combine their partial sums in shared memory."""
    acc = "out.local" if cached else "out"
    steps: list[S.Step] = [S.CacheWrite("out")] if cached else []
    steps += [S.Bind("out", "i", "blockIdx.x")]
    if cached:
        steps += [S.ComputeAt(acc, "out", "i")]
    steps += [
        S.Split(acc, "k", (32,)),
        S.Reorder(acc, ("k.1", "k.0")),
        S.Bind(acc, "k.1", "threadIdx.x"),
    ]
    kernel = to_kernel(lower(row_sum().apply_all(steps)), LIMITS)
    assert kernel.block == (32, 1, 1) and kernel.shared_bytes == 32 * 4
    source = render(kernel, OPENCL)
    x = np.random.default_rng(1).standard_normal((4, 100)).astype(np.float32)
    out = run_opencl(source, [x, np.zeros(4, np.float32)], tmp_path)[1]
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)
    assert "tf_s >>= 1" in render(kernel, CUDA)
