"""From a proposal to an action plan (planner.md 9.1-9.3).

A proposal is validated again against the *current* context before it may become actions:
the request must still validate, the context must be unchanged (structural equality), and
every placement must pass the hard checks. Analysis-only requests never yield actions.
Actions are descriptions of intended effects; they grant nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cerebri._guard import arguments, invalid_argument, items_of
from cerebri._json import JSONValue
from cerebri.cpir import (
    ContextSnapshot,
    MutationKind,
    Placement,
    PlanningRequest,
    Tagged,
    ValidationReport,
    ValidationState,
    range_wire,
)
from cerebri.errors import CerebriError
from cerebri.planner.capability import mutation_kind
from cerebri.planner.checks import PlacementChecker
from cerebri.planner.identity import PlanIdentity
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner.plan import plan as plan_request
from cerebri.planner.validate import validate_request

__all__ = [
    "Action",
    "ActionPlan",
    "PlanError",
    "ValidatedPlan",
    "action_plan_for",
    "to_action_plan",
    "validate_proposal",
]


class PlanError(CerebriError):
    """A proposal cannot advance. ``wire`` is the reference's ``PlanError`` form.

    Codes: ``plan.invalid_request`` (wire ``{"InvalidRequest": report}``), ``plan.stale``
    (``"Stale"``), ``plan.rejected`` (``{"Rejected": [reasons]}``), ``plan.analysis_only``
    (``"AnalysisOnly"``), ``plan.no_candidate`` (``"NoCandidate"``, ours: the requested
    candidate rank does not exist).
    """

    code = "plan.error"

    def __init__(self, message: str, *, code: str, wire: JSONValue) -> None:
        super().__init__(message, code=code)
        self.wire = wire


@dataclass(frozen=True, slots=True)
class ValidatedPlan:
    """A proposal that passed validation against an unchanged context."""

    id: str
    request: PlanningRequest
    placements: tuple[Placement, ...]


@dataclass(frozen=True, slots=True)
class Action:
    """One intended calendar change; ``id`` doubles as its idempotency key.

    ``kind`` is ``CREATE_EVENT``/``MOVE_EVENT`` as derived from the target (planner.md 9.3),
    or from the operation for the change operations (decision 0049): ``RESCHEDULE`` →
    ``MOVE_EVENT`` (``placement`` = the new range), ``UPDATE`` → ``UPDATE_EVENT`` (the range
    after the update: current start, new duration), ``CANCEL`` → ``DELETE_EVENT``
    (``placement`` = the range the event occupies when planned: what is removed).
    ``room_id``: the room an ``OPTIMIZE`` placed the meeting in (decision 0070), written as
    ``action.room_id`` only when set; None for every other plan.
    """

    id: str
    source_plan: str
    target: str
    expected_revision: int | None
    idempotency_key: str
    calendar_id: str
    integration_id: str
    confirmation_required: bool
    kind: MutationKind
    placement: Placement
    room_id: str | None = None

    def to_wire(self) -> dict[str, JSONValue]:
        """The reference ``Action`` object; ``action`` is ``{"kind": …, "range": {…}}`` for
        every kind, ``DELETE_EVENT`` included (its range names what is removed; decision
        0049)."""
        span = self.placement.range
        change: dict[str, JSONValue] = {
            "kind": self.kind.value,
            "range": range_wire(span.start, span.end),
        }
        if self.room_id is not None:
            change["room_id"] = self.room_id
        return {
            "id": self.id,
            "source_plan": self.source_plan,
            "target": self.target,
            "expected_revision": self.expected_revision,
            "idempotency_key": self.idempotency_key,
            "calendar_id": self.calendar_id,
            "integration_id": self.integration_id,
            "confirmation_required": self.confirmation_required,
            "action": change,
        }


@dataclass(frozen=True, slots=True)
class ActionPlan:
    """The actions of one validated plan, in placement order."""

    plan_id: str
    actions: tuple[Action, ...]

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"plan_id": …, "actions": [...]}``."""
        return {"plan_id": self.plan_id, "actions": [a.to_wire() for a in self.actions]}


def _report_wire(report: ValidationReport) -> JSONValue:
    return report.to_wire()


@arguments(
    invalid_argument,
    request=PlanningRequest,
    placements=(list, tuple),
    current_context=ContextSnapshot,
    limits=PlannerLimits,
)
def validate_proposal(
    request: PlanningRequest,
    placements: Sequence[Placement],
    current_context: ContextSnapshot,
    *,
    limits: PlannerLimits = DEFAULT_LIMITS,
) -> ValidatedPlan:
    """Check a proposal again before it may become actions (planner.md 9.2).

    Raises:
        PlanError: ``plan.invalid_request`` when the request no longer validates,
            ``plan.stale`` when ``current_context`` differs from the request's context in
            any field, ``plan.rejected`` with the hard-check reasons otherwise.
        InvalidArgumentError: ``input.invalid_argument``, an argument of the wrong type
            (``placements`` must be a list or tuple of :class:`Placement`).
    """
    placements = items_of(placements, Placement, invalid_argument, "validate_proposal placements")
    validation = validate_request(request, limits)
    if validation.report.state is ValidationState.INSUFFICIENT_INFORMATION:
        raise PlanError(
            "the request does not validate",
            code="plan.invalid_request",
            wire={"InvalidRequest": _report_wire(validation.report)},
        )
    if request.context != current_context:
        raise PlanError("the context changed since planning", code="plan.stale", wire="Stale")
    ordered = tuple(sorted(placements, key=lambda p: (p.object_id, p.range.start)))
    reasons: tuple[Tagged, ...]
    ids = [p.object_id for p in ordered]
    if validation.duration_seconds is None or len(set(ids)) != len(ids):
        reasons = (Tagged("InvalidTargets"),)
    else:
        checker = PlacementChecker(request, validation.duration_seconds, ids)
        reasons = checker.check({p.object_id: (p.range.start.ns, p.range.end.ns) for p in ordered})
    if reasons:
        raise PlanError(
            "the placements fail hard checks",
            code="plan.rejected",
            wire={"Rejected": [r.to_wire() for r in reasons]},
        )
    return ValidatedPlan(PlanIdentity(request).plan_id(ordered), request, ordered)


@arguments(invalid_argument, plan=ValidatedPlan)
def to_action_plan(plan: ValidatedPlan) -> ActionPlan:
    """One action per placement, ids ``<plan id>-<i>`` (planner.md 9.3); the kind of each
    is :func:`~cerebri.planner.capability.mutation_kind` of its object under the request's
    operation (``MOVE_EVENT``/``DELETE_EVENT``/``UPDATE_EVENT`` for RESCHEDULE/CANCEL/UPDATE).

    Raises:
        PlanError: ``plan.analysis_only`` for analysis-only requests
            (``scope.max_mutations == 0``, ``FIND_SLOT`` or ``ANALYZE``).
    """
    request = plan.request
    if request.analysis_only:
        raise PlanError(
            "analysis-only requests never yield actions",
            code="plan.analysis_only",
            wire="AnalysisOnly",
        )
    actions: list[Action] = []
    for index, placement in enumerate(plan.placements):
        obj = request.object(placement.object_id)
        assert obj is not None  # validate_proposal rejected unknown objects
        kind = mutation_kind(obj, request.operation)
        action_id = f"{plan.id}-{index}"
        actions.append(
            Action(
                id=action_id,
                source_plan=plan.id,
                target=obj.id,
                expected_revision=obj.revision,
                idempotency_key=action_id,
                calendar_id=obj.calendar_id,
                integration_id=obj.integration_id,
                confirmation_required=request.policy.requires_confirmation(kind),
                kind=kind,
                placement=placement,
            )
        )
    return ActionPlan(plan.id, tuple(actions))


@arguments(invalid_argument, request=PlanningRequest, rank=int, limits=PlannerLimits)
def action_plan_for(
    request: PlanningRequest, *, rank: int = 1, limits: PlannerLimits = DEFAULT_LIMITS
) -> ActionPlan:
    """Plan ``request`` and turn its ranked candidate ``rank`` (1 = best) into actions.

    The candidate's placements are validated again against the request's own context
    (:func:`validate_proposal`) before :func:`to_action_plan`.

    Raises:
        PlanError: ``plan.analysis_only`` (checked before planning), ``plan.no_candidate``
            (fewer than ``rank`` candidates; wire ``"NoCandidate"``), or the errors of
            :func:`validate_proposal`.
        InvalidArgumentError: ``input.invalid_argument``, ``rank`` below 1 or an argument
            of the wrong type (also a ``ValueError``).
    """
    if rank < 1:
        raise invalid_argument("rank counts from 1")
    if request.analysis_only:
        raise PlanError(
            "analysis-only requests never yield actions",
            code="plan.analysis_only",
            wire="AnalysisOnly",
        )
    result = plan_request(request, limits=limits)
    candidates = result.candidates
    if rank > len(candidates):
        issues = ", ".join(i.name for i in result.validation.issues)
        why = f"outcome {result.outcome.value}, validation {result.validation.state.value}"
        raise PlanError(
            f"the plan has {len(candidates)} candidate(s), so there is no candidate {rank} "
            f"({why}{': ' + issues if issues else ''}; `cerebri plan --table` explains)",
            code="plan.no_candidate",
            wire="NoCandidate",
        )
    chosen = candidates[rank - 1].proposed
    return to_action_plan(
        validate_proposal(request, chosen.placements, request.context, limits=limits)
    )
