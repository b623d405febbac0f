"""`tunefarm serve`: the gateway (REST API, web UI, /metrics), or the whole stack locally.

    tunefarm serve gateway [--host 0.0.0.0] [--port 8080] [--workers 2] [--threads 8]
    tunefarm serve stack [--port 8080] [--agents 2] [--key local] [--target cpu]

`serve stack` starts every service as a local process against the Redis in
TUNEFARM_BROKER_URL (no containers), logs to --log-dir, and stops them all on Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import time

from tunefarm.cli._args import number
from tunefarm.cli._services import config, services

HELP = "run the gateway, or the whole service stack as local processes"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=("gateway", "stack"), help="what to serve")
    p.add_argument("--host", default="0.0.0.0", help="gateway address (default 0.0.0.0)")
    p.add_argument("--port", type=number(int, 1), default=8080, help="gateway port (8080)")
    p.add_argument("--workers", type=number(int, 1), default=2, help="gateway processes")
    p.add_argument("--threads", type=number(int, 1), default=8, help="threads per process")
    p.add_argument("--agents", type=number(int, 0), default=1, help="stack: device agents")
    p.add_argument("--key", default="local", help="stack: the agents' device key")
    p.add_argument("--target", default="cpu", help="stack: the agents' target")
    p.add_argument("--build-workers", type=number(int, 1), default=1, help="stack: build farm")
    p.add_argument("--log-dir", default="build/stack", help="stack: where logs go")


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    config()
    if args.what == "gateway":
        from tunefarm.distributed.config import prepare_metrics_dir

        prepare_metrics_dir()
        services("gateway.server").serve(args.host, args.port, args.workers, args.threads)
        return 0
    stack_mod = services("stack")
    spec = stack_mod.StackSpec(
        port=args.port,
        agents=[(args.key, args.target)] * args.agents,
        build_workers=args.build_workers,
    )
    stack = stack_mod.LocalStack(spec, dict(os.environ), args.log_dir)
    # SIGTERM (docker stop, timeout, kill) stops the stack like Ctrl-C does: the services run
    # in their own sessions and would otherwise outlive this process.
    signal.signal(signal.SIGTERM, _interrupt)
    with stack:
        print(f"tunefarm stack: gateway on http://127.0.0.1:{args.port}, logs in {args.log_dir}")
        try:
            while not stack.dead():
                time.sleep(1)
            print(f"a process exited: {stack.dead()}; stopping the stack")
            return 1
        except KeyboardInterrupt:
            print("stopping the stack")
    return 0
