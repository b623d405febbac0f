"""Helpers for tests that run the real services: a private Redis database and key prefix,
a free port, a tokens file, and polling with a deadline that says what it waited for."""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

# TUNEFARM_TEST_REDIS_PORT points every tier at a private redis-server (several checkouts testing
# on one machine would otherwise flush each other's databases).
REDIS_HOST, REDIS_PORT = "127.0.0.1", int(os.environ.get("TUNEFARM_TEST_REDIS_PORT", "6379"))


def redis_ok(db: int) -> bool:
    try:
        import redis

        return bool(redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db).ping())
    except Exception:
        return False


def flush_db(db: int) -> None:
    import redis

    redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db).flushdb()


def free_port() -> int:
    """A port no server holds now, picked below the kernel's ephemeral range. A port from
    bind(0) lies inside that range, where the stack's own outgoing Redis connections can take
    it, or the metrics ports after it, before the server binds."""
    from tunefarm_services.stack import port_is_free

    low = _ephemeral_low()
    high = low - 100 if low > 21000 else 30000  # a range starting low can't be avoided
    for _ in range(500):
        port = random.randrange(20000, high)
        if port_is_free(port):
            return port
    raise RuntimeError(f"no free port in 20000..{high}")


def _ephemeral_low(default: int = 32768) -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def stack_env(tmp: Path, db: int, tokens: dict[str, str], **extra: str) -> dict[str, str]:
    """Environment of a test stack: its own Redis database, prefix, store and tokens."""
    import os

    tokens_file = tmp / "tokens.txt"
    tokens_file.write_text("".join(f"{tok} {scopes}\n" for tok, scopes in tokens.items()))
    env = dict(os.environ)
    env.update(
        TUNEFARM_BROKER_URL=f"redis://{REDIS_HOST}:{REDIS_PORT}/{db}",
        TUNEFARM_REDIS_URL=f"redis://{REDIS_HOST}:{REDIS_PORT}/{db}",
        TUNEFARM_PREFIX=f"tftest-{uuid.uuid4().hex[:8]}",
        TUNEFARM_ARTIFACTS=str(tmp / "artifacts"),
        TUNEFARM_TOKENS_FILE=str(tokens_file),
        # short, so a killed agent leaves the tracker quickly, yet longer than a heartbeat
        # can lapse while `make test`'s other worker loads both cores (4 s lapsed once: the
        # gateway refused a job for a key whose agents were alive)
        TUNEFARM_HEARTBEAT_TTL="8",
        TUNEFARM_VISIBILITY_TIMEOUT="15",
        TUNEFARM_CACHE=str(tmp / "cache"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(extra)
    return env


def wait_for(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.3) -> Any:
    """Poll `check` until it returns something truthy; fail naming `what` on timeout."""
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except Exception as exc:  # not ready yet (connection refused, ...)
            last_error = exc
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what} ({last_error})")


def app_once_agent_joins(stack: Any, key: str, timeout_s: float) -> tuple[Any, Any]:
    """The Celery app of a started test stack and its tracker, once an agent under device
    key `key` is in the tracker (its stack still alive)."""
    from tunefarm.distributed.celery_app import make_app
    from tunefarm.distributed.config import ServiceConfig
    from tunefarm.distributed.tracker import Tracker

    config = ServiceConfig.from_env(stack.env)
    tracker = Tracker(config)
    wait_for(lambda: key in tracker.targets(), timeout_s, f"the {key} agent in the tracker")
    stack.check_alive()
    return make_app(config), tracker
