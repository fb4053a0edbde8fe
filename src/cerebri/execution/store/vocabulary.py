"""The store's own closed vocabularies (plan and step statuses are :mod:`cerebri.plans`')."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

__all__ = [
    "PASSED_ON",
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


PASSED_ON: Final = "passed_on"
"""The member of a finished attempt's ``error`` object that marks a pass-on (decision 0075):
``true`` when the worker left the step for another one, for want of an adapter (outcome
``interrupted``: it neither acted nor failed) or because its adapter refused with a code
meaning "not configured on this worker" (outcome ``failed``, as before). Carried in ``error``
so the outcome's closed vocabulary, and the store's schema, stay as they are."""


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
