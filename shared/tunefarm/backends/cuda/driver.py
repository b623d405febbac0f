"""The CUDA runner: ctypes on libcuda (the driver API), no toolkit needed at run time.

The artifact is a fat binary (SASS for the target architecture plus PTX, which the driver
JIT-compiles where it is older than nvcc). Inputs are copied to the device once and stay
there; a run launches the kernel with the shape from its `tunefarm-launch` line; `time`
flushes the L2 (a memset of a buffer larger than any L2 of the targets, 128 MiB) and then
times `number` back-to-back launches between two events. Runs in the measurement child, so a
kernel that faults takes down only that process.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

from tunefarm.backends.gpu_common.render import parse_launch

L2_FLUSH_BYTES = 128 << 20
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8


class CudaError(RuntimeError):
    pass


@functools.cache
def library() -> ctypes.CDLL:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        raise CudaError("libcuda.so.1 not found: this machine has no NVIDIA driver") from None


def call(fn: str, *args) -> None:
    f = getattr(library(), fn)
    f.restype = ctypes.c_int
    rc = f(*args)
    if rc != 0:
        name = ctypes.c_char_p()
        library().cuGetErrorName(rc, ctypes.byref(name))
        raise CudaError(f"{fn} failed: {(name.value or b'?').decode()} ({rc})")


@functools.cache
def context() -> int:
    """The primary context of device 0, made current in this process."""
    call("cuInit", 0)
    dev = ctypes.c_int()
    call("cuDeviceGet", ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p()
    call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
    call("cuCtxSetCurrent", ctx)
    return ctx.value or 0


def device_info() -> dict[str, str | int]:
    """Name, memory and driver version of device 0 (for the agent's report)."""
    context()
    dev = ctypes.c_int()
    call("cuDeviceGet", ctypes.byref(dev), 0)
    name = ctypes.create_string_buffer(256)
    call("cuDeviceGetName", name, 256, dev)
    mem, version = ctypes.c_size_t(), ctypes.c_int()
    call("cuDeviceTotalMem_v2", ctypes.byref(mem), dev)
    call("cuDriverGetVersion", ctypes.byref(version))
    v = version.value
    return {
        "name": name.value.decode(),
        "memory": mem.value,
        "driver": f"{v // 1000}.{v % 1000 // 10}",
    }


class CudaKernel:
    """A loaded module, its kernel, and the arguments resident on the device."""

    def __init__(self, artifact: str, args: list[np.ndarray]) -> None:
        context()
        with open(artifact, "rb") as f:
            image = f.read()
        self.module = ctypes.c_void_p()
        call("cuModuleLoadData", ctypes.byref(self.module), ctypes.c_char_p(image))
        launch = parse_launch(self._launch_line())
        self.grid, self.block = launch["grid"], launch["block"]
        self.func = ctypes.c_void_p()
        call(
            "cuModuleGetFunction",
            ctypes.byref(self.func),
            self.module,
            str(launch["entry"]).encode(),
        )
        self.hosts = [np.ascontiguousarray(a) for a in args]
        self.ptrs = [ctypes.c_uint64() for _ in self.hosts]
        for host, ptr in zip(self.hosts, self.ptrs, strict=True):
            call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(max(4, host.nbytes)))
            call(
                "cuMemcpyHtoD_v2",
                ptr,
                host.ctypes.data_as(ctypes.c_void_p),
                ctypes.c_size_t(host.nbytes),
            )
        self.params = (ctypes.c_void_p * len(self.ptrs))(*(ctypes.addressof(p) for p in self.ptrs))
        self.flush = ctypes.c_uint64()
        call("cuMemAlloc_v2", ctypes.byref(self.flush), ctypes.c_size_t(L2_FLUSH_BYTES))
        self.start, self.end = ctypes.c_void_p(), ctypes.c_void_p()
        call("cuEventCreate", ctypes.byref(self.start), 0)
        call("cuEventCreate", ctypes.byref(self.end), 0)

    def _launch_line(self) -> str:
        """The launch line, which the renderer stores in the module as `tf_launch`."""
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        call(
            "cuModuleGetGlobal_v2", ctypes.byref(ptr), ctypes.byref(size), self.module, b"tf_launch"
        )
        buf = ctypes.create_string_buffer(size.value)
        call("cuMemcpyDtoH_v2", buf, ptr, size)
        return buf.value.decode()

    def _launch(self) -> None:
        gx, gy, gz = self.grid
        bx, by, bz = self.block
        call("cuLaunchKernel", self.func, gx, gy, gz, bx, by, bz, 0, None, self.params, None)

    def run(self) -> int:
        self._launch()
        call("cuCtxSynchronize")
        return 0

    def outputs(self) -> list[np.ndarray]:
        out = []
        for host, ptr in zip(self.hosts, self.ptrs, strict=True):
            copy = np.empty_like(host)
            call(
                "cuMemcpyDtoH_v2",
                copy.ctypes.data_as(ctypes.c_void_p),
                ptr,
                ctypes.c_size_t(copy.nbytes),
            )
            out.append(copy)
        return out

    def time(self, number: int) -> float:
        call(
            "cuMemsetD8_v2",
            self.flush,
            ctypes.c_ubyte(number & 0xFF),
            ctypes.c_size_t(L2_FLUSH_BYTES),
        )
        call("cuEventRecord", self.start, None)
        for _ in range(number):
            self._launch()
        call("cuEventRecord", self.end, None)
        call("cuEventSynchronize", self.end)
        ms = ctypes.c_float()
        call("cuEventElapsedTime", ctypes.byref(ms), self.start, self.end)
        return ms.value * 1e-3 / max(1, number)


def load_cuda_kernel(artifact: str, args: list[np.ndarray]) -> CudaKernel:
    """The `KernelLoader` of the cuda backend (runs in the measurement child)."""
    return CudaKernel(artifact, args)
