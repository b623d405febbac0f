"""Layer 8: the Prometheus metrics every service shares.

Counters, gauges and histograms are updated where the work happens (search worker: trials and
best GFLOPS; build farm: build durations; agents: measure durations). Celery workers fork, so
each service entry point prepares the multiprocess directory
(`distributed.config.prepare_metrics_dir`) before this module is first imported, and serves a
registry with the multiprocess collector. State that lives in Redis is read at scrape time by
a collector of the services' own (`distributed.state_metrics.StateCollector`), passed in.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector

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
STORE_LOOKUPS = Counter(
    "tunefarm_store_lookups",
    "Tasks whose records a job looked up in the record store.",
)
STORE_HITS = Counter(
    "tunefarm_store_hits",
    "Looked-up tasks for which the record store held a valid record.",
)
TRIALS_SAVED = Counter(
    "tunefarm_store_trials_saved",
    "Trials not measured because a task's best came from the record store (--reuse best).",
)
STORE_RECORDS = Gauge(
    "tunefarm_store_records",
    "Records in the record store (as the search worker last saw it).",
    multiprocess_mode="mostrecent",
)
SPOOL_DEPTH = Gauge(
    "tunefarm_store_spool_depth",
    "Records waiting in the spool for the record store to come back.",
    multiprocess_mode="mostrecent",
)


DISPATCH_SECONDS = Histogram(
    "tunefarm_dispatch_seconds",
    "Time a candidate waits from being queued to a worker starting it, per queue.",
    ["queue"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
SEARCH_SLOTS = Gauge(
    "tunefarm_search_slots_busy",
    "Search slots running a job now, per search worker process.",
    multiprocess_mode="livesum",
)

STARTED = Gauge(
    "tunefarm_process_start_time_seconds",
    "When this worker, agent or gateway process started (a restart changes it).",
    multiprocess_mode="max",
)

_ALL = (TRIALS, BEST_GFLOPS, ESTIMATED_LATENCY, BUILD_SECONDS, MEASURE_SECONDS, STORE_LOOKUPS,
        STORE_HITS, TRIALS_SAVED, STORE_RECORDS, SPOOL_DEPTH, DISPATCH_SECONDS, SEARCH_SLOTS,
        STARTED)  # fmt: skip


def registry(collectors: Iterable[Any] = ()) -> CollectorRegistry:
    """A registry for /metrics: the multiprocess collector when enabled, else the default
    registry's metrics; plus `collectors` (e.g. the services' Redis state collector,
    `tunefarm.distributed.state_metrics`)."""
    reg = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(reg)
    else:
        for metric in _ALL:
            reg.register(metric)
    for collector in collectors:
        reg.register(collector)
    return reg


def serve(port: int, collectors: Iterable[Any] = ()) -> None:
    """Serve /metrics on `port` from a background thread (workers and agents)."""
    start_http_server(port, registry=registry(collectors))
