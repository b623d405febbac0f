"""Listing 1,000 agents: the tracker's per-key index (one ZRANGE and one MGET per key) against
a SCAN of the keyspace and a GET per agent (what it did before), among 20,000 other keys
such as a busy stack's tickets; interleaved, median of 5.

    .venv/bin/python benchmarks/tracker_index.py     # Redis: TUNEFARM_TEST_REDIS_PORT, db 10
"""

from __future__ import annotations

import json
import os
import statistics
import time
import uuid

from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.tracker import AgentInfo, Tracker


def main() -> None:
    url = f"redis://127.0.0.1:{os.environ.get('TUNEFARM_TEST_REDIS_PORT', '6379')}/10"
    config = ServiceConfig(broker_url=url, redis_url=url, heartbeat_ttl_s=300,
                           prefix=f"trkbench-{uuid.uuid4().hex[:6]}")  # fmt: skip
    tracker = Tracker(config)
    for i in range(1000):
        tracker.register(f"k{i % 4}", "cpu")
    pipe = tracker.r.pipeline()
    for i in range(20_000):
        pipe.set(config.key("ticket", str(i), "result"), "x", ex=300)
    pipe.execute()

    def scan() -> list[AgentInfo]:
        pattern = config.key("agent", "*", "*")
        return [AgentInfo(**json.loads(raw)) for name in tracker.r.scan_iter(pattern, 500)
                if (raw := tracker.r.get(name)) is not None]  # fmt: skip

    timings: dict[str, list[float]] = {"scan": [], "index": []}
    for _ in range(5):
        for name, listing in (("scan", scan), ("index", tracker.agents)):
            start = time.perf_counter()
            assert len(listing()) == 1000
            timings[name].append(time.perf_counter() - start)
    scan_s, index_s = (statistics.median(timings[k]) for k in ("scan", "index"))
    print(f"scan+get {scan_s:.3f} s, index {index_s:.3f} s ({scan_s / index_s:.1f}x); "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    tracker.r.flushdb()


if __name__ == "__main__":
    main()
