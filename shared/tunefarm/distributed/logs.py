"""Structured logs for the services (`--log-json` on worker, agent and serve): one JSON
object per line, so a log collector (Loki, Elasticsearch, `jq`) reads fields instead of
parsing Celery's text lines.

Celery configures its loggers itself when a worker starts; `use_json_logs` hooks its
`after_setup_logger` / `after_setup_task_logger` signals so whatever handlers Celery installs
get the JSON formatter, and gives the root logger one JSON handler for everything else.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

# LogRecord attributes that are not "extra" fields passed by the caller
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JSONFormatter(logging.Formatter):
    """A record as `{"ts", "level", "logger", "message", "process", ...extra, "exc"}`."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                doc[key] = (
                    value if isinstance(value, (int, float, str, bool, type(None))) else str(value)
                )
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc)


def _json_handlers(logger: logging.Logger | None = None, **_: Any) -> None:
    """Give every handler of `logger` (Celery's, after it set them up) the JSON formatter."""
    for handler in (logger or logging.getLogger()).handlers:
        handler.setFormatter(JSONFormatter())


def use_json_logs(level: str = "INFO") -> None:
    """Log JSON lines to stderr from now on, Celery's worker and task loggers included."""
    from celery.signals import after_setup_logger, after_setup_task_logger

    root = logging.getLogger()
    root.handlers = [logging.StreamHandler(sys.stderr)]
    root.setLevel(level.upper())
    _json_handlers(root)
    after_setup_logger.connect(_json_handlers, weak=False)
    after_setup_task_logger.connect(_json_handlers, weak=False)


def stop_json_logs() -> None:
    """Stop giving Celery's loggers the JSON formatter (`use_json_logs` undone for loggers
    set up later; a test or an embedded caller that switches logging back)."""
    from celery.signals import after_setup_logger, after_setup_task_logger

    after_setup_logger.disconnect(_json_handlers)
    after_setup_task_logger.disconnect(_json_handlers)


def json_dictconfig(level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` document sending everything to stderr as JSON lines
    (gunicorn takes it as `logconfig_dict`: its error and access logs included)."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JSONFormatter"}},
        "handlers": {"json": handler},
        "root": {"handlers": ["json"], "level": level},
        "loggers": {
            name: {"handlers": ["json"], "level": level, "propagate": False}
            for name in ("gunicorn.error", "gunicorn.access")
        },
    }
