"""The device agent: registers with the tracker, heartbeats, and measures candidates from its
key's queue one at a time (Celery solo pool, concurrency 1, prefetch 1). Every measurement
runs in an isolated child process (LocalRunner), so a crashing kernel costs one error record,
never the agent.
"""

from __future__ import annotations

import time

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import EVALUATE, MEASURE
from tunefarm.distributed.tracker import Heartbeat, Tracker

_state: dict = {}  # set by run_agent: "key", "heartbeat", "runner"


class _Busy:
    """Marks the agent busy in the tracker while it works."""

    def __enter__(self):
        hb = _state.get("heartbeat")
        if hb is not None:
            hb.set_state("busy")

    def __exit__(self, *exc):
        hb = _state.get("heartbeat")
        if hb is not None:
            hb.set_state("free")


@app.task(name=MEASURE)
def measure(build_json: dict, inp_json: dict, settings_json: dict) -> dict:
    """Build result first, so a build -> measure chain can hand it over."""
    start = time.perf_counter()
    with _Busy():
        result = _state["runner"].measure(build_json, inp_json, settings_json)
    metrics.MEASURE_SECONDS.labels(_state["key"]).observe(time.perf_counter() - start)
    return result


@app.task(name=EVALUATE)
def evaluate(job_id: str) -> dict:
    with _Busy():
        return pipeline.evaluate(config, job_id)


def run_agent(key: str, target: str, loglevel: str = "INFO") -> None:
    """Register, start heartbeats, and consume `measure.<key>` until stopped."""
    from tunefarm.distributed.tracker import measure_queue

    tracker = Tracker(config)
    info = tracker.register(key, target)
    heartbeat = Heartbeat(tracker, info).start()
    _state.update(key=key, heartbeat=heartbeat, runner=pipeline.AgentRunner(config))
    argv = [
        "worker",
        "-Q",
        measure_queue(key),
        "-c",
        "1",
        "-P",
        "solo",
        "-n",
        f"agent-{key}-{info.agent_id}@%h",
        "-l",
        loglevel,
        "--without-gossip",
        "--without-mingle",
    ]
    try:
        app.worker_main(argv)
    finally:
        heartbeat.stop()
