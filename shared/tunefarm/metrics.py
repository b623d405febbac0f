"""Layer 8: the Prometheus metrics every service shares.

Counters, gauges and histograms are updated where the work happens (search worker: trials and
best GFLOPS; build farm: build durations; agents: measure durations). Celery workers fork, so
each service entry point calls `setup_multiprocess()` before the first metric is touched and
serves a registry with the multiprocess collector. State that lives in Redis (jobs by state,
devices by key and state, queue depths) is read at scrape time by `StateCollector`, so every
replica reports the same numbers without having to own them.
"""

from __future__ import annotations

import os

from prometheus_client import Counter, Gauge, Histogram

TRIALS = Counter(
    "tunefarm_trials",
    "Measured candidates by job, task and outcome (ok or the error code).",
    ["job", "task", "status"],
)
BEST_GFLOPS = Gauge(
    "tunefarm_best_gflops",
    "Best GFLOPS found so far per job and task.",
    ["job", "task"],
    multiprocess_mode="mostrecent",
)
ESTIMATED_LATENCY = Gauge(
    "tunefarm_estimated_latency_ms",
    "Estimated end-to-end latency of a job's network (sum of weight x best task latency).",
    ["job"],
    multiprocess_mode="mostrecent",
)
BUILD_SECONDS = Histogram(
    "tunefarm_build_duration_seconds",
    "Time to generate and compile one candidate.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
MEASURE_SECONDS = Histogram(
    "tunefarm_measure_duration_seconds",
    "Time an agent spends measuring one candidate.",
    ["device_key"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)


def registry(state_config=None):
    """A registry for /metrics: the multiprocess collector when enabled, else the default
    registry's metrics; plus the Redis state collector when `state_config` is given."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    reg = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(reg)
    else:
        for metric in (TRIALS, BEST_GFLOPS, ESTIMATED_LATENCY, BUILD_SECONDS, MEASURE_SECONDS):
            reg.register(metric)
    if state_config is not None:
        reg.register(StateCollector(state_config))
    return reg


def serve(port: int, state_config=None) -> None:
    """Serve /metrics on `port` from a background thread (workers and agents)."""
    from prometheus_client import start_http_server

    start_http_server(port, registry=registry(state_config))


class StateCollector:
    """Jobs by state, devices by key and state, and queue depths, read from Redis."""

    def __init__(self, config) -> None:
        from tunefarm.distributed.jobs import JobStore
        from tunefarm.distributed.tracker import Tracker

        # clients made once, kept across scrapes
        self.jobs, self.tracker = JobStore(config), Tracker(config)

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily

        from tunefarm.distributed.celery_app import QUEUES
        from tunefarm.distributed.tracker import measure_queue, queue_depth

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
            for q in [*QUEUES, *(measure_queue(r["key"]) for r in rows)]:
                depth.add_metric([q], queue_depth(self.tracker.broker, q))
        except Exception:  # Redis down: report what we have; /readyz says why
            pass
        yield from (jobs, devices, depth)
