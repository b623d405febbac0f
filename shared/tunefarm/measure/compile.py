"""Build side of the measure layer: generate and compile one candidate in a build worker.

A build worker is a process the parent can afford to lose: every failure becomes an error
code in the BuildResult, and a crash shows up in the parent only as a dead worker, which the
parent turns into an error result too. The compiler command comes from the candidate's own
source (its backend's `Toolchain`), so one pool builds for every target.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from tunefarm.measure import cputime, lowered
from tunefarm.measure.errors import DeviceLimitError, MeasureErrorNo
from tunefarm.measure.types import BuildResult, KernelSource, MeasureInput, Toolchain

MAX_STDERR = 2000
# a build's limit is CPU seconds; its wall-clock backstop (for a hang, which uses no CPU) is
# this many times the limit, unless the job names one
WALL_CAP_FACTOR = 4.0

SourceGenerator = Callable[[MeasureInput], KernelSource]


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@dataclass(frozen=True)
class BuildJob:
    """Everything a build worker needs for one candidate (pickled to the worker).

    cc: a compiler that replaces the toolchain's (a path or a wrapper), or "" to use it.
    options: extra flags appended to every compile.
    timeout_s: CPU seconds for generating plus compiling (the worker's own and the
        compiler's), so that a build starved of a core (idle priority on a busy host) is
        not failed for waiting.
    wall_timeout_s: the wall-clock backstop; None: `WALL_CAP_FACTOR` times timeout_s.
    lowered: the parent's lowering of this candidate, pickled (`measure.lowered`), or None.
    """

    inp: MeasureInput
    generate: SourceGenerator
    cc: str
    options: tuple[str, ...]
    cache_dir: str
    timeout_s: float
    wall_timeout_s: float | None = None
    lowered: bytes | None = None

    @property
    def wall_limit_s(self) -> float:
        if self.wall_timeout_s is not None:
            return self.wall_timeout_s
        return WALL_CAP_FACTOR * self.timeout_s


@functools.cache
def compiler_identity(cc: str) -> str:
    """The line of `cc --version` that names its version: the first (e.g. "gcc (Debian
    12.2.0-14) 12.2.0"), or where that has no number the first saying "release" or "version"
    (nvcc: "Cuda compilation tools, release 13.0, V13.0.88"), "" if
    unknown. Part of every cache key, so a compiler upgrade misses the old entries. Asked
    once per process and compiler."""
    try:
        rc, output = run_killable([cc, "--version"], 10.0)
    except OSError:
        return ""
    if rc != 0 or not output:
        return ""
    lines = output.splitlines()
    if any(ch.isdigit() for ch in lines[0]):
        return lines[0]
    return next((ln for ln in lines if "release" in ln or "version" in ln), lines[0])


def toolchain_identity(tc: Toolchain) -> str:
    """The version of what compiles for `tc`: its in-process compiler's, else its compiler
    command's (`compiler_identity`), "" for none."""
    if tc.in_process:
        try:
            return str(importlib.import_module(tc.in_process).identity())
        except Exception:
            return ""
    return compiler_identity(tc.compiler) if tc.compiler else ""


def run_toolchain(
    tc: Toolchain, source: str, artifact: str, options: tuple[str, ...], timeout_s: float
) -> tuple[int | None, str]:
    """Compile `source` into `artifact` with `tc`: (exit code, messages) as `run_killable`
    answers, `timeout_s` a wall-clock limit."""
    rc, output, _ = _run_toolchain(tc, source, artifact, options, timeout_s)
    return rc, output


def _run_toolchain(
    tc: Toolchain,
    source: str,
    artifact: str,
    options: tuple[str, ...],
    wall_s: float,
    cpu_s: float | None = None,
) -> tuple[int | None, str, str]:
    """`run_toolchain` with a CPU limit too, answering as `run_limited` (with the limit it
    passed). An in-process compiler answers 0 and its log, or 1 and its error (its time is
    bounded by the worker's own limits: a build pool replaces a worker that overruns)."""
    if not tc.in_process:
        return run_limited(tc.command(source, artifact, options), wall_s, cpu_s)
    try:
        module = importlib.import_module(tc.in_process)
        return 0, str(module.compile_file(source, artifact, (*tc.flags, *options))), ""
    except Exception as exc:
        return 1, describe(exc), ""


# A candidate's generated source past this size is refused before the compiler sees it. Some
# random Winograd sketch states inline their transforms into huge expressions: of 16 states of
# a 56x56 64->64 conv, 1.1-1.7 MB of C compiled in 7.5-7.8 s and 10 MB ran gcc past 45 s of CPU
# until it was killed (Intel Xeon, one core): a timeout either way, now without the wait.
MAX_SOURCE_BYTES = 4 << 20


def build_one(job: BuildJob) -> BuildResult:
    """Generate, hash, and compile one candidate unless its artifact is in the cache.

    `job.timeout_s` bounds the CPU time of generation plus compilation, `job.wall_limit_s`
    their wall time.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        with lowered.handed(job.inp, job.lowered):
            src = job.generate(job.inp)
        if not isinstance(src, KernelSource):
            raise TypeError(f"generate returned {type(src).__name__}, expected KernelSource")
        if len(src.code) > MAX_SOURCE_BYTES:
            raise DeviceLimitError(
                f"generated source is {len(src.code) / 2**20:.1f} MiB, over the "
                f"{MAX_SOURCE_BYTES >> 20} MiB a candidate may have (its compile would run "
                "past the build's time limit)"
            )
    except DeviceLimitError as exc:
        return BuildResult.failed(
            MeasureErrorNo.BUILD_ERROR, describe(exc), time.perf_counter() - start
        )
    except Exception as exc:
        return BuildResult.failed(
            MeasureErrorNo.INSTANTIATION_ERROR, describe(exc), time.perf_counter() - start
        )
    tc = src.toolchain
    if job.cc:  # a compiler named by the caller replaces an in-process one too
        tc = replace(tc, compiler=job.cc, in_process="")
    flags = (*tc.flags, *job.options)
    identity = toolchain_identity(tc)
    key = json.dumps([tc.compiler, identity, flags, tc.link, tc.libs, src.code])
    digest = hashlib.sha256(key.encode()).hexdigest()
    artifact = Path(job.cache_dir) / f"{digest}{tc.artifact_suffix}"
    if not artifact.exists():
        cpu_left = job.timeout_s - (time.process_time() - cpu_start)
        wall_left = job.wall_limit_s - (time.perf_counter() - start)
        failure = _compile(tc, job.options, src.code, artifact, cpu_left, wall_left)
        if failure is not None:
            return BuildResult.failed(failure[0], failure[1], time.perf_counter() - start, digest)
    return BuildResult(
        str(artifact),
        src.arg_specs,
        src.io_key,
        src.flops,
        MeasureErrorNo.NO_ERROR,
        "",
        time.perf_counter() - start,
        digest,
        identity,
    )


def _compile(
    tc: Toolchain,
    options: tuple[str, ...],
    code: str,
    artifact: Path,
    cpu_s: float,
    wall_s: float,
) -> tuple[MeasureErrorNo, str] | None:
    """Compile `code` into `artifact`, writing both files under temporary names first.

    The source is kept beside the artifact (also when it fails to compile, so compiler
    messages point at a file one can open); the artifact appears by rename so readers never
    see half a file. A toolchain without a compiler makes the source the artifact.
    """
    if cpu_s <= 0 or wall_s <= 0:
        limit = "CPU time" if cpu_s <= 0 else "wall-clock"
        return MeasureErrorNo.BUILD_TIMEOUT, f"source generation used up the build's {limit} limit"
    stem = f"{artifact.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    src_tmp = artifact.with_name(stem + tc.source_suffix)
    out_tmp = artifact.with_name(stem + tc.artifact_suffix)
    source = artifact.with_name(artifact.name.removesuffix(tc.artifact_suffix) + tc.source_suffix)
    try:
        src_tmp.write_text(code)
        if not tc.compiler:
            os.replace(src_tmp, artifact)
            return None
        os.replace(src_tmp, source)
        rc, output, why = _run_toolchain(tc, str(source), str(out_tmp), options, wall_s, cpu_s)
        if rc is None:
            return MeasureErrorNo.BUILD_TIMEOUT, f"{tc.compiler} {why} and was killed"
        if rc != 0:
            return (
                MeasureErrorNo.BUILD_ERROR,
                f"{tc.compiler} exited with {rc}:\n{output[:MAX_STDERR]}",
            )
        os.replace(out_tmp, artifact)
        if tc.in_process and output.strip():  # registers, shared memory, spills (ptxas -v)
            artifact.with_name(artifact.name + ".log").write_text(output)
        return None
    except OSError as exc:
        return MeasureErrorNo.BUILD_ERROR, f"cannot compile with {tc.compiler!r}: {describe(exc)}"
    finally:
        for leftover in (src_tmp, out_tmp):
            leftover.unlink(missing_ok=True)


def run_killable(cmd: list[str], timeout_s: float) -> tuple[int | None, str]:
    """Run `cmd` in its own process group; past `timeout_s` wall seconds kill the whole
    group. Returns (exit code, stdout+stderr), or (None, output so far) on timeout. Raises
    OSError if `cmd[0]` cannot be started."""
    rc, output, _ = run_limited(cmd, timeout_s)
    return rc, output


def run_limited(
    cmd: list[str], wall_s: float, cpu_s: float | None = None
) -> tuple[int | None, str, str]:
    """Run `cmd` in its own process group; kill the whole group once it has used `cpu_s`
    CPU seconds (all its processes together; None: no CPU limit) or run `wall_s` wall
    seconds, whichever comes first.

    The group matters: gcc forks cc1/as/ld, and killing only the driver would leave them
    running and holding our pipe open, and their CPU time is the build's. Returns (exit
    code, stdout+stderr, ""), or (None, output so far, what limit it passed) when killed.
    Where CPU time cannot be read (no /proc) the CPU limit counts wall seconds. Raises
    OSError if `cmd[0]` cannot be started.
    """
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    start, step, why = time.monotonic(), 0.02, ""
    while not why:
        left = wall_s - (time.monotonic() - start)
        try:  # communicate may be called again after a timeout, losing no output
            output, _ = proc.communicate(timeout=max(0.0, min(step, left)))
            return proc.returncode, output, ""
        except subprocess.TimeoutExpired:
            pass
        elapsed = time.monotonic() - start
        used = cputime.group_cpu_s(proc.pid) if cpu_s is not None else None
        if elapsed >= wall_s:
            why = f"ran past the {wall_s:.1f} s wall-clock limit"
        elif cpu_s is not None and (used if used is not None else elapsed) >= cpu_s:
            why = f"used {cpu_s:.1f} s of CPU time"
        step = min(2 * step, 0.5)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    output, _ = proc.communicate()
    return None, output, why
