"""Opening a store's database, and its errors as one line naming the store and the fix."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from tunefarm.store.url import StoreError, StoreUnavailable, shown


def make_engine(url: str) -> Engine:
    """An engine for a store URL: SQLite in WAL mode with a long busy timeout (several jobs
    write at once), PostgreSQL with pre-ping and a short connect timeout (a dead server is an
    error in seconds, not a hang)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 60})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _: Any) -> None:  # concurrent jobs: readers never block
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 5})


def explain(exc: SQLAlchemyError, url: str) -> StoreError:
    """One line naming the store and the fix, for a database error at open or use."""
    where = shown(url)
    text = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc) else ""
    if url.startswith("sqlite") and "not a database" in text:
        return StoreError(
            f"store {where} is not a SQLite database (corrupted?): move it aside and start a "
            "new one, then `tunefarm records import` your JSON-lines logs into it"
        )
    if isinstance(exc, OperationalError) and not url.startswith("sqlite"):
        return StoreUnavailable(
            f"store {where} is unreachable ({text}): start PostgreSQL or fix --store "
            "(or pass --store none to tune without it)"
        )
    return StoreError(f"store {where}: {text}")
