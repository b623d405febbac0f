"""Search slots: each search message runs the fairest waiting job, not necessarily its own.

A search worker runs `--concurrency N` slots (pool processes); each takes one `search`
message at a time. The message names a job, which is put on the waiting list if it is not
there yet (a step re-sent by the watchdog, or Redis lost the list), and then the slot runs
whatever `SearchAdmission.pick` chooses (fewest running jobs per tenant, then priority, then
age). The job page's queue position and start estimate come from the same lists.
"""

from __future__ import annotations

import math
import time
from typing import Any

from tunefarm import metrics
from tunefarm.distributed import pipeline
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.fairshare import SearchAdmission
from tunefarm.distributed.jobs import TERMINAL, JobNotFound, JobStore

DURATIONS_KEPT = 20  # recent search durations behind the start estimate


def run_slot(config: ServiceConfig, app: Any, job_id: str, owner: str) -> str:
    """One search message: queue its job if needed, then run the fair pick to its end."""
    jobs, admission = JobStore(config), SearchAdmission(config)
    try:
        doc = jobs.get(job_id)
    except JobNotFound:
        doc = None
    if doc is not None and doc["state"] not in TERMINAL and not jobs.leased(job_id):
        admission.add(doc)
    picked = admission.pick()
    if picked is None:
        return "nothing waiting"
    start = time.monotonic()
    metrics.SEARCH_SLOTS.inc()
    try:
        outcome = pipeline.search(config, app, picked, f"{owner}:{picked}")
    finally:
        metrics.SEARCH_SLOTS.dec()
        admission.finished(picked)
    if outcome in ("done", "failed"):
        key = config.key("search", "durations")
        pipe = admission.r.pipeline()
        pipe.lpush(key, round(time.monotonic() - start, 3))
        pipe.ltrim(key, 0, DURATIONS_KEPT - 1)
        pipe.execute()
    return f"{picked}: {outcome}"


def queue_info(config: ServiceConfig, doc: dict[str, Any], client=None) -> dict[str, Any] | None:
    """For the job page: where a job waiting for a search slot stands, and when it should
    start (`estimated_start_s`, from the recent search durations and the slots busy now;
    None before any job finished)."""
    admission = SearchAdmission(config, client)
    where = admission.position(doc)
    if where is None:
        return None
    recent = [float(x) for x in admission.r.lrange(config.key("search", "durations"), 0, -1)]
    estimate = None
    if recent:
        slots = max(1, where["running"])
        rounds = math.ceil((where["ahead"] + 1) / slots)
        estimate = round(rounds * sum(recent) / len(recent), 1)
    return {**where, "position": where["ahead"] + 1, "estimated_start_s": estimate}
