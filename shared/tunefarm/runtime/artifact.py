"""Pack an execution plan into one deployable artifact file (a zip).

Every kernel is compiled to its own object file, cached by a hash of (source, flags, compiler),
so recompiling a network after tuning a few ops only compiles those. A generated driver runs
the calls in order on a table of buffer pointers, and everything is linked into one shared
library. The zip holds that library, the plan as JSON (buffers, calls, memory layout), the
params and a manifest; `GraphExecutor.load` needs nothing else.

Artifact layout:
    manifest.json   format, format_version, target, tunefarm_version, created, lib_sha256, ...
    plan.json       buffers, kernels, calls, inputs, outputs, memory (offsets, arena size)
    params.npz      param arrays by buffer name
    lib.so          tf_net_run / tf_net_call / tf_net_time / tf_net_num_calls
    kernels/*.c     the (renamed) kernel sources, for debugging only
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import json
import os
import re
import secrets
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends import TargetError, get_backend, parse_target
from tunefarm.measure.cache import default_cache_dir
from tunefarm.measure.compile import compiler_identity, run_killable
from tunefarm.measure.types import Toolchain
from tunefarm.runtime.memory import MemoryPlan, plan_memory
from tunefarm.runtime.plan import ExecPlan, KernelCode

FORMAT = "tunefarm-artifact"
FORMAT_VERSION = 1
ERROR_LINES = 20  # compiler output lines quoted in an ArtifactError


class ArtifactError(RuntimeError):
    """An artifact that cannot be built (compile/link error) or loaded (missing, corrupt)."""


@dataclass(frozen=True)
class ArtifactInfo:
    """What build_artifact made: the file, its contents and how long compiling took."""

    path: str
    size_bytes: int
    n_kernels: int
    n_calls: int
    arena_bytes: int
    naive_temp_bytes: int
    compile_seconds: float
    cached_objects: int

    @classmethod
    def written(
        cls, path: Path, plan: ExecPlan, memory: MemoryPlan, seconds: float, cached: int
    ) -> ArtifactInfo:
        """The info of the artifact just written to `path` from `plan` (host or device)."""
        return cls(
            str(path),
            path.stat().st_size,
            len(plan.kernels),
            len(plan.calls),
            memory.arena_bytes,
            memory.naive_bytes,
            seconds,
            cached,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"{self.path}: {self.size_bytes} bytes, {self.n_kernels} kernels "
            f"({self.cached_objects} from cache), {self.n_calls} calls, arena "
            f"{self.arena_bytes} bytes (naive {self.naive_temp_bytes}), compiled in "
            f"{self.compile_seconds:.2f} s"
        )


def tunefarm_version() -> str:
    try:
        return importlib.metadata.version("tunefarm")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def runtime_cache_dir(cache_dir: str | os.PathLike[str] | None, what: str) -> Path:
    """`<cache>/runtime/<what>`, created; the cache defaults to `$TUNEFARM_CACHE`."""
    base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    path = base.absolute() / "runtime" / what
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temporary name and rename, so readers never see half a file."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- kernels


def rename_symbols(kernel: KernelCode) -> str:
    """The kernel's source with tf_entry/tf_time renamed to tf_<name>_entry/_time."""
    code = kernel.code
    for sym in ("entry", "time"):
        code, n = re.subn(rf"\btf_{sym}\b", f"tf_{kernel.name}_{sym}", code)
        if n == 0:
            raise ArtifactError(f"kernel {kernel.name!r}: source does not define tf_{sym}")
    return code


def _first_lines(text: str, n: int = ERROR_LINES) -> str:
    lines = text.strip().splitlines()
    more = f"\n... ({len(lines) - n} more lines)" if len(lines) > n else ""
    return "\n".join(lines[:n]) + more


@dataclass(frozen=True)
class _Compiler:
    cc: str
    flags: tuple[str, ...]
    link_flags: tuple[str, ...]
    libs: tuple[str, ...]
    identity: str
    obj_dir: Path
    src_dir: Path
    timeout_s: float

    def object_path(self, code: str) -> Path:
        key = json.dumps([self.cc, self.identity, list(self.flags), code])
        return self.obj_dir / f"{hashlib.sha256(key.encode()).hexdigest()}.o"

    def compile(self, name: str, code: str) -> tuple[Path, bool]:
        """Object file for one kernel and whether it came from the cache."""
        obj = self.object_path(code)
        if obj.exists():
            return obj, True
        src = self.src_dir / f"{name}.c"
        src.write_text(code)
        tmp = obj.with_name(f"{obj.stem}.{os.getpid()}.{secrets.token_hex(4)}.tmp.o")
        try:
            cmd = [self.cc, *self.flags, "-c", "-fPIC", "-o", str(tmp), str(src)]
            rc, output = _run(cmd, self.timeout_s)
            if rc != 0:
                raise ArtifactError(
                    f"kernel {name!r} failed to compile ({_status(self.cc, rc, self.timeout_s)})"
                    f":\n{_first_lines(output)}"
                )
            os.replace(tmp, obj)
        finally:
            tmp.unlink(missing_ok=True)
        return obj, False


def _run(cmd: list[str], timeout_s: float) -> tuple[int | None, str]:
    try:
        return run_killable(cmd, timeout_s)
    except OSError as exc:
        raise ArtifactError(f"cannot run compiler {cmd[0]!r}: {exc}") from None


def _status(cc: str, rc: int | None, timeout_s: float) -> str:
    return f"{cc} ran past {timeout_s:.0f} s" if rc is None else f"{cc} exited with {rc}"


def compile_kernels(
    sources: dict[str, str], compiler: _Compiler, jobs: int
) -> tuple[list[Path], int]:
    """Object files in `sources` order (compiled in parallel) and how many were cached."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(compiler.compile, n, c) for n, c in sources.items()]
        results = [f.result() for f in futures]  # first failing kernel (in order) raises
    return [obj for obj, _ in results], sum(cached for _, cached in results)


# ----------------------------------------------------------------------------- driver


def driver_source(plan: ExecPlan) -> str:
    """C for tf_net_run / tf_net_call / tf_net_time / tf_net_num_calls over `plan.calls`.

    The calls are data (which kernel, which buffers), walked by one loop: C compilers take
    time superlinear in the size of one function, so a statement per call made a chain of
    20,000 nodes take minutes to compile; tables compile in time linear in their size."""
    index = {b.name: i for i, b in enumerate(plan.buffers)}
    kernel_index = {k.name: i for i, k in enumerate(plan.kernels)}
    lines = ["#include <stdint.h>", "#include <time.h>", ""]
    lines += [f"int32_t tf_{k.name}_entry(void** args);" for k in plan.kernels]
    entries = ", ".join(f"tf_{k.name}_entry" for k in plan.kernels) or "0"
    lines += ["", f"static int32_t (*const tf_kernels[])(void**) = {{{entries}}};"]
    kernels, starts, args = [], [0], []
    for call in plan.calls:
        kernels.append(kernel_index[call.kernel])
        args += [index[a] for a in call.args]
        starts.append(len(args))
    width = max((len(c.args) for c in plan.calls), default=1) or 1
    lines += [
        _table("tf_call_kernel", kernels),
        _table("tf_call_start", starts),
        _table("tf_call_args", args),
        f"#define TF_MAX_ARGS {width}",
        "int32_t tf_net_num_calls(void);",
        _CALL_FNS,
        _TIME_FN,
        f"int32_t tf_net_num_calls(void) {{ return {len(plan.calls)}; }}",
        "",
    ]
    return "\n".join(lines)


def _table(name: str, values: list[int]) -> str:
    """A static const int32_t array, eight values a line (never empty: C refuses that)."""
    rows = [", ".join(map(str, values[i : i + 8])) for i in range(0, len(values), 8)]
    body = ",\n  ".join(rows) or "0"
    return f"static const int32_t {name}[] = {{\n  {body}\n}};"


_CALL_FNS = """\
int32_t tf_net_call(void** b, int32_t i) {
  if (i < 0 || i >= tf_net_num_calls()) return -1;
  void* a[TF_MAX_ARGS];
  int32_t n = tf_call_start[i + 1] - tf_call_start[i];
  for (int32_t j = 0; j < n; ++j) a[j] = b[tf_call_args[tf_call_start[i] + j]];
  return tf_kernels[tf_call_kernel[i]](a);
}

int32_t tf_net_run(void** b) {
  int32_t count = tf_net_num_calls();
  for (int32_t i = 0; i < count; ++i) {
    if (tf_net_call(b, i) != 0) return i + 1;
  }
  return 0;
}
"""


_TIME_FN = """\
double tf_net_time(void** b, int32_t number) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int32_t i = 0; i < number; ++i) {
    int32_t rc = tf_net_run(b);
    if (rc != 0) return -(double)rc;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9) / (number > 0 ? number : 1);
}
"""


def link(compiler: _Compiler, driver: str, objects: list[Path], out: Path) -> None:
    src = compiler.src_dir / "tf_net_driver.c"
    src.write_text(driver)
    cmd = [compiler.cc, *compiler.flags, *compiler.link_flags, "-o", str(out), str(src)]
    rc, output = _run([*cmd, *map(str, objects), *compiler.libs], compiler.timeout_s)
    if rc != 0:
        status = _status(compiler.cc, rc, compiler.timeout_s)
        raise ArtifactError(f"linking the network failed ({status}):\n{_first_lines(output)}")


# ----------------------------------------------------------------------------- packing


def plan_json(plan: ExecPlan, memory: MemoryPlan) -> dict[str, Any]:
    return {
        "buffers": [
            {
                "name": b.name,
                "shape": [int(d) for d in b.shape],
                "dtype": np.dtype(b.dtype).name,
                "kind": b.kind,
                "alias_of": b.alias_of,
            }
            for b in plan.buffers
        ],
        "kernels": [{"name": k.name, "n_args": k.n_args} for k in plan.kernels],
        "calls": [{"kernel": c.kernel, "args": list(c.args), "node": c.node} for c in plan.calls],
        "inputs": [list(p) for p in plan.inputs],
        "outputs": [list(p) for p in plan.outputs],
        "memory": memory.to_json(),
    }


def _params_npz(plan: ExecPlan) -> bytes:
    dtypes = {b.name: b.dtype for b in plan.buffers}
    arrays = {n: np.ascontiguousarray(a, dtype=dtypes[n]) for n, a in plan.params.items()}
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _manifest_base(plan: ExecPlan) -> dict[str, Any]:
    """The manifest entries every artifact has (host library or device kernels)."""
    return {
        **plan.manifest,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "target": plan.target,
        "tunefarm_version": tunefarm_version(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _manifest(plan: ExecPlan, lib: bytes, compiler: _Compiler) -> dict[str, Any]:
    return {
        **_manifest_base(plan),
        "compiler": compiler.identity or compiler.cc,
        "cflags": list(compiler.flags),
        "lib_sha256": hashlib.sha256(lib).hexdigest(),
    }


def write_zip(path: Path, members: dict[str, bytes]) -> None:
    """Write the zip atomically; params are stored as is, text and code deflated."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with zipfile.ZipFile(tmp, "w") as zf:
            for name, data in members.items():
                method = zipfile.ZIP_STORED if name.endswith(".npz") else zipfile.ZIP_DEFLATED
                zf.writestr(name, data, compress_type=method)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _toolchain(target: str) -> Toolchain:
    """The compiler of the plan's backend: kernels compile to objects with its flags and
    link, with a driver, into one library for the host ABI."""
    try:
        tc = get_backend(parse_target(target).kind).toolchain(parse_target(target))
    except TargetError as exc:
        raise ArtifactError(f"cannot build for target {target!r}: {exc}") from None
    if tc.artifact_suffix != ".so":
        raise ArtifactError(f"target {target!r}: network artifacts are host libraries only")
    return tc


def build_artifact(
    plan: ExecPlan,
    path: str | os.PathLike[str],
    cc: str | None = None,
    jobs: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout_s: float = 600.0,
) -> ArtifactInfo:
    """Compile `plan` into the artifact file `path` (see the module docstring for its layout).

    jobs: parallel compiler processes (default: CPU count). cache_dir: build cache (default
    `$TUNEFARM_CACHE` or ~/.cache/tunefarm/build); objects go to `<cache>/runtime/objects`.
    timeout_s: limit per compiler run. Raises PlanError for an inconsistent plan and
    ArtifactError for compile or link errors (naming the kernel) and unusable targets.
    A target whose backend runs networks on a device (a GPU) gets a device artifact
    (`runtime.device`).
    """
    from tunefarm.runtime import device  # it builds on this module

    try:
        on_device = device.device_backend(plan.target) is not None
    except TargetError as exc:
        raise ArtifactError(f"cannot build for target {plan.target!r}: {exc}") from None
    if on_device:
        return device.build_device_artifact(plan, path, jobs, cache_dir, timeout_s)
    memory = plan_memory(plan)
    start = time.perf_counter()
    sources = {k.name: rename_symbols(k) for k in plan.kernels}
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="tunefarm-artifact-") as tmp:
        tc = _toolchain(plan.target)
        compiler = _Compiler(
            cc or tc.compiler,
            tc.flags,
            tc.link,
            tc.libs,
            compiler_identity(cc or tc.compiler),
            runtime_cache_dir(cache_dir, "objects"),
            Path(tmp),
            float(timeout_s),
        )
        objects, cached = compile_kernels(sources, compiler, jobs or os.cpu_count() or 1)
        lib_path = Path(tmp) / "lib.so"
        link(compiler, driver_source(plan), objects, lib_path)
        lib = lib_path.read_bytes()
    seconds = time.perf_counter() - start
    members = {
        "manifest.json": json.dumps(_manifest(plan, lib, compiler), indent=1, default=str),
        "plan.json": json.dumps(plan_json(plan, memory), indent=1),
        "params.npz": _params_npz(plan),
        "lib.so": lib,
        **{f"kernels/{name}.c": code for name, code in sources.items()},
    }
    write_zip(path, {k: v.encode() if isinstance(v, str) else v for k, v in members.items()})
    return ArtifactInfo.written(path, plan, memory, seconds, cached)
