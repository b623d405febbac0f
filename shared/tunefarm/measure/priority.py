"""Idle-priority builds: compilers that use only the CPU time a measurement leaves free.

A compiler on the cores where a host kernel is being timed would slow the kernel and blur its
figure, so host builds and host measurement used to take turns, and every core the
measurement left idle (the measurer's loading and checking, a one-thread kernel's other
cores, the parent's proposals) was lost to the builds. Linux's SCHED_IDLE policy runs a
process only on a core that nothing else wants: the builds of the next candidates can go on
under a measurement without taking CPU time from it, and go back to the normal policy when
the measurement ends, so that on a host busy with other work they do not starve.

Going back from SCHED_IDLE needs CAP_SYS_NICE or an RLIMIT_NICE that allows the process's
nice value; `available()` says whether this process has either (where not, host builds do
not overlap measurement).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterable
from pathlib import Path

_CAP_SYS_NICE = 23


def available() -> bool:
    """Whether processes of ours can be put in SCHED_IDLE and taken out of it again, and
    their compilers found (/proc/PID/task/TID/children)."""
    if not hasattr(os, "SCHED_IDLE") or not Path(f"/proc/{os.getpid()}/task").is_dir():
        return False
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        return False
    return _has_cap_sys_nice() or _rlimit_allows_nice(os.getpriority(os.PRIO_PROCESS, 0))


def _has_cap_sys_nice() -> bool:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_NICE & 1)
    except (OSError, ValueError):
        pass
    return False


def _rlimit_allows_nice(nice: int) -> bool:
    """The kernel's can_nice(): nice value n is allowed while 20 - n <= RLIMIT_NICE."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NICE)
    return soft == resource.RLIM_INFINITY or 20 - nice <= soft


def set_idle(pids: Iterable[int], idle: bool) -> None:
    """Put each process in `pids` and all its descendants in SCHED_IDLE (idle=True) or back
    in SCHED_OTHER. Each process is set before its children are listed, so a child forked
    meanwhile either inherits the new policy or is listed. Processes that have exited are
    skipped."""
    policy = os.SCHED_IDLE if idle else os.SCHED_OTHER
    todo = list(pids)
    seen: set[int] = set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo += _set_process(pid, policy)


def _set_process(pid: int, policy: int) -> list[int]:
    """Set every thread of `pid` to `policy`; its children (empty if it has exited)."""
    children: list[int] = []
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return children
    for tid in tids:
        try:
            os.sched_setscheduler(tid, policy, os.sched_param(0))
            text = Path(f"/proc/{pid}/task/{tid}/children").read_text()
        except (ProcessLookupError, FileNotFoundError):
            continue
        children += [int(c) for c in text.split()]
    return children


def policy_of(pid: int) -> int:
    """The scheduling policy of process `pid` (os.SCHED_IDLE, os.SCHED_OTHER, ...)."""
    return os.sched_getscheduler(pid)
