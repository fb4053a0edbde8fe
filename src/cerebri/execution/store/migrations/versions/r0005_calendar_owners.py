"""0005: who owns which calendar (docs/decisions/0082).

* new table ``calendar_owners`` (``id``, ``calendar``, ``principal_id``, ``created_at``,
  ``revoked_at``), with a unique index on ``calendar`` over the rows not revoked: a calendar
  has at most one owner at a time, and a revoked ownership stays as history.

Nothing existing changes: a store upgraded to 0005 has no owners, so every plan acts as
before until an operator records one (``cerebri principals own``).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

_ACTIVE = "revoked_at IS NULL"


def upgrade() -> None:
    """Add the table and index listed above."""
    op.create_table(
        "calendar_owners",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("calendar", sa.Text, nullable=False),
        sa.Column("principal_id", sa.Text, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("revoked_at", sa.BigInteger),
    )
    op.create_index(
        "ix_calendar_owners_calendar",
        "calendar_owners",
        ["calendar"],
        unique=True,
        sqlite_where=sa.text(_ACTIVE),
        postgresql_where=sa.text(_ACTIVE),
    )


def downgrade() -> None:
    """Remove what :func:`upgrade` added (development only)."""
    op.drop_index("ix_calendar_owners_calendar", table_name="calendar_owners")
    op.drop_table("calendar_owners")
