"""Soak the gateway as one busy tenant would, and time another tenant's answers meanwhile.

For `--seconds` (default 300): `--streams` event streams (default 2,000) held open by one
tenant, `--submits` job submissions a minute from that tenant (default 200), `/metrics`
scraped every 100 ms; a second tenant's `/healthz` and `GET /api/v1/jobs?limit=1` are timed
every 100 ms. Reports the second tenant's p50/p99/max latency, the gateway workers' resident
size over time (flat = no leak), HTTP statuses seen, and whether every accepted submission
is listed at the end (nothing lost). The gateway is `tunefarm serve gateway` on a free
port with its own Redis prefix; nothing else of the stack runs (jobs stay queued).

    .venv/bin/python benchmarks/soak.py --redis redis://127.0.0.1:6394/14 [--seconds 300]
        [--streams 2000] [--submits 200] [--json benchmarks/results-soak.json]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import requests

JOB = {"model": "zoo:resnet-18", "target": "cpu", "device_key": "soak", "trials": 4}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker_rss_mb(pid: int) -> list[float]:
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    out = []
    for child in children:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out.append(round(int(line.split()[1]) / 1024, 1))
    return out


async def hold_streams(
    port: int, token: str, path: str, count: int, stop: asyncio.Event, statuses: collections.Counter
) -> None:
    """Open `count` event streams and read them until `stop`."""

    async def one() -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            statuses["stream-connect-error"] += 1
            return
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        line = await reader.readline()
        statuses[f"stream-{line.split()[1].decode() if line else 'closed'}"] += 1
        while not stop.is_set():
            try:
                if not await asyncio.wait_for(reader.read(4096), 1.0):
                    break
            except TimeoutError:
                continue
        writer.close()

    tasks = []
    for _ in range(count):
        tasks.append(asyncio.create_task(one()))
        await asyncio.sleep(0.002)  # ramp up over a few seconds
    await asyncio.gather(*tasks)


def loop(period_s: float, stop: threading.Event, fn) -> None:
    while not stop.is_set():
        start = time.monotonic()
        fn()
        stop.wait(max(0.0, period_s - (time.monotonic() - start)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--redis", required=True)
    p.add_argument("--seconds", type=float, default=300)
    p.add_argument("--streams", type=int, default=2000)
    p.add_argument("--submits", type=int, default=200, help="per minute")
    p.add_argument("--json", type=Path)
    args = p.parse_args()

    from tunefarm.distributed.config import ServiceConfig
    from tunefarm.distributed.jobs import JobStore
    from tunefarm.distributed.tracker import Tracker

    tmp = Path(tempfile.mkdtemp(prefix="tunefarm-soak-"))
    busy, other, scraper = (f"soak-{n}-{uuid.uuid4().hex}" for n in ("busy", "other", "metrics"))
    (tmp / "tokens").write_text(
        f"{busy} read,submit tenant=busy submits_per_minute={args.submits * 2} "
        f"max_running=1000000 trials_per_day=1000000000 busy\n"
        f"{other} read tenant=other other\n{scraper} metrics prometheus\n"
    )
    prefix = f"tfsoak-{uuid.uuid4().hex[:8]}"
    config = ServiceConfig(
        broker_url=args.redis,
        redis_url=args.redis,
        prefix=prefix,
        artifacts=tmp / "artifacts",
        tokens_file=str(tmp / "tokens"),
    )
    tracker = Tracker(config)
    agent = tracker.register("soak", "cpu")
    port = free_port()
    env = {
        **os.environ,
        "TUNEFARM_BROKER_URL": args.redis,
        "TUNEFARM_REDIS_URL": args.redis,
        "TUNEFARM_PREFIX": prefix,
        "TUNEFARM_ARTIFACTS": str(tmp / "artifacts"),
        "TUNEFARM_TOKENS_FILE": str(tmp / "tokens"),
        "TUNEFARM_MAX_STREAMS": str(args.streams + 100),
        "TUNEFARM_MAX_STREAMS_PER_TOKEN": str(args.streams + 100),
    }
    cmd = [
        sys.executable,
        "-m",
        "tunefarm",
        "serve",
        "gateway",
        "--port",
        str(port),
        "--workers",
        "1",
        "--connections",
        str(args.streams + 200),
    ]
    gateway = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if requests.get(url + "/healthz", timeout=1).ok:
                break
        except requests.RequestException:
            time.sleep(0.2)
    job_id = JobStore(config).create({**JOB, "tenant": "busy"})["id"]

    stop, statuses, latency, rss, accepted = threading.Event(), collections.Counter(), [], [], []
    session = requests.Session()

    def probe() -> None:
        for path, headers in (
            ("/healthz", {}),
            ("/api/v1/jobs?limit=1", {"Authorization": f"Bearer {other}"}),
        ):
            start = time.monotonic()
            try:
                status = session.get(url + path, headers=headers, timeout=5).status_code
            except requests.RequestException:
                status = "error"
            latency.append(time.monotonic() - start)
            statuses[f"probe-{status}"] += 1

    def submit() -> None:
        try:
            r = requests.post(
                url + "/api/v1/jobs",
                json=JOB,
                timeout=10,
                headers={"Authorization": f"Bearer {busy}"},
            )
            statuses[f"submit-{r.status_code}"] += 1
            if r.status_code == 202:
                accepted.append(r.json()["id"])
        except requests.RequestException:
            statuses["submit-error"] += 1

    def scrape() -> None:
        try:
            r = requests.get(
                url + "/metrics", timeout=5, headers={"Authorization": f"Bearer {scraper}"}
            )
            statuses[f"metrics-{r.status_code}"] += 1
        except requests.RequestException:
            statuses["metrics-error"] += 1

    def heartbeat_and_rss() -> None:
        tracker.heartbeat(agent)
        rss.append((round(time.monotonic() - t0, 1), worker_rss_mb(gateway.pid)))

    t0 = time.monotonic()
    threads = [
        threading.Thread(target=loop, args=a, daemon=True)
        for a in (
            (0.1, stop, probe),
            (60 / args.submits, stop, submit),
            (0.1, stop, scrape),
            (5.0, stop, heartbeat_and_rss),
        )
    ]
    for t in threads:
        t.start()

    async def streams() -> None:
        done = asyncio.Event()
        holder = asyncio.create_task(
            hold_streams(port, busy, f"/api/v1/jobs/{job_id}/events", args.streams, done, statuses)
        )
        await asyncio.sleep(args.seconds)
        done.set()
        await holder

    asyncio.run(streams())
    stop.set()
    for t in threads:
        t.join(timeout=15)
    listed, cursor = set(), None
    while True:
        query = "?limit=1000" + (f"&cursor={cursor}" if cursor else "")
        body = requests.get(
            url + "/api/v1/jobs" + query, timeout=30, headers={"Authorization": f"Bearer {busy}"}
        ).json()
        listed |= {j["id"] for j in body["jobs"]}
        cursor = body["next"]
        if not cursor:
            break
    gateway.terminate()
    gateway.wait(timeout=30)
    tracker.unregister(agent)
    ms = sorted(x * 1000 for x in latency)
    result = {
        "seconds": args.seconds,
        "streams": args.streams,
        "submits_per_minute": args.submits,
        "probe_ms": {
            "p50": round(statistics.median(ms), 1),
            "p99": round(ms[int(0.99 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1),
            "count": len(ms),
        },
        "accepted": len(accepted),
        "lost": len(set(accepted) - listed),
        "rss_mb": rss,
        "statuses": dict(statuses),
        "load_avg": os.getloadavg(),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    r = config.redis()
    for key in r.scan_iter(match=f"{prefix}*", count=1000):
        r.delete(key)


if __name__ == "__main__":
    main()
