"""`tunefarm devices`: the tracker's table of device keys (like query_rpc_tracker).

tunefarm devices [--agents] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

from tunefarm.cli._services import config

HELP = "list device keys registered with the tracker: total / free / pending"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agents", action="store_true", help="also list each agent")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    from tunefarm.distributed.tracker import Tracker, format_summary

    tracker = Tracker(config())
    rows, agents = tracker.summary(), tracker.agents()
    if args.json:
        print(json.dumps({"devices": rows, "agents": [a.to_json() for a in agents]}, indent=2))
        return 0
    print(format_summary(rows))
    if args.agents:
        now = time.time()
        for a in agents:
            age = now - a.last_heartbeat
            print(f"{a.key:<20}{a.host:<24}{a.target:<20}{a.state:<6} heartbeat {age:.1f} s ago")
            if a.device:
                print(" " * 20 + ", ".join(f"{k}={v}" for k, v in a.device.items()))
    return 0
