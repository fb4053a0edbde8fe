"""The tables of the execution store (SQLAlchemy 2 Core), the fields of plans.md section 5.

Conventions (docs/decisions/0018-execution-store.md):

* Instants are ``BIGINT`` nanoseconds since 1970-01-01T00:00:00Z (UTC), the
  :attr:`cerebri.temporal.Instant.ns` value: exact, totally ordered, same on both back ends.
* JSON documents are ``TEXT`` holding canonical JSON (:func:`cerebri._json.canonical`), so the
  stored bytes are identical on SQLite and PostgreSQL.
* Status columns carry ``CHECK`` constraints over the closed vocabularies
  (:class:`~cerebri.plans.PlanStatus`, :class:`~cerebri.plans.StepStatus`, and the store's own
  in :mod:`cerebri.execution.store.vocabulary`).
* ``steps`` is the claim table; ``attempts`` holds open attempts only and finished ones move to
  ``attempt_history`` so the claim path reads small tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    UniqueConstraint,
    text,
)

from cerebri.execution.store.vocabulary import (
    ApprovalStatus,
    AttemptOutcome,
    IntentionStatus,
    PredictionStatus,
    TimerKind,
)
from cerebri.plans.vocabulary import Origin, PlanStatus, StepKind, StepStatus

__all__ = [
    "METADATA",
    "TABLE_NAMES",
    "approvals",
    "attempt_history",
    "attempts",
    "beliefs",
    "calendar_owners",
    "envelopes",
    "grants",
    "intentions",
    "plans",
    "predictions",
    "principal_keys",
    "principal_tokens",
    "principals",
    "procedural_memories",
    "sandboxes",
    "steps",
    "timers",
]

METADATA = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)
"""All tables of the store, with a naming convention so both back ends name constraints alike."""


def _one_of(column: str, values: Iterable[StrEnum], name: str) -> CheckConstraint:
    """``CHECK (column IN ('a', 'b', ...))`` over a closed vocabulary (values sorted)."""
    quoted = ", ".join(f"'{v.value}'" for v in sorted(values, key=lambda v: v.value))
    return CheckConstraint(f"{column} IN ({quoted})", name=name)


def _instant(name: str, *, nullable: bool = True) -> Column[int]:
    """An instant column: nanoseconds since the epoch, UTC."""
    return Column(name, BigInteger, nullable=nullable)


def _json(name: str, *, nullable: bool = True) -> Column[str]:
    """A canonical-JSON text column."""
    return Column(name, Text, nullable=nullable)


def _counter(name: str) -> Column[int]:
    """A whole-number counter starting at 0 (added by 0002, hence the server default)."""
    return Column(name, Integer, nullable=False, server_default="0")


intentions = Table(
    "intentions",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("status", Text, nullable=False),
    Column("status_reason", Text),
    Column("parent_step_id", Text),  # a subordinate intention: the step waiting on it
    _json("goal"),
    _instant("created_at", nullable=False),
    _instant("updated_at", nullable=False),
    _instant("closed_at"),
    _one_of("status", IntentionStatus, "status"),
)

plans = Table(
    "plans",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("intention_id", Text, ForeignKey("intentions.id")),
    Column("revision", Integer, nullable=False),
    Column("supersedes", Text, ForeignKey("plans.id")),
    Column("superseded_by", Text, ForeignKey("plans.id")),
    Column("status", Text, nullable=False),
    Column("status_reason", Text),
    Column("origin", Text, nullable=False),
    Column("max_replans", Integer, nullable=False),
    _json("draft", nullable=False),
    _json("validation"),
    _json("actual"),
    _instant("created_at", nullable=False),
    _instant("updated_at", nullable=False),
    _instant("closed_at"),
    # 0002: who submitted it, its sandbox, resource counters and the count of open steps
    Column("requester", Text),
    Column("sandbox", Text, ForeignKey("sandboxes.name")),
    _json("limits"),  # budget, require_approval and strategy of the draft, read on every claim
    _counter("invocations"),
    _counter("approvals_requested"),
    Column("money_spent", Float, nullable=False, server_default="0"),
    _counter("open_steps"),
    _instant("started_at"),
    # 0003: the proposal it came from (the envelope's author, payload digest and expiry)
    Column("author", Text),
    Column("envelope_digest", Text),
    _instant("envelope_expires_at"),
    UniqueConstraint("intention_id", "revision"),
    _one_of("status", PlanStatus, "status"),
    _one_of("origin", Origin, "origin"),
    CheckConstraint("revision >= 1", name="revision"),
    CheckConstraint("max_replans >= 0", name="max_replans"),
    Index(None, "status"),
)

steps = Table(
    "steps",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("plan_id", Text, ForeignKey("plans.id"), nullable=False),
    Column("key", Text, nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("status_reason", Text),
    Column("attempts", Integer, nullable=False, default=0),
    Column("max_attempts", Integer, nullable=False),
    Column("idempotent", Boolean(create_constraint=False), nullable=False),
    Column("lease_token", Text),
    _instant("lease_until"),
    _instant("next_run_at"),
    Column("approval_id", Text),
    Column("request_id", Text),
    Column("execution_id", Text),
    Column("prediction_id", Text),
    Column("intention_id", Text, ForeignKey("intentions.id")),
    _json("result"),
    _json("observation"),
    _json("error"),
    _instant("started_at"),
    _instant("finished_at"),
    _instant("updated_at", nullable=False),
    # 0002: the step's spec, its place in the graph and its attempt group
    _json("spec"),
    _counter("remaining_deps"),
    _json("dependants"),
    Column("attempt_group", Integer, nullable=False, server_default="1"),
    UniqueConstraint("plan_id", "key"),
    UniqueConstraint("plan_id", "position"),
    _one_of("status", StepStatus, "status"),
    _one_of("kind", StepKind, "kind"),
    CheckConstraint("attempts >= 0", name="attempts"),
    CheckConstraint("max_attempts >= 1", name="max_attempts"),
    Index(None, "plan_id", "status"),
    Index(None, "next_run_at", "id"),  # 0002: the claim takes the row due first, by id
)

_ATTEMPT_COLUMNS = (
    ("id", Text),
    ("step_id", Text),
    ("number", Integer),
    ("lease_token", Text),
    ("worker_id", Text),
    ("idempotency_key", Text),
)


def _attempt_columns() -> list[Column[Any]]:
    columns: list[Column[Any]] = [
        Column(name, kind, primary_key=(name == "id"), nullable=(name == "worker_id"))
        for name, kind in _ATTEMPT_COLUMNS
    ]
    columns.append(_instant("started_at", nullable=False))
    return columns


attempts = Table(
    "attempts",
    METADATA,
    *_attempt_columns(),
    _instant("heartbeat_at"),
    # 0002: the invocation began (non-idempotent steps), and its outcome saved before the step
    _instant("invoked_at"),
    Column("outcome", Text),
    _json("result"),
    _json("error"),
    UniqueConstraint("step_id", "number"),
    CheckConstraint("number >= 1", name="number"),
)
"""Open attempts: one row per attempt still running (claimed, not yet recorded)."""

attempt_history = Table(
    "attempt_history",
    METADATA,
    *_attempt_columns(),
    _instant("finished_at", nullable=False),
    Column("outcome", Text, nullable=False),
    _json("result"),
    _json("error"),
    UniqueConstraint("step_id", "number"),
    _one_of("outcome", AttemptOutcome, "outcome"),
    Index(None, "step_id"),
)
"""Finished attempts, moved here from ``attempts`` when their outcome is recorded."""

approvals = Table(
    "approvals",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("plan_id", Text, ForeignKey("plans.id"), nullable=False),
    Column("step_id", Text, ForeignKey("steps.id")),
    Column("requester", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("status_reason", Text),
    Column("decided_by", Text),
    _json("request"),
    _instant("created_at", nullable=False),
    _instant("expires_at", nullable=False),
    _instant("decided_at"),
    _instant("consumed_at"),
    # 0003: what is approved (digest), the plan's proposal author, the signed decision
    Column("subject_digest", Text),
    Column("author", Text),
    Column("keyid", Text),
    Column("signature", Text),
    _one_of("status", ApprovalStatus, "status"),
    Index(None, "status", "expires_at"),
)

predictions = Table(
    "predictions",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("plan_id", Text, ForeignKey("plans.id"), nullable=False),
    Column("step_id", Text, ForeignKey("steps.id")),
    Column("status", Text, nullable=False),
    _json("expectation", nullable=False),
    _json("observation"),
    _instant("due_at"),
    _instant("created_at", nullable=False),
    _instant("resolved_at"),
    _one_of("status", PredictionStatus, "status"),
)

timers = Table(
    "timers",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    Column("ref", Text, nullable=False),
    _instant("due_at", nullable=False),
    _instant("created_at", nullable=False),
    _instant("fired_at"),
    Index(None, "fired_at", "due_at"),
    _one_of("kind", TimerKind, "kind"),
)

procedural_memories = Table(
    "procedural_memories",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("plan_id", Text, ForeignKey("plans.id"), nullable=False),
    Column("intention_id", Text, ForeignKey("intentions.id")),
    Column("goal_key", Text, nullable=False),
    _json("steps", nullable=False),
    _instant("created_at", nullable=False),
    Index(None, "goal_key"),
)

sandboxes = Table(
    "sandboxes",
    METADATA,
    Column("name", Text, primary_key=True),
    Column("enabled", Boolean(create_constraint=False), nullable=False),
    Column("reason", Text),
    _instant("updated_at", nullable=False),
)
"""Named sandboxes plans may be submitted into; no plan of a disabled one acts (0002)."""

beliefs = Table(
    "beliefs",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("confidence", Float, nullable=False),
    _json("evidence"),
    _instant("updated_at", nullable=False),
    CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence"),
)
"""Confidence in a belief a plan rests on, lowered by missed predictions (0002)."""

principals = Table(
    "principals",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("kind", Text, nullable=False),
    _json("roles", nullable=False),
    Column("display_name", Text),
    _instant("created_at", nullable=False),
    _instant("disabled_at"),
    CheckConstraint("kind IN ('agent', 'person')", name="kind"),
)
"""People and agents known to the store, with their roles (0003, decision 0023)."""

principal_keys = Table(
    "principal_keys",
    METADATA,
    Column("keyid", Text, primary_key=True),
    Column("principal_id", Text, ForeignKey("principals.id"), nullable=False),
    Column("public_key", Text, nullable=False),
    _instant("valid_from", nullable=False),
    _instant("created_at", nullable=False),
    _instant("revoked_at"),
    Index(None, "principal_id"),
)
"""Ed25519 public keys (standard base64 of the 32 raw bytes), each owned by one principal."""

principal_tokens = Table(
    "principal_tokens",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("principal_id", Text, ForeignKey("principals.id"), nullable=False),
    Column("digest", Text, nullable=False, unique=True),
    Column("label", Text),
    _instant("created_at", nullable=False),
    _instant("revoked_at"),
)
"""API bearer tokens, kept only as ``sha256:<hex>`` digests."""

grants = Table(
    "grants",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("principal_id", Text, ForeignKey("principals.id"), nullable=False),
    Column("capability", Text, nullable=False),
    Column("calendar", Text, nullable=False),
    _instant("created_at", nullable=False),
    _instant("revoked_at"),
    Index(None, "principal_id", "capability"),
)
"""Standing capability grants: a principal's plans may use ``capability`` on ``calendar``
(``*``: any calendar) while the grant is not revoked."""

_ACTIVE = "revoked_at IS NULL"

calendar_owners = Table(
    "calendar_owners",
    METADATA,
    Column("id", Text, primary_key=True),
    Column("calendar", Text, nullable=False),
    Column("principal_id", Text, ForeignKey("principals.id"), nullable=False),
    _instant("created_at", nullable=False),
    _instant("revoked_at"),
    # at most one owner of a calendar at a time: unique among the rows not revoked
    Index(
        None,
        "calendar",
        unique=True,
        sqlite_where=text(_ACTIVE),
        postgresql_where=text(_ACTIVE),
    ),
)
"""Who owns which calendar (0005, decision 0082): the principal whose approval a move,
cancel or update of an event there needs when someone else's plan makes it. One owner at a
time (a unique index over the rows not revoked); a revoked row stays as history."""

envelopes = Table(
    "envelopes",
    METADATA,
    Column("idempotency_key", Text, primary_key=True),
    Column("digest", Text, nullable=False),
    Column("plan_id", Text, ForeignKey("plans.id"), nullable=False),
    Column("author", Text, nullable=False),
    _instant("expires_at", nullable=False),
    _instant("created_at", nullable=False),
    # 0004: who submitted it (the requester) and the author's keys that signed it (JSON array)
    Column("submitted_by", Text),
    Column("keyids", Text),
)
"""Envelopes taken in, by idempotency key: the replay ledger of intake (proposals.md 4), with
who submitted each and which of its author's keys signed it (decision 0034)."""

TABLE_NAMES: tuple[str, ...] = tuple(sorted(METADATA.tables))
"""The names of every table of the store, sorted."""
