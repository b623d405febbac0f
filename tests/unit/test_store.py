"""The record store on a real SQLite file and a real PostgreSQL database: idempotent puts,
best / top-k / trials / similar / streaming / stats, tenancy, schema versions, bad stores,
the spool, and concurrent writers."""

from __future__ import annotations

import math
import multiprocessing
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import text
from store_helpers import CONV, DENSE, FAR, NEAR, SERVER, rec, refuted

from tunefarm.store import FLEET_TENANT, StoreError, StoreUnavailable, migrate_store, open_store
from tunefarm.store.schema import SCHEMA_HEAD
from tunefarm.store.schema import records as T
from tunefarm.store.spool import SpooledStore


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The PostgreSQL server's URL (without a database); skips when none answers."""
    import psycopg

    try:
        psycopg.connect(f"{SERVER}/postgres", connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL at {SERVER}: {str(exc).strip().splitlines()[0]}")
    yield SERVER


@pytest.fixture
def postgres_url(pg_server: str) -> Iterator[str]:
    """A fresh database on the server, dropped after the test."""
    import psycopg

    name = f"tunefarm_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"{pg_server}/{name}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A SQLite file, then a PostgreSQL database: every store test runs on both."""
    if request.param == "sqlite":
        return str(tmp_path / "records.sqlite")
    return request.getfixturevalue("postgres_url")


def _fill(url: str) -> list:
    records = [rec(i, (i + 1) * 1e-3) for i in range(10)] + [rec(20, None)]
    records += [rec(i, 5e-3, NEAR) for i in range(3)] + [rec(0, 1e-3, DENSE)]
    with open_store(url) as store:
        assert store.put(records) == len(records)
    return records


def test_put_is_idempotent_and_best_is_fastest(store_url: str) -> None:
    records = _fill(store_url)
    with open_store(store_url) as store:
        assert store.put(records) == 0  # a retry or a second job adds nothing
        assert store.put([rec(3, 9.0)]) == 0  # same config and settings: the first one stays
        assert store.put([rec(3, 9.0, device="other")]) == 1  # another device is another row
        best = store.best(CONV.workload_key, CONV.target, "local")
        assert best is not None and best.config.index == 0 and best.cost == pytest.approx(1e-3)
        top = store.top_k([CONV.workload_key, NEAR.workload_key], "cpu", "local", 3)
        assert [r.config.index for r in top[CONV.workload_key]] == [0, 1, 2]
        assert len(top[NEAR.workload_key]) == 3
        trials = store.trials([CONV.workload_key, FAR.workload_key], "cpu", "local")
        assert trials[CONV.workload_key].trials == 11  # the failed one counts as a trial
        assert trials[CONV.workload_key].best_gflops > 0
        assert FAR.workload_key not in trials
        assert store.best(CONV.workload_key, "cpu -isa=avx2", "local") is None
        assert store.hits == 3 and store.lookups == 4


def test_similar_streaming_stats_and_paging(store_url: str) -> None:
    records = _fill(store_url)
    with open_store(store_url) as store:
        store.put([rec(0, 1e-3, FAR)])
        near = store.similar(CONV, "local", workloads=1, k=2)
        assert {r.workload_key for r in near} == {NEAR.workload_key}  # nearest shape first
        streamed = list(store.iter_records("cpu"))
        assert len(streamed) == len(records) + 1
        assert streamed[0] == records[0]  # read back exactly as put
        stats = {s.workload_key: s for s in store.stats("cpu")}
        assert stats[CONV.workload_key].trials == 11
        assert stats[CONV.workload_key].last_improved == pytest.approx(1.7e9)
        rows, cursor = store.page(CONV.workload_key, "cpu", "local", None, 4)
        assert [r.config.index for _, r in rows] == [0, 1, 2, 3] and cursor is not None
        rows, cursor = store.page(CONV.workload_key, "cpu", "local", cursor, 100)
        assert [r.config.index for _, r in rows] == [4, 5, 6, 7, 8, 9] and cursor is None
        totals = store.totals()
        assert totals["records"] == len(records) + 1 and totals["revision"] >= totals["records"]


def test_tenants_read_their_own_and_the_fleet_when_granted(store_url: str) -> None:
    with open_store(store_url, tenant="alice") as alice:
        alice.put([rec(0, 1e-3)])
    with open_store(store_url, tenant="bob", fleet=True) as bob:
        assert bob.best(CONV.workload_key, "cpu", "local") is None  # alice's are private
        bob.put([rec(1, 2e-3)])  # goes to bob and to the fleet
        assert bob.trials([CONV.workload_key], "cpu", "local")[CONV.workload_key].trials == 1
        assert len(list(bob.iter_records())) == 1  # counted once though stored twice
    with open_store(store_url, tenant="carol", fleet=True) as carol:
        best = carol.best(CONV.workload_key, "cpu", "local")
        assert best is not None and best.config.index == 1  # the fleet's, not alice's
    with open_store(store_url, tenant=FLEET_TENANT) as fleet:
        assert fleet.totals()["records"] == 1


def test_a_corrupted_sqlite_file_is_one_line_naming_it(tmp_path) -> None:
    bad = tmp_path / "records.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="is not a SQLite database.*move it aside") as err:
        open_store(str(bad))
    assert str(bad) in str(err.value) and "\n" not in str(err.value)


def test_a_newer_or_unversioned_schema_is_refused_with_the_fix(tmp_path) -> None:
    path = tmp_path / "records.sqlite"
    open_store(str(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099'")
    with pytest.raises(StoreError, match="schema 0099, newer than.*upgrade tunefarm"):
        open_store(str(path))
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE alembic_version")
    with pytest.raises(StoreError, match="no schema version: run `tunefarm records migrate"):
        open_store(str(path))
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as conn:  # what an old tunefarm would leave: nothing yet
        conn.execute("CREATE TABLE unrelated (x int)")
    assert migrate_store(str(old)) == (None, SCHEMA_HEAD)
    open_store(str(old)).close()


def test_an_unreachable_postgres_is_one_line_naming_the_url() -> None:
    url = "postgresql://tunefarm:secret@127.0.0.1:1/nowhere"
    with pytest.raises(StoreUnavailable, match="unreachable.*start PostgreSQL") as err:
        open_store(url)
    assert "127.0.0.1:1/nowhere" in str(err.value) and "secret" not in str(err.value)


def test_spool_keeps_records_while_the_store_is_down_and_flushes_in_order(tmp_path) -> None:
    url = str(tmp_path / "records.sqlite")
    down = {"now": True}

    def opener():
        if down["now"]:
            raise StoreUnavailable("down")
        return open_store(url)

    spool = SpooledStore(opener, tmp_path / "spool", "local")
    assert spool.put([rec(0, 1e-3), rec(1, 2e-3)]) == 0
    assert spool.put([rec(1, 2e-3), rec(2, 3e-3)]) == 0  # a retried batch: still spooled
    assert spool.depth() == 4
    down["now"] = False
    assert spool.put([rec(3, 4e-3)]) == 1  # the spool goes in first, then this batch
    assert spool.depth() == 0 and not spool.path.exists()
    with open_store(url) as store:
        assert [r.config.index for r in store.iter_records()] == [0, 1, 2, 3]  # in order, once
    spool.close()


def _writer(url: str, worker: int) -> None:
    with open_store(url) as store:
        for start in range(0, 60, 6):  # overlapping batches: every worker writes configs 0-59
            store.put([rec(i, (i + 1) * 1e-4) for i in range(start, start + 6)])
            store.put([rec(100 + worker * 60 + start + j, 1.0) for j in range(6)])


def test_four_concurrent_writers_lose_and_duplicate_nothing(store_url: str) -> None:
    open_store(store_url).close()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(store_url, w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    with open_store(store_url) as store:
        indices = [r.config.index for r in store.iter_records()]
    assert len(indices) == len(set(indices)) == 60 + 4 * 60
    assert math.isclose(min(indices), 0) and max(indices) == 100 + 3 * 60 + 59


def test_a_refuted_record_is_no_best_of_any_lookup(store_url: str) -> None:
    """A record its recheck refuted keeps the costs of the rounds it lost, here below the
    incumbent's: best, top-k, trials' best, pages and the stats' best skip it, as
    `ApplyHistoryBest` does; it still counts as a trial and reads back whole."""
    lost = refuted(rec(2, 0.5e-3), against=1)
    with open_store(store_url) as store:
        store.put([rec(1, 1e-3), lost, rec(3, 2e-3)])
        best = store.best(CONV.workload_key, "cpu", "local")
        assert best is not None and best.config.index == 1
        top = store.top_k([CONV.workload_key], "cpu", "local", 3)[CONV.workload_key]
        assert [r.config.index for r in top] == [1, 3]
        trials = store.trials([CONV.workload_key], "cpu", "local")[CONV.workload_key]
        assert trials.trials == 3 and trials.best_cost == pytest.approx(1e-3)
        rows, _ = store.page(CONV.workload_key, "cpu", "local", None, 10)
        assert [r.config.index for _, r in rows] == [1, 3]
        (stats,) = store.stats("cpu")
        assert stats.last_improved == pytest.approx(best.result.timestamp)
        assert stats.best_gflops == pytest.approx(trials.best_gflops)
        assert lost in list(store.iter_records())
        # a workload whose only record was refuted is no nearest workload to seed from
        store.put([refuted(rec(2, 0.5e-3, NEAR), against=1), rec(1, 1e-3, FAR)])
        assert [r.workload_key for r in store.similar(CONV, "local", 1)] == [FAR.workload_key]


def _at_once(n: int, fn) -> list:
    """`fn()` in n threads released together; their results (or exceptions) in order."""
    barrier = threading.Barrier(n)

    def run(_):
        barrier.wait()
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - the test compares what each one got
            return exc

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


@pytest.mark.timeout(120)  # without the lock the sessions waited on each other for good
def test_pods_migrating_or_creating_a_store_at_once_do_it_once(postgres_url: str) -> None:
    """Every search and gateway pod migrates the store before it starts (deploy/base): on
    PostgreSQL concurrent migrations take turns, so one upgrades and the rest find the head,
    and pods opening a fresh database at once create its schema once."""
    fresh = _at_once(4, lambda: open_store(postgres_url).close() or "open")
    assert fresh == ["open"] * 4
    with open_store(postgres_url) as store:
        store.put([rec(1, 1e-3)])
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    got = _at_once(4, lambda: migrate_store(postgres_url))
    assert sorted(got) == [("0001", "0002")] + [("0002", "0002")] * 3, got
    with open_store(postgres_url) as store:
        assert len(list(store.iter_records())) == 1


def test_migrating_0001_clears_the_costs_of_refuted_rows(store_url: str) -> None:
    """Schema 0001 wrote a refuted record's cost into its row; `tunefarm records migrate`
    (0002) clears it, so the lookups skip rows written before as well."""
    lost = refuted(rec(2, 0.5e-3), against=1)
    with open_store(store_url) as store:
        store.put([rec(1, 1e-3), lost])
        with store.engine.begin() as conn:  # the row as 0001 wrote it, and 0001's version
            conn.execute(T.update().where(T.c.cost.is_(None)).values(cost=0.5e-3, gflops=1.0))
            conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    with pytest.raises(StoreError, match="older than 0002: run `tunefarm records migrate"):
        open_store(store_url)
    assert migrate_store(store_url) == ("0001", "0002")
    with open_store(store_url) as store:
        best = store.best(CONV.workload_key, "cpu", "local")
        assert best is not None and best.config.index == 1
        assert len(list(store.iter_records())) == 2
