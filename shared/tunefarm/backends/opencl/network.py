"""Whole networks on an OpenCL device (pocl on a CPU here, a GPU driver elsewhere): the
`Device` of `gpu_common.network` over the same ctypes calls as the kernel runner.

One context and one in-order queue with profiling per network. Each kernel's source is
built once by the driver; each call gets its own `cl_kernel` with its arguments set once, so
a run is only `clEnqueueNDRangeKernel`s. The arena's temps are sub-buffers of one buffer.
Timing reads the profiling clock from the start of the first launch to the end of the last.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.network import Device, DeviceNetwork
from tunefarm.backends.gpu_common.render import parse_launch
from tunefarm.backends.opencl import driver
from tunefarm.backends.opencl.driver import (
    CL_MEM_READ_WRITE,
    CL_PROFILING_COMMAND_END,
    CL_PROFILING_COMMAND_START,
    CL_QUEUE_PROFILING_ENABLE,
    OpenCLKernel,
    cl_call,
    cl_make,
    cl_ptr,
)

CL_BUFFER_CREATE_TYPE_REGION = 0x1220


class _Region(ctypes.Structure):
    _fields_ = [("origin", ctypes.c_size_t), ("size", ctypes.c_size_t)]


class OpenCLDevice(Device):
    def __init__(self) -> None:
        _, self.device = driver.first_device()
        dev = (cl_ptr * 1)(self.device)
        self.ctx = cl_make("clCreateContext", None, 1, dev, None, None)
        self.queue = cl_make(
            "clCreateCommandQueue", cl_ptr(self.ctx), cl_ptr(self.device),
            ctypes.c_uint64(CL_QUEUE_PROFILING_ENABLE),
        )  # fmt: skip
        self.owned: list[tuple[str, int]] = []  # (release function, handle), in creation order

    def _own(self, release: str, handle: int) -> int:
        self.owned.append((release, handle))
        return handle

    def alloc(self, nbytes: int) -> int:
        flags = ctypes.c_uint64(CL_MEM_READ_WRITE)
        mem = cl_make("clCreateBuffer", cl_ptr(self.ctx), flags, ctypes.c_size_t(nbytes), None)
        return self._own("clReleaseMemObject", mem)

    def region(self, base: int, offset: int, nbytes: int) -> int:
        region = _Region(offset, nbytes)
        mem = cl_make(
            "clCreateSubBuffer", cl_ptr(base), ctypes.c_uint64(CL_MEM_READ_WRITE),
            ctypes.c_uint32(CL_BUFFER_CREATE_TYPE_REGION), ctypes.byref(region),
        )  # fmt: skip
        return self._own("clReleaseMemObject", mem)

    def upload(self, mem: int, array: np.ndarray) -> None:
        cl_call(
            "clEnqueueWriteBuffer", cl_ptr(self.queue), cl_ptr(mem), 1, ctypes.c_size_t(0),
            ctypes.c_size_t(array.nbytes), cl_ptr(array.ctypes.data), 0, None, None,
        )  # fmt: skip

    def download(self, mem: int, out: np.ndarray) -> None:
        cl_call(
            "clEnqueueReadBuffer", cl_ptr(self.queue), cl_ptr(mem), 1, ctypes.c_size_t(0),
            ctypes.c_size_t(out.nbytes), cl_ptr(out.ctypes.data), 0, None, None,
        )  # fmt: skip

    def load(self, name: str, image: bytes) -> tuple[int, str, Any, Any]:
        source = image.decode()
        launch = parse_launch(source)
        block = launch["block"]
        local = (ctypes.c_size_t * 3)(*block)  # type: ignore[misc]
        global_ = (ctypes.c_size_t * 3)(
            *(g * b for g, b in zip(launch["grid"], block, strict=True))  # type: ignore[arg-type]
        )
        program = self._own("clReleaseProgram", driver.build_program(self.ctx, self.device, source))
        return program, str(launch["entry"]), global_, local

    def prepare(self, module: tuple[int, str, Any, Any], args: list[int]) -> tuple:
        program, entry, global_, local = module
        kernel = self._own(
            "clReleaseKernel", cl_make("clCreateKernel", cl_ptr(program), entry.encode())
        )
        for i, mem in enumerate(args):
            handle = cl_ptr(mem)
            size = ctypes.c_size_t(ctypes.sizeof(handle))
            cl_call("clSetKernelArg", cl_ptr(kernel), i, size, ctypes.byref(handle))
        return kernel, global_, local

    def _enqueue(self, prepared: tuple, event: ctypes.c_void_p | None = None) -> None:
        kernel, global_, local = prepared
        cl_call(
            "clEnqueueNDRangeKernel", cl_ptr(self.queue), cl_ptr(kernel), 3, None, global_, local,
            0, None, ctypes.byref(event) if event is not None else None,
        )  # fmt: skip

    def launch(self, prepared: tuple) -> None:
        self._enqueue(prepared)

    def synchronize(self) -> None:
        cl_call("clFinish", cl_ptr(self.queue))

    def timed(self, launches: list[tuple], number: int) -> float:
        first, last = cl_ptr(), cl_ptr()
        total = len(launches) * number
        k = 0
        for _ in range(number):
            for prepared in launches:
                event = first if k == 0 else last if k == total - 1 else None
                self._enqueue(prepared, event)
                k += 1
        self.synchronize()
        start = OpenCLKernel._stamp(first, CL_PROFILING_COMMAND_START)
        end = OpenCLKernel._stamp(last if total > 1 else first, CL_PROFILING_COMMAND_END)
        for ev in (first, last) if total > 1 else (first,):
            driver.library().clReleaseEvent(ev)
        return (end - start) * 1e-9 / max(1, number)

    def release(self) -> None:
        lib = driver.library()
        for fn, handle in reversed(self.owned):  # kernels before programs, sub-buffers first
            getattr(lib, fn)(cl_ptr(handle))
        self.owned = []
        lib.clReleaseCommandQueue(cl_ptr(self.queue))
        lib.clReleaseContext(cl_ptr(self.ctx))


def open_network(
    plan: dict[str, Any], images: dict[str, bytes], params: dict[str, np.ndarray]
) -> DeviceNetwork:
    """The network of an artifact on this machine's first OpenCL device."""
    return DeviceNetwork(OpenCLDevice(), plan, images, params)
