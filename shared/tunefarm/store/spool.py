"""Records that could not reach the store wait in a spool file and go in, in order, later.

A job must not stop because PostgreSQL is down, and no measured record may be lost: `put`
tries the store and, when it is unavailable, appends the records to `<dir>/<tenant>.jsonl`
(the records format, fsync'd). `flush` puts the spooled records into the store in file
order and removes the file; since puts are idempotent, a flush cut short and redone
duplicates nothing. An flock on the spool file keeps a writer from appending to a file
that a flush is about to remove.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tunefarm.store.db import RecordStore, open_store
from tunefarm.store.url import StoreUnavailable
from tunefarm.tune.records import Record, append_records, load_records


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path.with_suffix(".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class SpooledStore:
    """A store that may be down: `put` never fails for that reason; `flush` catches up.

    open_fn opens the store (and raises StoreUnavailable while it is down); it is retried
    at every put until it succeeds.
    """

    def __init__(
        self, open_fn: Callable[[], RecordStore], spool_dir: str | os.PathLike, tenant: str
    ) -> None:
        self._open = open_fn
        self.store: RecordStore | None = None
        self.path = Path(spool_dir) / f"{tenant}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    @classmethod
    def for_url(
        cls, url: str, spool_dir: str | os.PathLike, tenant: str, fleet: bool = False
    ) -> SpooledStore:
        return cls(lambda: open_store(url, tenant, fleet), spool_dir, tenant)

    def _connect(self) -> RecordStore | None:
        if self.store is None:
            try:
                self.store = self._open()
            except StoreUnavailable:
                return None
        return self.store

    def depth(self) -> int:
        """Records waiting in the spool."""
        if not self.path.exists():
            return 0
        with open(self.path, "rb") as fh:
            return sum(1 for line in fh if line.strip())

    def put(self, records: Sequence[Record]) -> int:
        """Store the records, or spool them if the store is down; returns the new rows
        (0 when spooled). Spooled records go in first, so the store sees them in order."""
        store = self._connect()
        if store is not None and self.path.exists():
            self.flush()
        if store is not None:
            try:
                return store.put(records)
            except StoreUnavailable:
                pass
        with _locked(self.path):
            append_records(self.path, records)
        return 0

    def flush(self) -> int:
        """Put every spooled record into the store, in order; returns how many went in
        (0 if the store is still down, and the spool stays)."""
        store = self._connect()
        if store is None or not self.path.exists():
            return 0
        with _locked(self.path):
            if not self.path.exists():
                return 0
            records = load_records(self.path)
            try:
                new = store.put(records)
            except StoreUnavailable:
                return 0
            self.path.unlink()
        return new

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
