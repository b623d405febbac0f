"""`tunefarm agent`: a device agent, the RPC server of the TVM tutorials.

    tunefarm agent --key rasp4b --target "cpu -isa=neon"

Registers with the tracker under KEY (heartbeats with a TTL), then measures candidates from
the queue measure.KEY one at a time, each in an isolated child process.
"""

from __future__ import annotations

import argparse

from tunefarm.cli import CommandError
from tunefarm.cli._services import add_metrics_argument, config, services, start_metrics

HELP = "run a device agent: register a device key with the tracker and measure its queue"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--key", required=True, help="device key (the pool this device joins)")
    p.add_argument("--target", default="cpu", help="target string of this device (default cpu)")
    p.add_argument("--loglevel", default="INFO", help="Celery log level (default INFO)")
    add_metrics_argument(p)


def run(args: argparse.Namespace) -> int:
    from tunefarm.codegen.target import Target, TargetError
    from tunefarm.distributed.tracker import valid_device_key

    if not valid_device_key(args.key):
        raise CommandError(f"--key {args.key!r}: use 1-64 letters, digits, '-', '_' or '.'")
    try:
        Target.parse(args.target)
    except TargetError as exc:
        raise CommandError(f"--target: {exc}") from None
    config()
    start_metrics(args.metrics_port)
    services("devicerpc.agent").run_agent(args.key, args.target, args.loglevel)
    return 0
