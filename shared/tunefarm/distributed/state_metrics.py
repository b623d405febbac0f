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
        try:
            for state, n in self.jobs.count_by_state().items():
                jobs.add_metric([state], n)
            rows = self.tracker.summary()
            for row in rows:
                devices.add_metric([row["key"], "free"], row["free"])
                devices.add_metric([row["key"], "busy"], row["busy"])
            prefix = self.tracker.config.prefix
            names = [self.tracker.config.queue(q) for q in QUEUES]
            for q in [*names, *(measure_queue(r["key"], prefix) for r in rows)]:
                depth.add_metric([q], queue_depth(self.tracker.broker, q))
        except Exception:  # Redis down: report what we have; /readyz says why
            pass
        yield from (jobs, devices, depth)
