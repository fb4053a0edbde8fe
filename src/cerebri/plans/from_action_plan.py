"""From the planner's ActionPlan to a plan graph (issue #5 item 4; plans.md sections 2 and 4).

:func:`draft_from_action_plan` picks the most preferred strategy not yet failed
(:mod:`cerebri.plans.strategies`) and writes its steps. For action *i* (in ActionPlan
order) of kind ``CREATE_EVENT`` or ``MOVE_EVENT``:

``direct_action_verified``
    ``create-i`` / ``move-i``: the effect on ``calendar.event.create`` / ``calendar.event.move``
    with params from the action (its idempotency key included), an expectation that the
    event occupies ``[start, end)`` within :data:`VERIFY_WITHIN_SECONDS`, and a precondition
    "the event is not already at ``[start, end)``" with ``satisfied_if_false``: when the
    world already holds the desired state the effect is skipped, not repeated;
    ``verify-i``: reads the event back (``calendar.event.get``) and compares its ``range``,
    polling every :data:`VERIFY_INTERVAL_SECONDS`; then one ``record`` step
    (``record_procedure``) after every verification.
``read_only_diagnosis``
    ``access``: a ``request_capability`` for ``calendar.freebusy`` on the calendars involved
    (risk low, mitigation and fallback stated); ``observe-i``: free/busy over the action's
    range (and ``read-i``: the event, for a move); ``summary``: ``summarise_findings``.
``escalation``
    the same reads without a grant request, and a ``summary`` for the operator; completing it
    does not fulfil the intention.

Every draft names the strategies considered in ``alternatives`` (the selected one, those
that failed, those not needed). Instants in params are RFC 3339 UTC strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from cerebri._guard import arguments
from cerebri.cpir import MutationKind
from cerebri.planner import Action, ActionPlan
from cerebri.plans.draft import (
    Alternative,
    Budget,
    CapabilityRequestSpec,
    Check,
    Estimate,
    Expectation,
    InternalSpec,
    PlanDraft,
    Precondition,
    StepSpec,
    VerifySpec,
)
from cerebri.plans.report import DraftError, draft_argument_error
from cerebri.plans.strategies import STRATEGY_ORDER, Strategy, choose_strategy
from cerebri.plans.vocabulary import CheckOp, InternalAction, Origin, Risk, StepKind

__all__ = [
    "GRANT_SECONDS",
    "VERIFY_INTERVAL_SECONDS",
    "VERIFY_WITHIN_SECONDS",
    "draft_from_action_plan",
]

VERIFY_WITHIN_SECONDS: Final = 60
"""How long after an effect its verification may take, in seconds."""
VERIFY_INTERVAL_SECONDS: Final = 5
"""Seconds between two reads of a verification."""
GRANT_SECONDS: Final = 900
"""Duration of the read grant a diagnosis asks for, in seconds."""
EXPECTED_CONFIDENCE: Final = 0.95
"""Confidence that a calendar effect holds once the calendar acknowledged it (ours)."""

_EFFECTS: Final = {
    MutationKind.CREATE_EVENT: ("create", "calendar.event.create"),
    MutationKind.MOVE_EVENT: ("move", "calendar.event.move"),
}


def _range(action: Action) -> dict[str, Any]:
    span = action.placement.range
    return {"start": str(span.start), "end": str(span.end)}


def _read_event(action: Action) -> Check:
    return Check(
        capability="calendar.event.get",
        target=action.target,
        params={"calendar_id": action.calendar_id, "object_id": action.target},
        path="range",
        op=CheckOp.EQ,
        value=_range(action),
        description=f"event {action.target} occupies [start, end)",
    )


def _effect(index: int, action: Action) -> StepSpec:
    verb, capability = _EFFECTS[action.kind]
    params: dict[str, Any] = {
        "calendar_id": action.calendar_id,
        "integration_id": action.integration_id,
        "object_id": action.target,
        **_range(action),
        "idempotency_key": action.idempotency_key,
    }
    if action.kind is MutationKind.MOVE_EVENT:
        params["expected_revision"] = action.expected_revision
    already = _read_event(action).model_copy(
        update={"op": CheckOp.NE, "description": "the event is not already there"}
    )
    span = _range(action)
    return StepSpec(
        key=f"{verb}-{index}",
        title=f"{verb} {action.target} at [{span['start']}, {span['end']})",
        kind=StepKind.CAPABILITY,
        capability=capability,
        target=action.target,
        params=params,
        require_approval=action.confirmation_required,
        expectation=Expectation(
            description=f"{action.target} occupies [{span['start']}, {span['end']}) in "
            f"calendar {action.calendar_id}",
            confidence=EXPECTED_CONFIDENCE,
            within_seconds=VERIFY_WITHIN_SECONDS,
        ),
        precondition=Precondition(check=already, satisfied_if_false=True),
    )


def _verify(index: int, effect: StepSpec, action: Action) -> StepSpec:
    return StepSpec(
        key=f"verify-{index}",
        title=f"read {action.target} back",
        kind=StepKind.VERIFY,
        depends_on=(effect.key,),
        verify=VerifySpec(
            of=effect.key,
            check=_read_event(action),
            within_seconds=VERIFY_WITHIN_SECONDS,
            interval_seconds=VERIFY_INTERVAL_SECONDS,
        ),
    )


def _internal(key: str, action: InternalAction, after: list[str]) -> StepSpec:
    return StepSpec(
        key=key,
        title=action.value.replace("_", " "),
        kind=StepKind.INTERNAL,
        depends_on=tuple(after),
        internal=InternalSpec(action=action),
    )


def _direct(actions: tuple[Action, ...]) -> list[StepSpec]:
    steps: list[StepSpec] = []
    for index, action in enumerate(actions):
        effect = _effect(index, action)
        steps += [effect, _verify(index, effect, action)]
    verified = [s.key for s in steps if s.kind == StepKind.VERIFY]
    return [*steps, _internal("record", InternalAction.RECORD_PROCEDURE, verified)]


def _reads(actions: tuple[Action, ...], after: tuple[str, ...]) -> list[StepSpec]:
    steps: list[StepSpec] = []
    for index, action in enumerate(actions):
        steps.append(
            StepSpec(
                key=f"observe-{index}",
                title=f"free/busy of {action.calendar_id} over the planned range",
                kind=StepKind.CAPABILITY,
                depends_on=after,
                capability="calendar.freebusy",
                params={"calendar_ids": [action.calendar_id], **_range(action)},
            )
        )
        if action.kind is MutationKind.MOVE_EVENT:
            read = _read_event(action)
            steps.append(
                StepSpec(
                    key=f"read-{index}",
                    title=f"read {action.target}",
                    kind=StepKind.CAPABILITY,
                    depends_on=after,
                    capability=read.capability,
                    target=read.target,
                    params=read.params,
                )
            )
    return [*steps, _internal("summary", InternalAction.SUMMARISE_FINDINGS, [s.key for s in steps])]


def _diagnosis(actions: tuple[Action, ...]) -> list[StepSpec]:
    calendars = sorted({a.calendar_id for a in actions})
    access = StepSpec(
        key="access",
        title="request read access to free/busy",
        kind=StepKind.REQUEST_CAPABILITY,
        request=CapabilityRequestSpec(
            capability="calendar.freebusy",
            target_pattern="*",
            param_constraints={"calendar_ids": calendars},
            duration_seconds=GRANT_SECONDS,
            max_operations=len(actions),
            reason="find out why the planned change did not hold",
            risk=Risk.LOW,
            mitigation="read-only, limited to the calendars of the plan and to "
            f"{GRANT_SECONDS} seconds",
            fallback="escalate to the operator",
        ),
    )
    return [access, *_reads(actions, (access.key,))]


def _escalation(actions: tuple[Action, ...]) -> list[StepSpec]:
    return _reads(actions, ())


_WRITERS: Final = {
    Strategy.DIRECT_ACTION_VERIFIED: _direct,
    Strategy.READ_ONLY_DIAGNOSIS: _diagnosis,
    Strategy.ESCALATION: _escalation,
}

_DESCRIPTIONS: Final = {
    Strategy.DIRECT_ACTION_VERIFIED: "act through the calendar capability, then read the "
    "event back",
    Strategy.READ_ONLY_DIAGNOSIS: "request scoped read access, observe, summarise",
    Strategy.ESCALATION: "observe and inform the operator instead of acting again",
}


def _estimate(steps: list[StepSpec]) -> Estimate:
    invocations = sum(
        (s.kind == StepKind.CAPABILITY) + (s.precondition is not None) + (s.verify is not None)
        for s in steps
    )
    return Estimate(
        capability_invocations=invocations,
        human_approvals=sum(s.require_approval for s in steps),
        wall_seconds=VERIFY_WITHIN_SECONDS if any(s.verify for s in steps) else 0,
        network_operations=invocations,
    )


def _budget(steps: list[StepSpec]) -> Budget:
    # worst case: every verification polls for its whole window
    polls = VERIFY_WITHIN_SECONDS // VERIFY_INTERVAL_SECONDS + 1
    worst = sum(
        (s.kind == StepKind.CAPABILITY)
        + (s.precondition is not None)
        + (polls if s.verify is not None else 0)
        for s in steps
    )
    return Budget(max_capability_invocations=worst)


def _alternatives(
    chosen: Strategy, spent: set[str], actions: tuple[Action, ...]
) -> tuple[Alternative, ...]:
    result = []
    for rank, strategy in enumerate(STRATEGY_ORDER):
        if strategy is chosen:
            why = "most preferred strategy not yet failed (plans.md section 4)"
        elif strategy.value in spent:
            why = "failed before for this intention"
        else:
            why = "a more preferred strategy applies"
        result.append(
            Alternative(
                strategy=strategy.value,
                description=_DESCRIPTIONS[strategy],
                estimate=_estimate(_WRITERS[strategy](actions)),
                expected_confidence=EXPECTED_CONFIDENCE if rank == 0 else 0.5,
                score=float(len(STRATEGY_ORDER) - rank),
                selected=strategy is chosen,
                why=why,
            )
        )
    return tuple(result)


MAX_TITLE_LENGTH: Final = 1024
"""Longest event title in ``calendar.event.create`` params, in characters."""


def _titled(steps: list[StepSpec], titles: Mapping[str, str]) -> list[StepSpec]:
    """``steps`` with ``params.title`` on every ``calendar.event.create`` step whose target
    has a title in ``titles`` (CPIR requests carry no titles: the caller supplies them)."""
    for target, title in titles.items():
        if not (isinstance(target, str) and isinstance(title, str)):
            raise draft_argument_error("titles maps object ids (str) to titles (str)")
        if not title.strip() or len(title) > MAX_TITLE_LENGTH:
            raise draft_argument_error(
                f"the title of {target!r} must be 1 to {MAX_TITLE_LENGTH} characters, not blank"
            )
    titled: list[StepSpec] = []
    for step in steps:
        name = titles.get(step.target or "")
        if step.capability == "calendar.event.create" and name is not None:
            params = {**(step.params or {}), "title": name}
            titled.append(step.model_copy(update={"params": params}))
        else:
            titled.append(step)
    return titled


def _zoned(steps: list[StepSpec], zones: Mapping[str, str]) -> list[StepSpec]:
    """``steps`` with ``params.timezone`` on every create or move step whose target has an
    IANA zone in ``zones`` (the zone its times are meant in, for the people who approve)."""
    for target, name in zones.items():
        if not (isinstance(target, str) and isinstance(name, str)):
            raise draft_argument_error("zones maps object ids (str) to IANA zone names (str)")
    writers = {capability for _, capability in _EFFECTS.values()}
    return [
        step.model_copy(update={"params": {**(step.params or {}), "timezone": zones[target]}})
        if step.capability in writers and (target := step.target or "") in zones
        else step
        for step in steps
    ]


@arguments(
    draft_argument_error,
    action_plan=ActionPlan,
    failed=Iterable,
    titles=(Mapping, type(None)),
    zones=(Mapping, type(None)),
)
def draft_from_action_plan(
    action_plan: ActionPlan,
    *,
    failed: Iterable[str] = (),
    titles: Mapping[str, str] | None = None,
    zones: Mapping[str, str] | None = None,
) -> PlanDraft:
    """The plan graph carrying out ``action_plan`` with the preferred strategy.

    ``failed`` holds the wire names of strategies that already failed for this intention.
    ``titles`` maps a created object's id to its event title (1-1024 characters), written
    as ``title`` into the params of its ``calendar.event.create`` step. ``zones`` maps a
    created or moved object's id to the IANA zone its times are meant in (the CPIR object's
    ``timezone``), written as ``timezone`` into its create or move step's params so that
    ``cerebri approvals show`` can give local times (docs/decisions/0039).
    The draft is deterministic: the same action plan, ``failed`` and ``titles`` give the
    same draft.

    Raises:
        DraftError: ``draft.no_actions`` (an empty action plan),
            ``draft.unsupported_action`` (an action that is not CREATE_EVENT or MOVE_EVENT),
            ``draft.strategies_exhausted`` (every strategy already failed),
            ``draft.invalid_argument`` (not an ActionPlan, ``failed`` not iterable,
            ``titles`` not a mapping of text to 1-1024 characters of text, ``zones``
            not a mapping of text to text).
    """
    actions = action_plan.actions
    if not actions:
        raise DraftError(
            f"action plan {action_plan.plan_id} has no actions", code="draft.no_actions"
        )
    for action in actions:
        if action.kind not in _EFFECTS:
            raise DraftError(
                f"action {action.id} is {action.kind.value}; only CREATE_EVENT and MOVE_EVENT "
                "become plan graphs",
                code="draft.unsupported_action",
            )
    spent = set(failed)
    strategy = choose_strategy(spent)
    if strategy is None:
        raise DraftError(
            "every deterministic strategy already failed for this intention",
            code="draft.strategies_exhausted",
        )
    steps = _zoned(_titled(_WRITERS[strategy](actions), titles or {}), zones or {})
    effects = ", ".join(f"{a.kind.value} {a.target}" for a in actions)
    return PlanDraft(
        objective=f"carry out plan {action_plan.plan_id}: {effects}",
        origin=Origin.TEMPLATE,
        strategy=strategy.value,
        steps=tuple(steps),
        completion_criteria=(
            ("every event reads back at its planned range",)
            if strategy is Strategy.DIRECT_ACTION_VERIFIED
            else ("findings summarised for the operator; the intention stays open",)
        ),
        abort_conditions=("the calendar reports a revision other than expected",),
        alternatives=_alternatives(strategy, spent, actions),
        risk=Risk.MEDIUM if strategy is Strategy.DIRECT_ACTION_VERIFIED else Risk.LOW,
        budget=_budget(steps),
        require_approval=strategy is Strategy.DIRECT_ACTION_VERIFIED,
        estimate=_estimate(steps),
    )
