"""The device agent: registers with the tracker, heartbeats, and measures candidates from its
key's queue one at a time (Celery solo pool, concurrency 1, prefetch 1). Every measurement
runs in an isolated child process (LocalRunner), so a crashing kernel costs one error record,
never the agent.
"""

from __future__ import annotations

import logging
import os
import threading
import time

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.backends import get_backend, parse_target
from tunefarm.distributed import pipeline, simulate
from tunefarm.distributed.candidates import AgentRunner
from tunefarm.distributed.celery_app import EVALUATE, MEASURE
from tunefarm.distributed.fairshare import DispatchQueue, take
from tunefarm.distributed.tickets import Tickets
from tunefarm.distributed.tracker import Heartbeat, Tracker, measure_queue

log = logging.getLogger("tunefarm.agent")
_state: dict = {}  # set by run_agent: "key", "heartbeats", "runner", "tickets", "dispatch"
_local = threading.local()  # the agent (heartbeat) a pool thread measures as


def _heartbeat():
    """This thread's agent: one per pool thread (a simulated fleet runs many agents in one
    process; a real device has one agent and one thread)."""
    hb = getattr(_local, "heartbeat", None)
    if hb is None:
        with _state["lock"]:
            free = _state["free"]
            hb = free.pop() if free else _state["heartbeats"][0]
        _local.heartbeat = hb
    return hb


class _Busy:
    """Marks the agent busy in the tracker while it works. Best effort: a Redis blip must
    not turn a good measurement into an error (the heartbeat thread writes again soon)."""

    def __enter__(self):
        self._set("busy")

    def __exit__(self, *exc):
        self._set("free")

    @staticmethod
    def _set(state: str) -> None:
        hb = _heartbeat() if _state.get("heartbeats") else None
        if hb is not None:
            try:
                hb.set_state(state)
            except Exception as exc:
                log.warning("tracker state %s not written: %s", state, exc)


def _owner(request) -> str:
    return f"agent-{_state['key']}-{os.getpid()}:{request.id}"


@app.task(name=MEASURE, bind=True)
def measure(self, *message_args) -> str:
    """One candidate, once per ticket (a re-sent or redelivered message measures nothing
    twice); the result goes to the ticket. The message is a wake-up: the candidate is the
    fair pick of the key's queue (round robin between jobs)."""
    item = take(_state["dispatch"], message_args)
    if item is None:
        return "nothing waiting"
    build_json, inp_json, settings_json = item.args
    metrics.DISPATCH_SECONDS.labels(_state["key"]).observe(item.waited_s)

    def work() -> dict:
        start = time.perf_counter()
        if _state["runner"].simulation is not None:  # the scale harness's dispatch clock
            idle = time.time() - getattr(_local, "last_end", 0.0)
            simulate.record_dispatch(_state["tickets"].r, config, "measure", item.waited_s, idle)
        try:
            with _Busy():
                result = _state["runner"].measure(build_json, inp_json, settings_json)
        finally:
            _local.last_end = time.time()
        metrics.MEASURE_SECONDS.labels(_state["key"]).observe(time.perf_counter() - start)
        return result

    return _state["tickets"].run(item.ticket, _owner(self.request), work, item.inbox)


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


def run_agent(key: str, target: str, loglevel: str = "INFO", slots: int = 1) -> None:
    """Register, start heartbeats, and consume `measure.<key>` until stopped. `target` is
    checked (the CLI refuses a target with no backend before calling this). `slots` > 1
    (simulated devices only, `TUNEFARM_SIMULATE`) runs that many agents as threads."""
    tracker = Tracker(config)
    device = describe_device(target)
    heartbeats = [
        Heartbeat(tracker, tracker.register(key, target, device=device)).start()
        for _ in range(slots)
    ]
    info = heartbeats[0].info
    _state.update(
        key=key,
        heartbeats=heartbeats,
        free=list(reversed(heartbeats)),
        lock=threading.Lock(),
        runner=AgentRunner(config, parse_target(target).kind),
        tickets=Tickets(config),
        dispatch=DispatchQueue(config, measure_queue(key, config.prefix)),
    )
    argv = [
        "worker",
        "-Q",
        measure_queue(key, config.prefix),
        "-c",
        str(slots),
        "-P",
        "solo" if slots == 1 else "threads",
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
        for heartbeat in heartbeats:
            heartbeat.stop()
