"""``find_slot(..., create=NewEvent(...))``: a CREATE of one new event that yields actions."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from icalendar import Component

import cerebri
from cerebri.calendars import (
    FIND_SLOT_LIMITS,
    TARGET_ID,
    ImportedCalendars,
    NewEvent,
    SlotQuery,
    build_request,
    find_slot,
)
from cerebri.cpir import MutationKind
from cerebri.errors import InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.planner import PlanError, action_plan_for
from cerebri.plans import draft_from_action_plan
from cerebri.temporal import Instant


def _calendar(uid: str, start: str, end: str) -> Component:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        f"UID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\nDTEND:{end}\r\n"
        "SUMMARY:busy\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    return parse_calendar(text.encode())


CALENDARS = [
    ("alice", _calendar("a1", "20261005T090000Z", "20261005T100000Z")),
    ("bob", _calendar("b1", "20261005T100000Z", "20261005T113000Z")),
]
QUERY = SlotQuery(
    Instant.parse("2026-10-05T09:00:00Z"), Instant.parse("2026-10-05T13:00:00Z"), 1800
)
EVENT = NewEvent("Design review", "bob")


def _expected_id(title: str, calendar: str, integration: str) -> str:
    seed = f"{title}\n{calendar}\n{integration}\n2026-10-05T09:00:00Z\n2026-10-05T13:00:00Z"
    return "event-" + hashlib.sha256(seed.encode()).hexdigest()[:32]


def test_create_makes_a_create_request_with_a_grant_and_a_confirmation_policy() -> None:
    built, result = find_slot(CALENDARS, QUERY, create=EVENT)
    request: Any = json.loads(json.dumps(built))
    target = _expected_id("Design review", "bob", "ics")
    assert request["operation"] == "CREATE"
    assert request["target_ids"] == [target]
    new = request["context"]["objects"][0]
    assert (new["id"], new["revision"], new["calendar_id"], new["integration_id"]) == (
        target,
        None,
        "bob",
        "ics",
    )
    assert request["scope"]["max_mutations"] == 1
    assert request["planning_capability"]["mutations"] == [
        {"object_id": target, "calendar_id": "bob", "integration_id": "ics", "kind": "CREATE_EVENT"}
    ]
    snapshot = request["policy"]["snapshot"]
    assert snapshot["mode"] == "Confirmation"
    assert snapshot["mutation"] == {"max_mutations": 1, "allowed_actions": ["CREATE_EVENT"]}
    # the first free half hour after alice (09-10) and bob (10-11:30): 11:30
    best = result.candidates[0].proposed.placements[0]
    assert (str(best.range.start), str(best.range.end)) == (
        "2026-10-05T11:30:00Z",
        "2026-10-05T12:00:00Z",
    )


def test_the_new_event_id_is_deterministic_and_follows_its_inputs() -> None:
    first = build_request([], [], QUERY, create=EVENT)
    again = build_request([], [], QUERY, create=NewEvent("Design review", "bob"))
    other = build_request([], [], QUERY, create=NewEvent("Retro", "bob"))
    assert first == again
    assert first["target_ids"] != other["target_ids"]
    assert first["request_id"] != other["request_id"]
    elsewhere = build_request([], [], QUERY, create=NewEvent("Design review", "bob", "caldav"))
    assert elsewhere["target_ids"] == [_expected_id("Design review", "bob", "caldav")]


def test_without_create_the_request_is_unchanged() -> None:
    plain: Any = build_request([], [], QUERY)
    assert plain["operation"] == "FIND_SLOT"
    assert plain["target_ids"] == [TARGET_ID]
    assert plain["policy"]["snapshot"]["mode"] == "Suggestion"
    assert build_request([], [], QUERY, create=None) == plain


def test_the_chosen_candidate_yields_a_create_action_needing_confirmation() -> None:
    request, _ = ImportedCalendars(CALENDARS).find_slot(QUERY, create=EVENT)
    parsed = cerebri.parse_request(json.dumps(request))
    (action,) = action_plan_for(parsed, limits=FIND_SLOT_LIMITS).actions
    assert action.kind is MutationKind.CREATE_EVENT
    assert (action.calendar_id, action.integration_id) == ("bob", "ics")
    assert action.confirmation_required
    assert action.expected_revision is None
    assert str(action.placement.range.start) == "2026-10-05T11:30:00Z"
    # the default budget (100 000 positions) is beyond the reference limits
    with pytest.raises(PlanError) as refused:
        action_plan_for(parsed)
    assert refused.value.code == "plan.no_candidate"


def test_the_plan_graph_carries_the_title() -> None:
    request, _ = find_slot(CALENDARS, QUERY, create=EVENT)
    actions = action_plan_for(cerebri.parse_request(json.dumps(request)), limits=FIND_SLOT_LIMITS)
    target = actions.actions[0].target
    draft = draft_from_action_plan(actions, titles={target: "Design review"})
    create = draft.steps[0]
    assert (create.key, create.capability) == ("create-0", "calendar.event.create")
    assert create.params is not None and create.params["title"] == "Design review"
    untitled = draft_from_action_plan(actions)
    assert untitled.steps[0].params is not None and "title" not in untitled.steps[0].params


def test_find_slot_without_create_stays_analysis_only() -> None:
    request, _ = find_slot(CALENDARS, QUERY)
    with pytest.raises(PlanError) as refused:
        action_plan_for(cerebri.parse_request(json.dumps(request)), limits=FIND_SLOT_LIMITS)
    assert refused.value.code == "plan.analysis_only"


@pytest.mark.parametrize(
    ("title", "calendar", "integration"),
    [
        ("", "bob", "ics"),
        ("   ", "bob", "ics"),
        ("x" * 1025, "bob", "ics"),
        ("ok", "bob smith", "ics"),
        ("ok", "", "ics"),
        ("ok", "bob", "cal dav"),
        (3, "bob", "ics"),
    ],
)
def test_new_event_refuses_bad_fields(title: object, calendar: str, integration: str) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        NewEvent(title, calendar, integration)  # type: ignore[arg-type]
    assert refused.value.code == "calendars.invalid_argument"


def test_build_request_refuses_a_create_that_is_not_a_new_event() -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        build_request([], [], QUERY, create="Design review")  # type: ignore[arg-type]
    assert refused.value.code == "calendars.invalid_argument"
