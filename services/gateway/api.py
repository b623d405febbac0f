"""The REST API, /api/v1: submit, list, inspect and cancel jobs, follow their progress, fetch
their records and compiled network, and list devices (see docs/services.md).

A thin layer: requests are validated (`validation.py`), jobs are read from and written to
`JobStore`, files come from the artifact store, and the pipeline starts with one Celery
message to `convert`. Every answer, errors included, is JSON (or the stream/file asked for).
GET endpoints need the `read` scope, POST endpoints `submit` (see `auth.py`).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, g, jsonify, request, send_file
from tunefarm_services.gateway import auth
from tunefarm_services.gateway.app import API_PREFIX, gateway, json_error
from tunefarm_services.gateway.streams import RETRY_AFTER_S, TooManyStreams
from tunefarm_services.gateway.validation import unknown_fields, validate_submission

from tunefarm.distributed import slots
from tunefarm.distributed.artifacts import MODEL_FILE
from tunefarm.distributed.celery_app import CONVERT
from tunefarm.distributed.jobs import (
    STATES,
    TERMINAL,
    JobNotFound,
    JobStore,
    new_job_id,
    parse_cursor,
)
from tunefarm.distributed.quotas import QuotaExceeded, admit

api = Blueprint("api", __name__)
log = logging.getLogger("tunefarm.gateway")

JOB_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
EVENT_ID = re.compile(r"\d{1,20}(-\d{1,20})?")
LIST_LIMIT, LIST_LIMIT_MAX = 200, 1000
SSE_RETRY_MS = 3000  # how long a browser waits before reconnecting a dropped stream
SSE_GRACE_MS = 250  # a terminal job's last event may land just after its state: wait this long
READ_CHUNK = 1 << 16
MAX_JSON_BYTES = 1 << 20  # a JSON submission carries fields only; uploads come as a form
ADMIN_ONLY_AGENT_FIELDS = ("host", "pid")
STREAM_ID_MAX = (1 << 64) - 1  # each part of a Redis stream id is an unsigned 64-bit number


class Rejected(Exception):
    """A request with bad fields: 400 (or 413) {"error": ..., "fields": {field: message}}."""

    def __init__(self, errors: dict[str, str], status: int = 400) -> None:
        super().__init__(errors)
        self.errors, self.status = errors, status


@api.errorhandler(Rejected)
def _rejected(exc: Rejected):
    message = {413: "upload too large", 415: "unsupported media type"}.get(
        exc.status, "invalid request"
    )
    return json_error(exc.status, message, fields=exc.errors)


@api.errorhandler(JobNotFound)
def _no_job(exc: JobNotFound):
    return json_error(404, str(exc))


# -- submit ---------------------------------------------------------------------------------------
@api.post("/jobs")
@auth.require(auth.SUBMIT)
def submit_job():
    """Validate, store the upload, create the job (queued) and send it to `convert`."""
    fields, upload, upload_name = _read_submission()
    state = gateway()
    spec, errors = validate_submission(
        fields, upload, state.tracker().targets(), state.max_upload_bytes, upload_name
    )
    if errors:
        raise Rejected(dict(errors), errors.status)
    spec["tenant"], spec["submitted_by"] = g.token.tenant, g.token.name
    try:
        admit(state.config, state.redis, g.token.tenant, spec["trials"], g.token.quotas)
    except QuotaExceeded as exc:
        auth.refused(g.token, str(exc))
        return json_error(429, str(exc)), {"Retry-After": str(exc.retry_after_s)}
    spec["records_fleet"] = g.token.records_fleet
    job_id = new_job_id()
    if upload is not None:
        state.store.write_bytes(f"jobs/{job_id}/{MODEL_FILE}", upload)
    jobs = state.jobs()
    doc = jobs.create(spec, job_id)
    try:
        # ignore_result: progress lives in the job document, and waiting on results would make
        # the gateway subscribe to every task's result channel (and stall when Redis is down).
        queue = state.config.queue("convert")
        state.celery.send_task(CONVERT, args=[job_id], queue=queue, ignore_result=True)
    except Exception as exc:  # kombu's OperationalError and friends: the broker is down
        message = f"could not queue the job: the broker is unavailable ({exc})"
        log.error("job %s: %s", job_id, message)
        jobs.fail(job_id, message)
        return json_error(503, message, id=job_id)
    log.info("job %s submitted by %s: %s", job_id, _client(), spec["model"])
    body = {"id": job_id, "state": doc["state"], "links": links(job_id)}
    return jsonify(body), 202, {"Location": links(job_id)["self"]}


def _read_submission() -> tuple[dict[str, Any], bytes | None, str | None]:
    """(fields, upload bytes or None, upload file name) from a JSON or form body."""
    if request.is_json:
        raw = read_capped(request.stream, MAX_JSON_BYTES)
        if raw is None:
            raise Rejected({"body": f"a JSON submission is at most {MAX_JSON_BYTES} bytes"}, 413)
        try:
            body = json.loads(raw or b"null")
        except RecursionError:
            raise Rejected({"body": "JSON nested too deeply"}) from None
        except ValueError as exc:
            raise Rejected({"body": f"not valid JSON: {exc}"}) from None
        if not isinstance(body, dict):
            raise Rejected({"body": "expected a JSON object of submission fields"})
        extra = unknown_fields(body)
        if extra:
            raise Rejected(dict(extra))
        return body, None, None
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        fields = request.form.to_dict()
        file = request.files.get("model")
        if file is None:
            return fields, None, None
        data = file.read()
        if not data and not file.filename:  # an empty file input: nothing chosen
            return fields, None, None
        return fields, data, file.filename
    raise Rejected(
        {"body": "send application/json, or multipart/form-data with the .onnx as 'model'"}, 415
    )


def read_capped(stream, limit: int) -> bytes | None:
    """The body, or None when it is over `limit` bytes. Counts what is read, whatever the
    framing: a chunked body has no Content-Length to check up front."""
    if (request.content_length or 0) > limit:
        return None
    parts, size = [], 0
    while size <= limit:
        chunk = stream.read(min(READ_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
    return None


def links(job_id: str) -> dict[str, str]:
    base = f"{API_PREFIX}/jobs/{job_id}"
    return {
        "self": base,
        "events": f"{base}/events",
        "records": f"{base}/records",
        "artifact": f"{base}/artifact",
    }


def _client() -> str:
    token = g.get("token")
    return token.name if token else "?"


# -- read jobs ------------------------------------------------------------------------------------
@api.get("/jobs")
@auth.require(auth.READ)
def list_jobs():
    """Newest first; ?state= filters, ?limit= caps, ?cursor= (the `next` of the page before)
    pages on. Reads only the page's documents. `counts` gives the jobs per state the token
    sees. Task tables are left out (see detail)."""
    state = request.args.get("state") or None
    errors = {}
    if state is not None and state not in STATES:
        errors["state"] = f"unknown state {state[:48]!r}; one of {', '.join(STATES)}"
    limit = int_arg("limit", LIST_LIMIT, 1, LIST_LIMIT_MAX, errors)
    cursor = request.args.get("cursor") or None
    if cursor is not None:
        try:
            parse_cursor(cursor)
        except ValueError as exc:
            errors["cursor"] = f"{exc}; give the `next` of the page before"
    if errors:
        raise Rejected(errors)
    token = g.token
    tenant = None if token.admin else token.tenant
    jobs = gateway().jobs()
    docs, after = jobs.page(state=state, limit=limit, tenant=tenant, cursor=cursor)
    body = {"jobs": [summary(doc) for doc in docs], "next": after}
    body["counts"] = jobs.count_by_state(tenant)
    return jsonify(body)


def summary(doc: dict[str, Any]) -> dict[str, Any]:
    """A job without its task table (which can hold hundreds of rows), plus its size."""
    out = {k: v for k, v in doc.items() if k != "tasks"}
    out["task_count"] = len(doc.get("tasks") or ())
    out["links"] = links(doc["id"])
    return out


@api.get("/jobs/<job_id>")
@auth.require(auth.READ)
def job_detail(job_id: str):
    """The whole job document: state, task table, estimated latency, results, and while it
    waits for a search slot its place in the queue (`queue`)."""
    doc = find_job(job_id)
    queue = None
    if doc["state"] not in TERMINAL:
        queue = slots.queue_info(gateway().config, doc, gateway().redis)
    return jsonify({**doc, "queue": queue, "links": links(job_id)})


def find_job(job_id: str, token: auth.Token | None = None) -> dict[str, Any]:
    """The job's document; JobNotFound (404) for unknown ids, ids no job can have, and jobs
    of another tenant than the token's (logged: they exist, but not for this token)."""
    if not JOB_ID.fullmatch(job_id):
        raise JobNotFound(job_id[:128])
    doc = gateway().jobs().get(job_id)
    token = token or g.get("token")
    if token is not None and not token.sees(doc.get("tenant")):
        auth.refused(token, f"job {job_id} belongs to another tenant")
        raise JobNotFound(job_id)
    return doc


@api.post("/jobs/<job_id>/cancel")
@auth.require(auth.SUBMIT)
def cancel_job(job_id: str):
    """Ask the job to stop: 202 with the document; 409 when it has already finished."""
    doc = find_job(job_id)
    if doc["state"] in TERMINAL:
        return json_error(409, f"job {job_id!r} is already {doc['state']}", state=doc["state"])
    doc = gateway().jobs().request_cancel(job_id)
    log.info("job %s: cancel requested by %s", job_id, _client())
    return jsonify({**doc, "links": links(job_id)}), 202


# -- files ----------------------------------------------------------------------------------------
@api.get("/jobs/<job_id>/records")
@auth.require(auth.READ)
def job_records(job_id: str):
    """The tuning records (JSON lines) so far; an empty body before the first. Only whole
    lines are sent, since the search worker may be appending while we read."""
    find_job(job_id)
    path = gateway().store.path(f"jobs/{job_id}/records.jsonl")
    body = _whole_lines(path) if path.is_file() else iter(())
    return Response(body, mimetype="application/x-ndjson")


def _whole_lines(path) -> Iterator[bytes]:
    """The file as it is now (its size when opened), without a trailing partial line."""
    with open(path, "rb") as fh:
        left = path.stat().st_size
        pending = b""
        while left > 0:
            chunk = fh.read(min(READ_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            head, newline, pending = (pending + chunk).rpartition(b"\n")
            if newline:
                yield head + newline


@api.get("/jobs/<job_id>/artifact")
@auth.require(auth.READ)
def job_artifact(job_id: str):
    """The compiled network (net.tfa) as a download; 409 until the job has compiled it."""
    doc = find_job(job_id)
    path = gateway().store.path(f"jobs/{job_id}/net.tfa")
    if not path.is_file():
        return json_error(
            409,
            f"job {job_id!r} has no compiled network yet (state {doc['state']})",
            state=doc["state"],
        )
    return send_file(
        path,
        mimetype="application/octet-stream",
        as_attachment=True,
        download_name=f"{job_id}.tfa",
    )


# -- events (server-sent events) ------------------------------------------------------------------
@api.get("/jobs/<job_id>/events")
@auth.require(auth.READ)
def job_events(job_id: str):
    """The job's events as text/event-stream, from after Last-Event-ID (or ?after=, or the
    start). Ends after the job's terminal state with an `end` event; 204 (which tells a
    browser's EventSource to stop reconnecting) when a finished job has nothing newer."""
    doc = find_job(job_id)
    after = request.headers.get("Last-Event-ID") or request.args.get("after") or "0-0"
    if not valid_event_id(after):
        raise Rejected({"after": f"{after[:48]!r} is not an event id (like 1763700000000-0)"})
    state = gateway()
    jobs = state.stream_jobs()
    # the keep-alive wait is also how often the token is checked again
    wait_s = min(state.sse_keepalive_s, state.stream_recheck_s)
    if _finished(jobs, job_id) and not jobs.events(job_id, after, count=1):
        return Response(status=204)
    try:
        state.stream_slots.take(g.token.name)
    except TooManyStreams as exc:
        auth.refused(g.token, str(exc))
        return json_error(429, str(exc)), {"Retry-After": str(RETRY_AFTER_S)}
    still_allowed = _authorisation_check(auth.token_from_request()[0], doc.get("tenant"))
    stream = _sse(jobs, job_id, after, max(1, int(wait_s * 1000)), still_allowed)
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    response = Response(stream, mimetype="text/event-stream", headers=headers)
    response.call_on_close(functools.partial(state.stream_slots.give, g.token.name))
    return response


def _authorisation_check(secret: str | None, tenant: str | None):
    """A function saying whether the stream's token still authorises it (None) or why not:
    the token may have been revoked, have expired or lost its scope since the stream
    opened. Checked at most every `stream_recheck_s`."""
    state = gateway()
    last = [time.monotonic()]

    def check() -> str | None:
        if time.monotonic() - last[0] < state.stream_recheck_s:
            return None
        last[0] = time.monotonic()
        token = state.tokens.find(secret)
        if token is None:
            return "the token was revoked"
        if token.expired():
            return f"token {token.name!r} has expired"
        if not token.allows(auth.READ) or not token.sees(tenant):
            return f"token {token.name!r} no longer reads this job"
        return None

    return check


def valid_event_id(text: str) -> bool:
    """A stream id Redis accepts: MS or MS-SEQ, each part below 2^64."""
    if not EVENT_ID.fullmatch(text):
        return False
    return all(int(part) <= STREAM_ID_MAX for part in text.split("-"))


def _sse(
    jobs: JobStore, job_id: str, after: str, keepalive_ms: int, still_allowed=lambda: None
) -> Iterator[str]:
    """Send events as they arrive, a keep-alive comment when none came for `keepalive_ms`,
    and stop once the job is terminal and its events are all sent, or once `still_allowed`
    names why the token no longer authorises the stream."""
    import redis

    yield f"retry: {SSE_RETRY_MS}\n\n"
    try:
        while True:
            denied = still_allowed()
            if denied:
                log.warning("job %s: event stream closed: %s", job_id, denied)
                yield sse_message("end", {"state": None, "error": denied})
                return
            try:
                finished = _finished(jobs, job_id)
            except JobNotFound:  # deleted while we streamed
                break
            block = SSE_GRACE_MS if finished else keepalive_ms
            batch = jobs.events(job_id, after, block_ms=block)
            for event_id, kind, data in batch:
                yield sse_message(kind, data, event_id)
                after = event_id
            if finished and not batch:
                break
            if not batch:
                yield ": keep-alive\n\n"
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        # Redis went away: end the stream cleanly; the client reconnects after `retry` with
        # Last-Event-ID and resumes where it was.
        log.warning("job %s: event stream ended, Redis unavailable: %s", job_id, exc)
        return
    yield sse_message("end", {"state": _state_or_none(jobs, job_id)})


def _finished(jobs: JobStore, job_id: str) -> bool:
    return jobs.get(job_id)["state"] in TERMINAL


def _state_or_none(jobs: JobStore, job_id: str) -> str | None:
    try:
        return jobs.get(job_id)["state"]
    except JobNotFound:
        return None


def sse_message(kind: str, data: dict[str, Any], event_id: str | None = None) -> str:
    """One server-sent event; `data` is one line of JSON."""
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data)}\n\n"


# -- devices and the API document -----------------------------------------------------------------
@api.get("/devices")
@auth.require(auth.READ)
def devices():
    """The tracker's table (key, total, free, busy, pending) and every live agent; where an
    agent runs (host, pid) only for admin tokens: it maps the farm for other tenants."""
    tracker = gateway().tracker()
    agents = [a.to_json() for a in tracker.agents()]
    if not g.token.admin:
        agents = [{k: v for k, v in a.items() if k not in ADMIN_ONLY_AGENT_FIELDS} for a in agents]
    return jsonify({"devices": tracker.summary(), "agents": agents})


@api.get("/openapi.json")
@auth.require(auth.READ)
def openapi_document():
    """This API's OpenAPI 3.0 document."""
    from tunefarm_services.gateway.openapi import document

    return jsonify(document())


# -- helpers --------------------------------------------------------------------------------------
def int_arg(name: str, default: int, low: int, high: int, errors: dict[str, str]) -> int:
    raw = request.args.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        errors[name] = f"must be an integer between {low} and {high}, got {raw!r}"
        return default
    return value
