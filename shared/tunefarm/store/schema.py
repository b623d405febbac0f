"""The store's tables, written once in SQLAlchemy Core so SQLite and PostgreSQL share them.

One row per measurement. The row repeats the few fields queries filter and sort on (tenant,
workload, op, target, device key, ok, cost, GFLOP/s, time) and keeps the whole record as its
JSON line, so a row reads back into exactly the `Record` that was put. What makes two rows
the same measurement is the unique key `uq_records_measurement`: tenant, workload, target,
device key, config and measurement settings (the last two as hashes of their canonical JSON,
so the index stays small); a second put of the same measurement is ignored.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

SCHEMA_HEAD = "0002"  # the newest Alembic revision this tunefarm knows
metadata = MetaData()

records = Table(
    "records",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("tenant", String(64), nullable=False),
    Column("workload_key", String(255), nullable=False),
    Column("op", String(64), nullable=False),
    Column("target", String(255), nullable=False),
    Column("device_key", String(255), nullable=False),
    Column("config_hash", String(32), nullable=False),
    Column("settings_hash", String(32), nullable=False),
    Column("ok", Boolean, nullable=False),
    Column("cost", Float, nullable=True),  # median seconds; null for a failed measurement
    Column("gflops", Float, nullable=True),
    Column("timestamp", Float, nullable=False),
    Column("line", Text, nullable=False),
    UniqueConstraint(
        "tenant",
        "workload_key",
        "target",
        "device_key",
        "config_hash",
        "settings_hash",
        name="uq_records_measurement",
    ),
    # best / top-k / trials / stats: every read filters on the tenant first
    Index("ix_records_best", "tenant", "workload_key", "target", "device_key", "ok", "cost"),
    # a workload's records in the order they were measured (the fleet model's set)
    Index("ix_records_order", "tenant", "workload_key", "target", "id"),
    Index("ix_records_target", "target", "id"),
    Index("ix_records_op", "op", "target", "device_key"),
)
