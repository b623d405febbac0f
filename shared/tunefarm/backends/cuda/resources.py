"""What ptxas reports for a kernel: registers per thread, shared memory, spills.

`tunefarm op ... --target "cuda -arch=sm_90" --build-only` prints these for each config, on
a machine with no GPU. They come from ptxas's report (`-Xptxas -v`) through NVRTC, or nvcc
where NVRTC is missing (the cuobjdump of a full toolkit is not needed).
"""

from __future__ import annotations

import functools
import re
import subprocess
import tempfile
from pathlib import Path

from tunefarm.backends.cuda import nvrtc
from tunefarm.backends.cuda.target import arch, compiler_choice
from tunefarm.target import Target

_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


@functools.cache
def nvcc_version(nvcc: str = "nvcc") -> str:
    """ "release 13.0, V13.0.88" from `nvcc --version`, "" where nvcc is missing."""
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    line = next((ln for ln in out.stdout.splitlines() if "release" in ln), "")
    return line.split("tools, ", 1)[-1].strip()


def resource_usage(code: str, target: Target, timeout_s: float = 120.0) -> dict[str, object]:
    """Registers, shared memory (bytes) and spill bytes of the kernel in `code`, and the
    compiler that built it ("NVRTC 13.0" or "nvcc release 13.0, V13.0.88"), by the
    target's compiler choice; RuntimeError with the compiler's message if it does not compile."""
    if compiler_choice() == "nvrtc":
        try:
            _, log = nvrtc.compile_cubin(code, (f"-arch={arch(target)}", "-Xptxas=-v"))
        except nvrtc.NvrtcError as exc:
            raise RuntimeError(str(exc)) from None
        return {**nvrtc.resources(log), "compiler": nvrtc.version()}
    return nvcc_resource_usage(code, target, timeout_s)


def nvcc_resource_usage(code: str, target: Target, timeout_s: float = 120.0) -> dict[str, object]:
    """`resource_usage` by `nvcc -Xptxas -v` (the fallback, and the check of NVRTC's)."""
    with tempfile.TemporaryDirectory(prefix="tunefarm-ptxas-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(code)
        cmd = ["nvcc", "-cubin", f"-arch={arch(target)}", "-O3", "-Xptxas", "-v", "-o"]
        cmd += [str(Path(tmp) / "kernel.cubin"), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    text = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc exited with {proc.returncode}:\n{text[:2000]}")
    regs, smem, spill = _USED.search(text), _SMEM.search(text), _SPILL.search(text)
    return {
        "registers": int(regs.group(1)) if regs else 0,
        "shared_bytes": int(smem.group(1)) if smem else 0,
        "spill_bytes": sum(int(g) for g in spill.groups()) if spill else 0,
        "compiler": f"nvcc {nvcc_version()}",
    }
