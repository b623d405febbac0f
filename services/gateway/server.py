"""Run the gateway under gunicorn, in-process (what `tunefarm serve gateway` calls).

Why gevent workers: a server-sent event stream waits on Redis for as long as a job runs, and
a slow or hostile client can hold a connection open while it trickles in its headers or
body. With threads each of those holds one of a handful of threads, so a few of them starve
`/healthz` and the API. Under gevent each connection is a greenlet (up to
`worker_connections` of them per process), so waiting costs memory, not the server.

What bounds a connection:
- headers: the whole request line and headers must arrive within `HEADER_TIMEOUT_S`
  (TUNEFARM_HEADER_TIMEOUT)
  (gunicorn's keep-alive timer, which the gevent worker applies to every request read,
  the first one included); then the connection is closed;
- body: `BodyDeadline` gives the body `BODY_BASE_S` (TUNEFARM_BODY_TIMEOUT) plus one
  second per `BODY_MIN_RATE`
  bytes of its declared length; past that the request ends with 408;
- connections: `worker_connections` per worker process.

Each worker builds its own app (no preload), so no Redis or broker connection is shared
across a fork; the tokens file is checked once up front so a malformed one stops the command
with its line number instead of crash-looping workers.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from tunefarm_services.gateway import auth

from tunefarm.distributed.config import ServiceConfig

log = logging.getLogger("tunefarm.gateway")

HEADER_TIMEOUT_S = 5  # TUNEFARM_HEADER_TIMEOUT
BODY_BASE_S = 30.0  # TUNEFARM_BODY_TIMEOUT
BODY_MIN_RATE = 256 * 1024  # bytes per second an upload must average beyond BODY_BASE_S
WORKER_CONNECTIONS = 1000
WORKER_CLASS = "gevent"


def gunicorn_options(host: str, port: int, workers: int, connections: int) -> dict[str, Any]:
    """gunicorn settings. `timeout` is the worker heartbeat (the gevent worker beats from its
    own loop, so long streams do not trip it); `graceful_timeout` bounds how long open
    streams delay a restart; `keepalive` doubles as the header read timeout."""
    if workers < 1 or connections < 1:
        raise ValueError(f"workers and connections must be >= 1, got {workers}, {connections}")
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "worker_class": WORKER_CLASS,
        "worker_connections": connections,
        "timeout": 60,
        "graceful_timeout": 20,
        "keepalive": max(1, round(_seconds("TUNEFARM_HEADER_TIMEOUT", HEADER_TIMEOUT_S))),
        "limit_request_line": 8190,
        "limit_request_fields": 100,
        "limit_request_field_size": 8190,
        "accesslog": "-",
        "errorlog": "-",
        "proc_name": "tunefarm-gateway",
        "preload_app": False,
    }


class BodyDeadline:
    """WSGI middleware: reading the request body must finish by a deadline set from its
    declared length, else 408. Works under gevent (the reads are cooperative)."""

    def __init__(self, app: Any, base_s: float | None = None) -> None:
        self.app = app
        self.base_s = (
            base_s if base_s is not None else _seconds("TUNEFARM_BODY_TIMEOUT", BODY_BASE_S)
        )

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        length = _int(environ.get("CONTENT_LENGTH"))
        deadline = time.monotonic() + self.base_s + length / BODY_MIN_RATE
        environ["wsgi.input"] = _DeadlineInput(environ["wsgi.input"], deadline)
        return self.app(environ, start_response)


class _DeadlineInput:
    def __init__(self, inner: Any, deadline: float) -> None:
        self.inner, self.deadline = inner, deadline

    def _call(self, method: str, *args: Any) -> Any:
        import gevent
        from werkzeug.exceptions import RequestTimeout

        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RequestTimeout("the request body did not arrive in time")
        try:
            with gevent.Timeout(left):
                return getattr(self.inner, method)(*args)
        except gevent.Timeout:
            raise RequestTimeout("the request body did not arrive in time") from None

    def read(self, *args: Any) -> bytes:
        return self._call("read", *args)

    def readline(self, *args: Any) -> bytes:
        return self._call("readline", *args)

    def readlines(self, *args: Any) -> list[bytes]:
        return self._call("readlines", *args)

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line


def _seconds(name: str, default: float) -> float:
    """A positive number of seconds from the environment (else `default`)."""
    import os

    from tunefarm.distributed.config import _number

    return _number(os.environ, name, default)


def _int(text: Any) -> int:
    try:
        return max(0, int(text or 0))
    except ValueError:
        return 0


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = 2,
    connections: int = WORKER_CONNECTIONS,
    config: ServiceConfig | None = None,
    log_json: bool = False,
) -> None:
    """Serve the gateway until gunicorn is stopped (SIGTERM/SIGINT). Raises
    `auth.TokensFileError` before starting when the tokens file is malformed. `log_json`:
    every log line (gunicorn's access and error logs included) as one JSON object."""
    from gunicorn.app.base import BaseApplication

    config = config or ServiceConfig.from_env()
    ring = auth.load_tokens(config.tokens_file)
    if not len(ring):
        log.warning("no API tokens: every API call will be refused (set TUNEFARM_TOKENS_FILE)")

    class GatewayApplication(BaseApplication):
        def load_config(self) -> None:
            for key, value in gunicorn_options(host, port, workers, connections).items():
                self.cfg.set(key, value)
            if log_json:
                from tunefarm.distributed.logs import json_dictconfig

                self.cfg.set("logconfig_dict", json_dictconfig())

        def load(self):
            from tunefarm_services.gateway.app import create_app

            return BodyDeadline(create_app(config))

    GatewayApplication().run()
