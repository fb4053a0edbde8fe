"""0002: what the workers need (issue #12, docs/decisions/0019).

* ``plans``: ``requester``, ``sandbox``, ``limits`` (budget, approval, strategy), the
  counters ``invocations``, ``approvals_requested``, ``money_spent`` and ``open_steps``, and
  ``started_at``;
* ``steps``: ``spec`` (the step's canonical JSON), ``remaining_deps``, ``dependants``,
  ``attempt_group``, and indexes on ``(plan_id, status)`` and ``(next_run_at, id)`` (the
  claim, which replaces the indexes on ``(status, next_run_at)`` and ``(status, lease_until)``);
* ``attempts``: ``invoked_at`` and the saved ``outcome``/``result``/``error``;
* new tables ``sandboxes`` and ``beliefs``; ``timers.kind`` limited to its vocabulary.

SQLite cannot add a foreign key or a check to an existing table, so those go through
Alembic's batch mode (the table is copied); PostgreSQL alters in place.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer, nullable=False, server_default="0")


def upgrade() -> None:
    """Add the columns and tables listed above."""
    op.create_table(
        "sandboxes",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("enabled", sa.Boolean(create_constraint=False), nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "beliefs",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("confidence", sa.Float, nullable=False),
        sa.Column("evidence", sa.Text),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        sa.CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence"),
    )
    with op.batch_alter_table("plans") as batch:
        batch.add_column(sa.Column("requester", sa.Text))
        batch.add_column(sa.Column("sandbox", sa.Text))
        batch.add_column(sa.Column("limits", sa.Text))
        batch.add_column(_counter("invocations"))
        batch.add_column(_counter("approvals_requested"))
        batch.add_column(sa.Column("money_spent", sa.Float, nullable=False, server_default="0"))
        batch.add_column(_counter("open_steps"))
        batch.add_column(sa.Column("started_at", sa.BigInteger))
        batch.create_foreign_key(None, "sandboxes", ["sandbox"], ["name"])
    with op.batch_alter_table("steps") as batch:
        batch.add_column(sa.Column("spec", sa.Text))
        batch.add_column(_counter("remaining_deps"))
        batch.add_column(sa.Column("dependants", sa.Text))
        batch.add_column(sa.Column("attempt_group", sa.Integer, nullable=False, server_default="1"))
        batch.create_index("ix_steps_plan_id_status", ["plan_id", "status"])
        batch.create_index("ix_steps_next_run_at_id", ["next_run_at", "id"])
        batch.drop_index("ix_steps_status_next_run_at")
        batch.drop_index("ix_steps_status_lease_until")
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("invoked_at", sa.BigInteger))
        batch.add_column(sa.Column("outcome", sa.Text))
        batch.add_column(sa.Column("result", sa.Text))
        batch.add_column(sa.Column("error", sa.Text))
    with op.batch_alter_table("timers") as batch:
        batch.create_check_constraint("kind", "kind IN ('approval_expiry', 'wall_deadline')")


def downgrade() -> None:
    """Remove what :func:`upgrade` added (development only)."""
    with op.batch_alter_table("timers") as batch:
        batch.drop_constraint("ck_timers_kind", type_="check")
    with op.batch_alter_table("attempts") as batch:
        for name in ("error", "result", "outcome", "invoked_at"):
            batch.drop_column(name)
    with op.batch_alter_table("steps") as batch:
        batch.create_index("ix_steps_status_lease_until", ["status", "lease_until"])
        batch.create_index("ix_steps_status_next_run_at", ["status", "next_run_at"])
        batch.drop_index("ix_steps_next_run_at_id")
        batch.drop_index("ix_steps_plan_id_status")
        for name in ("attempt_group", "dependants", "remaining_deps", "spec"):
            batch.drop_column(name)
    with op.batch_alter_table("plans") as batch:
        batch.drop_constraint("fk_plans_sandbox_sandboxes", type_="foreignkey")
        for name in (
            "started_at",
            "open_steps",
            "money_spent",
            "approvals_requested",
            "invocations",
            "limits",
            "sandbox",
            "requester",
        ):
            batch.drop_column(name)
    op.drop_table("beliefs")
    op.drop_table("sandboxes")
