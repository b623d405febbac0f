"""The browser tests' screenshot folder, announced at the end of a run that wrote to it, so
people can look at what the tests saw (pytest captures the tests' own output)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

# the stack helpers the service tests use (a private Redis db, a free port, wait_for)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"
_started = time.time()


def pytest_sessionstart(session):
    global _started
    _started = time.time()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    fresh = [p for p in SCREENSHOTS.glob("*.png") if p.stat().st_mtime >= _started]
    if fresh:
        terminalreporter.write_sep("-", "web UI screenshots")
        terminalreporter.write_line(f"{len(fresh)} screenshots in {SCREENSHOTS}")
