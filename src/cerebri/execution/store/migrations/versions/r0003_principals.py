"""0003: principals, their keys, tokens and grants; envelopes taken in (issue #13,
docs/decisions/0023).

* new tables ``principals``, ``principal_keys``, ``principal_tokens``, ``grants`` and
  ``envelopes`` (the replay ledger of envelope intake);
* ``plans``: ``author``, ``envelope_digest``, ``envelope_expires_at``;
* ``approvals``: ``subject_digest``, ``author``, ``keyid``, ``signature``.

Only nullable columns are added to existing tables, so SQLite alters them in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def _instant(name: str, *, nullable: bool = True) -> sa.Column[int]:
    return sa.Column(name, sa.BigInteger, nullable=nullable)


def upgrade() -> None:
    """Add the tables and columns listed above."""
    op.create_table(
        "principals",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("roles", sa.Text, nullable=False),
        sa.Column("display_name", sa.Text),
        _instant("created_at", nullable=False),
        _instant("disabled_at"),
        sa.CheckConstraint("kind IN ('agent', 'person')", name="kind"),
    )
    op.create_table(
        "principal_keys",
        sa.Column("keyid", sa.Text, primary_key=True),
        sa.Column("principal_id", sa.Text, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("public_key", sa.Text, nullable=False),
        _instant("valid_from", nullable=False),
        _instant("created_at", nullable=False),
        _instant("revoked_at"),
    )
    op.create_index(None, "principal_keys", ["principal_id"])
    op.create_table(
        "principal_tokens",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("principal_id", sa.Text, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("digest", sa.Text, nullable=False, unique=True),
        sa.Column("label", sa.Text),
        _instant("created_at", nullable=False),
        _instant("revoked_at"),
    )
    op.create_table(
        "grants",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("principal_id", sa.Text, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("capability", sa.Text, nullable=False),
        sa.Column("calendar", sa.Text, nullable=False),
        _instant("created_at", nullable=False),
        _instant("revoked_at"),
    )
    op.create_index(None, "grants", ["principal_id", "capability"])
    op.create_table(
        "envelopes",
        sa.Column("idempotency_key", sa.Text, primary_key=True),
        sa.Column("digest", sa.Text, nullable=False),
        sa.Column("plan_id", sa.Text, sa.ForeignKey("plans.id"), nullable=False),
        sa.Column("author", sa.Text, nullable=False),
        _instant("expires_at", nullable=False),
        _instant("created_at", nullable=False),
    )
    for name in ("author", "envelope_digest"):
        op.add_column("plans", sa.Column(name, sa.Text))
    op.add_column("plans", _instant("envelope_expires_at"))
    for name in ("subject_digest", "author", "keyid", "signature"):
        op.add_column("approvals", sa.Column(name, sa.Text))


def downgrade() -> None:
    """Remove what :func:`upgrade` added (development only)."""
    with op.batch_alter_table("approvals") as batch:
        for name in ("signature", "keyid", "author", "subject_digest"):
            batch.drop_column(name)
    with op.batch_alter_table("plans") as batch:
        for name in ("envelope_expires_at", "envelope_digest", "author"):
            batch.drop_column(name)
    for table in ("envelopes", "grants", "principal_tokens", "principal_keys", "principals"):
        op.drop_table(table)
