"""The store's own closed vocabularies (plan and step statuses are :mod:`cerebri.plans`')."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "ApprovalStatus",
    "AttemptOutcome",
    "IntentionStatus",
    "PredictionStatus",
    "TimerKind",
]


class IntentionStatus(StrEnum):
    """An intention is open until fulfilled or abandoned."""

    OPEN = "open"
    FULFILLED = "fulfilled"
    ABANDONED = "abandoned"


class ApprovalStatus(StrEnum):
    """``open → approved | rejected | expired | withdrawn`` (issue #12)."""

    OPEN = "open"
    APPROVED = "approved"
    REJECTED = "rejected"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"


class AttemptOutcome(StrEnum):
    """How a finished attempt ended (its row in ``attempt_history``)."""

    COMPLETED = "completed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class PredictionStatus(StrEnum):
    """A prediction is open until a verify step confirms or misses it."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    MISSED = "missed"


class TimerKind(StrEnum):
    """A durable wake-up not carried by a step's ``next_run_at`` (0002).

    ``approval_expiry``: an open approval request expires (fails closed);
    ``wall_deadline``: a plan's ``budget.max_wall_seconds`` runs out.
    """

    APPROVAL_EXPIRY = "approval_expiry"
    WALL_DEADLINE = "wall_deadline"
