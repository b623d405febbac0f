"""Celery task of the build farm: one candidate -> a kernel in the artifact store."""

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.distributed import pipeline
from tunefarm.distributed.celery_app import BUILD, TRANSIENT


@app.task(name=BUILD, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=8)
def build(inp_json: dict, timeout_s: float, options: list) -> dict:
    with metrics.BUILD_SECONDS.time():
        return pipeline.build_candidate(config, inp_json, timeout_s, options)
