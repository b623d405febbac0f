"""CUDA C -> cubin in this process, through NVRTC (ctypes on libnvrtc).

nvcc costs a process tree per candidate (the driver, cicc, ptxas, fatbinary); NVRTC is one
library call, and it needs no toolkit on a build worker: the `nvidia-cuda-nvrtc` wheel (the
`cuda` extra of the package) carries the library. ptxas's report (registers, shared memory,
spills) comes back in the program log (`-Xptxas=-v`), so every build reports its resources.

The library is looked for in the nvidia wheel first, then on the loader's path
(`libnvrtc.so.13`, e.g. from a CUDA toolkit), then under /usr/local/cuda. Without it the cuda
backend falls back to nvcc (`target.toolchain`).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import importlib.util
import os
import re
from pathlib import Path

SONAME = "libnvrtc.so.13"
# Options every build adds (`target.toolchain`). `-minimal` leaves out of NVRTC's built-in
# prelude what our kernels never use (texture and surface functions, the device runtime,
# the runtime API's types), so its front end parses less; the cubins stay byte-identical
# (tests/unit/test_nvrtc.py checks every golden kernel for sm_80 and sm_90). Where a
# build's CPU goes (NVRTC 13.0, `-time`, the 56x56 64->64 3x3 conv's default config):
# the front end about 4%, NVVM's optimiser about 75% (the unrolled body), ptxas about 20%.
LIGHT_OPTIONS = ("-minimal",)
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


class NvrtcError(RuntimeError):
    """NVRTC is missing, or a program did not compile (the message holds NVRTC's log)."""


def _candidates() -> list[str]:
    """Directories that may hold libnvrtc, best first."""
    dirs: list[str] = []
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        dirs += sorted(glob.glob(os.path.join(root, "cu*", "lib")), reverse=True)
        dirs.append(os.path.join(root, "cuda_nvrtc", "lib"))
    return [*dirs, "", "/usr/local/cuda/lib64"]


@functools.cache
def library() -> ctypes.CDLL:
    """libnvrtc, with its builtins library loaded first from the same directory (NVRTC opens
    that one by name at compile time, and a wheel's directory is not on the loader's path)."""
    for directory in _candidates():
        path = os.path.join(directory, SONAME) if directory else SONAME
        if directory and not os.path.exists(path):
            continue
        try:
            for builtins in sorted(glob.glob(os.path.join(directory, "libnvrtc-builtins.so.*"))):
                if ".alt." not in builtins:
                    ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(path)
        except OSError:
            continue
    raise NvrtcError(
        f"{SONAME} not found: install the `cuda` extra (nvidia-cuda-nvrtc) or a CUDA toolkit"
    )


def available() -> bool:
    """Whether NVRTC can be loaded here."""
    try:
        library()
    except NvrtcError:
        return False
    return True


def _check(rc: int, what: str) -> None:
    if rc != 0:
        fn = library().nvrtcGetErrorString
        fn.restype = ctypes.c_char_p
        raise NvrtcError(f"{what} failed: {(fn(rc) or b'?').decode()} ({rc})")


@functools.cache
def version() -> str:
    """ "NVRTC 13.0": part of every cache key, as nvcc's release is."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(library().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return f"NVRTC {major.value}.{minor.value}"


def identity() -> str:
    """The compiler identity the builder puts in its cache key and records."""
    return version()


def _string(prog: ctypes.c_void_p, size_fn: str, get_fn: str) -> bytes:
    lib, size = library(), ctypes.c_size_t()
    _check(getattr(lib, size_fn)(prog, ctypes.byref(size)), size_fn)
    buf = ctypes.create_string_buffer(size.value)
    _check(getattr(lib, get_fn)(prog, buf), get_fn)
    return buf.raw[: size.value]


def compile_cubin(
    code: str, options: tuple[str, ...], name: str = "kernel.cu"
) -> tuple[bytes, str]:
    """(cubin, log) of `code` compiled with `options` (e.g. `-arch=sm_90`); NvrtcError with
    the log where it does not compile. Thread-safe: each call is its own program."""
    lib = library()
    prog = ctypes.c_void_p()
    _check(
        lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), name.encode(), 0, None, None),
        "nvrtcCreateProgram",
    )
    try:
        opts = [o.encode() for o in options]
        rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        log = _string(prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog")
        log_text = log.rstrip(b"\0").decode(errors="replace")
        if rc != 0:
            raise NvrtcError(f"NVRTC could not compile {name}:\n{log_text}")
        return _string(prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN"), log_text
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def compile_file(source: str, artifact: str, options: tuple[str, ...]) -> str:
    """The in-process compiler of a `Toolchain` (measure.compile): `source` -> `artifact`
    (a cubin); returns ptxas's report."""
    cubin, log = compile_cubin(Path(source).read_text(), options, Path(source).name)
    Path(artifact).write_bytes(cubin)
    return log


def resources(log: str) -> dict[str, int]:
    """Registers, shared memory and spill bytes from ptxas's report (`-Xptxas=-v`)."""
    regs, smem, spill = _USED.search(log), _SMEM.search(log), _SPILL.search(log)
    return {
        "registers": int(regs.group(1)) if regs else 0,
        "shared_bytes": int(smem.group(1)) if smem else 0,
        "spill_bytes": sum(int(g) for g in spill.groups()) if spill else 0,
    }
