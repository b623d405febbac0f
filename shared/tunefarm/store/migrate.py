"""The store's schema version: checked on every open, upgraded by `tunefarm records migrate`.

Alembic keeps the version in the `alembic_version` table and the steps in
`migrations/versions/` (one file per schema version, as Optuna's and MLflow's stores do).
A fresh empty database is created at the newest version; any other version mismatch is a
StoreError with the fix, so an old tunefarm never writes into a newer schema.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from tunefarm.store.engine import explain, make_engine
from tunefarm.store.schema import SCHEMA_HEAD
from tunefarm.store.url import StoreError, sqlalchemy_url

_HERE = Path(__file__).parent / "migrations"


def _config(conn: Connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(_HERE))
    cfg.attributes["connection"] = conn
    return cfg


def known_versions() -> list[str]:
    """Every schema version this tunefarm can read or upgrade from, oldest first."""
    script = ScriptDirectory(str(_HERE))
    return [s.revision for s in reversed(list(script.walk_revisions()))]


def current(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def check(conn: Connection, where: str, create: bool) -> str:
    """The schema version of an open store, after creating a fresh one; StoreError if this
    tunefarm cannot use it as it is."""
    version = current(conn)
    if version is None and not inspect(conn).has_table("records") and create:
        upgrade(conn)  # under the lock: pods opening a fresh database at once create it once
        return SCHEMA_HEAD
    if version == SCHEMA_HEAD:
        return version
    if version is None:
        raise StoreError(
            f"store {where} has no schema version: run `tunefarm records migrate --store {where}`"
        )
    if version not in known_versions():
        raise StoreError(
            f"store {where} has schema {version}, newer than this tunefarm's {SCHEMA_HEAD}: "
            "upgrade tunefarm (or use another --store)"
        )
    raise StoreError(
        f"store {where} has schema {version}, older than {SCHEMA_HEAD}: "
        f"run `tunefarm records migrate --store {where}`"
    )


# Any constant shared by every tunefarm: the key of PostgreSQL's advisory lock for migrations.
_MIGRATION_LOCK = 0x7475_6E65


def upgrade(conn: Connection) -> tuple[str | None, str]:
    """Bring the store to the newest schema; returns (version before, version after).

    On PostgreSQL the transaction first takes an advisory lock, so that migrations started at
    once (each search and gateway pod runs one before it starts) run one after another: the
    second finds the schema already at the head instead of failing on Alembic's version row."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    before = current(conn)
    if before is not None and before not in known_versions():
        raise StoreError(f"schema {before} is newer than this tunefarm's {SCHEMA_HEAD}")
    command.upgrade(_config(conn), "head")
    return before, current(conn) or SCHEMA_HEAD


def migrate_store(store: str) -> tuple[str | None, str]:
    """`tunefarm records migrate`: upgrade the store's schema to this tunefarm's newest."""
    url = sqlalchemy_url(store)
    if url is None:
        raise StoreError("--store none has no schema to migrate")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            return upgrade(conn)
    except SQLAlchemyError as exc:
        raise explain(exc, url) from None
    finally:
        engine.dispose()
