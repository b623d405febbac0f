"""A clean, long-lived process that forks one fresh measurement child per candidate.

Why: every measurement runs in a fresh process (a kernel may crash, hang or scribble over
memory), but starting one through multiprocessing costs far more than the measurement of a
fast candidate. A forkserver child runs the parent's `__main__` module again before its
target (multiprocessing's "prepare" step), so a script that imports onnxruntime or the
benchmark harness paid 0.2-1.4 s per candidate, against 15 ms for a trivial script. The
zygote pays that once: it is started like any child, stays single-threaded, never loads a
kernel, and for each job calls `os.fork()`; the fork runs `child.measure_child` and exits.
Each candidate still gets a process of its own that nothing before it has touched.

The zygote also enforces the child's time limit and reaps it, and answers with the same
reply dicts `measure_child` sends, so a dead or hung child is an ordinary error reply. The
parent side (`Zygote`) replaces a zygote that dies or stops answering.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from multiprocessing.connection import Connection, Pipe
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any

from tunefarm.measure import child
from tunefarm.measure.builder import exit_reason
from tunefarm.measure.errors import MeasureErrorNo

REAP_S = 5.0  # how long a child that already replied may take to exit before it is killed
_GRACE_S = 10.0  # beyond the child's limit before the parent gives up on the zygote itself


def _error(error_no: MeasureErrorNo, msg: str) -> dict[str, Any]:
    return {"error_no": int(error_no), "error_msg": msg}


def _reap(pid: int, grace_s: float) -> int:
    """Wait up to `grace_s` for child `pid` to exit, then kill it; its exit code (negative
    for a signal, as multiprocessing reports it)."""
    deadline, pause = time.monotonic() + grace_s, 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


def _run_forked(send_end: Connection, job: dict[str, Any], others: list[Connection]) -> None:
    """In the fork: measure, reply, and leave without running the zygote's exit handlers."""
    code = 0
    try:
        for conn in others:
            conn.close()
        child.measure_child(send_end, job)
    except BaseException:
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def measure_forked(job: dict[str, Any], timeout_s: float, parent: Connection) -> dict[str, Any]:
    """Fork a child that measures `job`; its reply, or an error reply when it hangs past
    `timeout_s` (killed) or dies before replying (with the signal or exit code)."""
    recv_end, send_end = Pipe(duplex=False)
    pid = os.fork()
    if pid == 0:
        _run_forked(send_end, job, [recv_end, parent])
    send_end.close()  # so that the child's death reads as EOF here
    status: int | None = None
    try:
        if not recv_end.poll(timeout_s):
            os.kill(pid, signal.SIGKILL)
            return _error(
                MeasureErrorNo.RUN_TIMEOUT, f"measurement ran past {timeout_s:g} s and was killed"
            )
        try:
            return recv_end.recv()
        except (EOFError, OSError):
            status = _reap(pid, REAP_S)
            return _error(MeasureErrorNo.RUNTIME_ERROR, f"measurement child {exit_reason(status)}")
    finally:
        recv_end.close()
        if status is None:
            _reap(pid, REAP_S)


def zygote_main(conn: Connection) -> None:
    """Serve (job, timeout_s) requests with one forked child each until the parent hangs up.

    The job's loader is unpickled here, so its module is imported once, before any fork;
    nothing here loads a kernel or starts a thread.
    """
    for job, timeout_s in child.requests(conn):
        if not child.reply(conn, measure_forked(job, timeout_s, conn)):
            return  # the parent stopped while this job ran


class Zygote:
    """The parent's handle on a zygote process, started on first use and replaced when it
    dies or stops answering (that costs only the job it held)."""

    def __init__(self, ctx: BaseContext) -> None:
        self._ctx = ctx
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._owner = 0  # the pid that started the zygote: a forked copy of us must not share it

    def _start(self) -> Connection:
        parent_end, child_end = self._ctx.Pipe()
        proc = self._ctx.Process(
            target=zygote_main, args=(child_end,), name="tunefarm-zygote", daemon=True
        )
        proc.start()
        child_end.close()
        self._proc, self._conn, self._owner = proc, parent_end, os.getpid()
        return parent_end

    def measure(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """`job` measured in a fresh child forked by the zygote (see `measure_forked`).

        A zygote found dead (killed while idle, say) is replaced and the job sent again,
        once; one that holds a job past its limit plus grace is killed and the job fails.
        """
        if self._conn is not None and self._owner != os.getpid():
            self._conn.close()  # inherited through a fork: that zygote answers our parent
            self._proc = self._conn = None
        for _ in range(2):
            conn = self._conn or self._start()
            try:
                conn.send((job, timeout_s))
                if conn.poll(timeout_s + REAP_S + _GRACE_S):
                    return conn.recv()
            except (EOFError, OSError):
                self.close()
                continue
            self.close()
            return _error(MeasureErrorNo.RUNTIME_ERROR, "measurement zygote stopped answering")
        return _error(MeasureErrorNo.RUNTIME_ERROR, "measurement zygote died twice")

    @property
    def pid(self) -> int | None:
        """The zygote's process id while one runs (for tests and diagnostics)."""
        return None if self._proc is None else self._proc.pid

    def close(self) -> None:
        """Stop the zygote (a later `measure` starts a new one)."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if self._owner != os.getpid():  # not ours to stop (we are a fork of its owner)
            if conn is not None:
                conn.close()
            return
        if conn is not None:
            try:
                conn.send(None)
            except OSError:
                pass
            conn.close()
        if proc is not None:
            proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join()


def can_fork() -> bool:
    """Whether this platform has `os.fork` (the zygote needs it; elsewhere every measurement
    starts its own process)."""
    return hasattr(os, "fork") and sys.platform != "win32"
