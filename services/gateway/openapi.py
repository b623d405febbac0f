"""The REST API's OpenAPI 3.0 document, built in code next to the API it describes (served at
/api/v1/openapi.json). A test checks that every Flask route under /api/v1 appears here and
that the document validates, so the two cannot drift apart unnoticed."""

from __future__ import annotations

from typing import Any

from tunefarm_services.gateway.validation import (
    DEFAULT_POLICY,
    DEFAULT_TOP_K,
    DEFAULT_TUNER,
    MAX_BATCH,
    MAX_NAME,
    MAX_SELECT_TOP,
    MAX_TRIALS,
    POLICIES,
    TUNERS,
)

from tunefarm.distributed.fairshare import PRIORITY_DEFAULT, PRIORITY_MAX, PRIORITY_MIN
from tunefarm.distributed.jobs import STATES

VERSION = "1.0.0"
JSON = "application/json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
BINARY = "application/octet-stream"


def document() -> dict[str, Any]:
    """The whole document (a fresh dict each call, so callers may modify it)."""
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "tunefarm gateway",
            "version": VERSION,
            "description": (
                "Submit neural networks for auto-tuning, follow their progress and download "
                "the compiled result. GET endpoints need a token with the `read` scope, POST "
                "endpoints `submit`; send it as `Authorization: Bearer <token>` (or the "
                "`tunefarm_token` cookie). A job belongs to the tenant of the token that "
                "submitted it: other tenants' tokens get 404 for it and do not list it, "
                "unless they have the `admin` scope. /healthz and /readyz need no token, "
                "/metrics one with the `metrics` scope. Past a bound (event streams, a "
                "tenant's quotas) the answer is 429 with Retry-After. Answers carry "
                "`Cache-Control: no-store`."
            ),
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}, {"cookie": []}],
        "paths": {**_job_paths(), **_other_paths(), **_records_paths(), **_ops_paths()},
        "components": {"securitySchemes": _security(), "schemas": _schemas()},
    }


# -- building blocks ------------------------------------------------------------------------------
def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _content(media: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {media: {"schema": schema}}


def _ok(description: str, schema: dict[str, Any], media: str = JSON) -> dict[str, Any]:
    return {"description": description, "content": _content(media, schema)}


def _error(description: str, schema: str = "Error") -> dict[str, Any]:
    return _ok(description, _ref(schema))


_AUTH_ERRORS = {
    "401": _error("No token, or an unknown or expired one (with `WWW-Authenticate: Bearer`)."),
    "403": _error("The token lacks the scope this endpoint needs."),
    "503": _error("Redis (job state) is unavailable; try again."),
}
_JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "A job id, e.g. j-20261121-101500-1a2b3c4d.",
}


def _op(
    summary: str,
    op_id: str,
    responses: dict[str, Any],
    *,
    scope: str = "read",
    job: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """One operation; `job` adds the job_id parameter and the 404 for an unknown job."""
    out = {
        "summary": summary,
        "operationId": op_id,
        "description": f"Needs the `{scope}` scope.",
        "responses": {**responses, **_AUTH_ERRORS},
        **extra,
    }
    if job:
        out["parameters"] = [_JOB_ID, *out.get("parameters", [])]
        out["responses"]["404"] = _error("No such job.")
    return out


# -- paths ----------------------------------------------------------------------------------------
def _job_paths() -> dict[str, Any]:
    base = "/api/v1/jobs/{job_id}"
    return {
        "/api/v1/jobs": {"get": _list_jobs(), "post": _submit()},
        base: {
            "get": _op(
                "A job's document", "getJob", {"200": _ok("The job.", _ref("Job"))}, job=True
            )
        },
        f"{base}/cancel": {"post": _cancel()},
        f"{base}/events": {"get": _events()},
        f"{base}/records": {"get": _records()},
        f"{base}/artifact": {"get": _artifact()},
    }


def _get_job() -> dict[str, Any]:
    responses = {"200": _ok("The job: state, task table, estimated latency.", _ref("Job"))}
    return _op("A job's document", "getJob", responses, job=True)


def _submit() -> dict[str, Any]:
    body = {
        "required": True,
        "content": {
            JSON: {"schema": _ref("Submission")},
            "multipart/form-data": {
                "schema": _ref("SubmissionForm"),
                "encoding": {"model": {"contentType": "application/octet-stream"}},
            },
        },
    }
    responses = {
        "202": {
            "description": "Accepted: the job is queued.",
            "headers": {"Location": {"schema": {"type": "string"}, "description": "The job."}},
            "content": _content(JSON, _ref("Accepted")),
        },
        "400": _error("Invalid fields, each named with its problem.", "Invalid"),
        "408": _error("The request body did not arrive in time."),
        "413": _error("The upload (or the whole request) is over the limit.", "Invalid"),
        "415": _error("Neither JSON nor a form.", "Invalid"),
        "429": _error("Past a quota of the tenant (Retry-After says when to try again)."),
        "503": _error("The broker is down; the job was created and marked failed."),
    }
    return _op(
        "Submit a network for tuning",
        "submitJob",
        responses,
        scope="submit",
        requestBody=body,
    )


def _list_jobs() -> dict[str, Any]:
    params = [
        {
            "name": "state",
            "in": "query",
            "schema": {"type": "string", "enum": list(STATES)},
            "description": "Only jobs in this state.",
        },
        {
            "name": "limit",
            "in": "query",
            "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 200},
        },
        {
            "name": "cursor",
            "in": "query",
            "schema": {"type": "string"},
            "description": "The `next` of the page before: the page after it.",
        },
    ]
    counts = {"type": "object", "additionalProperties": {"type": "integer"}}
    schema = {
        "type": "object",
        "properties": {
            "jobs": {"type": "array", "items": _ref("JobSummary")},
            "next": {"type": "string", "nullable": True, "description": "The next page's cursor."},
            "counts": {**counts, "description": "Jobs per state that the token sees."},
        },
    }
    responses = {
        "200": _ok("Jobs, newest first.", schema),
        "400": _error("Unknown state, bad limit or cursor.", "Invalid"),
    }
    return _op("List jobs", "listJobs", responses, parameters=params)


def _cancel() -> dict[str, Any]:
    responses = {
        "202": _ok("Cancel requested; the job's document.", _ref("Job")),
        "409": _error("The job has already finished."),
    }
    return _op("Cancel a job", "cancelJob", responses, scope="submit", job=True)


def _events() -> dict[str, Any]:
    params = [
        {
            "name": "after",
            "in": "query",
            "schema": {"type": "string"},
            "description": "Send events after this id (the Last-Event-ID header wins).",
        },
        {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"}},
    ]
    text = {"type": "string"}
    responses = {
        "200": _ok(
            "Server-sent events: `id:`, `event:` (state, batch, round, error) and `data:` "
            "(JSON), keep-alive comments while waiting; after the job's terminal state, a "
            "final `end` event and the stream closes.",
            text,
            SSE,
        ),
        "204": {"description": "The job has finished and there is nothing newer."},
        "400": _error("`after` is not an event id.", "Invalid"),
        "429": _error("Too many open streams (Retry-After says when to try again)."),
    }
    return _op("Follow a job's progress", "jobEvents", responses, job=True, parameters=params)


def _records() -> dict[str, Any]:
    responses = {
        "200": _ok(
            "The tuning records so far, one JSON object per line (empty before the first).",
            {"type": "string"},
            NDJSON,
        )
    }
    return _op("Download a job's tuning records", "jobRecords", responses, job=True)


def _artifact() -> dict[str, Any]:
    responses = {
        "200": _ok("The compiled network.", {"type": "string", "format": "binary"}, BINARY),
        "409": _error("Not compiled yet."),
    }
    return _op("Download the compiled network", "jobArtifact", responses, job=True)


def _other_paths() -> dict[str, Any]:
    devices = _op(
        "Devices and agents",
        "listDevices",
        {"200": _ok("The tracker's table and every live agent.", _ref("Devices"))},
    )
    doc = _op(
        "This document",
        "openapi",
        {"200": _ok("The OpenAPI 3.0 document.", {"type": "object"})},
    )
    return {"/api/v1/devices": {"get": devices}, "/api/v1/openapi.json": {"get": doc}}


def _records_paths() -> dict[str, Any]:
    def query(name: str, description: str, kind: str = "string") -> dict[str, Any]:
        return {
            "name": name,
            "in": "query",
            "required": False,
            "schema": {"type": kind},
            "description": description,
        }

    no_store = {"503": _error("No record store is configured, or it is unreachable.")}
    listing = _op(
        "Tuning records of the record store, best first",
        "listRecords",
        {
            "200": _ok("One page of records.", _ref("RecordPage")),
            "400": _error("A bad limit or cursor.", "Invalid"),
            **no_store,
        },
        parameters=[
            query("workload", "A workload key, e.g. conv2d:1a2b3c4d5e6f7a8b."),
            query("target", "A target string."),
            query("device_key", "A device key."),
            query("limit", "Records per page (1-500, default 50).", "integer"),
            query("cursor", "next_cursor of the previous page."),
        ],
    )
    stats = _op(
        "Per target and workload: trials, best GFLOP/s, last improved",
        "recordStats",
        {
            "200": _ok("The store's statistics as this token sees it.", _ref("RecordStats")),
            **no_store,
        },
        parameters=[query("target", "Only this target.")],
    )
    return {"/api/v1/records": {"get": listing}, "/api/v1/records/stats": {"get": stats}}


def _record_page() -> dict[str, Any]:
    record = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "workload_key": {"type": "string"},
            "op": {"type": "string"},
            "target": {"type": "string"},
            "device_key": {"type": "string"},
            "latency_ms": {"type": "number"},
            "config": {"type": "object"},
            "task": {"type": "object"},
            "timestamp": {"type": "number"},
        },
    }
    return {
        "type": "object",
        "required": ["records", "next_cursor"],
        "properties": {
            "records": {"type": "array", "items": record},
            "next_cursor": {"type": "string", "nullable": True},
        },
    }


def _record_stats() -> dict[str, Any]:
    row = {
        "type": "object",
        "properties": {
            "target": {"type": "string"},
            "workload_key": {"type": "string"},
            "op": {"type": "string"},
            "trials": {"type": "integer"},
            "best_gflops": {"type": "number"},
            "last_improved": {"type": "number"},
        },
    }
    counts = {k: {"type": "integer"} for k in ("records", "workloads", "targets", "revision")}
    return {
        "type": "object",
        "properties": {
            **counts,
            "fleet": {"type": "boolean"},
            "by_workload": {"type": "array", "items": row},
        },
    }


def _ops_paths() -> dict[str, Any]:
    def public(summary: str, op_id: str, responses: dict[str, Any]) -> dict[str, Any]:
        return {
            "get": {
                "summary": summary,
                "operationId": op_id,
                "security": [],
                "responses": responses,
            }
        }

    status = {"type": "object", "properties": {"status": {"type": "string"}}}
    return {
        "/healthz": public("Liveness (always 200)", "healthz", {"200": _ok("Alive.", status)}),
        "/readyz": public(
            "Readiness: Redis answers",
            "readyz",
            {"200": _ok("Ready.", status), "503": _error("Redis is unreachable.")},
        ),
        "/metrics": {
            "get": _op(
                "Prometheus metrics",
                "metrics",
                {"200": _ok("Prometheus text format.", {"type": "string"}, "text/plain")},
                scope="metrics",
            )
        },
    }


# -- components -----------------------------------------------------------------------------------
def _security() -> dict[str, Any]:
    return {
        "bearer": {"type": "http", "scheme": "bearer"},
        "cookie": {"type": "apiKey", "in": "cookie", "name": "tunefarm_token"},
    }


def _schemas() -> dict[str, Any]:
    return {
        "Submission": _submission(),
        "SubmissionForm": _submission_form(),
        "Accepted": _accepted(),
        "Job": _job(),
        "JobSummary": _job_summary(),
        "Task": _task(),
        "Devices": _devices(),
        "RecordPage": _record_page(),
        "RecordStats": _record_stats(),
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"type": "string"}},
        },
        "Invalid": {
            "type": "object",
            "required": ["error", "fields"],
            "properties": {
                "error": {"type": "string"},
                "fields": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "field -> what is wrong with it",
                },
            },
        },
    }


def _submission_fields() -> dict[str, Any]:
    return {
        "target": {"type": "string", "example": "cpu -isa=avx2"},
        "device_key": {"type": "string", "description": "A key with a live device agent."},
        "trials": {"type": "integer", "minimum": 0, "maximum": MAX_TRIALS},
        "tuner": {"type": "string", "enum": list(TUNERS), "default": DEFAULT_TUNER},
        "policy": {
            "type": "string",
            "enum": list(POLICIES),
            "default": DEFAULT_POLICY,
            "description": "template: tune each op's template; sketch: schedules derived from "
            "the compute definition; auto: sketches for ops without a template",
        },
        "early_stopping": {"type": "integer", "minimum": 1, "nullable": True},
        "select_top": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_SELECT_TOP,
            "default": DEFAULT_TOP_K,
            "description": "After tuning, each task's best N records are timed inside the "
            "network on the device and the fastest there is shipped (0: off).",
        },
        "batch": {"type": "integer", "minimum": 1, "maximum": MAX_BATCH, "default": 1},
        "priority": {
            "type": "integer",
            "minimum": PRIORITY_MIN,
            "maximum": PRIORITY_MAX,
            "default": PRIORITY_DEFAULT,
            "description": "Higher runs sooner among its tenant's jobs waiting for a search "
            "slot; tenants share the slots fairly whatever their jobs' priorities.",
        },
        "name": {"type": "string", "maxLength": MAX_NAME},
        "input_shapes": {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}},
            "example": {"data": [1, 3, 224, 224]},
        },
        "quantize": {
            "type": "string",
            "enum": ["int8"],
            "description": "Required with target vta (and only there): the network's body "
            "quantized to int8 and packed for the accelerator (graph_pack), as the VTA "
            "tutorial. The job then has a `packed` entry.",
        },
        "reuse": {
            "type": "string",
            "enum": ["best", "warm", "off"],
            "default": "warm",
            "description": "How the job uses the record store: best: a task with at least "
            "reuse_min_trials trials there is not tuned again; warm: every search starts "
            "from the store; off: the store is only written to.",
        },
        "reuse_min_trials": {"type": "integer", "minimum": 1, "default": 64},
    }


def _submission() -> dict[str, Any]:
    model = {"type": "string", "description": "A zoo model: 'zoo:resnet-18' or 'resnet-18'."}
    return {
        "type": "object",
        "required": ["model", "target", "device_key", "trials"],
        "additionalProperties": False,
        "properties": {"model": model, **_submission_fields()},
    }


def _submission_form() -> dict[str, Any]:
    """The same fields as form strings ("" = not given), the model as an .onnx file."""
    fields = {name: {"type": "string"} for name in _submission_fields()}
    model = {"type": "string", "format": "binary", "description": "The .onnx file."}
    return {
        "type": "object",
        "required": ["model", "target", "device_key", "trials"],
        "properties": {"model": model, **fields},
    }


def _packed() -> dict[str, Any]:
    """A packed (vta) job's results, set when its evaluation is done."""
    times = {"type": "object", "properties": {k: {"type": "number"} for k in
                                              ("accel_ms", "cpu_ms", "total_ms")}}  # fmt: skip
    return {
        "type": "object",
        "description": "A packed (vta) job's evaluation on an agent of its key: accelerator "
        "time simulated at the config's clock, CPU parts measured, the tuned network checked "
        "bit for bit against the int8 CPU network.",
        "properties": {
            "tuned": times,
            "untuned": times,
            "cpu_compiled_ms": {"type": "number"},
            "device": {
                "type": "object",
                "nullable": True,
                "properties": {
                    "cycles": {"type": "integer"},
                    "busy_share": {"type": "object", "additionalProperties": {"type": "number"}},
                },
            },
            "kernels": {"type": "array", "items": {"type": "object"}},
            "top1": {"type": "integer"},
            "float_top1": {"type": "integer"},
            "bit_exact": {"type": "boolean"},
            "accuracy": {"type": "object", "additionalProperties": {"type": "number"}},
        },
    }


def _links() -> dict[str, Any]:
    names = ("self", "events", "records", "artifact")
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}}


def _accepted() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"id": {"type": "string"}, "state": {"type": "string"}, "links": _links()},
    }


def _job_common() -> dict[str, Any]:
    number = {"type": "number", "nullable": True}
    return {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "model": {"type": "string", "description": "zoo:NAME or upload:model.onnx"},
        "batch": {"type": "integer"},
        "target": {"type": "string"},
        "device_key": {"type": "string"},
        "trials": {"type": "integer"},
        "tuner": {"type": "string"},
        "policy": {"type": "string"},
        "early_stopping": {"type": "integer", "nullable": True},
        "select_top": {"type": "integer"},
        "priority": {"type": "integer"},
        "queue": {
            "type": "object",
            "nullable": True,
            "description": "While the job waits for a search slot: its position, the jobs "
            "ahead of it, the slots busy, and the estimated seconds until it starts (null "
            "before any job finished).",
            "properties": {
                "position": {"type": "integer"},
                "ahead": {"type": "integer"},
                "tenant_ahead": {"type": "integer"},
                "running": {"type": "integer"},
                "estimated_start_s": {"type": "number", "nullable": True},
            },
        },
        "selection": _selection(),
        "delivered": {"type": "string", "enum": ["tuned", "untuned"]},
        "state": {"type": "string", "enum": list(STATES)},
        "created": {"type": "number"},
        "updated": {"type": "number"},
        "trials_done": {"type": "integer"},
        "estimated_latency_ms": number,
        "latency_ms": {"type": "object", "additionalProperties": {"type": "number"}},
        "relative_error": number,
        "quantize": {"type": "string", "enum": ["int8"]},
        "packed": _packed(),
        "errors": {"type": "object", "additionalProperties": {"type": "integer"}},
        "error": {"type": "string", "nullable": True},
        "cancel_requested": {"type": "boolean"},
        "tenant": {"type": "string", "description": "The submitting token's tenant."},
        "submitted_by": {"type": "string", "description": "The submitting token's name."},
        "waiting": {
            "type": "object",
            "nullable": True,
            "description": "Set while the job waits on work sent again (a worker died, or "
            "Redis lost a message): why, and since when.",
            "properties": {"reason": {"type": "string"}, "since": {"type": "number"}},
        },
        "waiting_for": {
            "type": "object",
            "nullable": True,
            "description": "The step whose message is queued for this job, and since when.",
            "properties": {"step": {"type": "string"}, "since": {"type": "number"}},
        },
        "links": _links(),
    }


def _selection() -> dict[str, Any]:
    change = {
        "type": "object",
        "properties": {
            "workload_key": {"type": "string"},
            "node": {"type": "string"},
            "choice": {"type": "string", "description": "'#2' (rank of the record) or 'default'"},
            "network_ms": {"type": "number"},
            "instead_ms": {"type": "number", "description": "in-network ms of the best record"},
        },
    }
    return {
        "type": "object",
        "nullable": True,
        "description": "In-network selection on the device (null: off or no records).",
        "properties": {
            "tasks": {"type": "integer"},
            "changed": {"type": "array", "items": change},
            "saved_ms": {"type": "number"},
        },
    }


def _job() -> dict[str, Any]:
    tasks = {"type": "array", "items": _ref("Task")}
    return {"type": "object", "properties": {**_job_common(), "tasks": tasks}}


def _job_summary() -> dict[str, Any]:
    count = {"type": "integer", "description": "Rows in the task table (see the job)."}
    return {"type": "object", "properties": {**_job_common(), "task_count": count}}


def _task() -> dict[str, Any]:
    number = {"type": "number", "nullable": True}
    return {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "workload_key": {"type": "string"},
            "task": {"type": "string"},
            "weight": {"type": "integer"},
            "mflops": number,
            "latency_ms": number,
            "gflops": number,
            "trials": {"type": "integer"},
            "store": {"type": "string", "description": "N trials in store, best X GFLOP/s"},
            "reused": {"type": "boolean", "description": "Its best came from the store."},
            "trials_saved": {"type": "integer"},
        },
    }


def _devices() -> dict[str, Any]:
    row = {
        "type": "object",
        "properties": {
            k: {"type": "string" if k == "key" else "integer"}
            for k in ("key", "total", "free", "busy", "pending")
        },
    }
    agent_fields = {
        "agent_id": "string",
        "key": "string",
        "target": "string",
        "host": "string",  # admin tokens only
        "pid": "integer",  # admin tokens only
        "started": "number",
        "last_heartbeat": "number",
        "state": "string",
        "measured": "integer",
    }
    agent = {"type": "object", "properties": {k: {"type": t} for k, t in agent_fields.items()}}
    return {
        "type": "object",
        "properties": {
            "devices": {"type": "array", "items": row},
            "agents": {"type": "array", "items": agent},
        },
    }
