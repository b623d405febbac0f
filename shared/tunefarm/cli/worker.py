"""`tunefarm worker SERVICE`: run one of the Celery workers on its queue.

    tunefarm worker converter | extractor | search | buildfarm [--concurrency N] [--pool P]

Configuration comes from the environment (TUNEFARM_BROKER_URL, TUNEFARM_ARTIFACTS, ...; see
docs/services.md). Metrics are served on --metrics-port.
"""

from __future__ import annotations

import argparse

from tunefarm.cli._args import number
from tunefarm.cli._services import add_metrics_argument, config, services, start_metrics

HELP = "run a service worker (converter, extractor, search, buildfarm) on its Celery queue"
SERVICES = ("converter", "extractor", "search", "buildfarm")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("service", choices=SERVICES, help="which worker")
    p.add_argument(
        "--concurrency",
        type=number(int, 1),
        help="worker processes (default: 1; buildfarm: the number of cores)",
    )
    p.add_argument(
        "--pool",
        choices=("prefork", "threads"),
        default="prefork",
        help="prefork (default): one process per slot; threads: slots share a process "
        "(simulated build workers, or search slots that mostly wait on the farm)",
    )
    p.add_argument("--loglevel", default="INFO", help="Celery log level (default INFO)")
    p.add_argument(
        "--log-json", action="store_true", help="log one JSON object per line (for collectors)"
    )
    add_metrics_argument(p)


def run(args: argparse.Namespace) -> int:
    config()  # fail early, in one line, when Redis is not there
    start_metrics(args.metrics_port)
    if args.log_json:
        from tunefarm.distributed.logs import use_json_logs

        use_json_logs(args.loglevel)
    services("worker").run_worker(args.service, args.concurrency, args.loglevel, args.pool)
    return 0
