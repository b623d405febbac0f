"""`tunefarm serve`: the gateway (REST API, web UI, /metrics), or the whole stack locally.

    tunefarm serve gateway [--host 127.0.0.1] [--port 8080] [--workers 2] [--connections N]
    tunefarm serve stack [--host 127.0.0.1] [--port 8080] [--agents 2] [--key local]
                         [--target cpu] [--redis-dir DIR]

`serve stack` starts every service as a local process against the Redis in
TUNEFARM_BROKER_URL (no containers), logs to --log-dir, and stops them all on Ctrl-C. With
--redis-dir it first starts its own redis-server with an append-only file in DIR (the
persistence the Kubernetes manifests give Redis), so job state survives a restart of it;
otherwise it says at start-up whether the Redis it uses persists.

The gateway listens on 127.0.0.1 unless told otherwise: the container image and the
manifests pass --host 0.0.0.0, where a Service or an ingress fronts it.
"""

from __future__ import annotations

import argparse
import os
import signal
import time

from tunefarm.cli import CommandError
from tunefarm.cli._args import number
from tunefarm.cli._services import config, services

HELP = "run the gateway, or the whole service stack as local processes"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=("gateway", "stack"), help="what to serve")
    p.add_argument("--host", default="127.0.0.1", help="gateway address (default 127.0.0.1)")
    p.add_argument("--port", type=number(int, 1), default=8080, help="gateway port (8080)")
    p.add_argument("--workers", type=number(int, 1), default=2, help="gateway processes")
    p.add_argument(
        "--connections",
        type=number(int, 1),
        default=1000,
        help="open connections per gateway process (gevent; default 1000)",
    )
    p.add_argument("--agents", type=number(int, 0), default=1, help="stack: device agents")
    p.add_argument("--key", default="local", help="stack: the agents' device key")
    p.add_argument("--target", default="cpu", help="stack: the agents' target")
    p.add_argument("--build-workers", type=number(int, 1), default=1, help="stack: build farm")
    p.add_argument("--log-dir", default="build/stack", help="stack: where logs go")
    p.add_argument(
        "--log-json",
        action="store_true",
        help="log one JSON object per line (gateway; stack: every process it starts)",
    )
    p.add_argument(
        "--redis-dir",
        help="stack: start a private redis-server with an append-only file in this directory",
    )


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    if args.what == "gateway":
        _patch_for_gevent()
        config()
        from tunefarm.distributed.config import prepare_metrics_dir

        prepare_metrics_dir()
        services("gateway.server").serve(
            args.host, args.port, args.workers, args.connections, log_json=args.log_json
        )
        return 0
    stack_mod = services("stack")
    redis_server = _private_redis(stack_mod, args.redis_dir) if args.redis_dir else None
    try:
        return _run_stack(stack_mod, args)
    finally:
        if redis_server is not None:
            redis_server.stop()


def _patch_for_gevent() -> None:
    """The gateway's workers are gevent's: patch the standard library before anything
    imports ssl or socket users (Redis, Celery), as gevent asks, rather than after the fork."""
    try:
        from gevent import monkey
    except ImportError:  # the server will say what is missing
        return
    monkey.patch_all()


def _private_redis(stack_mod, data_dir: str):
    """Start redis-server with an append-only file in `data_dir` on the first free port from
    6390 and point this process's environment (so every service) at it."""
    port = 6390
    while not stack_mod.port_is_free(port):
        port += 1
    try:
        server = stack_mod.RedisServer(data_dir, port).start()
    except (OSError, RuntimeError) as exc:
        raise CommandError(f"--redis-dir {data_dir}: cannot start redis-server: {exc}") from None
    os.environ["TUNEFARM_BROKER_URL"] = os.environ["TUNEFARM_REDIS_URL"] = server.url
    print(f"tunefarm stack: redis-server on port {port}, append-only file in {data_dir}")
    return server


def _run_stack(stack_mod, args: argparse.Namespace) -> int:
    cfg = config()
    warning = stack_mod.persistence_warning(cfg.redis())
    if warning:
        print(warning)
    spec = stack_mod.StackSpec(
        port=args.port,
        host=args.host,
        agents=[(args.key, args.target)] * args.agents,
        build_workers=args.build_workers,
        log_json=args.log_json,
    )
    stack = stack_mod.LocalStack(spec, dict(os.environ), args.log_dir)
    # SIGTERM (docker stop, timeout, kill) stops the stack like Ctrl-C does: the services run
    # in their own sessions and would otherwise outlive this process.
    signal.signal(signal.SIGTERM, _interrupt)
    with stack:
        print(f"tunefarm stack: gateway on http://{args.host}:{args.port}, logs in {args.log_dir}")
        try:
            while not stack.dead():
                time.sleep(1)
            print(f"a process exited: {stack.dead()}; stopping the stack")
            return 1
        except KeyboardInterrupt:
            print("stopping the stack")
    return 0
