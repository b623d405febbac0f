"""The search worker's record store: a reader for reuse and a spooling writer, per job.

The store is the durable copy of every measurement: records go in as they are measured
(`SpooledStore.put`), so losing Redis loses no record. When the store is down a job still
runs: it is tuned cold (reuse needs the store) and its records wait in the spool under the
artifact store, to be flushed in order by the next put that reaches the store.
"""

from __future__ import annotations

import logging
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


def close(reader: RecordStore | None, writer: SpooledStore | None) -> None:
    for obj in (reader, writer):
        if obj is not None:
            obj.close()
