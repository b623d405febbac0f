"""Celery task of the build farm: one candidate -> a kernel in the artifact store.

The message carries a ticket: the build runs once per ticket however often the message
arrives, and its result goes to the ticket, where the search worker reads it."""

import os
import socket

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.distributed import candidates
from tunefarm.distributed.celery_app import BUILD
from tunefarm.distributed.tickets import Tickets

_tickets: list[Tickets] = []  # one per pool process, made on first use (after the fork)


def tickets() -> Tickets:
    if not _tickets:
        _tickets.append(Tickets(config))
    return _tickets[0]


@app.task(name=BUILD, bind=True)
def build(self, ticket: str, inp_json: dict, timeout_s: float, options: list) -> str:
    def work() -> dict:
        with metrics.BUILD_SECONDS.time():
            return candidates.build_candidate(config, inp_json, timeout_s, options)

    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return tickets().run(ticket, owner, work)
