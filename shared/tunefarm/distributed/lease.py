"""Who runs a job's step now, and how a step hands the job to the next.

A worker running a step (convert, extract, search) holds the job's lease: a Redis key with
a short TTL (the heartbeat TTL), refreshed from a thread. So a second message for the same
job (a redelivery, a re-send) finds the lease held and is dropped, and a worker that died
lets it lapse within seconds, which the watchdog sees.

Between steps nobody holds the lease; the document's `waiting_for` says which step's
message is queued and since when, so the watchdog can tell a job waiting its turn in a
queue from one whose message was lost.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tunefarm.distributed.celery_app import CONVERT, EXTRACT, SEARCH
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.fairshare import SearchAdmission
from tunefarm.distributed.jobs import JobStore

# step -> (task, queue before the prefix)
STEPS = {
    "convert": (CONVERT, "convert"),
    "extract": (EXTRACT, "extract"),
    "search": (SEARCH, "search"),
}
# state -> the step that runs in it (and is sent again when its worker died)
STEP_OF_STATE = {
    "queued": "convert",
    "converting": "convert",
    "extracting": "extract",
    "tuning": "search",
    "compiling": "search",
    "evaluating": "search",
}


class LeaseHeld(Exception):
    """Another live worker holds the job."""


class Lease:
    """A Redis lease on a job, so one worker at a time runs one of its steps. Refreshed
    from a thread every TTL/3; a worker that dies lets it lapse within the TTL."""

    # Extend our key; take it again if it is gone (Redis restarted, or an outage outlasted
    # the TTL) rather than leave the job or ticket looking abandoned while we still run.
    _REFRESH = (
        "local v = redis.call('get', KEYS[1]) "
        "if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
        "if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end "
        "return 0"
    )
    _RELEASE = (
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
        "else return 0 end"
    )

    def __init__(self, config: ServiceConfig, job_id: str, owner: str) -> None:
        self.r, self.owner = config.redis(), owner
        self.key = JobStore(config, client=self.r).lease_key(job_id)
        self.ttl_ms = max(1000, int(config.heartbeat_ttl_s * 1000))
        self._stop = threading.Event()

    def acquire(self) -> bool:
        return bool(self.r.set(self.key, self.owner, nx=True, px=self.ttl_ms))

    def _refresh(self) -> None:
        while not self._stop.wait(self.ttl_ms / 3000):
            try:
                self.r.eval(self._REFRESH, 1, self.key, self.owner, self.ttl_ms)
            except Exception:  # a Redis blip: the next refresh tries again
                pass

    def __enter__(self) -> Lease:
        self._thread = threading.Thread(target=self._refresh, name="job-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=15)  # a refresh in flight must not re-take it after us
        try:
            self.r.eval(self._RELEASE, 1, self.key, self.owner)
        except Exception:  # Redis down: the lease lapses by itself
            pass


def expect(config: ServiceConfig, job_id: str, step: str) -> None:
    """Write that the job now waits for `step`'s message. Call it while still holding the
    lease, then `send_step` after releasing it: the job is never without a lease and
    without a `waiting_for` at once, so the watchdog never takes a hand-over for a death."""
    JobStore(config).update(job_id, waiting_for={"step": step, "since": time.time()})


def send_step(config: ServiceConfig, app: Any, job_id: str, step: str) -> None:
    """Send the step's message; a search also puts the job on the list of jobs waiting for
    a search slot (`fairshare.SearchAdmission`: the slot that takes the message runs the
    fairest waiting job)."""
    task, queue = STEPS[step]
    if step == "search":
        jobs = JobStore(config)
        SearchAdmission(config, jobs.r).add(jobs.get(job_id))
    app.send_task(task, args=[job_id], queue=config.queue(queue), ignore_result=True)
