"""Fixtures every integration test may use: a real Redis (database 13 by default, which these
tests own and flush when the session ends) and a `ServiceConfig` whose key prefix and
artifact store are unique to the session. Without a reachable Redis the tests skip."""

from __future__ import annotations

import os
import uuid

import pytest

from tunefarm.distributed.config import ServiceConfig

TEST_REDIS_URL = os.environ.get(
    "TUNEFARM_TEST_REDIS_URL",
    f"redis://127.0.0.1:{os.environ.get('TUNEFARM_TEST_REDIS_PORT', '6379')}/13",
)


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The test Redis URL; skips when Redis does not answer. Flushes the database at the
    end (job state under the session prefix, and the Celery queues, which have none)."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.exceptions.RedisError as exc:
        client.close()
        pytest.skip(f"integration tests need Redis at {TEST_REDIS_URL}: {exc}")
    yield TEST_REDIS_URL
    client.flushdb()
    client.close()


@pytest.fixture(scope="session")
def service_config(redis_url, tmp_path_factory) -> ServiceConfig:
    """Broker and state on the test Redis, a fresh prefix and artifact store."""
    return ServiceConfig(
        broker_url=redis_url,
        redis_url=redis_url,
        prefix=f"tftest-{uuid.uuid4().hex[:12]}",
        artifacts=tmp_path_factory.mktemp("artifacts"),
        heartbeat_ttl_s=120.0,
    )
