"""Celery task of the search service: run one job's tuning, compile and evaluation.

A message for a job whose lease another live worker holds (the broker redelivered it, or the
watchdog sent it again) is dropped: if that worker dies, its lease lapses within seconds and
the watchdog sends the job again, and the new worker resumes from the records log.
A Redis outage does not fail the task: nothing waits on Celery's result backend.
"""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import SEARCH


@app.task(name=SEARCH, bind=True)
def search(self, job_id: str) -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return pipeline.search(config, app, job_id, owner)
