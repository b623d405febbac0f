"""Celery task of the search service: one search slot's turn (`tunefarm.distributed.slots`).

The message names a job, but the slot runs the fairest waiting job (fewest running per
tenant, then priority, then age), to its tuning, compile and evaluation. A job another live
worker holds is skipped (see `lease`): if that worker dies, its lease lapses within seconds
and the watchdog sends the job again, and the new slot resumes from the records log. A Redis
outage does not fail the task: nothing waits on Celery's result backend.
"""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm.distributed import slots
from tunefarm.distributed.celery_app import SEARCH


@app.task(name=SEARCH, bind=True)
def search(self, job_id: str) -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return slots.run_slot(config, app, job_id, owner)
