"""Target strings: `cpu -isa=avx512 -cores=2`, `cpu -isa=avx2`, `cpu` (host), `cuda -arch=sm_90`.

A target names the device kind and options. `cpu` without `-isa` means the host's ISA,
detected from /proc/cpuinfo. The target decides the compiler flags, the vector width the
templates prefer, and the OpenMP thread count.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

CPU_ISAS = {
    # isa: (gcc -march flags, fp32 lanes per vector register)
    "avx512": (("-march=skylake-avx512", "-mprefer-vector-width=512"), 16),
    "avx2": (("-march=haswell",), 8),
    "sse4": (("-march=nehalem",), 4),
    "generic": (("-march=x86-64",), 4),
}
KINDS = ("cpu", "cuda")


class TargetError(ValueError):
    pass


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


@dataclass(frozen=True)
class Target:
    kind: str
    isa: str = ""
    cores: int = 0  # 0: every core the OpenMP runtime sees
    arch: str = ""
    options: tuple[tuple[str, str], ...] = field(default_factory=tuple)

    @staticmethod
    def parse(text: str) -> Target:
        parts = text.split()
        if not parts or parts[0] not in KINDS:
            raise TargetError(
                f"target {text!r}: must start with one of {KINDS}, e.g. 'cpu -isa=avx2'"
            )
        opts: dict[str, str] = {}
        for p in parts[1:]:
            if not p.startswith("-") or "=" not in p:
                raise TargetError(f"target {text!r}: option {p!r} must look like -key=value")
            key, value = p[1:].split("=", 1)
            opts[key] = value
        kind = parts[0]
        known = {"cpu": {"isa", "cores"}, "cuda": {"arch"}}[kind]
        unknown = set(opts) - known
        if unknown:
            raise TargetError(
                f"target {text!r}: unknown option(s) {sorted(unknown)}; "
                f"{kind} takes {sorted(known)}"
            )
        if kind == "cpu":
            isa = opts.get("isa", "")
            if isa and isa not in CPU_ISAS:
                raise TargetError(f"target {text!r}: -isa must be one of {sorted(CPU_ISAS)}")
            try:
                cores = int(opts.get("cores", "0"))
            except ValueError:
                raise TargetError(f"target {text!r}: -cores must be an integer") from None
            if cores < 0:
                raise TargetError(f"target {text!r}: -cores must be >= 0")
            return Target("cpu", isa=isa, cores=cores)
        return Target("cuda", arch=opts.get("arch", "sm_80"))

    @property
    def effective_isa(self) -> str:
        return self.isa or host_isa()

    @property
    def vector_lanes(self) -> int:
        return CPU_ISAS[self.effective_isa][1] if self.kind == "cpu" else 1

    @property
    def num_cores(self) -> int:
        return self.cores or os.cpu_count() or 1

    def cflags(self) -> tuple[str, ...]:
        if self.kind != "cpu":
            raise TargetError(f"no C compiler flags for a {self.kind} target")
        march = ("-march=native",) if not self.isa else CPU_ISAS[self.isa][0]
        return ("-O3", *march, "-ffp-contract=fast", "-fopenmp", "-fPIC", "-std=gnu11")

    def __str__(self) -> str:
        if self.kind == "cuda":
            return f"cuda -arch={self.arch}"
        out = "cpu"
        if self.isa:
            out += f" -isa={self.isa}"
        if self.cores:
            out += f" -cores={self.cores}"
        return out


def canonical(text: str) -> str:
    return str(Target.parse(text))
