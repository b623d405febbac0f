"""The search worker's record store: a reader for reuse and a spooling writer, per job.

The store is the durable copy of every measurement: records go in as they are measured
(`SpooledStore.put`), so losing Redis loses no record. When the store is down a job still
runs: it is tuned cold (reuse needs the store) and its records wait in the spool under the
artifact store, to be flushed in order by the next put that reaches the store.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from tunefarm import metrics
from tunefarm.distributed.config import ServiceConfig
from tunefarm.store import NONE, RecordStore, StoreError, open_store
from tunefarm.store.spool import SpooledStore

_log = logging.getLogger(__name__)


Pair = tuple[RecordStore | None, SpooledStore | None]


def open_for_job(config: ServiceConfig, doc: dict[str, Any]) -> Pair:
    """(reader, writer) for a job of `doc`'s tenant; (None, None) without a store, and no
    reader (a cold start) while the store is unreachable."""
    if config.store.strip().lower() == NONE:
        return None, None
    tenant, fleet = doc.get("tenant") or "default", bool(doc.get("records_fleet"))
    writer = SpooledStore.for_url(config.store, config.spool_dir, tenant, fleet)
    try:
        reader = open_store(config.store, tenant, fleet)
    except StoreError as exc:
        _log.warning("job %s tunes without reuse: %s", doc.get("id"), exc)
        reader = None
    return reader, writer


def publish(reader: RecordStore | None, writer: SpooledStore | None, reuse: Any) -> None:
    """The store's metrics after a job's search: lookups, hits, trials saved, size, spool."""
    if reader is not None:
        metrics.STORE_LOOKUPS.inc(reader.lookups)
        metrics.STORE_HITS.inc(reader.hits)
        try:
            metrics.STORE_RECORDS.set(reader.totals()["records"])
        except StoreError:
            pass
    if reuse:
        metrics.TRIALS_SAVED.inc(reuse.get("trials_saved", 0))
    if writer is not None:
        metrics.SPOOL_DEPTH.set(writer.depth())


def refresh(config: ServiceConfig, doc: dict[str, Any]) -> threading.Thread | None:
    """After a warm job added records: rebuild the fleet set of its target in a background
    thread (on a store of its own, closed when done), so the next warm job on this worker
    finds it cached."""
    if config.store.strip().lower() == NONE or doc.get("reuse", "warm") != "warm":
        return None
    tenant, fleet = doc.get("tenant") or "default", bool(doc.get("records_fleet"))

    def run() -> None:
        from tunefarm.recipe.reuse import fleet_records

        try:
            with open_store(config.store, tenant, fleet) as store:
                fleet_records(store, doc["target"], doc["device_key"])
        except StoreError as exc:  # the next job reads it in the foreground instead
            _log.warning("fleet set refresh failed: %s", exc)

    thread = threading.Thread(target=run, name="fleet-refresh", daemon=True)
    thread.start()
    return thread


def close(reader: RecordStore | None, writer: SpooledStore | None) -> None:
    for obj in (reader, writer):
        if obj is not None:
            obj.close()
