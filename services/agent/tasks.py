"""The device agent: registers with the tracker, heartbeats, and measures candidates from its
key's queue one at a time (Celery solo pool, concurrency 1, prefetch 1). Every measurement
runs in an isolated child process (LocalRunner), so a crashing kernel costs one error record,
never the agent.
"""

from __future__ import annotations

import logging
import os
import time

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.backends import get_backend, parse_target
from tunefarm.distributed import pipeline
from tunefarm.distributed.candidates import AgentRunner
from tunefarm.distributed.celery_app import EVALUATE, MEASURE
from tunefarm.distributed.tickets import Tickets
from tunefarm.distributed.tracker import Heartbeat, Tracker, measure_queue

log = logging.getLogger("tunefarm.agent")
_state: dict = {}  # set by run_agent: "key", "heartbeat", "runner"


class _Busy:
    """Marks the agent busy in the tracker while it works. Best effort: a Redis blip must
    not turn a good measurement into an error (the heartbeat thread writes again soon)."""

    def __enter__(self):
        self._set("busy")

    def __exit__(self, *exc):
        self._set("free")

    @staticmethod
    def _set(state: str) -> None:
        hb = _state.get("heartbeat")
        if hb is not None:
            try:
                hb.set_state(state)
            except Exception as exc:
                log.warning("tracker state %s not written: %s", state, exc)


def _owner(request) -> str:
    return f"agent-{_state['key']}-{os.getpid()}:{request.id}"


@app.task(name=MEASURE, bind=True)
def measure(self, ticket: str, build_json: dict, inp_json: dict, settings_json: dict) -> str:
    """One candidate, once per ticket (a re-sent or redelivered message measures nothing
    twice); the result goes to the ticket."""

    def work() -> dict:
        start = time.perf_counter()
        with _Busy():
            result = _state["runner"].measure(build_json, inp_json, settings_json)
        metrics.MEASURE_SECONDS.labels(_state["key"]).observe(time.perf_counter() - start)
        return result

    return _state["tickets"].run(ticket, _owner(self.request), work)


@app.task(name=EVALUATE, bind=True)
def evaluate(self, ticket: str, job_id: str) -> str:
    def work() -> dict:
        with _Busy():
            return pipeline.evaluate(config, job_id)

    return _state["tickets"].run(ticket, _owner(self.request), work)


def describe_device(target: str) -> dict:
    """What the target's backend says about this machine's device (a GPU backend: name,
    memory, driver), or why it cannot say (no driver here); {} for backends without it."""
    describe = getattr(get_backend(parse_target(target).kind), "device_info", None)
    if describe is None:
        return {}
    try:
        return dict(describe())
    except Exception as exc:  # the agent still starts; its measurements will say the same
        return {"error": f"{type(exc).__name__}: {exc}"}


def run_agent(key: str, target: str, loglevel: str = "INFO") -> None:
    """Register, start heartbeats, and consume `measure.<key>` until stopped. `target` is
    checked (the CLI refuses a target with no backend before calling this)."""
    tracker = Tracker(config)
    info = tracker.register(key, target, device=describe_device(target))
    heartbeat = Heartbeat(tracker, info).start()
    _state.update(
        key=key,
        heartbeat=heartbeat,
        runner=AgentRunner(config, parse_target(target).kind),
        tickets=Tickets(config),
    )
    argv = [
        "worker",
        "-Q",
        measure_queue(key, config.prefix),
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
    from tunefarm_services.worker import start_watchdog

    watchdog = start_watchdog()
    try:
        app.worker_main(argv)
    finally:
        watchdog.stop()
        heartbeat.stop()
