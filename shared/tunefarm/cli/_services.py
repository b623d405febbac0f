"""What the service commands (serve, worker, agent, devices) share: configuration from the
environment, a reachable Redis, and the metrics endpoint, each failing as one clear line."""

from __future__ import annotations

import argparse
import importlib
import os

from tunefarm.cli import CommandError
from tunefarm.cli._args import number


def add_metrics_argument(p: argparse.ArgumentParser) -> None:
    default = int(os.environ.get("TUNEFARM_METRICS_PORT", "9100") or 9100)
    p.add_argument(
        "--metrics-port",
        type=number(int, 0),
        default=default,
        help="serve Prometheus metrics on this port (0: off; default $TUNEFARM_METRICS_PORT "
        "or 9100)",
    )


def config():
    """The service configuration, with Redis checked, or a CommandError saying what is wrong."""
    from tunefarm.distributed.config import ConfigError, ServiceConfig

    try:
        cfg = ServiceConfig.from_env()
    except ConfigError as exc:
        raise CommandError(str(exc)) from None
    try:
        cfg.redis().ping()
    except Exception as exc:
        raise CommandError(
            f"cannot reach Redis at {cfg.redis_url} ({exc}); set TUNEFARM_REDIS_URL / "
            "TUNEFARM_BROKER_URL or start redis-server",
            code=1,
        ) from None
    return cfg


def start_metrics(port: int, cfg=None) -> None:
    """Prepare multiprocess metrics (before prometheus-client is imported) and serve them."""
    from tunefarm.distributed.config import prepare_metrics_dir

    prepare_metrics_dir()
    if port:
        # imported only now: prometheus-client picks its storage when first imported
        from tunefarm import metrics
        from tunefarm.distributed.state_metrics import StateCollector

        metrics.STARTED.set_to_current_time()
        try:
            metrics.serve(port, [StateCollector(cfg)] if cfg is not None else [])
        except OSError as exc:
            raise CommandError(f"--metrics-port {port}: {exc}", code=1) from None


def services(module: str):
    """Import a module of the services package, or explain how to install it."""
    try:
        return importlib.import_module(f"tunefarm_services.{module}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("tunefarm_services"):
            raise CommandError(
                "the services package is not installed: pip install -e ./services "
                "(make venv does it)",
                code=1,
            ) from None
        raise
