"""Celery task of the converter: model file or zoo name -> optimised graph (in a child
process under an address-space limit: `tunefarm.distributed.convert`)."""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import CONVERT


@app.task(name=CONVERT, bind=True)
def convert(self, job_id: str) -> str:
    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return pipeline.convert(config, app, job_id, owner)
