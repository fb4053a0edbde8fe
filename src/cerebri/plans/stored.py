"""A plan and its steps as the store keeps them (plans.md section 5).

These are values: the executor changes them only by conditional updates in the store, and
here by ``model_copy(update=...)``. Instants are UTC (:class:`~cerebri.temporal.Instant`);
``lease_until`` and ``next_run_at`` are instants, never durations. ``origin`` of every
invocation a step makes is ``plan_step:<step id>`` (:meth:`StoredStep.invocation_origin`).
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, Field

from cerebri.plans.draft import Estimate, PlanDraft, StepSpec
from cerebri.plans.vocabulary import PlanStatus, StepStatus, is_done, is_open, is_terminal
from cerebri.temporal import Instant

__all__ = ["DEFAULT_MAX_REPLANS", "StoredPlan", "StoredStep"]

DEFAULT_MAX_REPLANS: Final = 3
"""Revisions a plan may be replaced by before replanning stops (ours)."""

_CONFIG: Final = ConfigDict(frozen=True, extra="forbid", strict=True)
_Text = Annotated[str, Field(min_length=1)]


class StoredStep(BaseModel):
    """One step of a stored plan: the draft's spec plus execution state."""

    model_config = _CONFIG

    id: _Text
    plan_id: _Text
    position: Annotated[int, Field(ge=0)]
    spec: StepSpec
    status: Annotated[StepStatus, Field(strict=False)] = StepStatus.PENDING
    attempts: Annotated[int, Field(ge=0)] = 0
    max_attempts: Annotated[int, Field(ge=1)] = 1
    lease_until: Instant | None = None
    next_run_at: Instant | None = None
    approval_id: str | None = None
    request_id: str | None = None
    execution_id: str | None = None
    prediction_id: str | None = None
    intention_id: str | None = None
    result: dict[str, Any] | None = None
    observation: dict[str, Any] | None = None
    error: str | None = None
    status_reason: str | None = None
    started_at: Instant | None = None
    finished_at: Instant | None = None

    @property
    def key(self) -> str:
        """The step's key in its draft."""
        return self.spec.key

    @property
    def done(self) -> bool:
        """No longer blocks dependants (``completed`` or ``skipped``)."""
        return is_done(self.status)

    @property
    def terminal(self) -> bool:
        """Final: ``completed``, ``skipped``, ``failed`` or ``cancelled``."""
        return is_terminal(self.status)

    def invocation_origin(self) -> str:
        """``plan_step:<id>``, recorded with every invocation this step makes."""
        return f"plan_step:{self.id}"


class StoredPlan(BaseModel):
    """A plan revision in the store. ``supersedes``/``superseded_by`` link revisions of one
    intention; ``validation`` is the :class:`~cerebri.plans.DraftReport` wire form."""

    model_config = _CONFIG

    id: _Text
    intention_id: _Text
    revision: Annotated[int, Field(ge=1)] = 1
    supersedes: str | None = None
    superseded_by: str | None = None
    draft: PlanDraft
    status: Annotated[PlanStatus, Field(strict=False)] = PlanStatus.DRAFT
    actual: Estimate = Field(default_factory=Estimate)
    validation: dict[str, Any] | None = None
    max_replans: Annotated[int, Field(ge=0)] = DEFAULT_MAX_REPLANS
    status_reason: str | None = None
    closed_at: Instant | None = None
    created_at: Instant
    updated_at: Instant

    @property
    def open(self) -> bool:
        """May still make progress (plans.md section 5)."""
        return is_open(self.status)
