"""Job state in Redis: one JSON document per job, an index by creation time, and a stream of
progress events per job (what the REST API, the web UI and the metrics read).

The document layout is in `docs/services.md`. Writers update a few fields at a time with
`update`, which reads, merges and writes under optimistic locking (WATCH), so the search
worker's progress and the gateway's cancel request never overwrite each other.
"""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

from tunefarm.distributed.config import ServiceConfig

STATES = (
    "queued",
    "converting",
    "extracting",
    "tuning",
    "compiling",
    "evaluating",
    "done",
    "failed",
    "cancelled",
)
TERMINAL = frozenset({"done", "failed", "cancelled"})
EVENTS_MAX = 20_000  # events kept per job (the stream is trimmed beyond this)


class JobNotFound(KeyError):
    def __init__(self, job_id: str) -> None:
        super().__init__(job_id)
        self.job_id = job_id

    def __str__(self) -> str:
        return f"no job {self.job_id!r}"


def new_job_id() -> str:
    """Sortable by time, unguessable: j-YYYYmmdd-HHMMSS-<8 hex>."""
    return time.strftime("j-%Y%m%d-%H%M%S-", time.gmtime()) + secrets.token_hex(4)


class JobStore:
    """Create, read, update and list jobs; append and read their events."""

    def __init__(self, config: ServiceConfig, client=None) -> None:
        self.config = config
        self.r = client if client is not None else config.redis()

    # -- keys ---------------------------------------------------------------------------------
    def _doc_key(self, job_id: str) -> str:
        return self.config.key("job", job_id)

    def _events_key(self, job_id: str) -> str:
        return self.config.key("job", job_id, "events")

    def _index_key(self) -> str:
        return self.config.key("jobs")

    # -- documents ----------------------------------------------------------------------------
    def create(self, spec: dict[str, Any], job_id: str | None = None) -> dict[str, Any]:
        """Store a new job in state `queued` from a validated submission."""
        now = time.time()
        doc = {
            "id": job_id or new_job_id(),
            "state": "queued",
            "created": now,
            "updated": now,
            "trials_done": 0,
            "estimated_latency_ms": None,
            "tasks": [],
            "latency_ms": {},
            "relative_error": None,
            "errors": {},
            "error": None,
            "cancel_requested": False,
            **spec,
        }
        pipe = self.r.pipeline()
        pipe.hset(self._doc_key(doc["id"]), "doc", json.dumps(doc))
        pipe.zadd(self._index_key(), {doc["id"]: now})
        pipe.execute()
        self.add_event(doc["id"], "state", {"state": "queued"})
        return doc

    def get(self, job_id: str) -> dict[str, Any]:
        raw = self.r.hget(self._doc_key(job_id), "doc")
        if raw is None:
            raise JobNotFound(job_id)
        return json.loads(raw)

    def exists(self, job_id: str) -> bool:
        return bool(self.r.exists(self._doc_key(job_id)))

    def update(self, job_id: str, **fields: Any) -> dict[str, Any]:
        """Merge `fields` into the document atomically; returns the new document."""
        import redis

        key = self._doc_key(job_id)
        while True:
            with self.r.pipeline() as pipe:
                try:
                    pipe.watch(key)
                    raw = pipe.hget(key, "doc")
                    if raw is None:
                        raise JobNotFound(job_id)
                    doc = {**json.loads(raw), **fields, "updated": time.time()}
                    pipe.multi()
                    pipe.hset(key, "doc", json.dumps(doc))
                    pipe.execute()
                    return doc
                except redis.WatchError:
                    continue

    def set_state(self, job_id: str, state: str, **fields: Any) -> dict[str, Any]:
        """Move to `state` (and record it as an event). A terminal state is never left."""
        if state not in STATES:
            raise ValueError(f"unknown job state {state!r}; states are {', '.join(STATES)}")
        current = self.get(job_id)["state"]
        if current in TERMINAL and current != state:
            return self.get(job_id)
        doc = self.update(job_id, state=state, **fields)
        self.add_event(job_id, "state", {"state": state, **fields})
        return doc

    def fail(self, job_id: str, message: str) -> dict[str, Any]:
        self.add_event(job_id, "error", {"message": message})
        return self.set_state(job_id, "failed", error=message)

    def request_cancel(self, job_id: str) -> dict[str, Any]:
        """Ask the job to stop. Jobs that have not started tuning stop at once; a tuning job
        stops at its next batch (the search worker sees the flag)."""
        doc = self.update(job_id, cancel_requested=True)
        if doc["state"] in ("queued", "converting", "extracting"):
            doc = self.set_state(job_id, "cancelled")
        return doc

    def cancel_requested(self, job_id: str) -> bool:
        return bool(self.get(job_id).get("cancel_requested"))

    def list(self, state: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Newest first, optionally only those in `state`."""
        ids = self.r.zrevrange(self._index_key(), 0, -1)
        pipe = self.r.pipeline(transaction=False)  # one round trip for every document
        for job_id in ids:
            pipe.hget(self._doc_key(job_id), "doc")
        docs = []
        for raw in pipe.execute():
            if raw is None:
                continue
            doc = json.loads(raw)
            if state is None or doc["state"] == state:
                docs.append(doc)
            if len(docs) >= limit:
                break
        return docs

    def count_by_state(self) -> dict[str, int]:
        counts = dict.fromkeys(STATES, 0)
        for doc in self.list(limit=10**9):
            counts[doc["state"]] = counts.get(doc["state"], 0) + 1
        return counts

    # -- events -------------------------------------------------------------------------------
    def add_event(self, job_id: str, kind: str, data: dict[str, Any]) -> str:
        """Append one event; returns its stream id."""
        fields = {"kind": kind, "data": json.dumps({"time": time.time(), **data})}
        return self.r.xadd(self._events_key(job_id), fields, maxlen=EVENTS_MAX, approximate=True)

    def events(
        self, job_id: str, after: str = "0-0", block_ms: int | None = None, count: int = 1000
    ) -> list[tuple[str, str, dict[str, Any]]]:
        """Events after stream id `after` as (id, kind, data); with `block_ms`, wait that long
        for the first new one."""
        reply = self.r.xread({self._events_key(job_id): after}, count=count, block=block_ms)
        out = []
        for _stream, entries in reply or ():
            for event_id, fields in entries:
                out.append((event_id, fields["kind"], json.loads(fields["data"])))
        return out

    def delete(self, job_id: str) -> None:
        """Forget a job's state and events (its files stay in the artifact store)."""
        self.r.delete(self._doc_key(job_id), self._events_key(job_id))
        self.r.zrem(self._index_key(), job_id)
