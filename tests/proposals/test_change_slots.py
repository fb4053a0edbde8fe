"""Slots of change artifacts (docs/decisions/0061): an update's plan-graph step and its
action put the event at a range, a cancel's remove one. The same change gives the same
slots as an action plan and as the plan graph drawn from it."""

from __future__ import annotations

import json

import pytest

import cerebri
from cerebri.planner import action_plan_for
from cerebri.plans import draft_from_action_plan
from cerebri.plans.change_facts import change_inputs
from cerebri.proposals import (
    ProposalError,
    canonical_json,
    check_slot_times,
    slot_starts,
)
from cerebri.temporal import Instant
from tests.planner.change_helpers import CURRENT, request_for


def _artifacts(operation: str) -> tuple[bytes, bytes]:
    """(action plan, plan graph) of the example change ``operation``, as JSON bytes."""
    request = cerebri.parse_request(json.dumps(request_for(operation)).encode())
    actions = action_plan_for(request)
    graph = draft_from_action_plan(actions, **change_inputs(request, actions))
    return canonical_json(actions.to_wire()), canonical_json(graph.to_wire())


@pytest.mark.parametrize(
    ("operation", "expected"),
    [("UPDATE", (Instant.parse(CURRENT[0]),)), ("CANCEL", ())],
)
def test_an_update_has_its_slot_and_a_cancel_none(
    operation: str, expected: tuple[Instant, ...]
) -> None:
    plan, graph = _artifacts(operation)
    assert slot_starts(plan) == expected
    assert slot_starts(graph) == expected


def test_an_update_of_a_meeting_under_way_is_refused_a_cancel_is_not() -> None:
    during = Instant.parse(CURRENT[0]).plus_seconds(600)
    assert during is not None
    later = Instant.parse("2026-10-30T00:00:00Z")
    _, update = _artifacts("UPDATE")
    with pytest.raises(ProposalError) as caught:
        check_slot_times(slot_starts(update), proposed_at=during, expires_at=later)
    assert caught.value.code == "proposal.slot_started"
    _, cancel = _artifacts("CANCEL")
    check_slot_times(slot_starts(cancel), proposed_at=during, expires_at=later)
