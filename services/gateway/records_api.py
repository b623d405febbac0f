"""/api/v1/records: the record store over REST, per tenant (see docs/records.md).

A token reads its tenant's records, and the fleet's when its tokens-file line grants
`records=fleet`. Records are listed best first and paged with an opaque cursor (the last
row's cost and id), so a page is stable while new records arrive.
"""

from __future__ import annotations

import math
from typing import Any

from flask import g, jsonify, request
from tunefarm_services.gateway import auth
from tunefarm_services.gateway.api import Rejected, api, int_arg
from tunefarm_services.gateway.app import gateway, json_error

from tunefarm.store import RecordStore, StoreError

PAGE, PAGE_MAX = 50, 500


def _store() -> RecordStore | None:
    """The store as this token sees it (one open store per tenant and grant, kept)."""
    return gateway().record_store(g.token.tenant, g.token.records_fleet)


def _cursor(text: str | None) -> tuple[float, int] | None:
    if not text:
        return None
    try:
        cost, rid = text.split(":", 1)
        value = (float(cost), int(rid))
    except ValueError:
        raise Rejected({"cursor": f"not a cursor from this API: {text[:40]!r}"}) from None
    if not math.isfinite(value[0]):
        raise Rejected({"cursor": f"not a cursor from this API: {text[:40]!r}"})
    return value


def _row(rid: int, rec: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "workload_key": rec.workload_key,
        "op": rec.task.op,
        "target": rec.target,
        "device_key": rec.device_key,
        "latency_ms": rec.cost * 1e3,
        "config": rec.config.to_json(),
        "task": rec.task.to_json(),
        "timestamp": rec.result.timestamp,
    }


def _unavailable(exc: StoreError | None = None):
    if exc is None:
        return json_error(503, "no record store is configured (TUNEFARM_STORE)")
    return json_error(503, f"record store unavailable: {exc}")


@api.get("/records")
@auth.require(auth.READ)
def list_records():
    """Valid records, best first: ?workload=&target=&device_key=&limit=&cursor=."""
    errors: dict[str, str] = {}
    limit = int_arg("limit", PAGE, 1, PAGE_MAX, errors)
    if errors:
        raise Rejected(errors)
    cursor = _cursor(request.args.get("cursor"))
    args = request.args
    try:
        store = _store()
        if store is None:
            return _unavailable()
        rows, nxt = store.page(
            args.get("workload") or None,
            args.get("target") or None,
            args.get("device_key") or None,
            cursor,
            limit,
        )
    except StoreError as exc:
        return _unavailable(exc)
    return jsonify(
        {
            "records": [_row(rid, rec) for rid, rec in rows],
            "next_cursor": f"{nxt[0]!r}:{nxt[1]}" if nxt else None,
        }
    )


@api.get("/records/stats")
@auth.require(auth.READ)
def records_stats():
    """Per target and workload: trials, best GFLOP/s and when it was last improved."""
    try:
        store = _store()
        if store is None:
            return _unavailable()
        totals = store.totals()
        rows = store.stats(request.args.get("target") or None)
    except StoreError as exc:
        return _unavailable(exc)
    return jsonify(
        {**totals, "fleet": g.token.records_fleet, "by_workload": [r.to_json() for r in rows]}
    )
