"""Celery task of the converter: model file or zoo name -> optimised graph."""

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import CONVERT, TRANSIENT


@app.task(name=CONVERT, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8)
def convert(job_id: str) -> str:
    return pipeline.convert(config, app, job_id)
