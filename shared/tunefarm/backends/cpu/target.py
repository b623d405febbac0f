"""CPU target options: `cpu -isa=avx512|avx2|sse4|generic -cores=N`.

`cpu` without `-isa` means the host's ISA, read from /proc/cpuinfo, and code is compiled with
`-march=native`. The ISA decides the vector width the templates block channels by; `-cores`
the OpenMP thread count (0 or absent: every core the runtime sees).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping

from tunefarm.measure.types import Toolchain
from tunefarm.target import Target, TargetError, split_target

ISAS = {
    # isa: (gcc -march flags, fp32 lanes per vector register)
    "avx512": (("-march=skylake-avx512", "-mprefer-vector-width=512"), 16),
    "avx2": (("-march=haswell",), 8),
    "sse4": (("-march=nehalem",), 4),
    "generic": (("-march=x86-64",), 4),
    # AVX-512 with VNNI (vpdpbusd): int8 dot products in one instruction
    "avx512vnni": (("-march=cascadelake", "-mprefer-vector-width=512"), 16),
}
USAGE = f"cpu [-isa={'|'.join(ISAS)}] [-cores=N]"
MAX_CORES = 4096  # OpenMP threads of one measurement: far beyond any host


@functools.cache
def host_isa() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((ln for ln in f if ln.startswith("flags")), "")
    except OSError:
        return "generic"
    words = set(flags.split())
    if {"avx512f", "avx512bw", "avx512vl"} <= words:
        return "avx512"
    if {"avx2", "fma"} <= words:
        return "avx2"
    if "sse4_2" in words:
        return "sse4"
    return "generic"


def check_options(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """-isa and -cores, checked, in that order."""
    unknown = sorted(set(options) - {"isa", "cores"})
    if unknown:
        raise TargetError(f"unknown option(s) {', '.join('-' + u for u in unknown)}")
    out = []
    isa = options.get("isa")
    if isa is not None:
        if isa not in ISAS:
            raise TargetError(f"-isa={isa} is not one of {', '.join(ISAS)}")
        out.append(("isa", isa))
    cores = options.get("cores")
    if cores is not None:
        # ASCII digits only: str.isdigit() also takes '²', which int() refuses
        if not re.fullmatch(r"[0-9]{1,6}", cores) or int(cores) > MAX_CORES:
            raise TargetError(f"-cores={cores[:20]} is not an integer from 0 to {MAX_CORES}")
        if int(cores):  # -cores=0 is the default: every core
            out.append(("cores", str(int(cores))))
    return tuple(out)


@functools.cache
def host_flags() -> frozenset[str]:
    try:
        with open("/proc/cpuinfo") as f:
            return frozenset(next((ln for ln in f if ln.startswith("flags")), "").split())
    except OSError:
        return frozenset()


def int8_dot(target: Target) -> str:
    """How a vector of int8 four-way dot products (`dot4`) is computed on this target:
    "vnni" (vpdpbusd: one instruction), "avx512bw" or "avx2" (an exact pmaddwd sequence),
    or "scalar" (a C loop). Without -isa, the host decides (VNNI where its flags have it)."""
    isa = effective_isa(target)
    if isa == "avx512vnni" or (
        not target.get("isa") and isa == "avx512" and "avx512_vnni" in host_flags()
    ):
        return "vnni"
    return {"avx512": "avx512bw", "avx2": "avx2"}.get(isa, "scalar")


def effective_isa(target: Target) -> str:
    return target.get("isa") or host_isa()


def vector_lanes(target: Target) -> int:
    """fp32 lanes of one vector register: the channel block the templates prefer."""
    return ISAS[effective_isa(target)][1]


def num_cores(target: Target) -> int:
    return int(target.get("cores", "0")) or os.cpu_count() or 1


# -O3 passes that leave our kernels' machine code as it was (objdump -d and .rodata identical
# on 107 generated kernels: random sketch states of every autoscheduler op and the goldens)
# but cost CPU on every build: loop distribution and interchange look for nests to split or
# swap in code whose loop order the schedule already fixed (3-5% of gcc's time together).
# -pipe: the stages talk through pipes, not temporary files. `benchmarks/build_speed.py`.
CHEAPER = ("-fno-tree-loop-distribution", "-fno-loop-interchange", "-pipe")


def cflags(target: Target) -> tuple[str, ...]:
    isa = target.get("isa")
    march = ISAS[isa][0] if isa else ("-march=native",)
    return ("-O3", *march, "-ffp-contract=fast", "-fopenmp", "-fPIC", "-std=gnu11", *CHEAPER)


def toolchain(target: Target) -> Toolchain:
    """gcc building a kernel into a shared library for the host ABI (`measure.host`)."""
    return Toolchain("gcc", cflags(target), link=("-shared",), libs=("-lm",))


@functools.lru_cache(maxsize=64)
def parse(text: str) -> Target:
    """A cpu target string, checked (tasks carry their target as text)."""
    kind, options = split_target(text)
    if kind != "cpu":
        raise TargetError(f"target {text!r} is not a cpu target")
    return Target(kind, check_options(options))
