"""The Celery app of this process and its configuration, both read from the environment once.

Every service module registers its tasks on this one app; senders address tasks by name, so
no service imports another's code.
"""

from tunefarm.distributed.celery_app import make_app

app = make_app()
config = app.tunefarm_config
