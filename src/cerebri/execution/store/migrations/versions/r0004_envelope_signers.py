"""0004: who submitted an envelope and which of its author's keys signed it (issue #21,
docs/decisions/0034).

* ``envelopes``: ``submitted_by`` (the principal whose call stored it: the requester) and
  ``keyids`` (a JSON array, sorted, of the author's keys whose signatures verified at intake).

Both are nullable: rows taken in before 0004 keep ``NULL``, and the act-time check then asks
that the author still holds at least one active key (decision 0034).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the two columns listed above."""
    for name in ("submitted_by", "keyids"):
        op.add_column("envelopes", sa.Column(name, sa.Text))


def downgrade() -> None:
    """Remove what :func:`upgrade` added (development only)."""
    with op.batch_alter_table("envelopes") as batch:
        for name in ("keyids", "submitted_by"):
            batch.drop_column(name)
