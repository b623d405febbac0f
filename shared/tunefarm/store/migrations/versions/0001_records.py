"""Schema 0001: the records table, its measurement key and its query indexes."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "records",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("tenant", sa.String(64), nullable=False),
        sa.Column("workload_key", sa.String(255), nullable=False),
        sa.Column("op", sa.String(64), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("device_key", sa.String(255), nullable=False),
        sa.Column("config_hash", sa.String(32), nullable=False),
        sa.Column("settings_hash", sa.String(32), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
        sa.Column("cost", sa.Float, nullable=True),
        sa.Column("gflops", sa.Float, nullable=True),
        sa.Column("timestamp", sa.Float, nullable=False),
        sa.Column("line", sa.Text, nullable=False),
        sa.UniqueConstraint(
            "tenant",
            "workload_key",
            "target",
            "device_key",
            "config_hash",
            "settings_hash",
            name="uq_records_measurement",
        ),
    )
    op.create_index(
        "ix_records_best",
        "records",
        ["tenant", "workload_key", "target", "device_key", "ok", "cost"],
    )
    op.create_index("ix_records_order", "records", ["tenant", "workload_key", "target", "id"])
    op.create_index("ix_records_target", "records", ["target", "id"])
    op.create_index("ix_records_op", "records", ["op", "target", "device_key"])


def downgrade() -> None:
    op.drop_table("records")
