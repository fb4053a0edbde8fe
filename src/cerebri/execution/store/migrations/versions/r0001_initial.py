"""0001: every table of the execution store.

Creates the tables frozen in :mod:`cerebri.execution.store.migrations._tables_0001` (what
``schema.py`` was while 0001 was the head), so a store made by that release and a new one
pass through the same revisions.
"""

from __future__ import annotations

from alembic import op

from cerebri.execution.store.migrations._tables_0001 import METADATA

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
