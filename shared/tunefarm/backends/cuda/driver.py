"""The CUDA runner: ctypes on libcuda (the driver API), no toolkit needed at run time.

The artifact is a fat binary (SASS for the target architecture plus PTX, which the driver
JIT-compiles where it is older than nvcc), or a cubin from NVRTC. Inputs are copied to the
device once and stay there; a run launches the kernel with the shape from its
`tunefarm-launch` line; `time` flushes the L2 before every timed launch (a memset of a
buffer larger than any L2 of the targets, 128 MiB, outside the events) and sums the launches'
event times, so no launch finds its inputs in the L2 left by the one before. Runs in the
measurer process; `close` unloads the module and frees the buffers, and a kernel that faults
takes down only that process (the runner replaces it).

The context is the device's primary context, retained once per process and made current in
every thread that calls in (`cuCtxSetCurrent` is per thread).
"""

from __future__ import annotations

import ctypes
import functools
import threading

import numpy as np

from tunefarm.backends.gpu_common.render import parse_launch

L2_FLUSH_BYTES = 128 << 20
_FLUSH_SIZE = ctypes.c_size_t(L2_FLUSH_BYTES)
EVENT_GROUP = 256  # timed launches per event synchronisation
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
def _primary() -> int:
    """The primary context of device 0, retained once per process."""
    call("cuInit", 0)
    dev = ctypes.c_int()
    call("cuDeviceGet", ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p()
    call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
    return ctx.value or 0


_current = threading.local()


def context() -> int:
    """The primary context of device 0, made current in the calling thread (a context is
    current per thread: a second thread that skipped this would fail every call)."""
    ctx = _primary()
    if getattr(_current, "ctx", None) != ctx:
        call("cuCtxSetCurrent", ctypes.c_void_p(ctx))
        _current.ctx = ctx
    return ctx


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
        self.flush = flush_buffer()
        self.events: list[ctypes.c_void_p] = []

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
        context()
        self._launch()
        call("cuCtxSynchronize")
        return 0

    def outputs(self) -> list[np.ndarray]:
        context()
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

    def _event_pairs(self, number: int) -> list[ctypes.c_void_p]:
        while len(self.events) < 2 * number:
            event = ctypes.c_void_p()
            call("cuEventCreate", ctypes.byref(event), 0)
            self.events.append(event)
        return self.events[: 2 * number]

    def time(self, number: int) -> float:
        """Mean seconds per launch over `number` launches, the L2 flushed before each one
        (outside its events); launches go in groups of `EVENT_GROUP`, so the events in use
        stay few however large `number` grows."""
        context()
        total, ms = 0.0, ctypes.c_float()
        for first in range(0, number, EVENT_GROUP):
            group = min(EVENT_GROUP, number - first)
            events = self._event_pairs(group)
            for i in range(group):
                call("cuMemsetD8_v2", self.flush, ctypes.c_ubyte((first + i) & 0xFF), _FLUSH_SIZE)
                call("cuEventRecord", events[2 * i], None)
                self._launch()
                call("cuEventRecord", events[2 * i + 1], None)
            call("cuEventSynchronize", events[2 * group - 1])
            for i in range(group):
                call("cuEventElapsedTime", ctypes.byref(ms), events[2 * i], events[2 * i + 1])
                total += ms.value
        return total * 1e-3 / max(1, number)

    def close(self) -> None:
        """Unload the module, free the arguments and the events (idempotent)."""
        for ptr in self.ptrs:
            call("cuMemFree_v2", ptr)
        for event in self.events:
            call("cuEventDestroy_v2", event)
        if self.module:
            call("cuModuleUnload", self.module)
        self.ptrs, self.events, self.module = [], [], ctypes.c_void_p()


@functools.cache
def flush_buffer() -> ctypes.c_uint64:
    """The 128 MiB the L2 flush writes, allocated once per process."""
    context()
    ptr = ctypes.c_uint64()
    call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(L2_FLUSH_BYTES))
    return ptr


def load_cuda_kernel(artifact: str, args: list[np.ndarray]) -> CudaKernel:
    """The `KernelLoader` of the cuda backend (runs in the measurement child)."""
    return CudaKernel(artifact, args)
