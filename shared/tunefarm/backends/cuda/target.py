"""CUDA target options (`cuda -arch=sm_80|sm_90`), the limits of each architecture, and nvcc.

nvcc builds a fat binary holding the architecture's machine code (SASS) and its PTX: the
driver runs the SASS, or JIT-compiles the PTX where it is older than the compiler that made
the SASS (the PTX fallback). `__launch_bounds__` on every kernel makes ptxas fit the
registers to the block, so the register limit is met by construction and reported.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tunefarm.backends.gpu_common.kernel import DeviceLimits
from tunefarm.measure.types import Toolchain
from tunefarm.target import Target, TargetError

# Static shared memory is limited to 48 KiB per block on every architecture; more needs
# dynamic shared memory and an opt-in, which these kernels do not use.
ARCHS = {
    "sm_80": DeviceLimits("sm_80 (A100)", max_shared_bytes=48 * 1024),
    "sm_90": DeviceLimits("sm_90 (H100)", max_shared_bytes=48 * 1024),
}
DEFAULT_ARCH = "sm_90"
PRECISIONS = ("fp32", "tf32", "fp16")
USAGE = f"cuda [-arch={'|'.join(ARCHS)}] [-precision={'|'.join(PRECISIONS)}]"
MAX_REGISTERS_PER_THREAD = 255


def check_options(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    unknown = sorted(set(options) - {"arch", "precision"})
    if unknown:
        raise TargetError(f"unknown option(s) {', '.join('-' + u for u in unknown)}")
    arch = options.get("arch", DEFAULT_ARCH)
    if arch not in ARCHS:
        raise TargetError(f"-arch={arch} is not one of {', '.join(ARCHS)}")
    precision = options.get("precision", "fp32")
    if precision not in PRECISIONS:
        raise TargetError(f"-precision={precision} is not one of {', '.join(PRECISIONS)}")
    if precision == "fp32":  # the default stays out of the name: records keep matching
        return (("arch", arch),)
    return (("arch", arch), ("precision", precision))


def arch(target: Target) -> str:
    return target.get("arch") or DEFAULT_ARCH


ENV_COMPILER = "TUNEFARM_CUDA_COMPILER"


def compiler_choice() -> str:
    """ "nvrtc" (in process, the default where libnvrtc loads) or "nvcc" (the fallback, or
    asked for with TUNEFARM_CUDA_COMPILER=nvcc)."""
    from tunefarm.backends.cuda import nvrtc

    asked = os.environ.get(ENV_COMPILER, "").strip().lower()
    if asked not in ("", "nvrtc", "nvcc"):
        raise TargetError(f"{ENV_COMPILER}={asked!r}: expected nvrtc or nvcc")
    if asked == "nvcc" or (not asked and not nvrtc.available()):
        return "nvcc"
    return "nvrtc"


def toolchain(target: Target) -> Toolchain:
    """NVRTC in process to a cubin for the target's architecture, ptxas's report in its log;
    else nvcc to a fat binary (SASS + PTX)."""
    if compiler_choice() == "nvrtc":
        from tunefarm.backends.cuda.nvrtc import LIGHT_OPTIONS

        return Toolchain(
            "nvrtc",
            flags=(f"-arch={arch(target)}", "-Xptxas=-v", *LIGHT_OPTIONS),
            source_suffix=".cu",
            artifact_suffix=".cubin",
            in_process="tunefarm.backends.cuda.nvrtc",
        )
    return nvcc_toolchain(target)


def nvcc_toolchain(target: Target) -> Toolchain:
    compute = arch(target).replace("sm_", "compute_")
    gencode = f"arch={compute},code=[{arch(target)},{compute}]"
    return Toolchain(
        "nvcc",
        flags=("-fatbin", "-O3", "-gencode", gencode),
        source_suffix=".cu",
        artifact_suffix=".fatbin",
    )
