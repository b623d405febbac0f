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
import re
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
DEFAULT_TENANT = "default"
INDEX_VERSION = "1"  # the tenant and state indexes exist (see `ensure_indexes`)
log = logging.getLogger("tunefarm.jobs")
EVENTS_MAX = 20_000  # events kept per job (the stream is trimmed beyond this)
MIRROR_FILE = "job.json"
MIRROR_PREFIX = "_stack_prefix"  # in the copy only: which stack's job it is
# Fields that change with every measured batch: not worth a file write each time (a
# restored job recomputes them from its records log).
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

    def _index_key(self, tenant: str | None = None, state: str | None = None) -> str:
        """The index of every job (by creation time), or of one tenant's, one state's, or
        both: kept as jobs change, so lists and counts never read every document."""
        parts = ["jobs"]
        if tenant is not None:
            parts += ["tenant", tenant]
        if state is not None:
            parts += ["state", state]
        return self.config.key(*parts)

    def _index(self, pipe, doc: dict[str, Any], old_state: str | None = None) -> None:
        """Queue the index updates for `doc` (moved out of `old_state`'s indexes)."""
        tenant, score = doc.get("tenant") or DEFAULT_TENANT, {doc["id"]: doc["created"]}
        if old_state is not None and old_state != doc["state"]:
            pipe.zrem(self._index_key(state=old_state), doc["id"])
            pipe.zrem(self._index_key(tenant, old_state), doc["id"])
        for tenant_, state in ((None, None), (tenant, None), (None, doc["state"]),
                               (tenant, doc["state"])):  # fmt: skip
            pipe.zadd(self._index_key(tenant_, state), score)

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
        self.ensure_indexes()  # older jobs first, so the marker never hides them
        self._mirror(doc)
        self._put(doc)
        self.add_event(doc["id"], "state", {"state": "queued"})
        return doc

    def _put(self, doc: dict[str, Any]) -> None:
        pipe = self.r.pipeline()
        pipe.hset(self._doc_key(doc["id"]), "doc", json.dumps(doc))
        for state in STATES:  # a restored document may have moved on since it was indexed
            if state != doc["state"]:
                pipe.zrem(self._index_key(state=state), doc["id"])
                pipe.zrem(self._index_key(doc.get("tenant") or DEFAULT_TENANT, state), doc["id"])
        self._index(pipe, doc)
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
                    if doc["state"] != old["state"]:
                        self._index(pipe, doc, old["state"])
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

    def page(
        self,
        state: str | None = None,
        limit: int = 200,
        tenant: str | None = None,
        cursor: str | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """Newest first, optionally only those in `state` and of `tenant` (a job without a
        tenant, from before tenants, is the default tenant's), after `cursor` (the `next` of
        the page before). Reads `limit` documents from the matching index, whatever the
        number of jobs. Returns (documents, the next page's cursor or None)."""
        self.ensure_indexes()
        key = self._index_key(tenant, state)
        high, after_id = "+inf", None
        if cursor is not None:
            high, after_id = parse_cursor(cursor)
        rows = self.r.zrevrangebyscore(key, high, "-inf", start=0, num=limit + 1 + 16,
                                       withscores=True)  # fmt: skip
        if after_id is not None:  # skip the cursor's job and any before it at its time
            rows = [(i, t) for i, t in rows if not (t == float(high) and i >= after_id)]
        rows = rows[: limit + 1]
        more = len(rows) > limit
        rows = rows[:limit]
        pipe = self.r.pipeline(transaction=False)  # one round trip for the page
        for job_id, _ in rows:
            pipe.hget(self._doc_key(job_id), "doc")
        docs = [json.loads(raw) for raw in pipe.execute() if raw is not None]
        cursor_out = f"{rows[-1][1]!r}~{rows[-1][0]}" if more and rows else None
        return docs, cursor_out

    def list(
        self, state: str | None = None, limit: int = 200, tenant: str | None = None
    ) -> list[dict[str, Any]]:
        """The first page of `page`: the newest `limit` jobs."""
        return self.page(state, limit, tenant)[0]

    def count_by_state(self, tenant: str | None = None) -> dict[str, int]:
        """Jobs per state (of `tenant`), from the sizes of the state indexes."""
        self.ensure_indexes()
        pipe = self.r.pipeline(transaction=False)
        for state in STATES:
            pipe.zcard(self._index_key(tenant, state))
        return dict(zip(STATES, pipe.execute(), strict=True))

    def active_ids(self) -> list[str]:
        """Ids of the jobs not in a terminal state (what the watchdog looks at)."""
        self.ensure_indexes()
        ids: list[str] = []
        for state in STATES:
            if state not in TERMINAL:
                ids += self.r.zrange(self._index_key(state=state), 0, -1)
        return ids

    def ensure_indexes(self) -> None:
        """Build the tenant and state indexes once for jobs stored before they existed."""
        marker = self.config.key("jobs", "indexed")
        if self.r.exists(marker):
            return
        for job_id in self.r.zrange(self._index_key(), 0, -1):
            raw = self.r.hget(self._doc_key(job_id), "doc")
            if raw is not None:
                pipe = self.r.pipeline()
                self._index(pipe, json.loads(raw))
                pipe.execute()
        self.r.set(marker, INDEX_VERSION)

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
        raw = self.r.hget(self._doc_key(job_id), "doc")
        self.r.delete(self._doc_key(job_id), self._events_key(job_id))
        self.r.zrem(self._index_key(), job_id)
        if raw is not None:
            doc = json.loads(raw)
            tenant = doc.get("tenant") or DEFAULT_TENANT
            for key in (self._index_key(tenant), self._index_key(state=doc["state"]),
                        self._index_key(tenant, doc["state"])):  # fmt: skip
                self.r.zrem(key, job_id)
        if _plain_id(job_id):
            self._mirror_path(job_id).unlink(missing_ok=True)


def parse_cursor(cursor: str) -> tuple[str, str]:
    """(score, job id) of a page cursor; ValueError for text no page gave."""
    score, sep, job_id = cursor.partition("~")
    if not sep or not job_id or len(cursor) > 200 or not _SCORE.fullmatch(score):
        raise ValueError(f"{cursor[:48]!r} is not a page cursor")
    return score, job_id


_SCORE = re.compile(r"\d{1,15}(\.\d{1,20})?")  # a creation time as repr() writes it


def _plain_id(job_id: str) -> bool:
    """An id that is one path component (the API checks ids; this guards library callers)."""
    return bool(job_id) and "/" not in job_id and job_id not in (".", "..")
