"""Runners: built candidates -> measured costs (or an error code), batch in, batch out.

`LocalRunner` measures one candidate at a time, outside the tuner's process, because a
generated kernel may segfault, scribble over memory or never return, and none of that may
take the tuner down or poison the next measurement. Measurements never overlap, so they do
not compete for cores or caches. Either each candidate gets a fresh child forked by a
long-lived clean process (`measure.zygote`), or one long-lived measurer loads, times and
unloads candidate after candidate and is replaced after any that crashes, hangs or fails
(`measure.measurer`; the default of the registry's runners, TUNEFARM_PERSISTENT_MEASURER=0
turns it off).
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tunefarm.measure import child
from tunefarm.measure.builder import exit_reason
from tunefarm.measure.child import KernelLoader
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.host import load_host_kernel
from tunefarm.measure.measurer import Measurer
from tunefarm.measure.types import (
    NOISY_PREFIX,
    ArgSpec,
    BuildResult,
    KernelIO,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
)
from tunefarm.measure.zygote import REAP_S, Zygote, can_fork

IOFactory = Callable[[MeasureInput, int], KernelIO]  # (input, seed) -> reference data
ENV_MAX_CV, DEFAULT_MAX_CV = "TUNEFARM_MAX_CV", 0.2
ENV_PERSISTENT = "TUNEFARM_PERSISTENT_MEASURER"  # "0": a fresh process per candidate
# "1": host builds overlap host measurement at normal priority; "0": they never overlap it;
# "idle": they overlap it in idle priority where the builder can (`measure.priority`);
# unset: as "idle" while the host has idle cores (`host_has_idle_cores`), else never
ENV_OVERLAP = "TUNEFARM_OVERLAP_HOST_BUILDS"


class Runner(ABC):
    """Measures built candidates. Never raises for a bad candidate: it gets an error result."""

    @abstractmethod
    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        """One MeasureResult per (input, build) pair, in order."""


@dataclass(frozen=True)
class _IOEntry:
    """Reference data of one io_key, written once to an .npz; or why it could not be made."""

    path: str | None
    layouts: tuple[tuple[tuple[int, ...], str], ...]  # (shape, dtype) per arg
    outputs: tuple[int, ...]  # positions that have an expected value
    error: str = ""


class LocalRunner(Runner):
    """Measure on this machine, one isolated child process per candidate.

    settings: timing and checking parameters (timeout_s limits each child).
    io_factory: (input, seed) -> KernelIO; called once per io_key, in this process (the op
        registry's `reference_io` for real tasks).
    loader: loads a built artifact on this machine's device, in the child (a module-level
        function, pickled by reference); the host ABI's by default.
    seed: passed to io_factory, so every candidate of a workload sees the same data.
    persistent: measure in one long-lived process (`measure.measurer`) instead of a fresh
        one per candidate (the registry asks for it; TUNEFARM_PERSISTENT_MEASURER=0 turns it
        off).
    in_process: the kernels run in the measuring process (host code), so any failed
        candidate retires a persistent measurer, and builds overlap measurement only in idle
        priority (`overlaps_idle_builds`; at normal priority they would take the measured
        kernel's cores) unless TUNEFARM_OVERLAP_HOST_BUILDS=1.
    """

    def __init__(
        self,
        settings: MeasureSettings,
        io_factory: IOFactory,
        loader: KernelLoader = load_host_kernel,
        seed: int = 0,
        persistent: bool = False,
        in_process: bool = False,
    ) -> None:
        if not isinstance(settings, MeasureSettings):
            raise ValueError(f"settings must be a MeasureSettings, got {type(settings).__name__}")
        if not callable(io_factory):
            raise ValueError(
                f"io_factory must be callable (input, seed) -> KernelIO, got {io_factory!r}"
            )
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an int, got {seed!r}")
        self.settings, self.io_factory, self.seed = settings, io_factory, seed
        self.loader = loader
        self.max_cv = max_cv()
        self._ctx = child.process_context()
        self._zygote = Zygote(self._ctx) if can_fork() else None
        if os.environ.get(ENV_PERSISTENT, "").strip() == "0":
            persistent = False
        self._measurer = Measurer(self._ctx) if persistent else None
        self.in_process = bool(in_process)
        self._tmpdir = tempfile.mkdtemp(prefix="tunefarm-io-")
        self._finalizer = weakref.finalize(
            self, _cleanup, self._tmpdir, self._zygote, self._measurer
        )
        self._io: dict[str, _IOEntry] = {}
        self.give_up_s = 0.0  # `give_up_after`
        self.give_up_factor = 0.0
        # the clock (a `child.CLOCKS` key) an input's kernel times itself by, where its
        # backend says (`registry.local_runner`): its checked run then counts as a repeat
        self.clock_of: Callable[[MeasureInput], str] | None = None

    def give_up_after(self, seconds: float, factor: float = 0.0) -> None:
        """From now on, a host candidate whose checked run takes longer than `seconds` is
        timed by that run alone (`MeasureSettings.give_up_s`; the tuner passes a few times
        its incumbent's cost); 0 turns it off. With `factor` > 0 the bar also comes down to
        `factor` times each fully timed candidate's median as they are measured, so the
        batch's own best so far counts too (the first batch, with no incumbent yet, is
        where most hopeless random states are). Device kernels are always timed fully
        (their checked run is not timed on the device)."""
        for name, value in (("seconds", seconds), ("factor", factor)):
            if not (isinstance(value, (int, float)) and 0 <= value < float("inf")):
                raise ValueError(f"give_up_after: expected {name} >= 0, got {value!r}")
        self.give_up_s = float(seconds) if self.in_process else 0.0
        self.give_up_factor = float(factor) if self.in_process else 0.0

    def _lower_give_up(self, costs: Sequence[float]) -> None:
        """`give_up_factor` times this candidate's median, where that is below the bar."""
        if self.give_up_factor > 0 and costs:
            bar = self.give_up_factor * statistics.median(costs)
            if bar > 0 and (self.give_up_s == 0 or bar < self.give_up_s):
                self.give_up_s = bar

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        """Measure each built candidate in turn; failed builds pass their error through."""
        if not self._finalizer.alive:
            raise ValueError("this LocalRunner is closed; create a new one")
        if len(inputs) != len(builds):
            raise ValueError(
                f"inputs and builds must have equal length, got {len(inputs)} "
                f"inputs and {len(builds)} builds"
            )
        for i, (inp, build) in enumerate(zip(inputs, builds, strict=True)):
            if not isinstance(inp, MeasureInput) or not isinstance(build, BuildResult):
                raise ValueError(
                    f"item {i}: expected (MeasureInput, BuildResult), got "
                    f"({type(inp).__name__}, {type(build).__name__})"
                )
        return [self._run_one(inp, build) for inp, build in zip(inputs, builds, strict=True)]

    @property
    def overlaps_builds(self) -> bool:
        """Whether builds may run while this runner measures (a device's persistent measurer:
        its kernels are timed on the device, not on the cores the builds use; host kernels
        only where TUNEFARM_OVERLAP_HOST_BUILDS=1 lets builds share the measuring cores)."""
        if self._measurer is None:
            return False
        return not self.in_process or os.environ.get(ENV_OVERLAP, "").strip() == "1"

    def overlaps_idle_builds(self, own_processes: int) -> bool:
        """Whether builds may run while this runner measures host kernels provided they run
        in idle priority (`LocalBuilder.background`), taking no CPU time from the kernel
        being timed: TUNEFARM_OVERLAP_HOST_BUILDS=idle, or unset on a host with idle cores
        (on a busy one an idle-priority build would starve while a kernel is timed, so
        builds and measurement take turns). own_processes: the builds' and measurer's
        share of the load average."""
        if not self.in_process:
            return False
        mode = os.environ.get(ENV_OVERLAP, "").strip()
        return mode == "idle" or (mode == "" and host_has_idle_cores(own_processes))

    def close(self) -> None:
        """Delete the temporary reference-data files (also done at exit or on collection)."""
        self._finalizer()
        self._io.clear()

    def __enter__(self) -> LocalRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run_one(self, inp: MeasureInput, build: BuildResult) -> MeasureResult:
        start, stamp = time.perf_counter(), time.time()

        def result(
            error_no: MeasureErrorNo,
            msg: str,
            costs: tuple[float, ...] = (),
            settings: MeasureSettings = self.settings,
        ) -> MeasureResult:
            wall = build.build_seconds + time.perf_counter() - start
            return MeasureResult(costs, error_no, msg, wall, stamp, settings, build.compiler)

        if not build.ok:
            error_no = build.error_no or MeasureErrorNo.UNKNOWN_ERROR
            return result(error_no, build.error_msg or "build produced no artifact")
        entry = self._reference(inp, build.io_key)
        problem = entry.error or _layout_mismatch(entry, build.arg_specs)
        if problem:
            return result(MeasureErrorNo.RUNTIME_ERROR, problem)
        settings = replace(self.settings, give_up_s=self.give_up_s)
        clock = self.clock_of(inp) if self.clock_of is not None else None
        job = {
            "artifact": build.artifact,
            "io_path": entry.path,
            "arg_specs": [s.to_json() for s in build.arg_specs],
            "settings": settings.to_json(),
            "loader": self.loader,
            "in_process": self.in_process,
            "clock": clock,
            # only the persistent measurer reads a cut run's death as its figure
            "cut_s": child.cut_after(settings, clock) if self._measurer is not None else 0.0,
        }
        reply = self._measure_in_child(job)
        error_no = MeasureErrorNo(reply["error_no"])
        if error_no != MeasureErrorNo.NO_ERROR:
            return result(error_no, reply["error_msg"])
        note = ""
        # a neighbour got in the way: once more (adaptive repeats already measured more)
        if _cv(reply["costs"]) > self.max_cv and not self.settings.adaptive:
            again = self._measure_in_child(job)
            if again["error_no"] == 0 and _cv(again["costs"]) < _cv(reply["costs"]):
                reply = again
        spread = _cv(reply["costs"])
        if spread > self.max_cv:
            again = "up to max_repeat" if self.settings.adaptive else "after a re-measurement"
            note = (
                f"{NOISY_PREFIX} the repeats vary by {spread:.0%} (limit {self.max_cv:.0%}, "
                f"{ENV_MAX_CV}) {again}; the median is kept"
            )
        if reply.get("cut"):
            note = f"checked run stopped at {job['cut_s']:.3g} s, its figure (hopeless)"
        used = replace(settings, number=int(reply["number"]))
        self._lower_give_up(reply["costs"])
        return result(error_no, note, tuple(reply["costs"]), used)

    def _reference(self, inp: MeasureInput, io_key: str) -> _IOEntry:
        """Reference data for `io_key`, made by io_factory on first use and cached."""
        entry = self._io.get(io_key)
        if entry is not None:
            return entry
        try:
            kio = self.io_factory(inp, self.seed)
            if not isinstance(kio, KernelIO):
                raise TypeError(f"io_factory returned {type(kio).__name__}, expected KernelIO")
            path = Path(self._tmpdir) / f"io{len(self._io)}.npz"
            kio.save(path)
            layouts = tuple((tuple(a.shape), a.dtype.name) for a in kio.args)
            entry = _IOEntry(str(path), layouts, tuple(sorted(kio.expected)))
        except Exception as exc:
            entry = _IOEntry(
                None,
                (),
                (),
                f"io_factory failed for io_key {io_key!r}: {type(exc).__name__}: {exc}",
            )
        self._io[io_key] = entry
        return entry

    def _measure_in_child(self, job: dict[str, Any]) -> dict[str, Any]:
        """Run child.measure_child in a fresh process (or the persistent measurer); its death
        or hang becomes a reply."""
        if self._measurer is not None:
            return self._measurer.measure(job, self.settings.timeout_s)
        if self._zygote is not None:
            return self._zygote.measure(job, self.settings.timeout_s)
        recv_end, send_end = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(
            target=child.measure_child, args=(send_end, job), name="tunefarm-measure", daemon=True
        )
        proc.start()
        send_end.close()  # so that the child's death reads as EOF here
        timeout_s = self.settings.timeout_s
        try:
            if not recv_end.poll(timeout_s):
                proc.kill()
                return {
                    "error_no": int(MeasureErrorNo.RUN_TIMEOUT),
                    "error_msg": f"measurement ran past {timeout_s:g} s and was killed",
                }
            try:
                return recv_end.recv()
            except (EOFError, OSError):
                proc.join(REAP_S)
                return {
                    "error_no": int(MeasureErrorNo.RUNTIME_ERROR),
                    "error_msg": f"measurement child {exit_reason(proc.exitcode)}",
                }
        finally:
            recv_end.close()
            proc.join(REAP_S)
            if proc.is_alive():  # replied but hangs on exit (e.g. in a library destructor)
                proc.kill()
                proc.join()


def _cleanup(tmpdir: str, zygote: Zygote | None, measurer: Measurer | None = None) -> None:
    """Stop the zygote and the measurer and delete the reference-data files."""
    if zygote is not None:
        zygote.close()
    if measurer is not None:
        measurer.close()
    shutil.rmtree(tmpdir, True)


def host_has_idle_cores(own_processes: int) -> bool:
    """Whether the last minute's load average, less what our own `own_processes` add,
    leaves a core idle."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return False
    return load - own_processes < (os.cpu_count() or 1) - 0.5


def max_cv() -> float:
    """The largest coefficient of variation across repeats a measurement may have before it
    is measured again (and flagged noisy if it still has it): TUNEFARM_MAX_CV, default 0.2."""
    text = os.environ.get(ENV_MAX_CV, "").strip()
    try:
        value = float(text) if text else DEFAULT_MAX_CV
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(f"{ENV_MAX_CV}={text!r}: expected a number above 0, e.g. 0.2")
    return value


def _cv(costs) -> float:
    """stdev / mean of the repeats (0 for fewer than two, or a zero mean)."""
    if len(costs) < 2:
        return 0.0
    mean = statistics.fmean(costs)
    return statistics.stdev(costs) / mean if mean > 0 else 0.0


def _layout_mismatch(entry: _IOEntry, specs: tuple[ArgSpec, ...]) -> str:
    """Why the reference arrays do not fit the kernel's arguments ("" if they do)."""
    if len(entry.layouts) != len(specs):
        return (
            f"reference data has {len(entry.layouts)} arrays but the kernel takes "
            f"{len(specs)} arguments"
        )
    for pos, ((shape, dtype), spec) in enumerate(zip(entry.layouts, specs, strict=True)):
        if shape != spec.shape or dtype != spec.dtype:
            return (
                f"argument {pos} ({spec.name}): reference array is {dtype}{list(shape)}, "
                f"kernel expects {spec.dtype}{list(spec.shape)}"
            )
    for pos in entry.outputs:
        if not 0 <= pos < len(specs) or not specs[pos].is_output:
            return f"reference output given for argument {pos}, which is not an output"
    return ""
