"""Job state in Redis: one JSON document per job, an index by creation time, and a stream of
progress events per job (what the REST API, the web UI and the metrics read).

The document layout is in `docs/services.md`. Writers update a few fields at a time with
`update`, which reads, merges and writes under optimistic locking (WATCH), so the search
worker's progress and the gateway's cancel request never overwrite each other.

Every change that is not mere progress is also written to the job's directory in the
artifact store (`jobs/<id>/job.json`). So a Redis that restarts without persistence loses
no job: a read of a job Redis no longer has restores it from there, and the watchdog
(`watchdog.py`) restores every job of the store and sends its step again.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from pathlib import Path
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
log = logging.getLogger("tunefarm.jobs")
EVENTS_MAX = 20_000  # events kept per job (the stream is trimmed beyond this)
MIRROR_FILE = "job.json"
MIRROR_PREFIX = "_stack_prefix"  # in the copy only: which stack's job it is
# Fields that change with every measured batch: not worth a file write each time (a
# restored job recomputes them from its records log).
LIST_PAGE = 200  # documents read per round trip when listing
PROGRESS_FIELDS = frozenset({"trials_done", "errors", "tasks", "estimated_latency_ms", "waiting"})


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

    def _state_key(self, state: str) -> str:
        """The ids of the jobs in `state` (what a metrics scrape counts, without reading
        every document)."""
        return self.config.key("jobs", "state", state)

    def _file_state(self, pipe, job_id: str, state: str) -> None:
        """Queue, on `pipe`, the moves that leave `job_id` in `state`'s set only."""
        for other in STATES:
            if other != state:
                pipe.srem(self._state_key(other), job_id)
        pipe.sadd(self._state_key(state), job_id)

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
        doc.setdefault("waiting_for", {"step": "convert", "since": now})
        self._mirror(doc)
        self._put(doc)
        self.add_event(doc["id"], "state", {"state": "queued"})
        return doc

    def _put(self, doc: dict[str, Any]) -> None:
        pipe = self.r.pipeline()
        pipe.hset(self._doc_key(doc["id"]), "doc", json.dumps(doc))
        pipe.zadd(self._index_key(), {doc["id"]: doc["created"]})
        self._file_state(pipe, doc["id"], doc["state"])
        pipe.execute()

    def get(self, job_id: str) -> dict[str, Any]:
        raw = self.r.hget(self._doc_key(job_id), "doc")
        if raw is None:
            return self.restore(job_id)
        return json.loads(raw)

    # -- the copy in the artifact store ---------------------------------------------------------
    def _mirror_path(self, job_id: str) -> Path:
        return Path(self.config.artifacts) / "jobs" / job_id / MIRROR_FILE

    def _mirror(self, doc: dict[str, Any]) -> None:
        """Write the document beside the job's files (atomically: temp file + rename)."""
        path = self._mirror_path(doc["id"])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{MIRROR_FILE}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps({**doc, MIRROR_PREFIX: self.config.prefix}))
            tmp.replace(path)
        except OSError as exc:  # a full or read-only store must not stop the job
            log.warning("job %s: cannot write %s: %s", doc["id"], path, exc)

    def restore(self, job_id: str) -> dict[str, Any]:
        """Bring back a job Redis lost (restarted without persistence) from its copy in the
        artifact store, saying so in its events; JobNotFound when there is none."""
        path = self._mirror_path(job_id) if _plain_id(job_id) else None
        try:
            doc = json.loads(path.read_text()) if path is not None else None
        except (OSError, ValueError):
            doc = None
        # only this stack's jobs: stacks that share a store must not take each other's
        if not isinstance(doc, dict) or doc.get("id") != job_id:
            raise JobNotFound(job_id)
        if doc.pop(MIRROR_PREFIX, None) != self.config.prefix:
            raise JobNotFound(job_id)
        if doc["state"] not in TERMINAL:
            doc["waiting"] = {
                "reason": "Redis lost this job (restarted without persistence); it was "
                "restored from the artifact store and its step was sent again",
                "since": time.time(),
                "resend": True,  # for the watchdog: send its step again
            }
        self._put(doc)
        self.add_event(job_id, "restored", {"state": doc["state"]})
        log.warning("job %s: restored from %s (state %s)", job_id, path, doc["state"])
        return doc

    def stored_ids(self) -> list[str]:
        """Ids of every job with a copy in the artifact store."""
        root = Path(self.config.artifacts) / "jobs"
        if not root.is_dir():
            return []
        return sorted(p.parent.name for p in root.glob(f"*/{MIRROR_FILE}"))

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
                    if raw is None:  # Redis lost it: restore from the store, then merge
                        self.restore(job_id)
                        continue
                    old = json.loads(raw)
                    doc = {**old, **fields, "updated": time.time()}
                    pipe.multi()
                    pipe.hset(key, "doc", json.dumps(doc))
                    if doc["state"] != old.get("state"):
                        self._file_state(pipe, job_id, doc["state"])
                    pipe.execute()
                except redis.WatchError:
                    continue
            if not set(fields) <= PROGRESS_FIELDS:
                self._mirror(doc)
            return doc

    def set_state(self, job_id: str, state: str, **fields: Any) -> dict[str, Any]:
        """Move to `state` (and record it as an event). A terminal state is never left."""
        if state not in STATES:
            raise ValueError(f"unknown job state {state!r}; states are {', '.join(STATES)}")
        current = self.get(job_id)["state"]
        if current in TERMINAL and current != state:
            return self.get(job_id)
        if state in TERMINAL:  # nothing is awaited any more
            fields = {"waiting": None, "waiting_for": None, **fields}
        doc = self.update(job_id, state=state, **fields)
        shown = {k: v for k, v in fields.items() if k not in ("waiting", "waiting_for")}
        self.add_event(job_id, "state", {"state": state, **shown})
        return doc

    def fail(self, job_id: str, message: str) -> dict[str, Any]:
        self.add_event(job_id, "error", {"message": message})
        return self.set_state(job_id, "failed", error=message)

    def request_cancel(self, job_id: str) -> dict[str, Any]:
        """Ask the job to stop. A job no live worker holds (queued, between steps, or its
        worker gone) is cancelled at once; a running step stops within a poll or a batch
        (its worker sees the flag), and should that worker die, the watchdog cancels it."""
        doc = self.update(job_id, cancel_requested=True)
        if doc["state"] in ("queued", "converting", "extracting") or not self.leased(job_id):
            doc = self.set_state(job_id, "cancelled", waiting=None, waiting_for=None)
        return doc

    def lease_key(self, job_id: str) -> str:
        """The key a worker running one of the job's steps holds (see pipeline.Lease)."""
        return self.config.key("job", job_id, "lease")

    def leased(self, job_id: str) -> bool:
        return bool(self.r.exists(self.lease_key(job_id)))

    def cancel_requested(self, job_id: str) -> bool:
        return bool(self.get(job_id).get("cancel_requested"))

    def list(
        self, state: str | None = None, limit: int = 200, tenant: str | None = None
    ) -> list[dict[str, Any]]:
        """Newest first, optionally only those in `state` and of `tenant` (a job without a
        tenant, from before tenants, is the default tenant's)."""
        docs: list[dict[str, Any]] = []
        start = 0
        while len(docs) < limit:  # a page of documents per round trip, newest first
            ids = self.r.zrevrange(self._index_key(), start, start + LIST_PAGE - 1)
            if not ids:
                break
            start += len(ids)
            pipe = self.r.pipeline(transaction=False)
            for job_id in ids:
                pipe.hget(self._doc_key(job_id), "doc")
            for raw in pipe.execute():
                if raw is None:
                    continue
                doc = json.loads(raw)
                if tenant is not None and doc.get("tenant", "default") != tenant:
                    continue
                if state is None or doc["state"] == state:
                    docs.append(doc)
                if len(docs) >= limit:
                    break
        return docs

    def count_by_state(self) -> dict[str, int]:
        """Jobs per state from the per-state sets (one SCARD each), not the documents. A
        Redis from before the sets gets them filled once, from the documents."""
        if not self.r.exists(self.config.key("jobs", "state-sets")):
            self._fill_state_sets()
        pipe = self.r.pipeline(transaction=False)
        for state in STATES:
            pipe.scard(self._state_key(state))
        return dict(zip(STATES, (int(n) for n in pipe.execute()), strict=True))

    def _fill_state_sets(self) -> None:
        pipe = self.r.pipeline(transaction=False)
        for doc in self.list(limit=10**9):
            self._file_state(pipe, doc["id"], doc["state"])
        pipe.set(self.config.key("jobs", "state-sets"), "1")
        pipe.execute()

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
        """Forget a job's state and events (its other files stay in the artifact store)."""
        self.r.delete(self._doc_key(job_id), self._events_key(job_id))
        self.r.zrem(self._index_key(), job_id)
        for state in STATES:
            self.r.srem(self._state_key(state), job_id)
        if _plain_id(job_id):
            self._mirror_path(job_id).unlink(missing_ok=True)


def _plain_id(job_id: str) -> bool:
    """An id that is one path component (the API checks ids; this guards library callers)."""
    return bool(job_id) and "/" not in job_id and job_id not in (".", "..")
