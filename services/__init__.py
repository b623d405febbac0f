"""tunefarm's services: one sub-package per deployable service (see docs/services.md).

Each is a thin layer over `tunefarm.distributed` and the rest of the library: Celery task
bodies that call library functions, the gateway's HTTP layer, and process entry points.
"""
