"""The record store: every measurement of every job, shared, behind one small interface.

`open_store(--store value)` returns a `RecordStore` on SQLite (embedded) or PostgreSQL (the
services); both run the same SQLAlchemy Core statements. Puts are idempotent (see
`schema.py`): a record put twice, by a retry or by two jobs, is one row. Reads see the
tenants given at open (`read_tenants`); writes go to `write_tenants`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select, true, union_all
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from tunefarm.backends import registry
from tunefarm.store import migrate
from tunefarm.store.engine import explain, make_engine
from tunefarm.store.schema import records as T
from tunefarm.store.url import StoreError, StoreUnavailable, shown, sqlalchemy_url
from tunefarm.tune.records import Record

LOCAL_TENANT = "local"
FLEET_TENANT = "fleet"
_BATCH = 2000  # rows per insert statement and per streamed page


def _ranked() -> Any:
    """The rows a best-record lookup ranks: `Record.ranked` ones, whose rows alone carry a
    cost (`_row`). The `ok` test keeps the lookups on the best index's prefix."""
    return and_(T.c.ok == true(), T.c.cost.is_not(None))


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Trials:
    """What the store holds for one workload on one target and device key."""

    trials: int
    best_cost: float  # seconds; inf when none succeeded
    best_gflops: float


@dataclass(frozen=True)
class WorkloadStats:
    """One line of the Records page: a workload on a target, its trials and its best."""

    target: str
    workload_key: str
    op: str
    trials: int
    best_gflops: float
    last_improved: float  # timestamp of the best record

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def open_store(
    store: str | None,
    tenant: str = LOCAL_TENANT,
    fleet: bool = False,
    create: bool = True,
) -> RecordStore | None:
    """The store named by a `--store` value (None for `none`), its schema checked.

    tenant: who writes; fleet: also read (and write) the fleet's records. A fresh empty
    database gets the current schema when `create`; an older or newer one is a StoreError
    saying to run `tunefarm records migrate` or to upgrade tunefarm.
    """
    url = sqlalchemy_url(store)
    if url is None:
        return None
    if url.startswith("sqlite:///"):
        from pathlib import Path

        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            migrate.check(conn, shown(url), create)
    except StoreError:
        engine.dispose()
        raise
    except SQLAlchemyError as exc:
        engine.dispose()
        raise explain(exc, url) from None
    return RecordStore(engine, url, tenant, fleet)


class RecordStore:
    """Records of every job, queried by workload, target and device key (see module doc)."""

    def __init__(self, engine: Engine, url: str, tenant: str, fleet: bool) -> None:
        self.engine, self.url = engine, url
        self.tenant, self.fleet = tenant, fleet
        self.read_tenants = sorted({tenant, FLEET_TENANT} if fleet else {tenant})
        self.write_tenants = self.read_tenants
        self.lookups = self.hits = 0  # counted for the metrics and the job's report
        self._flops: dict[str, float] = {}
        self._settings: dict[Any, str] = {}

    @property
    def where(self) -> str:
        return shown(self.url)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def _run(self, fn: Any, *args: Any) -> Any:
        """Run fn(conn, *args) in one transaction; database errors become StoreErrors."""
        try:
            with self.engine.begin() as conn:
                return fn(conn, *args)
        except SQLAlchemyError as exc:
            raise explain(exc, self.url) from None

    # -- writing -------------------------------------------------------------------------------
    def _row(self, rec: Record, tenant: str) -> dict[str, Any]:
        """The row of a record. One to_json and one dumps of the line per record; a task's
        flops and a settings' hash are computed once per store (imports put millions)."""
        key = rec.workload_key
        if key not in self._flops:
            try:
                self._flops[key] = registry.flops(rec.task)
            except (ValueError, KeyError, TypeError):
                self._flops[key] = 0.0
        obj = rec.to_json()
        settings = rec.result.settings
        shash = self._settings.get(settings)
        if shash is None:
            shash = self._settings.setdefault(settings, _digest(obj["settings"]))
        # a refuted record (`Record.ranked`) keeps its line but no cost: no best, top-k,
        # trials' best or page ranks it, as `ApplyHistoryBest` does not
        cost = rec.cost if rec.ranked and math.isfinite(rec.cost) else None
        flops = self._flops[key]
        return {
            "tenant": tenant,
            "workload_key": key,
            "op": rec.task.op,
            "target": rec.target,
            "device_key": rec.device_key,
            "config_hash": _digest(obj["config"]["values"]),
            "settings_hash": shash,
            "ok": rec.ok and math.isfinite(rec.cost),
            "cost": cost,
            "gflops": flops / cost / 1e9 if cost and flops else None,
            "timestamp": rec.result.timestamp if math.isfinite(rec.result.timestamp) else 0.0,
            "line": json.dumps(obj, separators=(",", ":"), allow_nan=False),
        }

    def _insert(self) -> Any:
        if self.engine.dialect.name == "postgresql":
            return pg_insert(T).on_conflict_do_nothing(constraint="uq_records_measurement")
        return sqlite_insert(T).on_conflict_do_nothing()

    def put(self, records: Iterable[Record]) -> int:
        """Store the records (to every write tenant); returns how many rows were new."""
        new = 0
        batch: list[dict[str, Any]] = []
        for rec in records:
            row = self._row(rec, self.write_tenants[0])
            batch += [row, *({**row, "tenant": t} for t in self.write_tenants[1:])]
            if len(batch) >= _BATCH:
                new += self._run(self._put_rows, batch)
                batch = []
        if batch:
            new += self._run(self._put_rows, batch)
        return new

    def _put_rows(self, conn: Connection, rows: list[dict[str, Any]]) -> int:
        if self.engine.dialect.name == "sqlite":  # rowcount of executemany is exact here
            return max(0, conn.execute(self._insert(), rows).rowcount)
        return len(conn.execute(self._insert().returning(T.c.id), rows).all())

    # -- reading -------------------------------------------------------------------------------
    def _mine(self) -> Any:
        return T.c.tenant.in_(self.read_tenants)

    def top_k(
        self, workload_keys: Sequence[str], target: str, device_key: str, k: int = 1
    ) -> dict[str, list[Record]]:
        """The k fastest ranked records per workload (best first), in one statement: a UNION
        ALL of one short query per workload, each walking the (tenant, workload, target,
        device, ok, cost) index, so a lookup costs the same in a store of a thousand records
        or a million, and one round trip."""
        keys = list(dict.fromkeys(workload_keys))
        dup = k * len(self.read_tenants)  # a record written to two tenants shows twice
        base = (
            select(T.c.workload_key, T.c.cost, T.c.id, T.c.line, T.c.config_hash)
            .where(T.c.target == target, T.c.device_key == device_key, _ranked())
            .where(self._mine())
            .order_by(T.c.cost, T.c.id)
            .limit(dup)
        )
        parts = [select(base.where(T.c.workload_key == key).subquery()) for key in keys]
        found: dict[str, list[Any]] = {}
        if parts:  # one statement: a round trip per lookup, not per workload
            rows = self._run(lambda c: c.execute(union_all(*parts)).all())
            for key, _, _, line, chash in sorted(rows, key=lambda r: (r[1], r[2])):
                found.setdefault(key, []).append((line, chash))
        out: dict[str, list[Record]] = {}
        for key, rows in found.items():
            seen: set[str] = set()
            for line, chash in rows:
                if chash not in seen and len(seen) < k:
                    seen.add(chash)
                    out.setdefault(key, []).append(Record.from_json(json.loads(line)))
        self.lookups += len(keys)
        self.hits += len(out)
        return out

    def best(self, workload_key: str, target: str, device_key: str) -> Record | None:
        found = self.top_k([workload_key], target, device_key, 1).get(workload_key)
        return found[0] if found else None

    def trials(
        self, workload_keys: Sequence[str], target: str, device_key: str
    ) -> dict[str, Trials]:
        """Measured trials and best per workload that has any (failed and refuted trials count
        as trials; the best is of the ranked ones)."""
        keys = list(dict.fromkeys(workload_keys))
        n = (
            func.count(func.distinct(T.c.config_hash.concat(T.c.settings_hash)))
            if len(self.read_tenants) > 1
            else func.count()
        )
        query = (
            select(T.c.workload_key, n, func.min(T.c.cost), func.max(T.c.gflops))
            .where(self._mine(), T.c.workload_key.in_(keys), T.c.target == target)
            .where(T.c.device_key == device_key)
            .group_by(T.c.workload_key)
        )
        rows = self._run(lambda c: c.execute(query).all())
        return {
            key: Trials(count, cost if cost is not None else math.inf, gflops or 0.0)
            for key, count, cost, gflops in rows
        }

    def similar(self, task: Any, device_key: str, workloads: int = 3, k: int = 4) -> list[Record]:
        """The k best records of each of the `workloads` nearest other workloads of the same
        op on this target (nearest: smallest summed |log| ratio of their numeric params)."""
        query = (
            select(T.c.workload_key, func.min(T.c.line))
            .where(self._mine(), T.c.op == task.op, T.c.target == task.target)
            .where(T.c.device_key == device_key, T.c.workload_key != task.workload_key)
            .where(_ranked())  # a workload with only refuted rows has no best to offer
            .group_by(T.c.workload_key)
            .limit(500)
        )
        rows = self._run(lambda c: c.execute(query).all())
        mine = dict(task.params)
        scored = []
        for key, line in rows:
            other = json.loads(line)["task"]["params"]
            scored.append((_distance(mine, other), key))
        nearest = [key for _, key in sorted(scored)[:workloads]]
        found = self.top_k(nearest, task.target, device_key, k) if nearest else {}
        return [r for key in nearest for r in found.get(key, [])]

    def iter_records(
        self, target: str | None = None, device_key: str | None = None, after: int = 0
    ) -> Iterator[Record]:
        """Every record (of a target, of a device key), oldest first, read in pages by id so
        that a million rows stream in constant memory on both databases."""
        seen: set[tuple[str, str, str]] = set() if len(self.read_tenants) > 1 else None
        while True:
            query = select(T.c.id, T.c.line, T.c.config_hash, T.c.settings_hash, T.c.workload_key)
            query = query.where(self._mine(), T.c.id > after)
            if target is not None:
                query = query.where(T.c.target == target)
            if device_key is not None:
                query = query.where(T.c.device_key == device_key)
            page = self._run(lambda c, q=query: c.execute(q.order_by(T.c.id).limit(_BATCH)).all())
            for _, line, chash, shash, key in page:
                if seen is not None:
                    if (key, chash, shash) in seen:
                        continue
                    seen.add((key, chash, shash))
                yield Record.from_json(json.loads(line))
            if len(page) < _BATCH:
                return
            after = page[-1][0]

    def page(
        self,
        workload_key: str | None,
        target: str | None,
        device_key: str | None,
        cursor: tuple[float, int] | None,
        limit: int,
    ) -> tuple[list[tuple[int, Record]], tuple[float, int] | None]:
        """Ranked records best first, `limit` at a time: (rows, cursor of the next page)."""
        query = select(T.c.id, T.c.cost, T.c.line).where(self._mine(), _ranked())
        for col, value in (
            (T.c.workload_key, workload_key),
            (T.c.target, target),
            (T.c.device_key, device_key),
        ):
            if value:
                query = query.where(col == value)
        if cursor is not None:
            cost, rid = cursor
            query = query.where(or_(T.c.cost > cost, and_(T.c.cost == cost, T.c.id > rid)))
        query = query.order_by(T.c.cost, T.c.id).limit(limit + 1)
        rows = self._run(lambda c: c.execute(query).all())
        more = len(rows) > limit
        rows = rows[:limit]
        out = [(rid, Record.from_json(json.loads(line))) for rid, _, line in rows]
        nxt = (rows[-1][1], rows[-1][0]) if more and rows else None
        return out, nxt

    def _workloads(self, conn: Connection, target: str | None, device_key: str | None = None):
        """(target, workload, rows, best cost) per workload: one grouped scan of the best
        index (it holds every column this needs, so no row is read)."""
        query = select(T.c.target, T.c.workload_key, func.count(), func.min(T.c.cost))
        query = query.where(self._mine()).group_by(T.c.workload_key, T.c.target)
        if target:
            query = query.where(T.c.target == target)
        if device_key:
            query = query.where(T.c.device_key == device_key)
        return conn.execute(query.order_by(T.c.target, T.c.workload_key)).all()

    def stats(self, target: str | None = None) -> list[WorkloadStats]:
        """Per target and workload: trials, best GFLOP/s and when the best was measured
        (a grouped index scan, then one indexed lookup per workload for its best row)."""

        def run(conn: Connection) -> list[WorkloadStats]:
            out = []
            for tgt, key, n, cost in self._workloads(conn, target):
                gflops, when = 0.0, 0.0
                if cost is not None:
                    best = select(T.c.gflops, T.c.timestamp).where(
                        self._mine(), T.c.workload_key == key, T.c.target == tgt, _ranked()
                    )
                    gflops, when = conn.execute(best.order_by(T.c.cost, T.c.id).limit(1)).one()
                out.append(WorkloadStats(tgt, key, key.split(":")[0], n, gflops or 0.0, when))
            return out

        return self._run(run)

    def totals(self) -> dict[str, int]:
        """Rows, workloads and targets this reader sees, and the store's revision."""
        query = select(
            func.count(),
            func.count(func.distinct(T.c.workload_key)),
            func.count(func.distinct(T.c.target)),
        ).where(self._mine())
        rows, workloads, targets = self._run(lambda c: c.execute(query).one())
        return {
            "records": rows,
            "workloads": workloads,
            "targets": targets,
            "revision": self.revision(),
        }

    def revision(self) -> int:
        """Grows with every new row (the newest id): caches key on it."""
        return int(self._run(lambda c: c.execute(select(func.max(T.c.id))).scalar()) or 0)

    def training(
        self,
        target: str,
        device_key: str | None = None,
        per_workload: int = 256,
        exclude: Iterable[str] = (),
    ) -> list[Record]:
        """Records of a target to train a fleet cost model on: the first `per_workload`
        measured of each workload (mostly exploration, so the costs spread), none of
        `exclude`; one indexed query per workload."""
        skip = set(exclude)

        def run(conn: Connection) -> list[tuple[str, str, str]]:
            rows = []
            for _, key, _, _ in self._workloads(conn, target, device_key):
                if key in skip:
                    continue
                query = select(T.c.workload_key, T.c.config_hash, T.c.line).where(
                    self._mine(), T.c.workload_key == key, T.c.target == target
                )
                if device_key is not None:
                    query = query.where(T.c.device_key == device_key)
                dup = per_workload * len(self.read_tenants)
                rows += conn.execute(query.order_by(T.c.id).limit(dup)).all()
            return rows

        out, seen, count = [], set(), {}
        for key, chash, line in self._run(run):
            if (key, chash) not in seen and count.get(key, 0) < per_workload:
                seen.add((key, chash))
                count[key] = count.get(key, 0) + 1
                out.append(Record.from_json(json.loads(line)))
        return out


def _distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    """How far two ops' params are: summed |log ratio| of numbers, +10 per other value."""
    total = 0.0
    for key in set(a) | set(b):
        x, y = a.get(key), b.get(key)
        xs = list(x) if isinstance(x, (list, tuple)) else [x]
        ys = list(y) if isinstance(y, (list, tuple)) else [y]
        if len(xs) != len(ys):
            total += 10.0
            continue
        for u, v in zip(xs, ys, strict=True):
            if isinstance(u, (int, float)) and isinstance(v, (int, float)) and u > 0 and v > 0:
                total += abs(math.log(u / v))
            elif u != v:
                total += 10.0
    return total


__all__ = [
    "FLEET_TENANT",
    "LOCAL_TENANT",
    "RecordStore",
    "StoreError",
    "StoreUnavailable",
    "Trials",
    "WorkloadStats",
    "open_store",
]
