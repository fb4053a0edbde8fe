"""From the planner's action plan to a plan graph, in the deterministic strategy order."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import cerebri
from cerebri.cpir import MutationKind
from cerebri.planner import ActionPlan, to_action_plan, validate_proposal
from cerebri.plans import (
    STRATEGY_ORDER,
    VERIFY_INTERVAL_SECONDS,
    VERIFY_WITHIN_SECONDS,
    DraftError,
    Strategy,
    builtin_registry,
    choose_strategy,
    draft_from_action_plan,
    fulfils_intention,
    parse_draft,
    validate_draft,
)
from tests.planner.helpers import EXAMPLE


def _action_plan(source: bytes) -> ActionPlan:
    request = cerebri.parse_request(source)
    best = cerebri.plan(request).candidates[0]
    return to_action_plan(validate_proposal(request, best.proposed.placements, request.context))


def _example_plan() -> ActionPlan:
    return _action_plan(EXAMPLE.read_bytes())


def _as_move(plan: ActionPlan) -> ActionPlan:
    moved = tuple(
        dataclasses.replace(a, kind=MutationKind.MOVE_EVENT, expected_revision=4)
        for a in plan.actions
    )
    return dataclasses.replace(plan, actions=moved)


def test_create_becomes_effect_verify_record() -> None:
    plan = _example_plan()
    (action,) = plan.actions
    span = action.placement.range
    draft = draft_from_action_plan(plan)
    assert draft.strategy == "direct_action_verified"
    assert [s.key for s in draft.steps] == ["create-0", "verify-0", "record"]
    create, verify, record = draft.steps
    assert create.capability == "calendar.event.create"
    assert create.target == action.target
    assert create.params == {
        "calendar_id": action.calendar_id,
        "integration_id": action.integration_id,
        "object_id": action.target,
        "start": str(span.start),
        "end": str(span.end),
        "idempotency_key": action.idempotency_key,
    }
    assert create.require_approval is action.confirmation_required
    assert create.expectation is not None
    assert create.expectation.within_seconds == VERIFY_WITHIN_SECONDS
    # the precondition skips the effect when the event already sits at the planned range
    assert create.precondition is not None
    assert create.precondition.satisfied_if_false is True
    assert create.precondition.check.op == "ne"
    assert create.precondition.check.value == {"start": str(span.start), "end": str(span.end)}
    assert verify.verify is not None
    assert verify.depends_on == ("create-0",)
    assert verify.verify.of == "create-0"
    assert verify.verify.check.capability == "calendar.event.get"
    assert verify.verify.check.op == "eq"
    assert verify.verify.check.value == {"start": str(span.start), "end": str(span.end)}
    assert verify.verify.interval_seconds == VERIFY_INTERVAL_SECONDS
    assert record.internal is not None and record.internal.action == "record_procedure"
    assert record.depends_on == ("verify-0",)
    assert draft.require_approval is True


def test_budget_covers_the_worst_case_polling() -> None:
    draft = draft_from_action_plan(_example_plan())
    polls = VERIFY_WITHIN_SECONDS // VERIFY_INTERVAL_SECONDS + 1
    # effect + its precondition read + every poll of the verification
    assert draft.budget.max_capability_invocations == 1 + 1 + polls
    assert draft.estimate.capability_invocations == 3


def test_move_uses_move_capability_with_expected_revision() -> None:
    draft = draft_from_action_plan(_as_move(_example_plan()))
    move = draft.steps[0]
    assert move.key == "move-0"
    assert move.capability == "calendar.event.move"
    assert move.params is not None and move.params["expected_revision"] == 4
    assert validate_draft(draft, builtin_registry()).problems == ()


def test_several_actions_each_get_effect_and_verify() -> None:
    plan = _example_plan()
    (action,) = plan.actions
    second = dataclasses.replace(action, id=action.id[:-1] + "1", target="other")
    draft = draft_from_action_plan(dataclasses.replace(plan, actions=(action, second)))
    assert [s.key for s in draft.steps] == [
        "create-0",
        "verify-0",
        "create-1",
        "verify-1",
        "record",
    ]
    assert draft.steps[-1].depends_on == ("verify-0", "verify-1")
    assert validate_draft(draft, builtin_registry()).problems == ()


def test_strategy_order_and_failed_strategies() -> None:
    assert choose_strategy() is Strategy.DIRECT_ACTION_VERIFIED
    assert choose_strategy(["direct_action_verified"]) is Strategy.READ_ONLY_DIAGNOSIS
    assert choose_strategy(["direct_action_verified", "read_only_diagnosis"]) is (
        Strategy.ESCALATION
    )
    assert choose_strategy([s.value for s in STRATEGY_ORDER]) is None
    assert [fulfils_intention(s) for s in STRATEGY_ORDER] == [True, True, False]


@pytest.mark.parametrize("move", [False, True])
def test_diagnosis_requests_scoped_read_access(move: bool) -> None:
    plan = _example_plan()
    plan = _as_move(plan) if move else plan
    draft = draft_from_action_plan(plan, failed=["direct_action_verified"])
    assert draft.strategy == "read_only_diagnosis"
    keys = [s.key for s in draft.steps]
    assert keys == (
        ["access", "observe-0", "read-0", "summary"] if move else ["access", "observe-0", "summary"]
    )
    access = draft.steps[0]
    assert access.request is not None
    assert access.request.capability == "calendar.freebusy"
    assert access.request.risk == "low"
    assert access.request.mitigation and access.request.fallback
    registry = builtin_registry()
    assert all(registry.capabilities[s.capability].read_only for s in draft.steps if s.capability)
    assert validate_draft(draft, registry).problems == ()


def test_escalation_only_observes_and_does_not_fulfil() -> None:
    draft = draft_from_action_plan(
        _example_plan(), failed=["read_only_diagnosis", "direct_action_verified"]
    )
    assert draft.strategy == "escalation"
    assert [s.key for s in draft.steps] == ["observe-0", "summary"]
    assert [a.selected for a in draft.alternatives] == [False, False, True]
    assert [a.why for a in draft.alternatives][:2] == ["failed before for this intention"] * 2
    assert not fulfils_intention(Strategy(draft.strategy))
    assert validate_draft(draft, builtin_registry()).problems == ()


def test_every_strategy_spent_is_an_error() -> None:
    with pytest.raises(DraftError) as caught:
        draft_from_action_plan(_example_plan(), failed=[s.value for s in STRATEGY_ORDER])
    assert caught.value.code == "draft.strategies_exhausted"


@pytest.mark.parametrize(
    ("kind", "code"),
    [(MutationKind.DELETE_EVENT, "draft.unsupported_action"), (None, "draft.no_actions")],
)
def test_unsupported_action_plans(kind: MutationKind | None, code: str) -> None:
    plan = _example_plan()
    if kind is None:
        plan = dataclasses.replace(plan, actions=())
    else:
        plan = dataclasses.replace(
            plan, actions=tuple(dataclasses.replace(a, kind=kind) for a in plan.actions)
        )
    with pytest.raises(DraftError) as caught:
        draft_from_action_plan(plan)
    assert caught.value.code == code


def test_drafts_are_deterministic_and_round_trip() -> None:
    first = draft_from_action_plan(_example_plan())
    second = draft_from_action_plan(_example_plan())
    assert json.dumps(first.to_wire()) == json.dumps(second.to_wire())
    assert parse_draft(json.dumps(first.to_wire())) == first


def test_every_conformance_action_plan_becomes_a_valid_graph(conformance: Path) -> None:
    registry = builtin_registry()
    converted = 0
    for path in sorted(conformance.glob("cerebri/**/*.json")):
        try:
            request = cerebri.parse_request(path.read_bytes())
            result = cerebri.plan(request)
        except cerebri.CerebriError:
            continue
        if not result.candidates or request.analysis_only:
            continue
        best = result.candidates[0]
        try:
            validated = validate_proposal(request, best.proposed.placements, request.context)
        except cerebri.CerebriError:
            continue
        draft = draft_from_action_plan(to_action_plan(validated))
        assert validate_draft(draft, registry).problems == (), path.name
        converted += 1
    assert converted >= 10
