"""The host driver of a whole network on a GPU, shared by the `cuda` and `opencl` backends.

The runtime layer hands over what a compiled network artifact holds: each kernel's device
image (a fat binary for CUDA, OpenCL C source for OpenCL), the plan (buffers, calls, and the
memory plan: every temp at an offset of one arena) and the params. Here that becomes device
memory and prepared launches, once:

- the params are uploaded once, each in its own buffer;
- the temps are regions of one device arena at the planned offsets (temps whose lifetimes do
  not overlap share memory, as on the CPU); an alias (a reshape) is its root's memory;
- inputs and outputs get their own buffers;
- every call becomes a launch with its arguments bound, so a run is only launches.

A run launches the calls in order on one stream/queue; timing is the device's: events
around `number` whole runs (CUDA events, OpenCL profiling events), without the copies of
inputs and outputs, as a GPU time evaluator measures. Each backend supplies a `Device`
(allocation, copies, loading a kernel image, launching, event timing).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

# Arena offsets are multiples of this (the runtime's memory plan is made with it): OpenCL
# sub-buffers need an origin aligned to the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (pocl
# 128 B, GPUs up to 512 B), CUDA's float4 loads 16 B.
DEVICE_ALIGN = 4096


class NetworkError(RuntimeError):
    """A network that cannot be set up or run on the device; names the kernel or buffer."""


class Device(ABC):
    """The primitives of one GPU API that a network needs."""

    @abstractmethod
    def alloc(self, nbytes: int) -> Any: ...

    @abstractmethod
    def region(self, base: Any, offset: int, nbytes: int) -> Any:
        """Memory `nbytes` long at `offset` of allocation `base` (arena temps)."""

    @abstractmethod
    def upload(self, mem: Any, array: np.ndarray) -> None: ...

    @abstractmethod
    def download(self, mem: Any, out: np.ndarray) -> None: ...

    @abstractmethod
    def load(self, name: str, image: bytes) -> Any:
        """A kernel image loaded (built, for OpenCL), with its launch shape."""

    @abstractmethod
    def prepare(self, module: Any, args: list[Any]) -> Any:
        """A launch of `module` with its arguments bound."""

    @abstractmethod
    def launch(self, prepared: Any) -> None: ...

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def timed(self, launches: list[Any], number: int) -> float:
        """Seconds of device time per round of `launches`, over `number` rounds back to
        back (events before the first and after the last)."""

    def capture(self, launches: list[Any]) -> Any | None:
        """One launchable that replays `launches` in order (a CUDA graph), or None where the
        device has none or it is turned off: the launches then go one by one."""
        return None

    @abstractmethod
    def release(self) -> None:
        """Free everything this device object allocated or loaded (a long-lived agent opens
        a network per evaluation; its device memory must come back)."""


def _nbytes(spec: dict[str, Any]) -> int:
    return math.prod(spec["shape"]) * np.dtype(spec["dtype"]).itemsize


class DeviceNetwork:
    """A network resident on a device: `write` inputs, `run`, `read` outputs, `time`."""

    def __init__(
        self,
        device: Device,
        plan: dict[str, Any],
        images: dict[str, bytes],
        params: dict[str, np.ndarray],
    ) -> None:
        self.device = device
        self.launches: list[Any] | None = None
        self._whole: list[Any] | None = None  # one run's launchables (a graph, or the calls)
        try:
            self._setup(plan, images, params)
        except BaseException:
            device.release()  # what was allocated before the failure comes back
            raise

    def _setup(
        self, plan: dict[str, Any], images: dict[str, bytes], params: dict[str, np.ndarray]
    ) -> None:
        device = self.device
        specs = {b["name"]: b for b in plan["buffers"]}
        self.specs = specs
        memory = plan["memory"]
        roots, offsets = memory["roots"], memory["offsets"]
        bad = [n for n, off in offsets.items() if off % DEVICE_ALIGN]
        if bad:
            raise NetworkError(
                f"buffer {bad[0]!r} sits at arena offset {offsets[bad[0]]}, not a multiple of "
                f"{DEVICE_ALIGN}: the artifact was not planned for a device"
            )
        arena = device.alloc(max(int(memory["arena_bytes"]), DEVICE_ALIGN))
        owned: dict[str, Any] = {}  # root -> its memory
        for name, spec in specs.items():
            if spec["alias_of"] is not None:
                continue
            size = max(_nbytes(spec), 4)
            if spec["kind"] == "temp":
                owned[name] = device.region(arena, int(offsets[name]), size)
                continue
            owned[name] = device.alloc(size)
            if spec["kind"] == "param":
                data = np.ascontiguousarray(params[name], dtype=spec["dtype"])
                device.upload(owned[name], data)
        self.mem = {name: owned[roots[name]] for name in specs}
        modules = {}
        for name, image in images.items():
            try:
                modules[name] = device.load(name, image)
            except Exception as exc:
                raise NetworkError(f"kernel {name!r} cannot be loaded: {exc}") from None
        self.launches = [
            device.prepare(modules[c["kernel"]], [self.mem[a] for a in c["args"]])
            for c in plan["calls"]
        ]

    def _checked(self, buffer: str, array: np.ndarray, verb: str) -> np.ndarray:
        """`array` if its dtype and size are the buffer's: a copy of any other size would
        write past the buffer into its neighbours (CUDA checks nothing), or fall short."""
        spec = self.specs.get(buffer)
        if spec is None:
            raise NetworkError(f"cannot {verb} {buffer!r}: the network has no such buffer")
        dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
        if array.dtype != dtype or array.size != math.prod(shape):
            raise NetworkError(
                f"cannot {verb} {buffer!r}: it holds {dtype.name}{list(shape)}, "
                f"got {array.dtype.name}{list(array.shape)}"
            )
        return array

    def write(self, buffer: str, array: np.ndarray) -> None:
        array = self._checked(buffer, np.ascontiguousarray(array), "write")
        self.device.upload(self.mem[buffer], array)

    def read(self, buffer: str, out: np.ndarray) -> None:
        if not out.flags.c_contiguous:
            raise NetworkError(f"cannot read {buffer!r} into a non-contiguous array")
        self.device.download(self.mem[buffer], self._checked(buffer, out, "read"))

    def whole_run(self) -> list[Any]:
        """What one whole run launches: the device's capture of all calls (a CUDA graph,
        made on first use), else the calls one by one."""
        if self._whole is None:
            graph = self.device.capture(self.launches)
            self._whole = [graph] if graph is not None else self.launches
        return self._whole

    def run(self, calls: range | None = None) -> None:
        """Launch the calls (all, or the range given) in order and wait for them."""
        if calls is None:
            for launch in self.whole_run():
                self.device.launch(launch)
        else:
            for i in calls:
                self.device.launch(self.launches[i])
        self.device.synchronize()

    def time(self, number: int) -> float:
        """Seconds per whole run, device events around `number` runs."""
        return self.device.timed(self.whole_run(), number)

    def time_call(self, index: int, number: int = 1) -> float:
        """Seconds of one call, device events around `number` launches of it."""
        return self.device.timed([self.launches[index]], number)

    def close(self) -> None:
        """Give the device memory, kernels and queue back (idempotent)."""
        if self.launches is not None:
            self.launches = self._whole = None
            self.device.release()
