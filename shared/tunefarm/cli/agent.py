"""`tunefarm agent`: a device agent, the RPC server of the TVM tutorials.

    tunefarm agent --key rasp4b --target "cpu -isa=neon"

Registers with the tracker under KEY (heartbeats with a TTL), then measures candidates from
the queue measure.KEY one at a time, each in an isolated child process.
"""

from __future__ import annotations

import argparse

from tunefarm.cli import CommandError
from tunefarm.cli._args import add_target_argument, checked_target, number
from tunefarm.cli._services import add_metrics_argument, config, services, start_metrics

HELP = "run a device agent: register a device key with the tracker and measure its queue"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--key", required=True, help="device key (the pool this device joins)")
    add_target_argument(p)
    p.add_argument("--loglevel", default="INFO", help="Celery log level (default INFO)")
    p.add_argument(
        "--slots",
        type=number(int, 1),
        default=1,
        help="agents in this process, one thread each: simulated devices only "
        "(TUNEFARM_SIMULATE, the scale harness); a real device measures one at a time",
    )
    p.add_argument(
        "--log-json", action="store_true", help="log one JSON object per line (for collectors)"
    )
    add_metrics_argument(p)


def run(args: argparse.Namespace) -> int:
    from tunefarm.distributed.tracker import valid_device_key

    if not valid_device_key(args.key):
        raise CommandError(f"--key {args.key!r}: use 1-64 letters, digits, '-', '_' or '.'")
    target = str(checked_target(args.target))
    if args.slots > 1 and not config().simulate:
        raise CommandError(
            f"--slots {args.slots}: only simulated devices (TUNEFARM_SIMULATE) share a process; "
            "a real device runs one agent"
        )
    config()
    start_metrics(args.metrics_port)
    if args.log_json:
        from tunefarm.distributed.logs import use_json_logs

        use_json_logs(args.loglevel)
    services("agent.tasks").run_agent(args.key, target, args.loglevel, args.slots)
    return 0
