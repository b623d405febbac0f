"""OpenCL candidates compiled in the build workers, not in the measurer.

On pocl nearly all of a candidate's cost is compilation, in two parts: `clBuildProgram`
(OpenCL C to LLVM bitcode) and, at the first enqueue, the work-group function specialised
for the launch's local size (`8-8-8-goffs0-smallgrid` in pocl's cache). The measurer is one
process, so done there both parts are serial. Here the build workers (a pool, which builds
batch k+1 while the measurer times batch k) do both: they build the program and enqueue it
once, on one work-group over zeroed buffers of the candidate's sizes, which makes pocl
compile that specialisation. pocl keeps both in its kernel cache, keyed by a hash of the
source, options and device (the program binary and the work-group `.so`), so the measurer's
`clBuildProgram` of the same source and its first launch find them there instead of
compiling. Asking pocl for `CL_PROGRAM_BINARIES` instead was tried: pocl compiles a generic
(dynamic local size) work-group function for the binary, and the measurer still compiles
the specialised one at its first launch, so it costs a third compile and saves nothing.

The artifact stays the OpenCL C source (what the measurer and other devices load); a worker
with no OpenCL device, or a driver without a kernel cache, only gets nothing from this. A
program that fails to build is a build error here, with the driver's log, instead of a
runtime error at measurement. `TUNEFARM_OPENCL_PREBUILD=0` turns it off (the measurer
compiles, as before).
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tunefarm.backends.gpu_common.render import parse_launch
from tunefarm.backends.opencl import driver
from tunefarm.measure.types import ArgSpec, Toolchain

ENV = "TUNEFARM_OPENCL_PREBUILD"
BUFFERS = "--buffers="  # the pseudo-option carrying the argument sizes in bytes


def enabled() -> bool:
    return os.environ.get(ENV, "").strip() != "0"


def toolchain(specs: Sequence[ArgSpec]) -> Toolchain:
    """The candidates' toolchain: the source is the artifact, built and launched once by this
    module in the build worker; the arguments' byte sizes travel as one option."""
    sizes = ",".join(str(max(4, math.prod(s.shape) * np.dtype(s.dtype).itemsize)) for s in specs)
    return Toolchain(
        "pocl-prebuild",
        flags=(f"{BUFFERS}{sizes}",),
        source_suffix=".src.cl",
        artifact_suffix=".cl",
        in_process="tunefarm.backends.opencl.prebuild",
    )


@functools.cache
def identity() -> str:
    """The device and driver whose cache the builds fill (part of the build cache key)."""
    try:
        info = driver.device_info()
    except driver.OpenCLError:
        return "opencl (no device at build time)"
    return f"{info['name']} {info['driver']} ({driver.build_options()})"


def _sizes(options: Sequence[str]) -> list[int]:
    for opt in options:
        if opt.startswith(BUFFERS):
            return [int(v) for v in opt[len(BUFFERS) :].split(",") if v]
    return []


def warm(source: str, sizes: Sequence[int]) -> str:
    """Build `source` on the first device and launch one work-group of it over zeroed buffers
    of `sizes` bytes, so that the driver compiles (and caches) what the measurer will run.
    OpenCLError with the build log when the source does not build."""
    launch = parse_launch(source)
    device, ctx, queue = driver.shared_queue()
    program = driver.build_program(ctx, device, source)
    lib = driver.library()
    kernel, buffers = None, []
    try:
        kernel = driver.cl_make(
            "clCreateKernel", driver.cl_ptr(program), str(launch["entry"]).encode()
        )
        for i, nbytes in enumerate(sizes):
            zeros = np.zeros(nbytes, np.uint8)
            buf = driver.cl_make(
                "clCreateBuffer", driver.cl_ptr(ctx),
                ctypes.c_uint64(driver.CL_MEM_READ_WRITE | driver.CL_MEM_COPY_HOST_PTR),
                ctypes.c_size_t(nbytes), driver.cl_ptr(zeros.ctypes.data),
            )  # fmt: skip
            buffers.append(buf)
            handle = driver.cl_ptr(buf)
            driver.cl_call(
                "clSetKernelArg", driver.cl_ptr(kernel), i, ctypes.c_size_t(8), ctypes.byref(handle)
            )
        block = (ctypes.c_size_t * 3)(*launch["block"])  # type: ignore[misc]
        driver.cl_call(
            "clEnqueueNDRangeKernel", driver.cl_ptr(queue), driver.cl_ptr(kernel), 3, None, block,
            block, 0, None, None,
        )  # fmt: skip
        driver.cl_call("clFinish", driver.cl_ptr(queue))
    finally:
        for buf in buffers:
            lib.clReleaseMemObject(driver.cl_ptr(buf))
        if kernel is not None:
            lib.clReleaseKernel(driver.cl_ptr(kernel))
        lib.clReleaseProgram(driver.cl_ptr(program))
    return f"built and launched once for block {launch['block']}"


def compile_file(source: str, artifact: str, options: tuple[str, ...]) -> str:
    """The in-process compiler of `toolchain` (measure.compile): warm the driver's cache with
    `source`, then the source is the artifact. Without a device here it only copies."""
    sizes = _sizes(options)
    text = Path(source).read_text()
    note = "no OpenCL device in this build worker: the measurer compiles"
    try:
        driver.first_device()
        have_device = True
    except driver.OpenCLError:
        have_device = False
    if have_device and sizes:
        note = warm(text, sizes)
    shutil.copyfile(source, artifact)
    return note
