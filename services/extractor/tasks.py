"""Celery task of the extractor: graph -> weighted tuning tasks."""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import EXTRACT


@app.task(name=EXTRACT, bind=True)
def extract(self, job_id: str) -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return pipeline.extract(config, app, job_id, owner)
