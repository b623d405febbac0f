"""The OpenCL runner: ctypes on the ICD loader (libOpenCL), no Python binding needed.

The artifact of an OpenCL candidate is its source (`.cl`); the device's driver builds it
here, when the measurement child loads it, as OpenCL intends. Buffers are created once on
the device from the reference arrays; a run enqueues the kernel with the launch shape from
the source's `tunefarm-launch` line; timing reads the device's profiling clock from the
first kernel's start to the last one's end. pocl runs this on the CPU (real work-groups,
local memory and barriers); on a machine with a GPU driver the same code runs on the GPU.
"""

from __future__ import annotations

import ctypes
import functools
import os

import numpy as np

from tunefarm.backends.gpu_common.render import parse_launch

CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_QUEUE_PROFILING_ENABLE = 1 << 1
CL_MEM_READ_WRITE = 1 << 0
CL_MEM_COPY_HOST_PTR = 1 << 5
CL_PROGRAM_BUILD_LOG = 0x1183
CL_PROFILING_COMMAND_START = 0x1282
CL_PROFILING_COMMAND_END = 0x1283
CL_DEVICE_NAME = 0x102B
CL_DRIVER_VERSION = 0x102D
CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F

cl_ptr = ctypes.c_void_p


class OpenCLError(RuntimeError):
    pass


@functools.cache
def library() -> ctypes.CDLL:
    """libOpenCL (the ICD loader); OpenCLError saying what to install if it is missing."""
    for name in ("libOpenCL.so.1", "libOpenCL.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OpenCLError(
        "libOpenCL is not installed: apt-get install ocl-icd-opencl-dev pocl-opencl-icd "
        "(pocl runs OpenCL on the CPU) or a GPU vendor's OpenCL driver"
    )


def _check(rc: int, what: str) -> None:
    if rc != 0:
        raise OpenCLError(f"{what} failed with OpenCL error {rc}")


def cl_call(fn: str, *args) -> None:
    getattr(library(), fn).restype = ctypes.c_int32
    _check(getattr(library(), fn)(*args), fn)


def cl_make(fn: str, *args) -> int:
    """Call a clCreate* function (last argument: the error code) and return the handle."""
    err = ctypes.c_int32(0)
    f = getattr(library(), fn)
    f.restype = cl_ptr
    handle = f(*args, ctypes.byref(err))
    _check(err.value, fn)
    return handle


def first_device() -> tuple[int, int]:
    """(platform, device): the first device of the first platform that has one."""
    count = ctypes.c_uint32(0)
    cl_call("clGetPlatformIDs", 0, None, ctypes.byref(count))
    platforms = (cl_ptr * max(1, count.value))()
    cl_call("clGetPlatformIDs", count.value, platforms, None)
    for platform in platforms[: count.value]:
        device = cl_ptr()
        n = ctypes.c_uint32(0)
        lib = library()
        lib.clGetDeviceIDs.restype = ctypes.c_int32
        rc = lib.clGetDeviceIDs(
            cl_ptr(platform), ctypes.c_uint64(CL_DEVICE_TYPE_ALL), 1, ctypes.byref(device),
            ctypes.byref(n),
        )  # fmt: skip
        if rc == 0 and n.value:
            return platform, device.value  # type: ignore[return-value]
    raise OpenCLError("no OpenCL device found (clinfo -l lists them; install pocl-opencl-icd)")


def device_info() -> dict[str, str | int]:
    """Name, driver version and global memory of the device kernels run on."""
    _, device = first_device()

    def text(param: int) -> str:
        buf = ctypes.create_string_buffer(512)
        cl_call("clGetDeviceInfo", cl_ptr(device), param, ctypes.c_size_t(512), buf, None)
        return buf.value.decode(errors="replace")

    mem = ctypes.c_uint64(0)
    size = ctypes.c_size_t(8)
    cl_call(
        "clGetDeviceInfo", cl_ptr(device), CL_DEVICE_GLOBAL_MEM_SIZE, size, ctypes.byref(mem), None
    )
    return {"name": text(CL_DEVICE_NAME), "driver": text(CL_DRIVER_VERSION), "memory": mem.value}


ENV_BUILD_OPTIONS = "TUNEFARM_OPENCL_BUILD_OPTIONS"
DEFAULT_BUILD_OPTIONS = "-cl-std=CL1.2"


def build_options() -> str:
    """The driver's build options: -cl-std=CL1.2, plus what TUNEFARM_OPENCL_BUILD_OPTIONS
    adds (e.g. -cl-opt-disable: on pocl a candidate compiles about 4x faster and runs several
    times slower, for checking correctness where timings do not matter)."""
    extra = os.environ.get(ENV_BUILD_OPTIONS, "").strip()
    return f"{DEFAULT_BUILD_OPTIONS} {extra}".strip()


def build_program(ctx: int, device: int, source: str) -> int:
    """An OpenCL C program built by the device's driver; OpenCLError with the build log."""
    src = ctypes.c_char_p(source.encode())
    program = cl_make("clCreateProgramWithSource", cl_ptr(ctx), 1, ctypes.byref(src), None)
    dev = (cl_ptr * 1)(device)
    lib = library()
    lib.clBuildProgram.restype = ctypes.c_int32
    rc = lib.clBuildProgram(cl_ptr(program), 1, dev, build_options().encode(), None, None)
    if rc != 0:
        log = ctypes.create_string_buffer(16384)
        lib.clGetProgramBuildInfo(
            cl_ptr(program), cl_ptr(device), CL_PROGRAM_BUILD_LOG, ctypes.c_size_t(16384), log, None
        )
        raise OpenCLError(f"clBuildProgram failed ({rc}):\n{log.value.decode()[:2000]}")
    return program


@functools.cache
def shared_queue() -> tuple[int, int, int]:
    """(device, context, profiling queue) of the first device, made once per process: a
    persistent measurer builds every candidate in one context."""
    _, device = first_device()
    dev = (cl_ptr * 1)(device)
    ctx = cl_make("clCreateContext", None, 1, dev, None, None)
    queue = cl_make(
        "clCreateCommandQueue", cl_ptr(ctx), cl_ptr(device),
        ctypes.c_uint64(CL_QUEUE_PROFILING_ENABLE),
    )  # fmt: skip
    return device, ctx, queue


class OpenCLKernel:
    """A kernel built from source on the first OpenCL device, with its buffers there;
    `close` gives them back (the context and queue are the process's)."""

    def __init__(self, artifact: str, args: list[np.ndarray]) -> None:
        with open(artifact) as f:
            source = f.read()
        launch = parse_launch(source)
        block = launch["block"]
        self.local = (ctypes.c_size_t * 3)(*block)  # type: ignore[misc]
        self.global_ = (ctypes.c_size_t * 3)(
            *(g * b for g, b in zip(launch["grid"], block, strict=True))  # type: ignore[arg-type]
        )
        self.device, self.ctx, self.queue = shared_queue()
        self.program, self.kernel, self.buffers = None, None, []
        self.program = build_program(self.ctx, self.device, source)
        self.kernel = cl_make("clCreateKernel", cl_ptr(self.program), str(launch["entry"]).encode())
        self.hosts = [np.ascontiguousarray(a) for a in args]
        self.buffers = [
            cl_make(
                "clCreateBuffer",
                cl_ptr(self.ctx),
                ctypes.c_uint64(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR),
                ctypes.c_size_t(max(a.nbytes, 4)),
                cl_ptr(a.ctypes.data),
            )  # fmt: skip
            for a in self.hosts
        ]
        for i, buf in enumerate(self.buffers):
            handle = cl_ptr(buf)
            size = ctypes.c_size_t(ctypes.sizeof(handle))
            cl_call("clSetKernelArg", cl_ptr(self.kernel), i, size, ctypes.byref(handle))

    def close(self) -> None:
        """Release the buffers, kernel and program (idempotent)."""
        lib = library()
        for buf in self.buffers:
            lib.clReleaseMemObject(cl_ptr(buf))
        if self.kernel is not None:
            lib.clReleaseKernel(cl_ptr(self.kernel))
        if self.program is not None:
            lib.clReleaseProgram(cl_ptr(self.program))
        self.buffers, self.kernel, self.program = [], None, None

    def _enqueue(self, event: ctypes.c_void_p | None) -> None:
        cl_call(
            "clEnqueueNDRangeKernel", cl_ptr(self.queue), cl_ptr(self.kernel), 3, None,
            self.global_, self.local, 0, None, ctypes.byref(event) if event is not None else None,
        )  # fmt: skip

    def run(self) -> int:
        self._enqueue(None)
        cl_call("clFinish", cl_ptr(self.queue))
        return 0

    def outputs(self) -> list[np.ndarray]:
        out = []
        for host, buf in zip(self.hosts, self.buffers, strict=True):
            copy = np.empty_like(host)
            cl_call(
                "clEnqueueReadBuffer", cl_ptr(self.queue), cl_ptr(buf), 1, ctypes.c_size_t(0),
                ctypes.c_size_t(copy.nbytes), cl_ptr(copy.ctypes.data), 0, None, None,
            )  # fmt: skip
            out.append(copy)
        return out

    def time(self, number: int) -> float:
        first, last = cl_ptr(), cl_ptr()
        for i in range(number):
            self._enqueue(first if i == 0 else last if i == number - 1 else None)
        cl_call("clFinish", cl_ptr(self.queue))
        start = self._stamp(first, CL_PROFILING_COMMAND_START)
        end = self._stamp(last if number > 1 else first, CL_PROFILING_COMMAND_END)
        for ev in (first, last) if number > 1 else (first,):
            library().clReleaseEvent(ev)
        return (end - start) * 1e-9 / max(1, number)

    @staticmethod
    def _stamp(event: ctypes.c_void_p, param: int) -> int:
        value = ctypes.c_uint64(0)
        cl_call(
            "clGetEventProfilingInfo", event, param, ctypes.c_size_t(8), ctypes.byref(value), None
        )
        return value.value


def load_opencl_kernel(artifact: str, args: list[np.ndarray]) -> OpenCLKernel:
    """The `KernelLoader` of the opencl backend (runs in the measurement child)."""
    return OpenCLKernel(artifact, args)
