"""0001: every table of the execution store.

This revision creates the schema of :mod:`cerebri.execution.store.schema` as it is while 0001
is the head. The first later schema change must copy these tables into this file (so that
0001 stays what it was) and add its own revision (docs/decisions/0018).
"""

from __future__ import annotations

from alembic import op

from cerebri.execution.store.schema import METADATA

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create every table, index and constraint."""
    METADATA.create_all(op.get_bind(), checkfirst=False)


def downgrade() -> None:
    """Drop every table (development only)."""
    METADATA.drop_all(op.get_bind(), checkfirst=False)
