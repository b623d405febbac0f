"""The record store shared across jobs (SQLite embedded, PostgreSQL in the services)."""

from tunefarm.store.db import (
    FLEET_TENANT,
    LOCAL_TENANT,
    RecordStore,
    Trials,
    WorkloadStats,
    open_store,
)
from tunefarm.store.migrate import migrate_store
from tunefarm.store.url import NONE, StoreError, StoreUnavailable, default_path, shown

__all__ = [
    "FLEET_TENANT",
    "LOCAL_TENANT",
    "NONE",
    "RecordStore",
    "StoreError",
    "StoreUnavailable",
    "Trials",
    "WorkloadStats",
    "default_path",
    "migrate_store",
    "open_store",
    "shown",
]
