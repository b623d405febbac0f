"""Whole networks on a CUDA GPU: the `Device` of `gpu_common.network` over libcuda (ctypes,
the driver API, as the kernel runner).

Each kernel's fat binary is loaded once (`cuModuleLoadData`; the driver JIT-compiles the PTX
where it is older than nvcc), its launch shape read from the `tf_launch` string the renderer
puts in the module. Device memory is one `cuMemAlloc` per param, input and output and one
arena whose temps are plain pointer offsets, so every launch's arguments are fixed: the
whole network is captured once into a CUDA graph (on the executor's own stream) and each
run is one `cuGraphLaunch` instead of a launch per call (resnet-50: 56 calls). Inputs and
outputs stay bound: copies in and out go before and after the graph.
TUNEFARM_CUDA_GRAPHS=0 turns the graph off (a launch per call, as before). Timing is two
CUDA events around the launches on that stream.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

import numpy as np

from tunefarm.backends.cuda.driver import call, context
from tunefarm.backends.gpu_common.network import Device, DeviceNetwork
from tunefarm.backends.gpu_common.render import parse_launch

ENV_GRAPHS = "TUNEFARM_CUDA_GRAPHS"
CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1


class Graph:
    """An instantiated CUDA graph: one launch replays the whole network."""

    def __init__(self, exec_: ctypes.c_void_p) -> None:
        self.exec = exec_


def graphs_enabled() -> bool:
    """Whether networks run as a CUDA graph (TUNEFARM_CUDA_GRAPHS, default on)."""
    return os.environ.get(ENV_GRAPHS, "1").strip() not in ("0", "false", "off", "no")


class CudaDevice(Device):
    def __init__(self) -> None:
        context()
        self.start, self.end = ctypes.c_void_p(), ctypes.c_void_p()
        call("cuEventCreate", ctypes.byref(self.start), 0)
        call("cuEventCreate", ctypes.byref(self.end), 0)
        # a blocking stream: it waits for the legacy stream's copies, as launches did
        self.stream = ctypes.c_void_p()
        call("cuStreamCreate", ctypes.byref(self.stream), 0)
        self.allocations: list[int] = []
        self.modules: list[ctypes.c_void_p] = []
        self.graphs: list[Graph] = []

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

    def launch(self, prepared: tuple | Graph) -> None:
        context()
        if isinstance(prepared, Graph):
            call("cuGraphLaunch", prepared.exec, self.stream)
            return
        func, (gx, gy, gz), (bx, by, bz), params, _ = prepared
        call("cuLaunchKernel", func, gx, gy, gz, bx, by, bz, 0, self.stream, params, None)

    def capture(self, launches: list[Any]) -> Graph | None:
        """The launches captured from this device's stream into one instantiated graph;
        None where graphs are turned off."""
        if not graphs_enabled() or not launches:
            return None
        context()
        call("cuStreamBeginCapture_v2", self.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        graph = ctypes.c_void_p()
        try:
            for prepared in launches:
                self.launch(prepared)
        finally:  # a failed launch must still end the capture, or the stream stays unusable
            call("cuStreamEndCapture", self.stream, ctypes.byref(graph))
        exec_ = ctypes.c_void_p()
        try:
            call("cuGraphInstantiateWithFlags", ctypes.byref(exec_), graph, ctypes.c_ulonglong(0))
        finally:
            call("cuGraphDestroy", graph)
        self.graphs.append(Graph(exec_))
        return self.graphs[-1]

    def synchronize(self) -> None:
        context()  # current in the calling thread
        call("cuStreamSynchronize", self.stream)

    def timed(self, launches: list[tuple], number: int) -> float:
        context()  # current in the calling thread
        call("cuEventRecord", self.start, self.stream)
        for _ in range(number):
            for prepared in launches:
                self.launch(prepared)
        call("cuEventRecord", self.end, self.stream)
        call("cuEventSynchronize", self.end)
        ms = ctypes.c_float()
        call("cuEventElapsedTime", ctypes.byref(ms), self.start, self.end)
        return ms.value * 1e-3 / max(1, number)

    def release(self) -> None:
        context()  # current in the calling thread
        call("cuStreamSynchronize", self.stream)
        for graph in self.graphs:
            call("cuGraphExecDestroy", graph.exec)
        call("cuStreamDestroy_v2", self.stream)
        for ptr in self.allocations:
            call("cuMemFree_v2", ctypes.c_uint64(ptr))
        for module in self.modules:
            call("cuModuleUnload", module)
        for event in (self.start, self.end):
            call("cuEventDestroy_v2", event)
        self.allocations, self.modules, self.graphs = [], [], []


def open_network(
    plan: dict[str, Any], images: dict[str, bytes], params: dict[str, np.ndarray]
) -> DeviceNetwork:
    """The network of an artifact on CUDA device 0."""
    return DeviceNetwork(CudaDevice(), plan, images, params)
