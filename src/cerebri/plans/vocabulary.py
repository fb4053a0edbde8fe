"""The closed vocabularies of plan graphs (plans.md sections 1, 2 and 5).

Every value is spelled as on the wire (snake_case). Status sets and the helpers
:func:`is_open`, :func:`is_done` and :func:`is_terminal` follow plans.md section 5:

* open plans (may still make progress): ``validated``, ``waiting``, ``executing``,
  ``blocked``, ``awaiting_approval``, ``replanning``;
* done steps (no longer block dependants): ``completed``, ``skipped``;
* terminal steps (final, never left): ``completed``, ``skipped``, ``failed``, ``cancelled``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from cerebri._guard import arguments
from cerebri.plans.report import draft_argument_error

__all__ = [
    "DONE_STEP_STATUSES",
    "OPEN_PLAN_STATUSES",
    "TERMINAL_STEP_STATUSES",
    "CheckOp",
    "InternalAction",
    "Origin",
    "PlanStatus",
    "Risk",
    "StepKind",
    "StepStatus",
    "TargetRule",
    "is_done",
    "is_open",
    "is_terminal",
]


class Origin(StrEnum):
    """Who proposed a draft."""

    TEMPLATE = "template"
    MODEL = "model"
    OPERATOR = "operator"
    DREAM = "dream"
    REPLAN = "replan"


class Risk(StrEnum):
    """Risk of a plan, a capability or a grant request (ours: a closed set)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class StepKind(StrEnum):
    """What a step does; each kind has exactly one matching spec (plans.md section 2)."""

    CAPABILITY = "capability"
    REQUEST_CAPABILITY = "request_capability"
    VERIFY = "verify"
    WAIT = "wait"
    MONITOR = "monitor"
    INTERNAL = "internal"


class InternalAction(StrEnum):
    """Deterministic internal actions of an ``internal`` step."""

    SUMMARISE_FINDINGS = "summarise_findings"
    RECORD_PROCEDURE = "record_procedure"
    AWAIT_APPROVAL = "await_approval"


class CheckOp(StrEnum):
    """Comparison of a check: the observed value at ``path`` against ``value``."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LTE = "lte"
    GT = "gt"
    GTE = "gte"
    CONTAINS = "contains"
    EXISTS = "exists"


class TargetRule(StrEnum):
    """How a capability's ``target`` relates to its ``params`` (ours).

    ``none``: the capability takes no target; ``free``: any target or none;
    ``param``: a target is required and must equal ``params[target_param]``.
    """

    NONE = "none"
    FREE = "free"
    PARAM = "param"


class PlanStatus(StrEnum):
    """Status of a stored plan (plans.md section 5)."""

    DRAFT = "draft"
    VALIDATED = "validated"
    WAITING = "waiting"
    EXECUTING = "executing"
    BLOCKED = "blocked"
    AWAITING_APPROVAL = "awaiting_approval"
    REPLANNING = "replanning"
    COMPLETED = "completed"
    FAILED = "failed"
    ABANDONED = "abandoned"
    SUPERSEDED = "superseded"


class StepStatus(StrEnum):
    """Status of a stored step (plans.md section 5)."""

    PENDING = "pending"
    READY = "ready"
    EXECUTING = "executing"
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_GRANT = "awaiting_grant"
    WAITING = "waiting"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"
    BLOCKED = "blocked"
    CANCELLED = "cancelled"


OPEN_PLAN_STATUSES: Final = frozenset(
    {
        PlanStatus.VALIDATED,
        PlanStatus.WAITING,
        PlanStatus.EXECUTING,
        PlanStatus.BLOCKED,
        PlanStatus.AWAITING_APPROVAL,
        PlanStatus.REPLANNING,
    }
)
DONE_STEP_STATUSES: Final = frozenset({StepStatus.COMPLETED, StepStatus.SKIPPED})
TERMINAL_STEP_STATUSES: Final = frozenset(
    {StepStatus.COMPLETED, StepStatus.SKIPPED, StepStatus.FAILED, StepStatus.CANCELLED}
)


@arguments(draft_argument_error, status=str)
def is_open(status: PlanStatus) -> bool:
    """Whether a plan in ``status`` may still make progress."""
    return status in OPEN_PLAN_STATUSES


@arguments(draft_argument_error, status=str)
def is_done(status: StepStatus) -> bool:
    """Whether a step in ``status`` no longer blocks its dependants."""
    return status in DONE_STEP_STATUSES


@arguments(draft_argument_error, status=str)
def is_terminal(status: StepStatus) -> bool:
    """Whether ``status`` is final for a step (it is never left)."""
    return status in TERMINAL_STEP_STATUSES
