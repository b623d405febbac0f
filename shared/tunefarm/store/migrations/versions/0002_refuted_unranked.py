"""Schema 0002: a record its recheck refuted keeps its row but no cost (`Record.ranked`).

Rows written by schema 0001 ranked such a record by its cost, which the best / top-k / trials
/ page lookups would pick over the incumbent that beat it. Its line says so (the recheck's
`"believed":false`, as `RecordStore` writes lines: compact JSON), so the row's cost and
GFLOP/s are cleared; the line itself is untouched.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

REFUTED = '%"believed":false%'


def upgrade() -> None:
    records = sa.table(
        "records",
        sa.column("ok", sa.Boolean),
        sa.column("cost", sa.Float),
        sa.column("gflops", sa.Float),
        sa.column("line", sa.Text),
    )
    op.execute(
        records.update()
        .where(records.c.ok == sa.true(), records.c.line.like(REFUTED))
        .values(cost=None, gflops=None)
    )


def downgrade() -> None:
    """The costs cleared are in the lines still, but 0001 ranked by them: nothing to undo
    that a 0001 reader would want back."""
