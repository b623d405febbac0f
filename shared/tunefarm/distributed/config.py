"""Service configuration, read once from the environment (see `docs/services.md`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"


class ConfigError(ValueError):
    """A setting has a value tunefarm cannot use; the message names the variable."""


def _number(env: Mapping[str, str], name: str, default: float, low: float = 0.0) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number") from None
    if value <= low:
        raise ConfigError(f"{name}={raw!r}: expected a number above {low:g}")
    return value


@dataclass(frozen=True)
class ServiceConfig:
    """Where the services find each other and their state.

    broker_url: Celery broker and result backend. redis_url: job state, events, tracker.
    prefix: prefix of every Redis key tunefarm writes, so tests and stacks can share a Redis.
    artifacts: the artifact store's root directory. tokens_file: API tokens (None: none).
    heartbeat_ttl_s: how long an agent stays listed without a heartbeat.
    visibility_timeout_s: how long a message taken by a worker that died stays invisible.
    store: the record store's URL (`TUNEFARM_STORE`, e.g. postgresql://tunefarm@db/tunefarm;
    "none" or unset: jobs do not share records). Records that cannot reach it wait in
    `spool_dir` (under the artifact store) until it is back.
    """

    broker_url: str = DEFAULT_BROKER
    redis_url: str = DEFAULT_BROKER
    prefix: str = "tunefarm"
    artifacts: Path = Path.home() / ".local/share/tunefarm/artifacts"
    tokens_file: str | None = None
    heartbeat_ttl_s: float = 15.0
    visibility_timeout_s: float = 300.0
    max_upload_mb: float = 200.0
    simulate: str = ""  # TUNEFARM_SIMULATE (scale harness): delays instead of compile and run
    max_streams: int = 800  # event streams one gateway process holds (below its connections)
    max_streams_per_token: int = 100
    store: str = "none"

    @property
    def spool_dir(self) -> Path:
        return self.artifacts / "records-spool"

    @staticmethod
    def from_env(env: Mapping[str, str] | None = None) -> ServiceConfig:
        env = os.environ if env is None else env
        broker = env.get("TUNEFARM_BROKER_URL") or DEFAULT_BROKER
        if not broker.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"TUNEFARM_BROKER_URL={broker!r}: expected a redis:// URL")
        prefix = env.get("TUNEFARM_PREFIX") or "tunefarm"
        if not prefix.replace("-", "").replace("_", "").replace(".", "").isalnum():
            raise ConfigError(f"TUNEFARM_PREFIX={prefix!r}: use letters, digits, '-', '_', '.'")
        default_store = Path.home() / ".local/share/tunefarm/artifacts"
        return ServiceConfig(
            broker_url=broker,
            redis_url=env.get("TUNEFARM_REDIS_URL") or broker,
            prefix=prefix,
            artifacts=Path(env.get("TUNEFARM_ARTIFACTS") or default_store).absolute(),
            tokens_file=env.get("TUNEFARM_TOKENS_FILE") or None,
            heartbeat_ttl_s=_number(env, "TUNEFARM_HEARTBEAT_TTL", 15.0),
            visibility_timeout_s=_number(env, "TUNEFARM_VISIBILITY_TIMEOUT", 300.0),
            max_upload_mb=_number(env, "TUNEFARM_MAX_UPLOAD_MB", 200.0),
            simulate=_simulate(env.get("TUNEFARM_SIMULATE") or ""),
            max_streams=int(_number(env, "TUNEFARM_MAX_STREAMS", 800)),
            max_streams_per_token=int(_number(env, "TUNEFARM_MAX_STREAMS_PER_TOKEN", 100)),
            store=env.get("TUNEFARM_STORE") or "none",
        )

    def with_(self, **changes) -> ServiceConfig:
        return replace(self, **changes)

    def key(self, *parts: str) -> str:
        """A Redis key under this stack's prefix."""
        return ":".join((self.prefix, *parts))

    def queue(self, name: str) -> str:
        """A Celery queue name under this stack's prefix (`tunefarm.build`), so two stacks
        on one Redis database never take each other's messages."""
        return f"{self.prefix}.{name}"

    def redis(self, socket_timeout: float = 10.0, max_connections: int | None = None):
        """A Redis client for state (decoded strings). `socket_timeout` bounds every reply:
        a hung Redis becomes an error, not a hang; a command that blocks on purpose (XREAD
        BLOCK) needs a client whose timeout is longer than the block. `max_connections`
        bounds its pool: a command waits (up to `socket_timeout`) for a free connection
        rather than open one more."""
        import redis

        options = dict(
            decode_responses=True,
            socket_timeout=socket_timeout,
            socket_connect_timeout=min(5.0, socket_timeout),
            health_check_interval=30,
        )
        if max_connections is not None:
            pool = redis.BlockingConnectionPool.from_url(
                self.redis_url, max_connections=max_connections, timeout=socket_timeout,
                **options,
            )  # fmt: skip
            return redis.Redis(connection_pool=pool)
        return redis.Redis.from_url(self.redis_url, **options)


def _simulate(text: str) -> str:
    """TUNEFARM_SIMULATE, checked at start-up (a typo must not run real compiles)."""
    from tunefarm.distributed.simulate import Simulation

    try:
        Simulation.parse(text)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return text


def prepare_metrics_dir() -> str:
    """Give prometheus-client a fresh multiprocess directory, so forked Celery workers share
    their counters. Must run before `prometheus_client` (or `tunefarm.metrics`) is imported:
    the library picks its value storage at import time."""
    import tempfile

    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="tunefarm-prom-")
    Path(path).mkdir(parents=True, exist_ok=True)
    for stale in Path(path).glob("*.db"):
        stale.unlink()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    return path
