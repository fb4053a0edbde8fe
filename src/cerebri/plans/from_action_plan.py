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

With the request's ``change`` (issue #23), the one action (``CREATE_EVENT``,
``MOVE_EVENT``, ``UPDATE_EVENT`` or ``DELETE_EVENT``) is written by
:mod:`cerebri.plans.change_steps` instead: ``move-i``/``update-i``/``cancel-i``/``create-i``,
``verify-i``, then ``itip-i-j`` and ``sent-i-j`` per message, ``deliver-i-j`` and
``copied-i-j`` per attendee calendar known (decision 0057), then ``record`` (decision
0056); a diagnosis reads the event by its UID and instance (``read-i``, and no
``observe-i`` for a cancel).

Every draft names the strategies considered in ``alternatives`` (the selected one, those
that failed, those not needed). Instants in params are RFC 3339 UTC strings.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from cerebri._guard import arguments
from cerebri.cpir import MutationKind
from cerebri.planner import Action, ActionPlan
from cerebri.plans.batch_events import created_uid
from cerebri.plans.batch_steps import BatchApprovals, batch_steps
from cerebri.plans.change_facts import ChangeFacts, read_change
from cerebri.plans.change_steps import (
    CHANGE_WRITES,
    DELIVER_CAPABILITY,
    EXPECTED_CONFIDENCE,
    VERIFY_INTERVAL_SECONDS,
    VERIFY_WITHIN_SECONDS,
    change_steps,
)
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

GRANT_SECONDS: Final = 900
"""Duration of the read grant a diagnosis asks for, in seconds."""

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


@dataclass(frozen=True, slots=True)
class _Inputs:
    """The actions, the request's change (``None``: a plain create or move) and the
    current state of every changed event by object id."""

    actions: tuple[Action, ...]
    change: ChangeFacts | None = None
    current: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    batch: BatchApprovals | None = None
    plan_id: str = ""


def _effect_and_verify(index: int, action: Action) -> tuple[StepSpec, StepSpec]:
    effect = _effect(index, action)
    return effect, _verify(index, effect, action)


def _direct(inputs: _Inputs) -> list[StepSpec]:
    steps: list[StepSpec] = []
    if inputs.batch is not None:
        steps = batch_steps(inputs.actions, inputs.batch, inputs.plan_id, _effect_and_verify)
        verified = [s.key for s in steps if s.kind == StepKind.VERIFY]
        return [*steps, _internal("record", InternalAction.RECORD_PROCEDURE, verified)]
    for index, action in enumerate(inputs.actions):
        if inputs.change is not None:
            steps += change_steps(index, action, inputs.change, inputs.current.get(action.target))
            continue
        effect = _effect(index, action)
        steps += [effect, _verify(index, effect, action)]
    verified = [s.key for s in steps if s.kind == StepKind.VERIFY]
    return [*steps, _internal("record", InternalAction.RECORD_PROCEDURE, verified)]


def _read_step(index: int, action: Action, inputs: _Inputs, after: tuple[str, ...]) -> StepSpec:
    if inputs.change is None:
        read = _read_event(action)
    else:
        # the verification's read: the same event (uid and instance) at the same calendar
        (_, verify, *_) = change_steps(index, action, inputs.change, None)
        assert verify.verify is not None
        read = verify.verify.check
    return StepSpec(
        key=f"read-{index}",
        title=f"read {action.target}",
        kind=StepKind.CAPABILITY,
        depends_on=after,
        capability=read.capability,
        target=read.target,
        params=read.params,
    )


def _reads(inputs: _Inputs, after: tuple[str, ...]) -> list[StepSpec]:
    steps: list[StepSpec] = []
    for index, action in enumerate(inputs.actions):
        if action.kind is not MutationKind.DELETE_EVENT:
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
        if action.kind is not MutationKind.CREATE_EVENT:
            steps.append(_read_step(index, action, inputs, after))
    return [*steps, _internal("summary", InternalAction.SUMMARISE_FINDINGS, [s.key for s in steps])]


def _diagnosis(inputs: _Inputs) -> list[StepSpec]:
    calendars = sorted({a.calendar_id for a in inputs.actions})
    access = StepSpec(
        key="access",
        title="request read access to free/busy",
        kind=StepKind.REQUEST_CAPABILITY,
        request=CapabilityRequestSpec(
            capability="calendar.freebusy",
            target_pattern="*",
            param_constraints={"calendar_ids": calendars},
            duration_seconds=GRANT_SECONDS,
            max_operations=len(inputs.actions),
            reason="find out why the planned change did not hold",
            risk=Risk.LOW,
            mitigation="read-only, limited to the calendars of the plan and to "
            f"{GRANT_SECONDS} seconds",
            fallback="escalate to the operator",
        ),
    )
    return [access, *_reads(inputs, (access.key,))]


def _escalation(inputs: _Inputs) -> list[StepSpec]:
    return _reads(inputs, ())


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


def _alternatives(chosen: Strategy, spent: set[str], inputs: _Inputs) -> tuple[Alternative, ...]:
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
                estimate=_estimate(_WRITERS[strategy](inputs)),
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
    """``steps`` with ``params.timezone`` on every write step whose target has an IANA zone
    in ``zones`` (the zone its times are meant in, for the people who approve and for the
    adapter reading all-day and floating times), and on the ``calendar.event.get`` checks
    of their preconditions and read-backs, and of the read-backs of the attendee copies
    their ``calendar.itip.deliver`` steps write (``copied-i-j``, whose target is the event's
    UID: the copy of an all-day event has no instant of its own either, decision 0073)."""
    for target, name in zones.items():
        if not (isinstance(target, str) and isinstance(name, str)):
            raise draft_argument_error("zones maps object ids (str) to IANA zone names (str)")
    writers = {capability for _, capability in CHANGE_WRITES.values()}
    by_key = {step.key: step for step in steps}
    of_step: dict[str, str] = {}  # a deliver step's key -> the zone of the write it copies
    for step in steps:
        if step.capability != DELIVER_CAPABILITY:
            continue
        for after in step.depends_on:  # verify-i, which reads write-i back
            read = by_key.get(after)
            write = None if read is None or read.verify is None else by_key.get(read.verify.of)
            zone = None if write is None else zones.get(write.target or "")
            if zone is not None:
                of_step[step.key] = zone
    return [_zoned_step(step, zones, writers, of_step) for step in steps]


def _zoned_step(
    step: StepSpec, zones: Mapping[str, str], writers: set[str], of_step: Mapping[str, str]
) -> StepSpec:
    """One step of :func:`_zoned`; ``of_step`` maps a deliver step's key to its zone."""
    name = zones.get(step.target or "")
    update: dict[str, Any] = {}
    if name is not None and step.capability in writers:
        update["params"] = {**(step.params or {}), "timezone": name}
        if step.precondition is not None:
            check = _zoned_check(step.precondition.check, zones)
            update["precondition"] = step.precondition.model_copy(update={"check": check})
    if step.verify is not None:
        copied = of_step.get(step.verify.of)
        check = (
            _zoned_check(step.verify.check, zones)
            if copied is None
            else _zoned_check(step.verify.check, {step.verify.check.target or "": copied})
        )
        update["verify"] = step.verify.model_copy(update={"check": check})
    return step.model_copy(update=update) if update else step


def _zoned_check(check: Check, zones: Mapping[str, str]) -> Check:
    """``check`` with ``params.timezone`` when it reads an event back
    (``calendar.event.get``) whose target has a zone: an all-day or floating event is read
    in the zone the plan used (RFC 5545 3.3.4, 3.3.5 form 1)."""
    name = zones.get(check.target or "")
    if name is None or check.capability != "calendar.event.get":
        return check
    return check.model_copy(update={"params": {**(check.params or {}), "timezone": name}})


def _change_inputs(
    actions: tuple[Action, ...],
    change: object,
    previous_attendees: Sequence[object] | None,
    current: Mapping[str, Mapping[str, Any]],
    titles: Mapping[str, str],
) -> _Inputs:
    """The inputs of a change plan; ``draft.invalid_change`` when the change does not fit
    the action plan (more than one action, or a revision other than the SEQUENCE read)."""
    facts = read_change(change, previous_attendees)
    if len(actions) != 1:
        raise DraftError(
            f"a change names one event, but the action plan has {len(actions)} actions",
            code="draft.invalid_change",
        )
    (action,) = actions
    if action.kind is not MutationKind.CREATE_EVENT and action.expected_revision not in (
        None,
        facts.sequence,
    ):
        raise DraftError(
            f"action {action.id} expects revision {action.expected_revision}, the change "
            f"read SEQUENCE {facts.sequence}",
            code="draft.invalid_change",
        )
    seen = {
        target: {**state, **({"title": titles[target]} if target in titles else {})}
        for target, state in current.items()
    }
    if action.target in titles and action.target not in seen:
        seen[action.target] = {"title": titles[action.target]}
    return _Inputs(actions, facts, seen)


def _check_kinds(action_plan: ActionPlan, known: Mapping[MutationKind, Any]) -> None:
    if not action_plan.actions:
        raise DraftError(
            f"action plan {action_plan.plan_id} has no actions", code="draft.no_actions"
        )
    for action in action_plan.actions:
        if action.kind not in known:
            names = " and ".join(k.value for k in known)
            raise DraftError(
                f"action {action.id} is {action.kind.value}; "
                + (
                    f"only {names} become plan graphs"
                    if known is _EFFECTS
                    else "it needs the request's change"
                ),
                code="draft.unsupported_action",
            )


@arguments(
    draft_argument_error,
    action_plan=ActionPlan,
    failed=Iterable,
    titles=(Mapping, type(None)),
    zones=(Mapping, type(None)),
    current=(Mapping, type(None)),
    previous_attendees=(list, tuple, type(None)),
    batch=(BatchApprovals, type(None)),
)
def draft_from_action_plan(
    action_plan: ActionPlan,
    *,
    failed: Iterable[str] = (),
    titles: Mapping[str, str] | None = None,
    zones: Mapping[str, str] | None = None,
    change: object = None,
    current: Mapping[str, Mapping[str, Any]] | None = None,
    previous_attendees: Sequence[object] | None = None,
    batch: BatchApprovals | None = None,
) -> PlanDraft:
    """The plan graph carrying out ``action_plan`` with the preferred strategy.

    ``failed`` holds the wire names of strategies that already failed for this intention.
    ``titles`` maps a created object's id to its event title (1-1024 characters), written
    as ``title`` into the params of its ``calendar.event.create`` step (for a changed event:
    its current title, shown to the approver). ``zones`` maps a created or changed object's
    id to the IANA zone its times are meant in (the CPIR object's ``timezone``), written as
    ``timezone`` into its write step's params so that ``cerebri approvals show`` can give
    local times (docs/decisions/0039).

    ``change`` is the request's ``change`` (contract C1 of issue #23: its wire mapping or
    the CPIR model; :func:`~cerebri.plans.change_facts.read_change`). With it, the one
    action (CREATE_EVENT, MOVE_EVENT, UPDATE_EVENT or DELETE_EVENT) becomes the steps of
    :mod:`cerebri.plans.change_steps`: the write with the event's UID, instance, ETag and
    SEQUENCE, its read-back, and one ``message.itip.send`` per attendee (decision 0056).
    ``current`` maps a changed object's id to its state as read (``start``, ``end``,
    ``title``, ``location``: :func:`~cerebri.plans.change_facts.change_inputs` gives the
    range), ``previous_attendees`` the event's attendees as read, for an UPDATE that
    changes them (the removed ones get a CANCEL). The draft is deterministic: the same
    arguments give the same draft.

    ``batch`` (decision 0076) makes the CREATE_EVENT and MOVE_EVENT actions one batch
    (:mod:`cerebri.plans.batch_steps`): one ``approve-batch`` gate, an
    ``approve-owner-i`` gate for each move in a calendar another principal owns, every
    effect after every gate, a room's copy of each created meeting with a room. Without
    it every effect asks on its own (one approval per action).

    Raises:
        DraftError: ``draft.no_actions`` (an empty action plan),
            ``draft.unsupported_action`` (without a change, an action that is not
            CREATE_EVENT or MOVE_EVENT),
            ``draft.invalid_change`` (:func:`~cerebri.plans.change_facts.read_change`'s
            refusals; more than one action; an action whose expected revision is not the
            change's SEQUENCE; attendees to tell but no organizer),
            ``draft.strategies_exhausted`` (every strategy already failed),
            ``draft.invalid_argument`` (not an ActionPlan, ``failed`` not iterable,
            ``titles`` not a mapping of text to 1-1024 characters of text, ``zones``
            not a mapping of text to text, ``current`` not a mapping,
            ``previous_attendees`` not a list, ``batch`` with a ``change``).
    """
    _check_kinds(action_plan, _EFFECTS if change is None else CHANGE_WRITES)
    actions = action_plan.actions
    if batch is not None and change is not None:
        raise draft_argument_error("a batch is of creates and moves; a change is one event")
    if batch is not None:  # a meeting's own title first; ``titles`` for the others
        _titled([], titles or {})  # the same refusals
        batch = dataclasses.replace(batch, titles={**(titles or {}), **batch.titles})
        titles = {}
    inputs = (
        _Inputs(actions, batch=batch, plan_id=action_plan.plan_id)
        if change is None
        else _change_inputs(actions, change, previous_attendees, current or {}, titles or {})
    )
    spent = set(failed)
    strategy = choose_strategy(spent)
    if strategy is None:
        raise DraftError(
            "every deterministic strategy already failed for this intention",
            code="draft.strategies_exhausted",
        )
    zones = zones or {}
    if batch is not None:  # a created meeting's steps name its own UID (decision 0083)
        created = [a.target for a in actions if a.kind is MutationKind.CREATE_EVENT]
        uids = {created_uid(t, action_plan.plan_id): t for t in created}
        zones = {**zones, **{u: zones[t] for u, t in uids.items() if t in zones}}
    steps = _zoned(_titled(_WRITERS[strategy](inputs), titles or {}), zones)
    effects = ", ".join(f"{a.kind.value} {a.target}" for a in actions)
    direct = strategy is Strategy.DIRECT_ACTION_VERIFIED
    return PlanDraft(
        objective=f"carry out plan {action_plan.plan_id}: {effects}",
        origin=Origin.TEMPLATE,
        strategy=strategy.value,
        steps=tuple(steps),
        completion_criteria=(
            (
                ("every event reads back at its planned range",)
                if change is None
                else (
                    "the event reads back as changed",
                    "every attendee's message is sent",
                    "every attendee calendar served reads back the change",
                )
            )
            if direct
            else ("findings summarised for the operator; the intention stays open",)
        ),
        abort_conditions=("the calendar reports a revision other than expected",),
        alternatives=_alternatives(strategy, spent, inputs),
        risk=Risk.MEDIUM if direct else Risk.LOW,
        budget=_budget(steps),
        require_approval=direct,
        estimate=_estimate(steps),
    )
