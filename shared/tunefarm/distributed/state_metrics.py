"""Metrics read from Redis at scrape time: jobs by state, devices by key and state, and queue
depths. Every replica reports the same numbers without having to own them."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

from tunefarm.distributed.celery_app import QUEUES
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.jobs import JobStore
from tunefarm.distributed.tracker import Tracker, measure_queue, queue_depth


class StateCollector:
    """A prometheus-client collector over the services' Redis state."""

    def __init__(self, config: ServiceConfig) -> None:
        # clients made once, kept across scrapes
        self.jobs, self.tracker = JobStore(config), Tracker(config)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        jobs = GaugeMetricFamily("tunefarm_jobs", "Jobs by state.", labels=["state"])
        devices = GaugeMetricFamily(
            "tunefarm_devices", "Device agents by key and state.", labels=["key", "state"]
        )
        depth = GaugeMetricFamily(
            "tunefarm_queue_depth", "Messages waiting per queue.", labels=["queue"]
        )
        agents = GaugeMetricFamily(
            "tunefarm_device_agents",
            "Live agents per device key, 0 for a key whose agents are all gone.",
            labels=["key"],
        )
        memory = GaugeMetricFamily(
            "tunefarm_redis_memory_bytes",
            "Redis memory: used, and the maxmemory limit (0: none).",
            labels=["kind"],
        )
        try:
            for state, n in self.jobs.count_by_state().items():
                jobs.add_metric([state], n)
            rows = self.tracker.summary()
            for row in rows:
                devices.add_metric([row["key"], "free"], row["free"])
                devices.add_metric([row["key"], "busy"], row["busy"])
            prefix = self.tracker.config.prefix
            names = [self.tracker.config.queue(q) for q in QUEUES]
            keys = sorted({*self.tracker.known_keys(), *(r["key"] for r in rows)})
            totals = {r["key"]: r["total"] for r in rows}
            for key in keys:
                agents.add_metric([key], totals.get(key, 0))
            for q in [*names, *(measure_queue(k, prefix) for k in keys)]:
                depth.add_metric([q], queue_depth(self.tracker.broker, q))
            info = self.tracker.r.info("memory")
            memory.add_metric(["used"], info.get("used_memory", 0))
            memory.add_metric(["max"], info.get("maxmemory", 0))
        except Exception:  # Redis down: report what we have; /readyz says why
            pass
        yield from (jobs, devices, depth, agents, memory)
