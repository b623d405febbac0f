"""Builders: MeasureInput -> compiled shared object (or an error code), batch in, batch out.

`LocalBuilder` generates and compiles candidates in a small pool of long-lived worker
processes. The pool is our own rather than `concurrent.futures`, because a worker that dies
or hangs must cost exactly its own candidate: we know which job each worker holds, so a dead
worker becomes an error result for that job and is replaced, and the rest of the batch goes on.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import sys
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from tunefarm.measure import child, cputime, lowered, priority
from tunefarm.measure.cache import default_cache_dir
from tunefarm.measure.compile import WALL_CAP_FACTOR, BuildJob, SourceGenerator, build_one
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import BuildResult, MeasureInput

_BUILT_MEMO = 256  # builds a LocalBuilder remembers (`_built_before`)
_GRACE_S = 5.0  # beyond the limits before the parent kills a worker (the worker limits gcc itself)
_POLL_S = 0.5  # how often the parent reads a busy worker's CPU time


class Builder(ABC):
    """Builds candidates. Never raises for a bad candidate: it gets an error BuildResult."""

    @abstractmethod
    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        """One BuildResult per input, in input order."""


def exit_reason(exitcode: int | None) -> str:
    """Human words for a child's exit code ("killed by signal SIGSEGV", "exit code 3")."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


@dataclass
class _Slot:
    """One worker process and the job it holds (None when idle)."""

    proc: BaseProcess
    conn: Connection
    job: int | None = None
    started: float = 0.0
    cpu_at_start: float | None = None  # the worker's own CPU seconds when it took the job


@dataclass(frozen=True)
class _Reply:
    status: str  # "ok" | "err" (worker raised) | "died" | "timeout"
    value: Any
    seconds: float


class _WorkerPool:
    """Up to `size` worker processes running `fn(arg)` jobs, one job per worker at a time."""

    def __init__(self, ctx: BaseContext, size: int) -> None:
        self._ctx, self._size = ctx, size
        self._slots: list[_Slot] = []
        self._idle = False  # workers (and their compilers) in SCHED_IDLE: see set_idle
        self._idle_lock = threading.Lock()  # set_idle runs beside map's thread

    def _spawn(self) -> _Slot:
        parent_end, child_end = self._ctx.Pipe()
        proc = self._ctx.Process(
            target=child.pool_worker_main, args=(child_end,), name="tunefarm-build", daemon=True
        )
        proc.start()
        child_end.close()
        slot = _Slot(proc, parent_end)
        with self._idle_lock:
            self._slots.append(slot)
            if self._idle:
                priority.set_idle([proc.pid], True)
        return slot

    def oldest_job_s(self) -> float:
        """How long the oldest job in flight has run (0 when none is)."""
        now = time.monotonic()
        return max((now - s.started for s in list(self._slots) if s.job is not None), default=0.0)

    def set_idle(self, idle: bool) -> None:
        """Put every worker and its compiler in SCHED_IDLE, or back (`measure.priority`);
        workers started while idle start idle."""
        with self._idle_lock:
            self._idle = idle
            priority.set_idle([s.proc.pid for s in list(self._slots)], idle)

    def _discard(self, slot: _Slot) -> None:
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join()
        slot.conn.close()
        self._slots.remove(slot)

    def _dispatch(self, fn: Callable[[Any], Any], args: list[Any], todo: deque[int]) -> None:
        sys_path = list(sys.path)
        while todo:
            idle = [s for s in self._slots if s.job is None]
            if not idle and len(self._slots) >= self._size:
                return
            slot = idle[0] if idle else self._spawn()
            index = todo.popleft()
            try:
                slot.conn.send((sys_path, pickle.dumps((fn, args[index]))))
            except OSError:  # the idle worker died since its last job: replace it, retry
                todo.appendleft(index)
                self._discard(slot)
                continue
            slot.job, slot.started = index, time.monotonic()
            slot.cpu_at_start = cputime.process_cpu_s(slot.proc.pid)

    def _collect(self, slot: _Slot) -> _Reply | None:
        """The reply of a finished or dead worker; None while it is still working."""
        seconds = time.monotonic() - slot.started
        if slot.conn.poll():
            try:
                status, value = slot.conn.recv()
                slot.job = None
                return _Reply(status, value, seconds)
            except (EOFError, OSError):
                pass
        elif slot.proc.is_alive():
            return None
        slot.proc.join(1.0)
        reply = _Reply("died", f"build worker died ({exit_reason(slot.proc.exitcode)})", seconds)
        self._discard(slot)
        return reply

    def _overrun(self, slot: _Slot, cpu_s: float, wall_s: float) -> str:
        """Why the job in `slot` is past its limits ("" while it is not): `wall_s` wall
        seconds, or `cpu_s` CPU seconds of the worker itself (its compilers are limited in
        the worker). Where CPU time cannot be read, wall seconds count against `cpu_s`."""
        elapsed = time.monotonic() - slot.started
        if elapsed >= wall_s:
            return f"ran past the {wall_s:.1f} s wall-clock limit"
        now = cputime.process_cpu_s(slot.proc.pid)
        used = elapsed if now is None or slot.cpu_at_start is None else now - slot.cpu_at_start
        return f"used {cpu_s:.1f} s of CPU time" if used >= cpu_s else ""

    def map(
        self,
        fn: Callable[[Any], Any],
        args: list[Any],
        cpu_s: float,
        wall_s: float,
        on_reply: Callable[[int, _Reply], None] | None = None,
    ) -> list[_Reply | None]:
        """Run fn on every arg; a job whose worker uses `cpu_s` CPU seconds or runs
        `wall_s` wall seconds has its worker killed. on_reply(index, reply) is called as
        each job ends, in the order they end."""
        replies: list[_Reply | None] = [None] * len(args)
        todo = deque(range(len(args)))
        while True:
            self._dispatch(fn, args, todo)
            busy = [s for s in self._slots if s.job is not None]
            if not busy:
                break
            first_deadline = min(s.started for s in busy) + min(wall_s, cpu_s)
            wait(
                [s.conn for s in busy] + [s.proc.sentinel for s in busy],
                timeout=min(_POLL_S, max(0.0, first_deadline - time.monotonic())),
            )
            for slot in busy:
                job = slot.job
                reply = self._collect(slot)
                why = self._overrun(slot, cpu_s, wall_s) if reply is None else ""
                if why:
                    reply = _Reply(
                        "timeout",
                        f"build worker {why} and was killed (hung source generator?)",
                        time.monotonic() - slot.started,
                    )
                    self._discard(slot)
                if reply is not None:
                    replies[job] = reply
                    if on_reply is not None:
                        on_reply(job, reply)
        return replies

    def close(self) -> None:
        for slot in list(self._slots):
            try:
                slot.conn.send(None)
            except OSError:
                pass
            slot.proc.join(1.0)
            self._discard(slot)


class LocalBuilder(Builder):
    """Generate sources with `generate` and compile each with its own toolchain, in
    `n_parallel` worker processes.

    generate: a picklable module-level function (it is sent to the worker processes); the op
        registry's `generate_source` for real tasks.
    timeout_s: CPU seconds for generating plus compiling one candidate (the compiler is
        killed): a build in idle priority (`background`) waiting for a busy core is not
        failed for the wait.
    wall_timeout_s: the wall-clock backstop for a build that hangs without using CPU time;
        None: `WALL_CAP_FACTOR` (4) times timeout_s.
    cache_dir: where `<sha256>.<suffix>` artifacts live; default `$TUNEFARM_CACHE` or
        `~/.cache/tunefarm/build` (read once, here). A file already there is reused.
    cc: a compiler that replaces every toolchain's (a path or a wrapper); "" keeps theirs.
    options: extra compiler flags appended to every build.
    """

    def __init__(
        self,
        generate: SourceGenerator,
        n_parallel: int | None = None,
        timeout_s: float = 30,
        wall_timeout_s: float | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        cc: str = "",
        options: Sequence[str] = (),
    ) -> None:
        n = (os.cpu_count() or 1) if n_parallel is None else n_parallel
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n_parallel must be an int >= 1 or None, got {n_parallel!r}")
        if not isinstance(timeout_s, (int, float)) or not 0 < timeout_s < float("inf"):
            raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        wall = WALL_CAP_FACTOR * timeout_s if wall_timeout_s is None else wall_timeout_s
        if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not 0 < wall < 1e9:
            raise ValueError(
                f"wall_timeout_s must be a positive number of seconds or None, got {wall!r}"
            )
        if not isinstance(cc, str):
            raise ValueError(f"cc must be a compiler command name or path, got {cc!r}")
        if isinstance(options, str) or not all(isinstance(o, str) for o in options):
            raise ValueError(f"options must be a sequence of flag strings, got {options!r}")
        try:
            pickle.dumps(generate)
        except Exception as exc:
            raise ValueError(
                f"generate must be a picklable module-level function, got {generate!r} ({exc})"
            ) from exc
        default_dir = default_cache_dir()
        self.cache_dir = Path(cache_dir if cache_dir is not None else default_dir).absolute()
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.n_parallel, self.timeout_s, self.cc = n, float(timeout_s), cc
        self.wall_timeout_s = float(wall)
        self.generate, self.options = generate, tuple(options)
        self._pool = _WorkerPool(child.process_context(), n)
        self._built: OrderedDict[str, BuildResult] = OrderedDict()  # `_built_before`
        # build() may be called from two threads (`tune.build_ahead` builds the next batch
        # while the tuner's thread rebuilds a recheck's pair): one call uses the pool at a
        # time, and a call whose inputs are all remembered never waits for it
        self._pool_lock, self._memo_lock = threading.Lock(), threading.Lock()
        self._finalizer = weakref.finalize(self, self._pool.close)

    streams_results = True  # build() takes on_result (tune.tuner.build_while_measuring)

    def build(
        self,
        inputs: Sequence[MeasureInput],
        on_result: Callable[[int, BuildResult], None] | None = None,
    ) -> list[BuildResult]:
        """One BuildResult per input, in order; failures are error results, never raised.
        on_result(index, result) is called as each build ends (from this thread), so that
        a caller can measure a candidate while the others still build."""
        inputs = list(inputs)
        for i, inp in enumerate(inputs):
            if not isinstance(inp, MeasureInput):
                raise ValueError(f"inputs[{i}] must be a MeasureInput, got {type(inp).__name__}")
        if not inputs:
            return []
        keys = [json.dumps(inp.to_json(), sort_keys=True, default=repr) for inp in inputs]
        with self._memo_lock:
            results: list[BuildResult | None] = [self._built_before(k) for k in keys]
        todo = [i for i, r in enumerate(results) if r is None]
        for i, r in enumerate(results):
            if r is not None and on_result is not None:
                on_result(i, r)
        cache = str(self.cache_dir)
        jobs = [
            BuildJob(
                inputs[i], self.generate, self.cc, self.options, cache, self.timeout_s,
                self.wall_timeout_s, lowered.pickled_for(keys[i]),
            )
            for i in todo
        ]  # fmt: skip

        def done(j: int, reply: _Reply) -> None:
            if on_result is not None:
                on_result(todo[j], _to_result(reply))

        cpu, wall = self.timeout_s + _GRACE_S, self.wall_timeout_s + _GRACE_S
        replies: list[_Reply | None] = []
        if jobs:
            with self._pool_lock:
                replies = self._pool.map(build_one, jobs, cpu, wall, done)
        for i, reply in zip(todo, replies, strict=True):
            results[i] = _to_result(reply)
            if results[i].ok:  # type: ignore[union-attr]
                with self._memo_lock:
                    self._built[keys[i]] = results[i]  # type: ignore[assignment]
                    self._built.move_to_end(keys[i])
                    while len(self._built) > _BUILT_MEMO:
                        self._built.popitem(last=False)
        return results  # type: ignore[return-value]

    def _built_before(self, key: str) -> BuildResult | None:
        """This builder's own earlier result for the same input, while its artifact is still
        in the cache: a recheck builds the incumbent and the candidate again, and their
        sources (up to seconds of Python on large unrolled kernels) need not be generated
        again to find the artifact they hash to."""
        hit = self._built.get(key)
        if hit is None or hit.artifact is None or not os.path.exists(hit.artifact):
            return None
        self._built.move_to_end(key)
        return replace(hit, build_seconds=0.0)  # nothing was built this time

    @property
    def can_background(self) -> bool:
        """Whether `background` can put the builds in idle priority and take them out."""
        return priority.available()

    def background(self, idle: bool) -> None:
        """idle=True: from now on the builds run only on CPU time nothing else wants
        (SCHED_IDLE), so they can go on while a host kernel is timed on the same cores;
        False: back to the normal policy. Only where `can_background`."""
        self._pool.set_idle(idle)

    def oldest_build_s(self) -> float:
        """Wall seconds the oldest build in flight has run so far (0 when none is)."""
        return self._pool.oldest_job_s()

    def close(self) -> None:
        """Stop the worker processes (also done at exit or when the builder is collected)."""
        self._finalizer()

    def __enter__(self) -> LocalBuilder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _to_result(reply: _Reply | None) -> BuildResult:
    if reply is None:  # not expected: every dispatched job gets a reply
        return BuildResult.failed(MeasureErrorNo.UNKNOWN_ERROR, "build job got no reply")
    if reply.status == "ok" and isinstance(reply.value, BuildResult):
        return reply.value
    if reply.status == "timeout":
        return BuildResult.failed(MeasureErrorNo.BUILD_TIMEOUT, reply.value, reply.seconds)
    if reply.status == "err":
        return BuildResult.failed(
            MeasureErrorNo.BUILD_ERROR, f"build worker failed: {reply.value}", reply.seconds
        )
    return BuildResult.failed(MeasureErrorNo.BUILD_ERROR, str(reply.value), reply.seconds)
