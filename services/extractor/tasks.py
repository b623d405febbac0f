"""Celery task of the extractor: graph -> weighted tuning tasks."""

from tunefarm_services.app import app, config

from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import EXTRACT, TRANSIENT


@app.task(name=EXTRACT, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8)
def extract(job_id: str) -> str:
    return pipeline.extract(config, app, job_id)
