"""Celery task of the build farm: one candidate -> a kernel in the artifact store.

The message is a wake-up: the candidate comes from the build queue's fair dispatch
(`fairshare.DispatchQueue`, round robin between jobs). It carries a ticket: the build runs
once per ticket however often it arrives, and its result goes to the ticket, where the search
worker reads it."""

import os
import socket
import threading
import time

from tunefarm_services.app import app, config

from tunefarm import metrics
from tunefarm.distributed import candidates, simulate
from tunefarm.distributed.celery_app import BUILD
from tunefarm.distributed.fairshare import DispatchQueue, take
from tunefarm.distributed.tickets import Tickets

_state: dict = {}  # per pool process, made on first use (after the fork)
_local = threading.local()  # per pool thread: when its last build ended (the harness's clock)


def tickets() -> Tickets:
    if "tickets" not in _state:
        _state["tickets"] = Tickets(config)
        _state["dispatch"] = DispatchQueue(config, config.queue("build"), _state["tickets"].r)
    return _state["tickets"]


@app.task(name=BUILD, bind=True)
def build(self, *message_args) -> str:
    store = tickets()
    item = take(_state["dispatch"], message_args)
    if item is None:
        return "nothing waiting"
    inp_json, timeout_s, options = item.args
    metrics.DISPATCH_SECONDS.labels("build").observe(item.waited_s)

    def work() -> dict:
        if config.simulate:  # the scale harness's dispatch clock
            idle = time.time() - getattr(_local, "last_end", 0.0)
            simulate.record_dispatch(store.r, config, "build", item.waited_s, idle)
        try:
            with metrics.BUILD_SECONDS.time():
                return candidates.build_candidate(config, inp_json, timeout_s, options)
        finally:
            _local.last_end = time.time()

    owner = f"{socket.gethostname()}:{os.getpid()}:{self.request.id}"
    return store.run(item.ticket, owner, work, item.inbox)
