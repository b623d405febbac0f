"""Child-process side of the measure layer: build one candidate, measure one candidate.

These functions run in processes the parent can afford to lose: a build worker (long-lived,
one candidate at a time) and a measurement child (one per candidate). They report every
failure as an error code in their reply, so a crash shows up in the parent only as a dead
process, which the parent turns into an error result too.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import multiprocessing
import multiprocessing.context
import os
import pickle
import secrets
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.codegen.target import Target
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.hooks import SourceGenerator
from tunefarm.measure.timing import time_evaluator
from tunefarm.measure.types import (
    ArgSpec,
    BuildResult,
    KernelIO,
    KernelSource,
    MeasureInput,
    MeasureSettings,
)

ALIGN = 64  # the ABI promises 64-byte aligned buffers (one cache line, one zmm register)
MAX_STDERR = 2000


def process_context() -> multiprocessing.context.BaseContext:
    """The multiprocessing context for build workers and measurement children.

    forkserver: children fork from a clean server that has numpy and this module imported, so
    a fresh child per measurement costs milliseconds, and no parent state (threads, open
    OpenMP runtimes, locks) leaks into it. Falls back to spawn where forkserver is missing.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "tunefarm.measure.worker"])
    return ctx


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# ----------------------------------------------------------------------------- building


@dataclass(frozen=True)
class BuildJob:
    """Everything a build worker needs for one candidate (pickled to the worker)."""

    inp: MeasureInput
    generate: SourceGenerator
    cc: str
    cc_identity: str  # `cc --version` first line, so a compiler upgrade misses the cache
    options: tuple[str, ...]
    cache_dir: str
    timeout_s: float


def build_one(job: BuildJob) -> BuildResult:
    """Generate, hash, and compile one candidate unless `<cache_dir>/<hash>.so` exists.

    `job.timeout_s` bounds generation plus compilation.
    """
    start = time.perf_counter()
    try:
        src = job.generate(job.inp)
        if not isinstance(src, KernelSource):
            raise TypeError(f"generate returned {type(src).__name__}, expected KernelSource")
        flags = (*Target.parse(job.inp.task.target).cflags(), "-shared", *src.cflags, *job.options)
    except Exception as exc:
        return BuildResult.failed(
            MeasureErrorNo.INSTANTIATION_ERROR, _describe(exc), time.perf_counter() - start
        )
    key = json.dumps([job.cc, job.cc_identity, list(flags), src.code])
    digest = hashlib.sha256(key.encode()).hexdigest()
    so_path = Path(job.cache_dir) / f"{digest}.so"
    if not so_path.exists():
        remaining = job.timeout_s - (time.perf_counter() - start)
        failure = _compile(job.cc, flags, src.code, so_path, remaining)
        if failure is not None:
            return BuildResult.failed(failure[0], failure[1], time.perf_counter() - start, digest)
    return BuildResult(
        str(so_path),
        src.arg_specs,
        src.io_key,
        src.flops,
        MeasureErrorNo.NO_ERROR,
        "",
        time.perf_counter() - start,
        digest,
    )


def _compile(
    cc: str, flags: tuple[str, ...], code: str, so_path: Path, timeout_s: float
) -> tuple[MeasureErrorNo, str] | None:
    """Compile `code` into `so_path`, writing both files under temporary names first.

    The source is kept as `<hash>.c` (also when it fails to compile, so compiler messages
    point at a file one can open); the .so appears by rename so readers never see half a file.
    """
    if timeout_s <= 0:
        return MeasureErrorNo.BUILD_TIMEOUT, "source generation used up the build timeout"
    stem = f"{so_path.stem}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    c_tmp, so_tmp = so_path.with_name(stem + ".c"), so_path.with_name(stem + ".so")
    c_path = so_path.with_suffix(".c")
    try:
        c_tmp.write_text(code)
        os.replace(c_tmp, c_path)
        rc, output = run_killable([cc, *flags, "-o", str(so_tmp), str(c_path), "-lm"], timeout_s)
        if rc is None:
            return MeasureErrorNo.BUILD_TIMEOUT, f"{cc} ran past {timeout_s:.1f} s and was killed"
        if rc != 0:
            return MeasureErrorNo.BUILD_ERROR, f"{cc} exited with {rc}:\n{output[:MAX_STDERR]}"
        os.replace(so_tmp, so_path)
        return None
    except OSError as exc:
        return MeasureErrorNo.BUILD_ERROR, f"cannot compile with {cc!r}: {_describe(exc)}"
    finally:
        for leftover in (c_tmp, so_tmp):
            leftover.unlink(missing_ok=True)


def run_killable(cmd: list[str], timeout_s: float) -> tuple[int | None, str]:
    """Run `cmd` in its own process group; on timeout kill the whole group.

    The group matters: gcc forks cc1/as/ld, and killing only the driver would leave them
    running and holding our pipe open. Returns (exit code, stdout+stderr), or (None, output
    so far) on timeout. Raises OSError if `cmd[0]` cannot be started.
    """
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=timeout_s)
        return proc.returncode, output
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        output, _ = proc.communicate()
        return None, output


def pool_worker_main(conn: Connection) -> None:
    """Serve build jobs until the parent hangs up.

    A message is (parent's sys.path, pickled (fn, arg)). The path comes first so that module-
    level generators the parent can import (e.g. test helpers) unpickle here too.
    """
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        sys_path, payload = msg
        sys.path.extend(p for p in sys_path if p not in sys.path)
        try:
            fn, arg = pickle.loads(payload)
            reply: tuple[str, Any] = ("ok", fn(arg))
        except BaseException as exc:  # report and keep serving; only death ends a job badly
            reply = ("err", _describe(exc))
        conn.send(reply)


# ----------------------------------------------------------------------------- measuring


def aligned_copy(array: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `array` whose data starts on a 64-byte boundary."""
    array = np.ascontiguousarray(array)
    raw = np.empty(array.nbytes + ALIGN, dtype=np.uint8)
    offset = (-raw.ctypes.data) % ALIGN
    out = raw[offset : offset + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def _rounding_slack(dtype: np.dtype, ref: np.ndarray) -> np.ndarray | float:
    """Extra tolerance for outputs narrower than float32: a value computed in float32 may land
    on the other side of a rounding step than the float64 reference (one unit for integers,
    one half-precision ulp for float16)."""
    if np.issubdtype(dtype, np.integer):
        return 1.0
    if dtype == np.float16:
        return np.abs(ref) * 2.0**-10
    return 0.0


def check_outputs(
    outs: list[np.ndarray],
    expected: dict[int, np.ndarray],
    specs: tuple[ArgSpec, ...],
    rtol: float,
    atol_rel: float,
) -> str | None:
    """None if every expected output matches, else a message naming the worst element.

    Passes where |out-ref| <= atol_rel*max(1, max|ref|) + rtol*|ref|; NaN never passes.
    """
    for pos in sorted(expected):
        ref = np.asarray(expected[pos], dtype=np.float64)
        out = np.asarray(outs[pos], dtype=np.float64)
        name = specs[pos].name if pos < len(specs) else f"#{pos}"
        if ref.shape != out.shape:
            return f"output arg {pos} ({name}): shape {out.shape}, reference {ref.shape}"
        if ref.size == 0:
            continue
        err = np.abs(out - ref)
        tol = atol_rel * max(1.0, float(np.max(np.abs(ref)))) + rtol * np.abs(ref)
        tol = tol + _rounding_slack(np.asarray(outs[pos]).dtype, ref)
        bad = ~(err <= tol)
        if bad.any():
            worst = np.unravel_index(
                int(np.argmax(np.where(np.isnan(err), np.inf, err))), err.shape
            )
            idx = tuple(int(i) for i in worst)
            return (
                f"output arg {pos} ({name}): {int(bad.sum())} of {ref.size} elements out of "
                f"tolerance; max error {err[idx]:.6g} at {idx}: got {out[idx]:.7g}, "
                f"expected {ref[idx]:.7g} (tolerance {tol[idx]:.3g})"
            )
    return None


def _measure(job: dict[str, Any]) -> dict[str, Any]:
    settings = MeasureSettings.from_json(job["settings"])
    specs = tuple(ArgSpec.from_json(s) for s in job["arg_specs"])
    io = KernelIO.load(job["io_path"])
    bufs = [aligned_copy(a) for a in io.args]
    lib = ctypes.CDLL(job["artifact"])
    entry, timer = lib.tf_entry, lib.tf_time
    argv_t = ctypes.POINTER(ctypes.c_void_p)
    entry.restype, entry.argtypes = ctypes.c_int32, [argv_t]
    timer.restype, timer.argtypes = ctypes.c_double, [argv_t, ctypes.c_int32]
    argv = (ctypes.c_void_p * max(1, len(bufs)))(*[b.ctypes.data for b in bufs])

    rc = entry(argv)  # warm-up run, and the one whose outputs are checked
    if rc != 0:
        return {
            "error_no": int(MeasureErrorNo.RUNTIME_ERROR),
            "error_msg": f"tf_entry returned {rc}",
        }
    if settings.check_correctness:
        msg = check_outputs(bufs, io.expected, specs, settings.rtol, settings.atol_rel)
        if msg is not None:
            return {"error_no": int(MeasureErrorNo.WRONG_ANSWER), "error_msg": msg}
    timing = time_evaluator(lambda number: timer(argv, number), settings)
    return {"error_no": 0, "error_msg": "", "costs": list(timing.costs), "number": timing.number}


def measure_child(conn: Connection, job: dict[str, Any]) -> None:
    """Entry point of a measurement child: measure, send one reply dict, exit.

    job: artifact (.so path), io_path (.npz of KernelIO), arg_specs and settings as JSON.
    """
    try:
        reply = _measure(job)
    except Exception as exc:
        tb = traceback.format_exc(limit=3)
        reply = {
            "error_no": int(MeasureErrorNo.RUNTIME_ERROR),
            "error_msg": f"{_describe(exc)}\n{tb[-MAX_STDERR:]}",
        }
    conn.send(reply)
    conn.close()
