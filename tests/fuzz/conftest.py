"""Fixtures of the REST API fuzz tests: the gateway app on a private Redis prefix (in-process,
through Flask's test client) and the same gateway served for real (gunicorn + gevent, as
`tunefarm serve gateway` runs it) for the connection-level cases. Without Redis they skip
(which CI turns into a failure)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "integration"))
from api_tokens import DEVICE_KEY, METRICS_TOKEN, READ_TOKEN, TOKEN  # noqa: E402

REDIS_DB = 13


@pytest.fixture(scope="session")
def fuzz_config(tmp_path_factory):
    from stack_env import REDIS_PORT, redis_ok

    from tunefarm.distributed.config import ServiceConfig

    if not redis_ok(REDIS_DB):
        pytest.skip(f"the API fuzz tests need Redis at 127.0.0.1:{REDIS_PORT}")
    tmp = tmp_path_factory.mktemp("fuzz")
    tokens = tmp / "tokens"
    tokens.write_text(
        f"{TOKEN} read,submit submits_per_minute=100000 max_running=100000 "
        "trials_per_day=1000000000 fuzzer\n"
        f"{READ_TOKEN} read reader\n{METRICS_TOKEN} metrics scraper\n"
    )
    url = f"redis://127.0.0.1:{REDIS_PORT}/{REDIS_DB}"
    config = ServiceConfig(
        broker_url=url,
        redis_url=url,
        prefix=f"tffuzz-{uuid.uuid4().hex[:8]}",
        artifacts=tmp / "artifacts",
        tokens_file=str(tokens),
        store=str(tmp / "records.sqlite"),  # the /records routes answer from a real store
    )
    from tunefarm.distributed.tracker import Tracker

    tracker = Tracker(config)
    agent = tracker.register(DEVICE_KEY, "cpu")
    yield config
    tracker.unregister(agent)
    _drop(config)


def _drop(config) -> None:
    """Delete every key of this session's prefix and its queues (the database is shared)."""
    r = config.redis()
    for pattern in (f"{config.prefix}:*", f"{config.prefix}.*"):
        keys = list(r.scan_iter(match=pattern, count=1000))
        if keys:
            r.delete(*keys)


@pytest.fixture(scope="session")
def fuzz_app(fuzz_config):
    from tunefarm_services.gateway.app import create_app

    app = create_app(fuzz_config)
    app.testing = False  # errors go through the handlers, as in production
    return app


def gateway_env(config, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TUNEFARM_BROKER_URL=config.broker_url,
        TUNEFARM_REDIS_URL=config.redis_url,
        TUNEFARM_PREFIX=config.prefix,
        TUNEFARM_ARTIFACTS=str(config.artifacts),
        TUNEFARM_TOKENS_FILE=config.tokens_file,
        PYTHONUNBUFFERED="1",
        **extra,
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


@pytest.fixture(scope="module")
def live_gateway(fuzz_config, tmp_path_factory):
    """`tunefarm serve gateway` on a free port, one worker process; yields its base URL."""
    import requests
    from stack_env import free_port, wait_for

    port = free_port()
    log = tmp_path_factory.mktemp("gateway") / "gateway.log"
    env = gateway_env(fuzz_config, TUNEFARM_BODY_TIMEOUT="3", TUNEFARM_HEADER_TIMEOUT="3")
    cmd = [sys.executable, "-m", "tunefarm", "serve", "gateway", "--port", str(port)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: requests.get(url + "/healthz", timeout=2).ok, 60, "the gateway")
        proc.url, proc.port, proc.log = url, port, log
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
