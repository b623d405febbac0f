"""The watchdog: notices jobs that nobody is working on and should be, and gets them going.

It runs as a thread in every worker and agent process, and sweeps every few seconds under a
Redis lock, so one process per stack does each sweep. What it looks for:

- Redis lost its data (restarted without persistence): its marker key is gone. Every job
  with a copy in the artifact store that Redis no longer has is restored from it
  (`JobStore.restore`), and the sweep below sends each unfinished one its step again.
- A job whose step's worker died: its state names a step (converting, extracting, tuning,
  compiling, evaluating), nobody holds its lease (the lease TTL has passed) and it waits for
  no message. The step is sent again; the new worker resumes (the search from its records
  log) and the job's `waiting` says what happened meanwhile.
- A job whose message was lost: it waits for a step's message (`waiting_for`) that is not
  in its queue, for longer than a grace period, with no lease. The message is sent again
  (a duplicate is harmless: steps are idempotent and leased).
- A cancelled job that nobody runs: it is marked cancelled.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

from tunefarm.distributed.celery_app import TRANSIENT
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.jobs import TERMINAL, JobNotFound, JobStore
from tunefarm.distributed.lease import STEP_OF_STATE, STEPS, send_step
from tunefarm.distributed.tracker import queue_depth

log = logging.getLogger("tunefarm.watchdog")


class Watchdog:
    def __init__(self, config: ServiceConfig, app: Any) -> None:
        import redis

        self.config, self.app = config, app
        self.jobs = JobStore(config)
        self.r = self.jobs.r
        self.broker = redis.Redis.from_url(config.broker_url, decode_responses=True)
        self.period_s = max(1.0, config.heartbeat_ttl_s / 2)
        self.grace_s = max(3.0, config.heartbeat_ttl_s)
        self.owner = uuid.uuid4().hex
        self._orphans: dict[str, float] = {}  # job id -> when first seen without a lease
        self._stop = threading.Event()

    def start(self) -> Watchdog:
        threading.Thread(target=self._loop, name="tunefarm-watchdog", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(self.period_s):
            try:
                if self.r.set(self.config.key("watchdog"), self.owner, nx=True,
                              px=int(self.period_s * 900)):  # fmt: skip
                    self.sweep()
            except TRANSIENT as exc:
                log.debug("watchdog: Redis unavailable: %s", exc)
            except Exception:  # never let the thread die: the next sweep tries again
                log.exception("watchdog sweep failed")

    def sweep(self) -> list[tuple[str, str]]:
        """One pass; returns (job id, what was done) for each job acted on."""
        acted = self._recover() if not self.r.exists(self._marker()) else []
        for job_id in self.jobs.active_ids():  # terminal jobs need nothing: skip them
            try:
                doc = self.jobs.get(job_id)
            except JobNotFound:
                continue
            if doc["state"] in TERMINAL or self.jobs.leased(job_id):
                self._orphans.pop(job_id, None)
                continue
            # Leaseless on one sweep may be a worker re-taking its lease after Redis came
            # back (within TTL/3): act only on a job leaseless for a whole grace period.
            first = self._orphans.setdefault(job_id, time.monotonic())
            if time.monotonic() - first < self.grace_s:
                continue
            action = self._check(doc)
            if action:
                acted.append((job_id, action))
                log.warning("job %s: %s", job_id, action)
        return acted

    def _marker(self) -> str:
        return self.config.key("watchdog", "epoch")

    def _recover(self) -> list[tuple[str, str]]:
        """Redis has no marker: it is new or lost its data. Restore every stored job it
        does not have, then leave a marker (no TTL: it goes only with the data)."""
        acted = []
        for job_id in self.jobs.stored_ids():
            if not self.r.exists(self.config.key("job", job_id)):
                try:
                    doc = self.jobs.restore(job_id)
                except JobNotFound:
                    continue
                acted.append((job_id, f"restored from the artifact store ({doc['state']})"))
        self.r.set(self._marker(), str(time.time()))
        return acted

    def _check(self, doc: dict[str, Any]) -> str | None:
        """What to do for a job nobody holds: None when it is waiting its turn."""
        job_id, now = doc["id"], time.time()
        if doc.get("cancel_requested"):
            self.jobs.set_state(job_id, "cancelled")
            return "cancelled (cancel requested, no worker running it)"
        waiting = doc.get("waiting") or {}
        waiting_for = doc.get("waiting_for")
        if not waiting_for and doc["state"] == "queued":  # a job from before `waiting_for`
            waiting_for = {"step": "convert", "since": doc.get("created", 0)}
        if waiting_for:
            step = waiting_for.get("step")
            if step not in STEPS:
                return None
            if waiting.get("resend"):  # restored after Redis lost its data
                return self._resend(doc, step, waiting["reason"])
            if now - waiting_for.get("since", 0) < self.grace_s:
                return None
            if queue_depth(self.broker, self.config.queue(STEPS[step][1])) > 0:
                return None  # waiting its turn
            return self._resend(doc, step, f"the {step} message was lost; it was sent again")
        step = STEP_OF_STATE.get(doc["state"])
        if step is None:
            return None
        reason = f"the worker running its {step} step stopped; the step was sent again"
        return self._resend(doc, step, reason)

    def _resend(self, doc: dict[str, Any], step: str, reason: str) -> str:
        now = time.time()
        self.jobs.update(
            doc["id"],
            waiting={"reason": reason, "since": now},
            waiting_for={"step": step, "since": now},
        )
        self.jobs.add_event(doc["id"], "waiting", {"reason": reason})
        send_step(self.config, self.app, doc["id"], step)
        return f"{step} sent again: {reason}"
