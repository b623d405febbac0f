"""The C simulator seen from Python: built on first use, cached, loaded with ctypes.

`Simulator(config).run(program, dram)` runs an instruction stream against a DRAM image and
returns a `SimResult`: total cycles, each module's busy cycles, counters, and an error code
and message. A faulty program (a buffer overflow, an address outside DRAM, a token deadlock)
is a result with `error_no` set, never an exception, so a tuner can record it and go on;
only misuse of the API (a DRAM image that is not a writable uint8 array) raises.

The library is compiled by gcc from `sim/*.c` into the tunefarm build cache under a name
keyed on the sources, the flags and the compiler's identity, so an edit or a compiler
upgrade rebuilds it and concurrent first users never see half a file.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends.vta import isa
from tunefarm.backends.vta.config import BUFFERS, VTAConfig, load_config
from tunefarm.measure.cache import default_cache_dir
from tunefarm.measure.compile import compiler_identity, run_killable

SIM_DIR = Path(__file__).parent / "sim"
SOURCES = ("vta_sim.c", "vta_ops.c")
HEADERS = ("vta_sim.h",)
CFLAGS = ("-O3", "-std=gnu11", "-fPIC", "-shared", "-Wall")
MODULES = ("load", "compute", "store")
BUILD_TIMEOUT_S = 120.0


class SimError(IntEnum):
    """Simulation outcome; mirrors the VTA_* codes of sim/vta_sim.h."""

    OK = 0
    BAD_INSTRUCTION = 1
    SRAM_OVERFLOW = 2
    DRAM_RANGE = 3
    DEADLOCK = 4
    NO_FINISH = 5
    NO_MEMORY = 6


class SimBuildError(RuntimeError):
    """gcc could not build the simulator library (the message holds its output)."""


class _CConfig(ctypes.Structure):
    _fields_ = [
        ("batch", ctypes.c_int32),
        ("block_in", ctypes.c_int32),
        ("block_out", ctypes.c_int32),
        ("depth", ctypes.c_int32 * 5),
        ("elem_bytes", ctypes.c_int32 * 5),
        ("bus_bytes", ctypes.c_int32),
        ("dma_latency", ctypes.c_int32),
        ("dma_row_cycles", ctypes.c_int32),
        ("insn_cycles", ctypes.c_int32),
        ("gemm_cycles_per_uop", ctypes.c_int32),
        ("alu_cycles_per_vector", ctypes.c_int32),
        ("functional", ctypes.c_int32),
    ]


class _CResult(ctypes.Structure):
    _fields_ = [
        ("cycles", ctypes.c_int64),
        ("busy", ctypes.c_int64 * 3),
        ("insns", ctypes.c_int64 * 3),
        ("gemm_uops", ctypes.c_int64),
        ("alu_uops", ctypes.c_int64),
        ("dram_read_bytes", ctypes.c_int64),
        ("dram_write_bytes", ctypes.c_int64),
        ("error", ctypes.c_int32),
        ("error_insn", ctypes.c_int32),
        ("message", ctypes.c_char * 512),
    ]


@dataclass(frozen=True)
class SimResult:
    """What one simulation reports. Cycles are of the accelerator clock."""

    cycles: int
    busy: dict[str, int]  # per module: cycles spent executing instructions
    insns: dict[str, int]  # per module: instructions executed
    gemm_uops: int  # GEMM micro-op executions that multiplied (resets excluded)
    alu_uops: int
    dram_read_bytes: int
    dram_write_bytes: int
    error_no: SimError = SimError.OK
    error_msg: str = ""
    error_insn: int | None = None  # the instruction the error is about
    trace: np.ndarray | None = field(default=None, repr=False)  # (n, 2) start/end cycles
    sram: dict[str, np.ndarray] | None = field(default=None, repr=False)  # final buffers

    @property
    def ok(self) -> bool:
        return self.error_no == SimError.OK

    def share(self, module: str) -> float:
        """Fraction of the total cycles `module` was busy."""
        return self.busy[module] / self.cycles if self.cycles else 0.0

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("cycles", "busy", "insns", "gemm_uops", "alu_uops")}
        out.update(dram_read_bytes=self.dram_read_bytes, dram_write_bytes=self.dram_write_bytes)
        out.update(error_no=int(self.error_no), error_msg=self.error_msg)
        out["error_insn"] = self.error_insn
        return out


@lru_cache(maxsize=8)
def _sources_key(cc: str) -> str:
    digest = hashlib.sha256()
    for part in (compiler_identity(cc), " ".join(CFLAGS)):
        digest.update(part.encode() + b"\0")
    for name in SOURCES + HEADERS:
        digest.update(name.encode() + b"\0" + (SIM_DIR / name).read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def build_library(cache_dir: str | os.PathLike[str] | None = None, cc: str = "gcc") -> Path:
    """Path of the simulator's shared library, compiling it if the cache lacks it."""
    base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out = base.absolute() / "vta" / f"vta_sim-{_sources_key(cc)}.so"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f"{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        cmd = [cc, *CFLAGS, "-o", str(tmp), *(str(SIM_DIR / s) for s in SOURCES)]
        rc, output = run_killable(cmd, BUILD_TIMEOUT_S)
        if rc != 0:
            why = "timed out" if rc is None else f"exit {rc}"
            raise SimBuildError(f"building the VTA simulator failed ({why}):\n{output[-2000:]}")
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


@lru_cache(maxsize=4)
def _library(path: str) -> ctypes.CDLL:
    lib = ctypes.CDLL(path)
    lib.vta_sim_run.restype = ctypes.c_int
    lib.vta_sim_run.argtypes = [
        ctypes.POINTER(_CConfig),
        ctypes.c_void_p,
        ctypes.c_int32,
        ctypes.c_void_p,
        ctypes.c_int64,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.POINTER(_CResult),
    ]
    return lib


def _c_config(cfg: VTAConfig, functional: bool) -> _CConfig:
    t = cfg.timing
    return _CConfig(
        cfg.batch,
        cfg.block_in,
        cfg.block_out,
        (ctypes.c_int32 * 5)(*(cfg.depth(b) for b in BUFFERS)),
        (ctypes.c_int32 * 5)(*(cfg.elem_bytes(b) for b in BUFFERS)),
        cfg.bus_bytes,
        t.dma_latency,
        t.dma_row_cycles,
        t.insn_cycles,
        t.gemm_cycles_per_uop,
        t.alu_cycles_per_vector,
        int(functional),
    )


class Simulator:
    """Runs VTA programs for one hardware configuration.

    config: a VTAConfig, a preset name or a JSON path. cache_dir/cc: where and with what the
    library is built (default: the tunefarm build cache, gcc). Building happens here, so a
    constructed Simulator is ready to run.
    """

    def __init__(
        self,
        config: VTAConfig | str | os.PathLike[str] = "default",
        cache_dir: str | os.PathLike[str] | None = None,
        cc: str = "gcc",
    ) -> None:
        self.config = load_config(config)
        self._lib = _library(str(build_library(cache_dir, cc)))

    def run(
        self,
        program: Sequence[isa.Insn] | np.ndarray,
        dram: np.ndarray,
        functional: bool = True,
        trace: bool = False,
        dump: bool = False,
    ) -> SimResult:
        """Run `program` (instructions or their encoding) on `dram`, updated in place.

        functional=False skips data movement and arithmetic (bounds, tokens and cycles are
        still checked and counted): cycles never depend on data, so tuning needs no more.
        trace=True returns each instruction's start and end cycles in `SimResult.trace`;
        dump=True the final on-chip buffers in `SimResult.sram`, typed as `buffer_arrays`.
        """
        if not isinstance(dram, np.ndarray) or dram.dtype != np.uint8 or dram.ndim != 1:
            raise TypeError("dram must be a one-dimensional numpy uint8 array")
        if not (dram.flags.c_contiguous and dram.flags.writeable):
            raise TypeError("dram must be C-contiguous and writeable (STOREs write into it)")
        words = program if isinstance(program, np.ndarray) else isa.encode(list(program))
        words = np.ascontiguousarray(words, dtype="<i4").reshape(-1, isa.WORDS)
        n = words.shape[0]
        times = np.full((n, 2), -1, dtype=np.int64) if trace else None
        cfg = _c_config(self.config, functional)
        sram = buffer_arrays(self.config) if dump else None
        dumps = (ctypes.c_void_p * 4)(*(a.ctypes.data for a in sram.values())) if sram else None
        res = _CResult()
        self._lib.vta_sim_run(
            ctypes.byref(cfg),
            words.ctypes.data,
            n,
            dram.ctypes.data,
            dram.size,
            times.ctypes.data if times is not None else None,
            dumps,
            ctypes.byref(res),
        )
        return SimResult(
            cycles=res.cycles,
            busy=dict(zip(MODULES, res.busy, strict=True)),
            insns=dict(zip(MODULES, res.insns, strict=True)),
            gemm_uops=res.gemm_uops,
            alu_uops=res.alu_uops,
            dram_read_bytes=res.dram_read_bytes,
            dram_write_bytes=res.dram_write_bytes,
            error_no=SimError(res.error),
            error_msg=res.message.decode(errors="replace"),
            error_insn=res.error_insn if res.error_insn >= 0 else None,
            trace=times,
            sram=sram,
        )


def buffer_arrays(cfg: VTAConfig) -> dict[str, np.ndarray]:
    """Zeroed arrays shaped like the on-chip buffers: uop (depth,) uint32, inp (depth, batch,
    block_in) int8, wgt (depth, block_out, block_in) int8, acc (depth, batch, block_out) int32
    (the numpy model's layout, so the two compare directly)."""
    return {
        "uop": np.zeros(cfg.depth("uop"), dtype="<u4"),
        "inp": np.zeros((cfg.depth("inp"), cfg.batch, cfg.block_in), dtype=np.int8),
        "wgt": np.zeros((cfg.depth("wgt"), cfg.block_out, cfg.block_in), dtype=np.int8),
        "acc": np.zeros((cfg.depth("acc"), cfg.batch, cfg.block_out), dtype="<i4"),
    }
