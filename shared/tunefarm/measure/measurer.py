"""A persistent measurer: one long-lived process per device (or per core set, for host
kernels) that measures candidate after candidate, replaced only when one of them breaks it.

Why: a fresh process per candidate (`measure.zygote`) is right for host kernels, which run
in the process and may scribble over its memory; on a GPU it costs a new device context per
candidate (about 0.1-0.3 s of CUDA initialisation, and pocl's device setup), far more than
the measurement of a fast kernel. A device kernel cannot touch the measurer's memory, so the
measurer keeps its context and only loads each candidate's module, times it and unloads it.

What breaks a measurer, and what it costs: a kernel that faults (an illegal address leaves a
CUDA context unusable; a pocl kernel runs on the CPU and may crash the process) or that never
returns. The parent turns each into an error reply for that candidate only: a hang is killed
at the time limit, a crash is read as the process's death, and after any exception while
loading or running (the context may be poisoned) the measurer replies and exits. The next
candidate gets a fresh measurer; the batch goes on.

Host kernels (the `cpu` backend) run inside the measurer itself, so one that writes out of
bounds could corrupt it unseen. What can be seen is handled: a segfault or a hang costs the
candidate and the process as above, and a job marked `in_process` (a host kernel) that fails
in any way, a wrong answer or a nonzero return included, also retires its measurer after the
reply, so a candidate that scribbled and then answered wrong never shares a process with the
next. A candidate that scribbles and still answers right is the residual risk that a fresh
process per candidate (TUNEFARM_PERSISTENT_MEASURER=0) does not have; its price is about
0.1 s of process start, reference-data load and library load per candidate.
"""

from __future__ import annotations

import os
import traceback
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any

from tunefarm.measure import child
from tunefarm.measure.builder import exit_reason
from tunefarm.measure.compile import MAX_STDERR, describe
from tunefarm.measure.errors import MeasureErrorNo

REAP_S = 5.0


def _error(error_no: MeasureErrorNo, msg: str) -> dict[str, Any]:
    return {"error_no": int(error_no), "error_msg": msg}


def measure_in_place(job: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """(reply, whether this process may go on measuring) for one job measured here.

    Wrong answers and clean kernel errors of a device kernel leave the process usable; an
    exception (a driver error, a fault) may have poisoned the device context, so the process
    should exit."""
    try:
        return child.measure_job(job), True
    except Exception as exc:
        tb = traceback.format_exc(limit=3)
        return _error(MeasureErrorNo.RUNTIME_ERROR, f"{describe(exc)}\n{tb[-MAX_STDERR:]}"), False


def measurer_main(conn: Connection) -> None:
    """Serve jobs until the parent hangs up, or until one leaves the device unusable."""
    for job in child.requests(conn):
        reply, healthy = measure_in_place(job)
        if job.get("in_process") and reply["error_no"] != int(MeasureErrorNo.NO_ERROR):
            healthy = False  # a failed host kernel may have scribbled over this process
        reply["measurer_pid"], reply["measurer_exits"] = os.getpid(), not healthy
        if not child.reply(conn, reply):
            return  # the parent stopped while this job ran
        if not healthy:
            conn.close()
            os._exit(0)  # the parent reads EOF and starts a fresh measurer on the next job


class Measurer:
    """The parent's handle on the persistent measurer of one device: started on first use,
    replaced after a candidate that kills, hangs or poisons it."""

    def __init__(self, ctx: BaseContext) -> None:
        self._ctx = ctx
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._owner = 0
        self.restarts = 0  # measurers replaced so far (for tests and diagnostics)

    def _start(self) -> Connection:
        parent_end, child_end = self._ctx.Pipe()
        proc = self._ctx.Process(
            target=measurer_main, args=(child_end,), name="tunefarm-measurer", daemon=True
        )
        proc.start()
        child_end.close()
        self._proc, self._conn, self._owner = proc, parent_end, os.getpid()
        return parent_end

    @property
    def pid(self) -> int | None:
        """The measurer's process id while one runs."""
        return None if self._proc is None else self._proc.pid

    def measure(self, job: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """`job` measured in the persistent measurer; an error reply where the candidate
        hangs past `timeout_s` (the measurer is killed) or kills the measurer."""
        if self._conn is not None and self._owner != os.getpid():
            self._conn.close()  # inherited through a fork: that measurer answers our parent
            self._proc = self._conn = None
        conn = self._conn or self._start()
        try:
            conn.send(job)
        except OSError:  # found dead while idle: once more with a fresh one
            self._replace()
            conn = self._start()
            conn.send(job)
        try:
            if not conn.poll(timeout_s):
                self._replace()
                return _error(
                    MeasureErrorNo.RUN_TIMEOUT,
                    f"measurement ran past {timeout_s:g} s; the measurer was killed and replaced",
                )
            reply = conn.recv()
        except (EOFError, OSError):
            code = self._replace()
            cut = child.cut_reply(job, code)  # its checked run passed the deadline it was given
            if cut is not None:
                return cut
            return _error(
                MeasureErrorNo.RUNTIME_ERROR,
                f"the measurer died while running this candidate ({exit_reason(code)}); "
                "it was replaced",
            )
        if reply.pop("measurer_exits", False):  # it exits after replying: reap it now
            self._replace()
        return reply

    def _replace(self) -> int | None:
        """Kill and reap the current measurer; its exit code."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        self.restarts += 1
        if conn is not None:
            conn.close()
        if proc is None:
            return None
        proc.join(0.5 if proc.is_alive() else 0)
        if proc.is_alive():
            proc.kill()
        proc.join(REAP_S)
        return proc.exitcode

    def close(self) -> None:
        """Stop the measurer (a later `measure` starts a new one)."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            if self._owner == os.getpid():
                try:
                    conn.send(None)
                except OSError:
                    pass
            conn.close()
        if proc is not None and self._owner == os.getpid():
            proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
