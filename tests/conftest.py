"""Tiers that cannot run skip with their reason (no Redis, no Chromium, no kubectl) on a
developer's machine; in CI (`TUNEFARM_REQUIRE_ALL_TIERS=1`, set by .ci/run) a skip fails the
run, so a tier that silently stopped running cannot pass for green. Tests marked `gpu` are
deselected by `make test` (`-m "not gpu"`), not skipped: they run only on a GPU machine. Asked
for by name where there is no CUDA device (`pytest -m gpu`, or a gpu test's node id), each
skips saying why (`_no_cuda_device`) rather than failing on the missing driver.

`make test` runs two pytest processes at once (Makefile, SERVICE_TESTS): the tiers that use
the test Redis (Celery's queues there carry no key prefix, and the integration fixture
flushes the database when its session ends) and start the services, one after another in
one process; everything else in the other."""

from __future__ import annotations

import ctypes
import functools
import os

import pytest

REQUIRE_ALL = os.environ.get("TUNEFARM_REQUIRE_ALL_TIERS") == "1"
# The CLI's record store defaults to the user's cache directory; tests that want one name it.
os.environ.setdefault("TUNEFARM_STORE", "none")


@functools.cache
def _no_cuda_device() -> str | None:
    """Why the `gpu` tests cannot run here (no libcuda, or the driver sees no device), or
    None. Asked once a session, in this process: the measurement children are started apart
    (forkserver), so a CUDA context here is never inherited by a fork."""
    from tunefarm.backends.cuda import driver

    try:
        driver.call("cuInit", 0)
        count = ctypes.c_int()
        driver.call("cuDeviceGetCount", ctypes.byref(count))
    except driver.CudaError as exc:
        return f"no CUDA device: {exc}"
    return None if count.value > 0 else "no CUDA device: the driver reports 0 devices"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("gpu") is not None:
        reason = _no_cuda_device()
        if reason is not None:
            pytest.skip(f"gpu test: {reason}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not REQUIRE_ALL:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        reporter.write_line(
            f"TUNEFARM_REQUIRE_ALL_TIERS=1: {len(skipped)} test(s) skipped; every tier must "
            "run in CI (see the skip reasons above)",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
