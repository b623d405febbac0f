"""The distributed side of the library: configuration, the Celery app, the artifact store,
job state, the device tracker and the Celery-backed builder and runner.

The services in `services/` are thin layers over these modules (see `docs/services.md`).
Nothing here is imported by the embedded pipeline, so `tunefarm tune` needs no broker.
"""
