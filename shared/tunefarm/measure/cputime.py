"""CPU seconds used by a process or a process group, from /proc, for build limits.

A build's time limit is in CPU seconds, not wall seconds: a build in idle priority
(`measure.priority`, SCHED_IDLE) on a busy host may wait a long time for a core, and that
wait is not the build's fault. gcc forks cc1, as and ld, so a compiler is counted as its
process group: every live member's own time plus the time of the children it has reaped.
Where /proc cannot be read (not Linux) the answers are None and callers fall back to wall
time.
"""

from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (which may hold spaces)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    return text[text.rindex(")") + 2 :].split()


def process_cpu_s(pid: int, children: bool = False) -> float | None:
    """User plus system seconds of `pid` (with children=True also of its reaped children);
    None if it has exited or /proc cannot be read."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    # after the name: state(0) ppid pgrp session tty tpgid flags minflt cminflt majflt
    # cmajflt utime(11) stime(12) cutime(13) cstime(14)
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / _TICKS


def group_cpu_s(pgid: int) -> float | None:
    """CPU seconds of every process in group `pgid`, each with its reaped children; None
    where /proc cannot be read."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    total = 0.0
    for name in names:
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        if fields is None or int(fields[2]) != pgid:
            continue
        total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / _TICKS
    return total
