"""The checks behind `tunefarm doctor`: what this machine has for each tier, and the fix.

Each check looks only at PATH, the environment and the machine (no settings of ours), so a
test builds a machine "without gcc" or "without Redis" by changing PATH or
TUNEFARM_BROKER_URL. A check returns a `Check`: "ok", "warn" (works, but something to know)
or "missing" (what needs it fails or its tests skip), with a one-line fix.
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

APT = "apt-get install -y"
MIN_FREE_GB = 2.0  # the build cache of a network's tuning run holds ~1 GB of objects
_OPENMP_PROGRAM = "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n"


@dataclass(frozen=True)
class Check:
    """One finding: `name` (what), `status` ok|warn|missing, `detail` (what was found),
    `fix` (one command or step; empty when ok), `needed_by` (what fails without it)."""

    name: str
    status: str
    detail: str
    fix: str = ""
    needed_by: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def _run(cmd: list[str], timeout: float = 10.0, **kw) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except (OSError, subprocess.SubprocessError):
        return None


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def check_python(env: Mapping[str, str]) -> Check:
    where = sys.prefix
    if sys.prefix == sys.base_prefix:
        return Check(
            "python",
            "warn",
            f"{sys.version.split()[0]} outside a virtual environment",
            "make venv  (then use .venv/bin/tunefarm)",
            "a reproducible setup",
        )
    return Check("python", "ok", f"{sys.version.split()[0]} in {where}")


def check_compiler(env: Mapping[str, str]) -> Check:
    gcc = shutil.which("gcc", path=env.get("PATH"))
    if gcc is None:
        return Check(
            "C compiler",
            "missing",
            "gcc not found on PATH",
            f"{APT} gcc",
            "every cpu build and measurement",
        )
    out = _run([gcc, "-dumpfullversion"])
    version = _first_line(out.stdout) if out and out.returncode == 0 else "?"
    return Check("C compiler", "ok", f"gcc {version} ({gcc}), -march=native: {_native_isa(gcc)}")


_ISA_MACROS = (("__AVX512F__", "avx512"), ("__AVX2__", "avx2"), ("__SSE4_2__", "sse4"))


def _native_isa(gcc: str) -> str:
    """The vector ISA `gcc -march=native` targets (what `--target cpu` compiles for), and
    whether it has VNNI (the int8 dot product)."""
    out = _run([gcc, "-march=native", "-dM", "-E", "-x", "c", "-"], input="")
    if out is None or out.returncode != 0:
        return "unknown (gcc -march=native failed)"
    isa = next((name for macro, name in _ISA_MACROS if macro in out.stdout), "generic")
    vnni = " + VNNI" if "__AVX512VNNI__" in out.stdout or "__AVXVNNI__" in out.stdout else ""
    return isa + vnni


def check_openmp(env: Mapping[str, str]) -> Check:
    gcc = shutil.which("gcc", path=env.get("PATH"))
    if gcc is None:
        return Check(
            "OpenMP", "missing", "no C compiler to test it with", f"{APT} gcc", "parallel kernels"
        )
    with tempfile.TemporaryDirectory(prefix="tunefarm-doctor-") as tmp:
        src = Path(tmp) / "omp.c"
        src.write_text(_OPENMP_PROGRAM)
        out = _run([gcc, "-fopenmp", str(src), "-o", str(Path(tmp) / "omp")], timeout=30)
    if out is None or out.returncode != 0:
        why = _first_line(out.stderr) if out else "gcc did not run"
        return Check(
            "OpenMP",
            "missing",
            f"gcc -fopenmp fails: {why}",
            f"{APT} libgomp1 gcc",
            "parallel kernels",
        )
    return Check("OpenMP", "ok", "gcc -fopenmp builds")


def check_nvcc(env: Mapping[str, str]) -> Check:
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc is None:
        hint = (
            " (it is in /usr/local/cuda/bin: add that to PATH)"
            if Path("/usr/local/cuda/bin/nvcc").exists()
            else ""
        )
        fix = (
            "export PATH=$PATH:/usr/local/cuda/bin"
            if hint
            else "install the CUDA toolkit >= 12 (NVIDIA's repository or installer)"
        )
        return Check(
            "nvcc",
            "missing",
            f"nvcc not found on PATH{hint}",
            fix,
            "cuda builds and the cuda backend's tests",
        )
    out = _run([nvcc, "--version"])
    lines = (out.stdout if out else "").strip().splitlines()
    return Check("nvcc", "ok", f"{lines[-1] if lines else '?'} ({nvcc})")


def check_gpu(env: Mapping[str, str]) -> Check:
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    libcuda = ctypes.util.find_library("cuda")
    if smi is None or libcuda is None:
        found = "no nvidia-smi on PATH" if smi is None else "no libcuda"
        return Check(
            "GPU",
            "warn",
            f"{found}: cuda kernels build but do not run here",
            "optional: an NVIDIA GPU with its driver (libcuda, nvidia-smi)",
            "running cuda kernels (tests marked gpu)",
        )
    out = _run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"])
    name = _first_line(out.stdout) if out and out.returncode == 0 else "nvidia-smi failed"
    return Check("GPU", "ok", f"{name}; {libcuda}")


def check_opencl(env: Mapping[str, str]) -> Check:
    fix = f"{APT} pocl-opencl-icd ocl-icd-opencl-dev clinfo"
    clinfo = shutil.which("clinfo", path=env.get("PATH"))
    if clinfo is None:
        return Check("OpenCL", "missing", "clinfo not found on PATH", fix, "the opencl tests")
    out = _run([clinfo, "-l"])
    devices = [ln.strip() for ln in (out.stdout if out else "").splitlines() if "Device" in ln]
    if not devices:
        return Check("OpenCL", "missing", "clinfo lists no device", fix, "the opencl tests")
    return Check(
        "OpenCL", "ok", f"{len(devices)} device(s): {devices[0].split(':', 1)[-1].strip()}"
    )


def check_redis(env: Mapping[str, str]) -> Check:
    url = env.get("TUNEFARM_BROKER_URL") or "redis://localhost:6379/0"
    server = shutil.which("redis-server", path=env.get("PATH"))
    needed = "the services and the integration/browser tests"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
    except ImportError:
        return Check(
            "Redis",
            "missing",
            "the redis package is not installed",
            "make venv  (installs shared[services])",
            needed,
        )
    except Exception as exc:  # connection refused, bad URL, timeout
        start = "redis-server --daemonize yes --save '' --appendonly no"
        fix = start if server else f"{APT} redis-server && {start}"
        where = f"redis-server at {server}" if server else "no redis-server on PATH"
        return Check(
            "Redis",
            "missing",
            f"{url} does not answer ({type(exc).__name__}); {where}",
            fix,
            needed,
        )
    return Check("Redis", "ok", f"{url} answers (TUNEFARM_BROKER_URL)")


def check_store(env: Mapping[str, str]) -> Check:
    """The record store a tune would use ($TUNEFARM_STORE, else the cache directory's SQLite
    file): reachable, at this schema, and how much it remembers."""
    from tunefarm.store import url as store_url
    from tunefarm.store.db import open_store

    value = env.get(store_url.ENV) or ""
    needed = "reuse of earlier tuning (--reuse) and the records commands"
    if value.strip().lower() == store_url.NONE:
        return Check("record store", "ok", f"off ({store_url.ENV}=none)")
    path = None if "://" in value else Path(value or store_url.default_path()).expanduser()
    if path is not None and not path.exists():
        return Check("record store", "ok", f"{path} (created by the first tune)")
    try:
        store = open_store(value or None, create=False)
        totals = store.totals()
        where = store.where
        store.close()
    except store_url.StoreUnavailable as exc:
        fix = f"start the database server, or {store_url.ENV}=none to tune without a store"
        return Check("record store", "missing", _first_line(str(exc)), fix, needed)
    except Exception as exc:  # StoreError names the store and the fix; others: what failed
        fix = "tunefarm records migrate --store " + (value or str(path))
        return Check("record store", "missing", _first_line(str(exc)), fix, needed)
    return Check(
        "record store",
        "ok",
        f"{where}: {totals['records']} records of {totals['workloads']} workloads",
    )


def _which_check(name: str, programs: tuple[str, ...], fix: str, needed_by: str) -> Callable:
    def check(env: Mapping[str, str]) -> Check:
        for program in programs:
            found = shutil.which(program, path=env.get("PATH"))
            if found:
                return Check(name, "ok", found)
        return Check(name, "missing", f"{' or '.join(programs)} not found on PATH", fix, needed_by)

    return check


check_chromium = _which_check(
    "Chromium", ("chromium", "chromium-browser"), f"{APT} chromium", "the browser tests (web UI)"
)
check_kubectl = _which_check(
    "kubectl",
    ("kubectl",),
    "install kubectl >= 1.27 (https://kubernetes.io/docs/tasks/tools/)",
    "the deploy tests",
)


def check_disk(env: Mapping[str, str]) -> Check:
    cache = Path(env.get("TUNEFARM_CACHE") or Path.home() / ".cache/tunefarm/build")
    probe = next((p for p in (cache, *cache.parents) if p.exists()), Path("/"))
    free = shutil.disk_usage(probe).free / 2**30
    detail = f"{free:.1f} GiB free for the build cache {cache}"
    if free < MIN_FREE_GB:
        return Check(
            "disk",
            "warn",
            detail,
            f"free space or set TUNEFARM_CACHE to a larger disk (>= {MIN_FREE_GB:g} GiB)",
            "tuning runs",
        )
    return Check("disk", "ok", detail)


def check_load(env: Mapping[str, str]) -> Check:
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    detail = f"{cores} cores, load average {load:.2f} (1 min)"
    if load > 0.5 * cores:
        return Check(
            "load",
            "warn",
            f"{detail}: busy, timings will be noisy",
            "tune and benchmark when the machine is idle",
            "reliable timings",
        )
    return Check("load", "ok", detail)


CHECKS: tuple[Callable[[Mapping[str, str]], Check], ...] = (
    check_python,
    check_compiler,
    check_openmp,
    check_nvcc,
    check_gpu,
    check_opencl,
    check_redis,
    check_store,
    check_chromium,
    check_kubectl,
    check_disk,
    check_load,
)


def run_checks(env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check against `env` (default: this process's environment)."""
    env = os.environ if env is None else env
    return [check(env) for check in CHECKS]
