"""Whole networks on a CUDA GPU: the `Device` of `gpu_common.network` over libcuda (ctypes,
the driver API, as the kernel runner).

Each kernel's fat binary is loaded once (`cuModuleLoadData`; the driver JIT-compiles the PTX
where it is older than nvcc), its launch shape read from the `tf_launch` string the renderer
puts in the module. Device memory is one `cuMemAlloc` per param, input and output and one
arena whose temps are plain pointer offsets. Launches go to the default stream; timing is
two CUDA events around the launches.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from tunefarm.backends.cuda.driver import call, context
from tunefarm.backends.gpu_common.network import Device, DeviceNetwork
from tunefarm.backends.gpu_common.render import parse_launch


class CudaDevice(Device):
    def __init__(self) -> None:
        context()
        self.start, self.end = ctypes.c_void_p(), ctypes.c_void_p()
        call("cuEventCreate", ctypes.byref(self.start), 0)
        call("cuEventCreate", ctypes.byref(self.end), 0)
        self.allocations: list[int] = []
        self.modules: list[ctypes.c_void_p] = []

    def alloc(self, nbytes: int) -> int:
        context()  # current in the calling thread
        ptr = ctypes.c_uint64()
        call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(nbytes))
        self.allocations.append(ptr.value)
        return ptr.value

    def region(self, base: int, offset: int, nbytes: int) -> int:
        return base + offset

    def upload(self, mem: int, array: np.ndarray) -> None:
        context()  # current in the calling thread
        src = array.ctypes.data_as(ctypes.c_void_p)
        call("cuMemcpyHtoD_v2", ctypes.c_uint64(mem), src, ctypes.c_size_t(array.nbytes))

    def download(self, mem: int, out: np.ndarray) -> None:
        context()  # current in the calling thread
        dst = out.ctypes.data_as(ctypes.c_void_p)
        call("cuMemcpyDtoH_v2", dst, ctypes.c_uint64(mem), ctypes.c_size_t(out.nbytes))

    def load(self, name: str, image: bytes) -> tuple[ctypes.c_void_p, tuple, tuple]:
        context()  # current in the calling thread
        module = ctypes.c_void_p()
        call("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(image))
        self.modules.append(module)
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        call("cuModuleGetGlobal_v2", ctypes.byref(ptr), ctypes.byref(size), module, b"tf_launch")
        line = ctypes.create_string_buffer(size.value)
        call("cuMemcpyDtoH_v2", line, ptr, size)
        launch = parse_launch(line.value.decode())
        func = ctypes.c_void_p()
        call("cuModuleGetFunction", ctypes.byref(func), module, str(launch["entry"]).encode())
        return func, tuple(launch["grid"]), tuple(launch["block"])  # type: ignore[arg-type]

    def prepare(self, module: tuple, args: list[int]) -> tuple:
        func, grid, block = module
        values = [ctypes.c_uint64(a) for a in args]
        params = (ctypes.c_void_p * max(1, len(values)))(*(ctypes.addressof(v) for v in values))
        return func, grid, block, params, values  # values: kept alive with the pointers

    def launch(self, prepared: tuple) -> None:
        context()
        func, (gx, gy, gz), (bx, by, bz), params, _ = prepared
        call("cuLaunchKernel", func, gx, gy, gz, bx, by, bz, 0, None, params, None)

    def synchronize(self) -> None:
        context()  # current in the calling thread
        call("cuCtxSynchronize")

    def timed(self, launches: list[tuple], number: int) -> float:
        context()  # current in the calling thread
        call("cuEventRecord", self.start, None)
        for _ in range(number):
            for prepared in launches:
                self.launch(prepared)
        call("cuEventRecord", self.end, None)
        call("cuEventSynchronize", self.end)
        ms = ctypes.c_float()
        call("cuEventElapsedTime", ctypes.byref(ms), self.start, self.end)
        return ms.value * 1e-3 / max(1, number)

    def release(self) -> None:
        context()  # current in the calling thread
        for ptr in self.allocations:
            call("cuMemFree_v2", ctypes.c_uint64(ptr))
        for module in self.modules:
            call("cuModuleUnload", module)
        for event in (self.start, self.end):
            call("cuEventDestroy_v2", event)
        self.allocations, self.modules = [], []


def open_network(
    plan: dict[str, Any], images: dict[str, bytes], params: dict[str, np.ndarray]
) -> DeviceNetwork:
    """The network of an artifact on CUDA device 0."""
    return DeviceNetwork(CudaDevice(), plan, images, params)
