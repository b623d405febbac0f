"""Celery task of the search service: run one job's tuning, compile and evaluation.

A message for a job whose lease another live worker holds (the broker redelivered it, or the
job was submitted twice) is retried after a lease period, so it outlives the holder: if the
holder dies, the retry takes the job over and resumes from the records log.
"""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import SEARCH, TRANSIENT


@app.task(
    name=SEARCH,
    bind=True,
    max_retries=None,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
)
def search(self, job_id: str) -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    try:
        return pipeline.search(config, app, job_id, owner)
    except pipeline.LeaseHeld:
        raise self.retry(countdown=config.heartbeat_ttl_s, max_retries=None) from None
