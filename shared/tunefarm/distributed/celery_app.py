"""The one Celery application every service uses, configured from `ServiceConfig`.

Choices that keep work from being lost or duplicated:
- JSON only on the wire (no pickle): messages are data, never code.
- Late acks + reject on worker lost: a task is acknowledged after it finishes, so a killed
  worker's task is delivered again (the Redis transport restores it once the visibility
  timeout passes). Every task is therefore idempotent.
- Nobody waits on Celery's result backend: a job's steps hand over through its document
  (`pipeline`), candidates and evaluations through claims and results of their own in Redis
  (`tickets`), which the sender watches with deadlines and re-sends when a worker died or
  Redis lost the message. So results are not stored (`task_ignore_result`), and a Redis
  outage cannot fail a task while it stores its return value.
- Prefetch 1: a worker holds at most the message it is running, so a dead worker strands
  nothing else and device agents never queue measurements behind each other.
- Queues carry the stack's prefix (`<prefix>.convert`, ..., `<prefix>.measure.<key>`), so
  two stacks on one Redis database never take each other's tasks.
- Workers reconnect to the broker forever, with backoff: a restarted Redis is found again.
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
from kombu.exceptions import OperationalError

from tunefarm.distributed.config import ServiceConfig

CONVERT, EXTRACT, SEARCH, BUILD, MEASURE, EVALUATE = (
    "tunefarm.convert",
    "tunefarm.extract",
    "tunefarm.search",
    "tunefarm.build",
    "tunefarm.measure",
    "tunefarm.evaluate",
)
# Task -> queue (before the prefix: `ServiceConfig.queue` adds it).
ROUTES = {CONVERT: "convert", EXTRACT: "extract", SEARCH: "search", BUILD: "build"}
QUEUES = ("convert", "extract", "search", "build")

# Errors worth retrying with backoff: the broker or Redis went away for a moment.
TRANSIENT = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OperationalError)

# Time limits (seconds): (soft, hard) per task. A search runs a whole job.
TIME_LIMITS = {
    CONVERT: (600, 660),
    EXTRACT: (300, 360),
    SEARCH: (24 * 3600, 24 * 3600 + 60),
    BUILD: (120, 150),
    MEASURE: (300, 330),
    EVALUATE: (900, 960),
}


def make_app(config: ServiceConfig | None = None, name: str = "tunefarm") -> Any:
    from celery import Celery

    config = config or ServiceConfig.from_env()
    app = Celery(name, broker=config.broker_url, backend=config.broker_url)
    transport = {
        "visibility_timeout": config.visibility_timeout_s,
        "global_keyprefix": "",  # queues are per Redis database; state keys use the prefix
    }
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_routes={task: {"queue": config.queue(q)} for task, q in ROUTES.items()},
        task_default_queue=config.queue("convert"),
        task_ignore_result=True,
        task_track_started=False,
        result_expires=3600,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        result_backend_always_retry=True,
        result_backend_max_retries=20,
        broker_connection_retry_on_startup=True,
        broker_connection_retry=True,
        broker_connection_max_retries=None,
        # A lost connection does not cancel running tasks: a search keeps its lease and its
        # state; its message comes back after the visibility timeout and is dropped then.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        task_annotations={
            name: {"soft_time_limit": soft, "time_limit": hard}
            for name, (soft, hard) in TIME_LIMITS.items()
        },
    )
    app.tunefarm_config = config
    return app
