"""Run the gateway under gunicorn, in-process (what `tunefarm serve gateway` calls).

gthread workers: each worker process serves `threads` requests at once, and a server-sent
event stream holds one thread while it waits on Redis, so threads, not processes, are what
long-lived streams consume. Each worker builds its own app (no preload), so no Redis or
broker connection is shared across a fork; the tokens file is checked once up front so a
malformed one stops the command with its line number instead of crash-looping workers.
"""

from __future__ import annotations

import logging
from typing import Any

from tunefarm_services.gateway import auth

from tunefarm.distributed.config import ServiceConfig

log = logging.getLogger("tunefarm.gateway")


def gunicorn_options(host: str, port: int, workers: int, threads: int) -> dict[str, Any]:
    """gunicorn settings. `timeout` is the worker heartbeat (gthread workers beat while
    requests, streams included, are running); `graceful_timeout` bounds how long open streams
    delay a restart."""
    if workers < 1 or threads < 1:
        raise ValueError(f"workers and threads must be >= 1, got {workers} and {threads}")
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "threads": threads,
        "worker_class": "gthread",
        "timeout": 60,
        "graceful_timeout": 20,
        "keepalive": 5,
        "accesslog": "-",
        "errorlog": "-",
        "proc_name": "tunefarm-gateway",
        "preload_app": False,
    }


def serve(
    host: str = "0.0.0.0",
    port: int = 8080,
    workers: int = 2,
    threads: int = 16,
    config: ServiceConfig | None = None,
) -> None:
    """Serve the gateway until gunicorn is stopped (SIGTERM/SIGINT). Raises
    `auth.TokensFileError` before starting when the tokens file is malformed."""
    from gunicorn.app.base import BaseApplication

    config = config or ServiceConfig.from_env()
    ring = auth.load_tokens(config.tokens_file)
    if not len(ring):
        log.warning("no API tokens: every API call will be refused (set TUNEFARM_TOKENS_FILE)")

    class GatewayApplication(BaseApplication):
        def load_config(self) -> None:
            for key, value in gunicorn_options(host, port, workers, threads).items():
                self.cfg.set(key, value)

        def load(self):
            from tunefarm_services.gateway.app import create_app

            return create_app(config)

    GatewayApplication().run()
