"""Entry point of the Celery workers: `tunefarm worker {converter,extractor,search,buildfarm}`.

Each worker imports only its own task module and consumes only its own queue (under the
stack's prefix). Every worker also runs the watchdog (`tunefarm.distributed.watchdog`) in
its main process; the watchdogs of a stack take turns through a Redis lock.
"""

from __future__ import annotations

import importlib

WORKERS = {
    # service: (task module, queue, default concurrency; None: the number of cores)
    "converter": ("tunefarm_services.converter.tasks", "convert", 1),
    "extractor": ("tunefarm_services.extractor.tasks", "extract", 1),
    "search": ("tunefarm_services.search.tasks", "search", 1),
    "buildfarm": ("tunefarm_services.buildfarm.tasks", "build", None),
}


def run_worker(
    service: str, concurrency: int | None = None, loglevel: str = "INFO", pool: str = "prefork"
) -> None:
    import os

    module, queue, default = WORKERS[service]
    importlib.import_module(module)
    from tunefarm_services.app import app, config

    n = concurrency or default or os.cpu_count() or 1
    argv = ["worker", "-Q", config.queue(queue), "-c", str(n), "-P", pool, "-l", loglevel]
    name = f"{service}-{os.getpid()}@%h"
    start_watchdog()
    app.worker_main([*argv, "-n", name, "--without-gossip", "--without-mingle"])


def start_watchdog():
    """The watchdog thread of this process (started before the worker forks its pool:
    only the main process runs it)."""
    from tunefarm_services.app import app, config

    from tunefarm.distributed.watchdog import Watchdog

    return Watchdog(config, app).start()
