"""Child-process side of the measure layer: the build-pool worker loop and the measurement
child.

These run in processes the parent can afford to lose. They report every failure as an error
code in their reply, so a crash shows up in the parent only as a dead process, which the
parent turns into an error result too. What is particular to a device (how its kernels are
loaded, where their buffers live, how they are timed) comes in as a `KernelLoader` from the
candidate's backend; checking answers and the timing loop are the same for every device.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.context
import pickle
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any, Protocol

import numpy as np

from tunefarm.measure.compile import MAX_STDERR, describe
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.timing import time_evaluator
from tunefarm.measure.types import ArgSpec, KernelIO, MeasureSettings


class LoadedKernel(Protocol):
    """A kernel loaded on its device with its arguments in place."""

    def run(self) -> int:
        """One run; 0 on success, else the kernel's error code."""

    def outputs(self) -> list[np.ndarray]:
        """Every argument as it is after the runs so far (host copies), in argument order."""

    def time(self, number: int) -> float:
        """Seconds per run over `number` back-to-back runs, timed on the device."""


KernelLoader = Callable[[str, list[np.ndarray]], LoadedKernel]  # (artifact, args) -> kernel


def process_context() -> multiprocessing.context.BaseContext:
    """The multiprocessing context for build workers and measurement children.

    forkserver: children fork from a clean server that has numpy and this module imported, so
    a fresh child per measurement costs milliseconds, and no parent state (threads, open
    OpenMP runtimes, locks) leaks into it. Falls back to spawn where forkserver is missing.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "tunefarm.measure.child"])
    return ctx


def requests(conn: Connection) -> Iterator[Any]:
    """The parent's messages to a serving child, until the parent hangs up: a None message
    (a clean stop) or a closed pipe (the parent died; its end closed with it)."""
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        yield msg


def reply(conn: Connection, msg: Any) -> bool:
    """Send a serving child's answer; False when the parent has hung up meanwhile (it stopped
    while this job ran: the child then ends quietly instead of dying on a BrokenPipeError)."""
    try:
        conn.send(msg)
    except (BrokenPipeError, EOFError, ConnectionResetError):
        return False
    return True


def pool_worker_main(conn: Connection) -> None:
    """Serve build jobs until the parent hangs up.

    A message is (parent's sys.path, pickled (fn, arg)). The path comes first so that module-
    level generators the parent can import (e.g. test helpers) unpickle here too.
    """
    for sys_path, payload in requests(conn):
        sys.path.extend(p for p in sys_path if p not in sys.path)
        try:
            fn, arg = pickle.loads(payload)
            answer: tuple[str, Any] = ("ok", fn(arg))
        except BaseException as exc:  # report and keep serving; only death ends a job badly
            answer = ("err", describe(exc))
        if not reply(conn, answer):
            return


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
    An output whose spec is `exact` passes only where it equals the reference.
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
        if pos < len(specs) and specs[pos].exact:
            bad = err != 0
            if bad.any():
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                return (
                    f"output arg {pos} ({name}): {int(bad.sum())} of {ref.size} elements differ "
                    f"from the exact reference; first at {idx}: got {out[idx]:.10g}, "
                    f"expected {ref[idx]:.10g}"
                )
            continue
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


IO_CACHE = 4  # reference-data files a persistent measurer keeps loaded (one per workload)
_io_cache: dict[str, KernelIO] = {}


def load_io(path: str) -> KernelIO:
    """The reference data at `path`, read once per process: a persistent measurer times many
    candidates of one workload, and reading a conv's .npz for each cost more than timing it.
    `measure_job` hands each kernel copies (device loaders read outputs back into the arrays
    they were given)."""
    io = _io_cache.pop(path, None)
    if io is None:
        io = KernelIO.load(path)
        while len(_io_cache) >= IO_CACHE:
            _io_cache.pop(next(iter(_io_cache)))
    _io_cache[path] = io  # most recent last
    return io


def measure_job(job: dict[str, Any]) -> dict[str, Any]:
    """Load, check and time one candidate in this process; its reply dict. The kernel is
    closed afterwards where its loader gives it a `close` (a persistent measurer unloads
    every candidate's module and frees its buffers)."""
    settings = MeasureSettings.from_json(job["settings"])
    specs = tuple(ArgSpec.from_json(s) for s in job["arg_specs"])
    io = load_io(job["io_path"])
    kernel = job["loader"](job["artifact"], [a.copy() for a in io.args])
    try:
        return check_and_time(kernel, io, specs, settings, job.get("clock"), job.get("cut_s", 0))
    finally:
        close = getattr(kernel, "close", None)
        if close is not None:
            close()


# the clocks a kernel's `time` may read (`KERNEL_CLOCKS`), as this process reads them
CLOCKS: dict[str, Callable[[], float]] = {
    "monotonic": time.perf_counter,  # CLOCK_MONOTONIC
    "thread": time.thread_time,  # CLOCK_THREAD_CPUTIME_ID: the kernel runs in this thread
}


def check_and_time(
    kernel: LoadedKernel,
    io: KernelIO,
    specs: tuple[ArgSpec, ...],
    settings: MeasureSettings,
    clock: str | None = None,
    cut_s: float = 0.0,
) -> dict[str, Any]:
    """Run the kernel once and check its outputs, then time it.

    `clock`: the clock the kernel's `time` reads (a key of `CLOCKS`), where the job knows
    it. The checked run is then timed by that clock too and, if it lasted a timed call,
    is the first repeat (`time_evaluator`'s `first_run`): for kernels of 10 ms and more,
    one run fewer per candidate; and a hopeless one (`hopeless`) is timed by that run
    alone, with no run to confirm it. Without it the checked run is a warm-up only, timed
    by the wall clock to nominate hopeless candidates.

    `cut_s` > 0 (`cut_after`): this process dies by `CUT_SIGNALS[clock]` if the checked run
    lasts that long by the kernel's clock; the parent reads that death as `cut_reply`."""
    tick = CLOCKS.get(clock or "", time.perf_counter)
    start = tick()
    with _deadline(cut_s, clock):
        rc = kernel.run()  # warm-up run, and the one whose outputs are checked
    first = tick() - start
    if rc != 0:
        return {"error_no": int(MeasureErrorNo.RUNTIME_ERROR), "error_msg": f"kernel returned {rc}"}
    if settings.check_correctness:
        msg = check_outputs(kernel.outputs(), io.expected, specs, settings.rtol, settings.atol_rel)
        if msg is not None:
            return {"error_no": int(MeasureErrorNo.WRONG_ANSWER), "error_msg": msg}
    if hopeless(first, settings):
        # by the kernel's clock already, or by the wall clock: then confirm by the kernel's
        figure = first if clock in CLOCKS else kernel.time(1)
        if hopeless(figure, settings):  # cannot be the best: one run is its figure
            return {"error_no": 0, "error_msg": "", "costs": [figure], "number": 1}
    timing = time_evaluator(kernel.time, settings, first_run=first if clock in CLOCKS else None)
    return {"error_no": 0, "error_msg": "", "costs": list(timing.costs), "number": timing.number}


def hopeless(first_s: float, settings: MeasureSettings) -> bool:
    """Whether a run of `first_s` seconds ends the timing (`give_up_s`): slower than the
    tuner's bar, and itself as long as one timed call (`min_repeat_ms`), so the figure is
    no shorter than a repeat's; a microsecond kernel is always timed fully.

    Where the job names no clock, the checked run is timed by the wall clock, which on a
    shared host counts the slices
    other processes took (and is cold: its weights and code were just loaded), while the
    bar and every other figure are by the kernel's own clock (a `-cores=1` kernel's is its
    thread's CPU time). So a checked run over the bar only nominates: one more run timed by
    `kernel.time(1)` decides, and is the figure kept. At load 7-14 on 2 cores the wall
    clock's checked run alone cut conv_7_512_512 states that run 40-60 GFLOP/s by CPU time
    at 11-14, and made half the rechecks compare such figures."""
    return bool(settings.give_up_s) and first_s > hopeless_bar(settings)


def hopeless_bar(settings: MeasureSettings) -> float:
    """The seconds past which one run is hopeless (`hopeless`), where `give_up_s` is set."""
    return max(settings.give_up_s, settings.min_repeat_ms / 1e3)


# a checked run this many times over the bar (`give_up_s`) is stopped where it stands,
# but never before CUT_MIN_S: a cut costs a measurer restart (15-25 ms of CPU time measured
# on Zen 5) and a cold first run for the next candidate, which the last fraction of a
# short hopeless run does not pay back (a conv's hopeless states mostly run 10-100 ms)
CUT_FACTOR = 3.0
CUT_MIN_S = 0.1
# the interval timer and its signal that count a kernel's clock (`CLOCKS`): the wall clock,
# or the process's CPU time, which is the kernel thread's own (the measurer's other threads
# are idle while it runs)
CUT_SIGNALS = {
    "monotonic": (signal.ITIMER_REAL, signal.SIGALRM),
    "thread": (signal.ITIMER_PROF, signal.SIGPROF),
}


def cut_after(settings: MeasureSettings, clock: str | None) -> float:
    """Seconds after which a candidate's checked run is stopped, by its kernel's clock: 0
    (never) unless hopeless candidates are given up on (`hopeless`) and the clock is known.

    Why: a hopeless candidate's one checked run was its whole cost, and that run is the
    slowest part of a dense search: on Zen 5 (dense_768x3072, sketch, 32 trials, main
    9c22b3f) 21 of 38 measurements were hopeless, and their checked runs took 4.2 of the
    search's 9.5 CPU seconds (one random state ran 8.4 s against an incumbent of 5 ms).
    Stopped at `CUT_FACTOR` times the bar (`CUT_MIN_S` at least), such a run is recorded at
    that figure, a lower bound still ranking it far behind the incumbent; the measurer it
    kills is replaced. Measured on that host: 6.6-6.7 CPU seconds a search against main's
    10.5-11.6 (14 of 32 candidates cut); in `search_speed.py compare` (4 rounds) 0.26 CPU
    s a trial against main's 0.33 and e217386^'s 0.48, 1.96 candidates/s against 1.35 and
    0.86, bests re-measured as main's within the noise. conv_56_64_64_3x3's hopeless runs
    are all under `CUT_MIN_S`: no cut, its CPU time as main's
    (benchmarks/results-search-speed-i27-dense-zen5.json)."""
    if not settings.give_up_s or clock not in CUT_SIGNALS:
        return 0.0
    return max(CUT_FACTOR * hopeless_bar(settings), CUT_MIN_S)


@contextlib.contextmanager
def _deadline(cut_s: float, clock: str | None) -> Iterator[None]:
    """Kill this process by `CUT_SIGNALS[clock]`'s signal if the block runs `cut_s` seconds.

    The signal's default action ends the process even inside the kernel's C code, where a
    Python handler would wait for the kernel to return."""
    if not cut_s or clock not in CUT_SIGNALS:
        yield
        return
    timer, signum = CUT_SIGNALS[clock]
    signal.signal(signum, signal.SIG_DFL)
    signal.setitimer(timer, cut_s)
    try:
        yield
    finally:
        signal.setitimer(timer, 0)


def cut_reply(job: dict[str, Any], exitcode: int | None) -> dict[str, Any] | None:
    """The reply for a job whose process died with `exitcode`, where that death is its
    checked run's deadline (`_deadline`): the candidate is timed at the deadline, one run,
    its answer unchecked (it cannot be the best). None for any other death."""
    cut_s = job.get("cut_s", 0)
    signum = CUT_SIGNALS.get(job.get("clock") or "", (None, None))[1]
    if not cut_s or signum is None or exitcode != -signum:
        return None
    return {"error_no": 0, "error_msg": "", "costs": [float(cut_s)], "number": 1, "cut": True}


def measure_child(conn: Connection, job: dict[str, Any]) -> None:
    """Entry point of a measurement child: measure, send one reply dict, exit.

    job: artifact (path), io_path (.npz of KernelIO), arg_specs and settings as JSON, and
    loader (a module-level KernelLoader, pickled by reference).
    """
    try:
        reply = measure_job(job)
    except Exception as exc:
        tb = traceback.format_exc(limit=3)
        reply = {
            "error_no": int(MeasureErrorNo.RUNTIME_ERROR),
            "error_msg": f"{describe(exc)}\n{tb[-MAX_STDERR:]}",
        }
    conn.send(reply)
    conn.close()
