"""The host kernel ABI: a shared library exporting `tf_entry` and `tf_time`, run in-process.

    int32_t tf_entry(void** args);                  one run; 0 on success
    double  tf_time(void** args, int32_t number);   seconds per run over `number` runs

Every argument is a 64-byte aligned buffer (one cache line, one zmm register). Timing inside
the library with a monotonic clock keeps Python call overhead out of small kernels. Backends
whose kernels run on the host CPU (`cpu`) emit code for this ABI and measure with
`load_host_kernel`; the network runtime uses the same buffers.

A persistent measurer loads thousands of candidates into one process, so `close` unloads
each library again (dlclose): its code and data pages would otherwise stay mapped. The
OpenMP runtime the kernels link (libgomp) is pinned first: unloading the last kernel would
otherwise unload it too, under its idle pool threads, which then fault (SIGSEGV).
"""

from __future__ import annotations

import ctypes

import numpy as np

ALIGN = 64


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `array` whose data starts on a 64-byte boundary."""
    array = np.ascontiguousarray(array)
    raw = np.empty(array.nbytes + ALIGN, dtype=np.uint8)
    offset = (-raw.ctypes.data) % ALIGN
    out = raw[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


OPENMP_RUNTIMES = ("libgomp.so.1",)  # loaded once per process and never unloaded
_pinned: list[ctypes.CDLL] = []


def pin_openmp() -> None:
    """Load the OpenMP runtime globally, once, so no dlclose of a kernel drops it."""
    if _pinned:
        return
    for name in OPENMP_RUNTIMES:
        try:
            _pinned.append(ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL))
        except OSError:  # not installed: the kernels cannot use it either
            continue
    if not _pinned:
        _pinned.append(ctypes.CDLL(None))  # nothing to pin; do not look again


class HostKernel:
    """A loaded host library and its argument buffers (aligned copies of the given arrays)."""

    def __init__(self, artifact: str, args: list[np.ndarray]) -> None:
        self.buffers = [aligned_copy(a) for a in args]
        pin_openmp()
        lib = ctypes.CDLL(artifact)
        self._handle: int | None = lib._handle
        self._entry, self._timer = lib.tf_entry, lib.tf_time
        argv_t = ctypes.POINTER(ctypes.c_void_p)
        self._entry.restype, self._entry.argtypes = ctypes.c_int32, [argv_t]
        self._timer.restype, self._timer.argtypes = ctypes.c_double, [argv_t, ctypes.c_int32]
        pointers = [b.ctypes.data for b in self.buffers]
        self._argv = (ctypes.c_void_p * max(1, len(pointers)))(*pointers)

    def run(self) -> int:
        return int(self._entry(self._argv))

    def outputs(self) -> list[np.ndarray]:
        return self.buffers

    def time(self, number: int) -> float:
        return float(self._timer(self._argv, number))

    def close(self) -> None:
        """Unload the library (once); the kernel cannot run afterwards."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        self._entry = self._timer = None
        _dlclose(handle)


def _dlclose(handle: int) -> None:
    """dlclose through the process's own symbols (libc on glibc 2.34+, libdl before)."""
    fn = ctypes.CDLL(None).dlclose
    fn.argtypes, fn.restype = [ctypes.c_void_p], ctypes.c_int
    fn(handle)


def load_host_kernel(artifact: str, args: list[np.ndarray]) -> HostKernel:
    """The `KernelLoader` of host backends."""
    return HostKernel(artifact, args)
