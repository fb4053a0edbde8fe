"""RESCHEDULE, CANCEL and UPDATE of an existing event, and the request's ``change`` member
(docs/decisions/0049-cpir-change-operations.md).

Expected rankings are computed here from the grid, the blockers and a local-time reading
by ``datetime``/``zoneinfo`` (not by the planner's own offset arithmetic), then compared
with the planner's order.
"""

from __future__ import annotations

import copy
import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import cerebri
import cerebri.planner
from cerebri.cpir import Change, ChangeAttendee, ChangeScope, Placement, TimeRange
from cerebri.errors import ParseError
from cerebri.planner import (
    PlanError,
    action_plan_for,
    issue_note,
    to_action_plan,
    validate_proposal,
)
from cerebri.temporal import Instant
from tests.planner.change_helpers import BLOCKERS, CURRENT, GRANULARITY, HORIZON, grant, request_for
from tests.planner.helpers import event, example

BERLIN = ZoneInfo("Europe/Berlin")


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _z(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _overlaps(a: tuple[datetime, datetime], b: tuple[datetime, datetime]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _expected_class(start: datetime) -> int:
    here, now = _at(CURRENT[0]).astimezone(BERLIN), start.astimezone(BERLIN)
    if here.date() == now.date():
        return 0
    if here.time() == now.time():
        return 1
    return 2


def _feasible_grid(length: timedelta) -> list[datetime]:
    """Grid starts whose placement ends in the horizon and overlaps no blocker, except the
    current start (a reschedule must change the time)."""
    start, end = _at(HORIZON[0]), _at(HORIZON[1])
    busy = [(_at(a), _at(b)) for a, b in BLOCKERS.values()]
    found = []
    moment = start
    while moment + length <= end:
        span = (moment, moment + length)
        if moment != _at(CURRENT[0]) and not any(_overlaps(span, b) for b in busy):
            found.append(moment)
        moment += timedelta(seconds=GRANULARITY)
    return found


# ---- RESCHEDULE ------------------------------------------------------------------------


def test_reschedule_ranks_least_disruption_first() -> None:
    result = cerebri.plan(request_for("RESCHEDULE")).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    current = _at(CURRENT[0])
    grid = _feasible_grid(timedelta(hours=1))

    def key(start: datetime) -> tuple[int, float, datetime]:
        return (_expected_class(start), abs((start - current).total_seconds()), start)

    expected = sorted(grid, key=key)
    assert [c["start"] for c in result["candidates"]] == [_z(s) for s in expected]
    for candidate, start in zip(result["candidates"], expected, strict=True):
        shift = int(abs((start - current).total_seconds()))
        disruption = {"class": _expected_class(start), "shift_seconds": shift}
        assert candidate["explanation"] == [
            {"reason": "FeasibleWithinScope", "cost": 0},
            {"reason": {"Disruption": disruption}, "cost": shift},
            {"reason": "EarliestTieBreak", "cost": 0},
        ]
        assert candidate["shifted_seconds"] == shift
    assert result["search_space"]["objective"].startswith("disruption-class; shift-seconds; ")
    # the best is 09:00Z on the same date (after brunch is busy, before is the gym)
    assert result["candidates"][0]["start"] == "2026-10-24T07:30:00Z"


def test_reschedule_same_local_time_across_the_dst_change_is_class_1() -> None:
    result = cerebri.plan(request_for("RESCHEDULE")).to_wire()
    by_start = {c["start"]: c for c in result["candidates"]}
    # 10:00 CET on 27 October is 09:00Z; 08:00Z that day is 09:00 local (class 2)
    assert by_start["2026-10-27T09:00:00Z"]["explanation"][1]["reason"]["Disruption"]["class"] == 1
    assert by_start["2026-10-27T08:00:00Z"]["explanation"][1]["reason"]["Disruption"]["class"] == 2
    # 10:00 CET on 26 October is taken by the review, so it is rejected, not ranked
    rejected = {r["start"] for r in result["conflicts"]["rejections"]}
    assert "2026-10-26T09:00:00Z" in rejected
    classes = [c["explanation"][1]["reason"]["Disruption"]["class"] for c in result["candidates"]]
    assert classes == sorted(classes)
    assert classes.count(1) == 1  # only 27 October 10:00 local is free at the same time


def test_reschedule_preference_ranks_after_disruption() -> None:
    document = request_for("RESCHEDULE")
    document["preferences"]["preferences"] = [
        {
            "source": "ExplicitCurrentRequest",
            "preferred_start": "2026-10-27T14:00:00Z",
            "evidence": [],
        }
    ]
    result = cerebri.plan(document).to_wire()
    current, preferred = _at(CURRENT[0]), _at("2026-10-27T14:00:00Z")

    def key(start: datetime) -> tuple[int, float, float, datetime]:
        return (
            _expected_class(start),
            abs((start - current).total_seconds()),
            abs((start - preferred).total_seconds()),
            start,
        )

    expected = sorted(_feasible_grid(timedelta(hours=1)), key=key)
    assert [c["start"] for c in result["candidates"]] == [_z(s) for s in expected]
    first = result["candidates"][0]
    assert first["explanation"][2] == {
        "reason": {"PreferredStart": "ExplicitCurrentRequest"},
        "cost": first["cost"],
    }


def test_reschedule_refuses_the_current_start_and_moves() -> None:
    document = request_for("RESCHEDULE")
    result = cerebri.plan(document).to_wire()
    rejection = next(r for r in result["conflicts"]["rejections"] if r["start"] == CURRENT[0])
    assert rejection["reasons"] == [{"Unchanged": "weekly"}]
    request = cerebri.parse_request(document)
    (action,) = action_plan_for(request).to_wire()["actions"]
    assert action["action"] == {
        "kind": "MOVE_EVENT",
        "range": {"start": "2026-10-24T07:30:00Z", "end": "2026-10-24T08:30:00Z"},
    }
    assert action["expected_revision"] == 4
    stay = Placement(
        "weekly", TimeRange(start=Instant.parse(CURRENT[0]), end=Instant.parse(CURRENT[1]))
    )
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, [stay], request.context)
    assert caught.value.wire == {"Rejected": [{"Unchanged": "weekly"}]}


def test_reschedule_needs_an_existing_target_and_a_move_grant() -> None:
    document = request_for("RESCHEDULE")
    document["context"]["objects"][0]["revision"] = None
    document["context"]["objects"][0]["time"]["value"]["knowledge"] = {"state": "MISSING"}
    assert cerebri.validate(document).to_wire()["issues"] == [{"InvalidTargetState": "weekly"}]
    document = request_for("RESCHEDULE")
    document["planning_capability"]["mutations"] = [grant("weekly", "UPDATE_EVENT")]
    document["policy"]["snapshot"]["mutation"]["allowed_actions"] = ["DELETE_EVENT"]
    assert cerebri.validate(document).to_wire()["issues"] == [
        {"MissingPlanningCapability": "weekly"},
        {"PolicyDenied": "weekly"},
    ]


# ---- CANCEL ----------------------------------------------------------------------------


def test_cancel_is_one_answer_with_a_delete_action() -> None:
    document = request_for("CANCEL")
    result = cerebri.plan(document).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    assert result["search_space"]["evaluated"] == 1
    assert result["search_space"]["exhausted"] is True
    assert result["search_space"]["objective"] == "current-start"
    (candidate,) = result["candidates"]
    span = {"start": CURRENT[0], "end": CURRENT[1]}
    assert candidate["proposed"]["placements"] == [{"object_id": "weekly", "range": span}]
    assert candidate["explanation"] == [
        {"reason": "FeasibleWithinScope", "cost": 0},
        {"reason": "Cancellation", "cost": 0},
    ]
    assert (candidate["cost"], candidate["shifted_seconds"], candidate["mutation_count"]) == (
        0,
        0,
        1,
    )
    plan = action_plan_for(cerebri.parse_request(document)).to_wire()
    (action,) = plan["actions"]
    assert plan["plan_id"] == candidate["proposed"]["id"]
    assert action["action"] == {"kind": "DELETE_EVENT", "range": span}
    assert action["confirmation_required"] is True


def test_cancel_confirmation_follows_the_deletion_flag() -> None:
    document = request_for("CANCEL")
    document["policy"]["snapshot"]["confirmation"] = {"all_mutations": False, "deletion": False}
    document["policy"]["snapshot"]["mode"] = "LimitedAutomation"
    (action,) = action_plan_for(cerebri.parse_request(document)).actions
    assert action.confirmation_required is False
    document["policy"]["snapshot"]["confirmation"]["deletion"] = True
    (action,) = action_plan_for(cerebri.parse_request(document)).actions
    assert action.confirmation_required is True


def test_cancel_ignores_overlaps_and_constraints() -> None:
    document = request_for("CANCEL")
    document["context"]["objects"].append(event("clash", *CURRENT))
    document["constraints"] = [
        {"object_id": "weekly", "rule": {"kind": "LATEST_END", "value": CURRENT[0]}, "evidence": []}
    ]
    result = cerebri.plan(document).to_wire()
    assert result["outcome"] == "Solution"


def test_cancel_needs_a_delete_grant_and_policy() -> None:
    document = request_for("CANCEL")
    document["planning_capability"]["mutations"] = [grant("weekly", "MOVE_EVENT")]
    document["policy"]["snapshot"]["mutation"]["allowed_actions"] = ["MOVE_EVENT"]
    assert cerebri.validate(document).to_wire()["issues"] == [
        {"MissingPlanningCapability": "weekly"},
        {"PolicyDenied": "weekly"},
    ]


def test_cancel_over_the_mutation_limit_is_no_solution() -> None:
    document = request_for("CANCEL")
    document["policy"]["snapshot"]["mutation"]["max_mutations"] = 0
    result = cerebri.plan(document).to_wire()
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")
    assert result["conflicts"]["rejections"] == [
        {"start": CURRENT[0], "reasons": ["MutationLimit"]}
    ]


def test_cancel_of_another_range_is_rejected() -> None:
    request = cerebri.parse_request(request_for("CANCEL"))
    other = Placement(
        "weekly",
        TimeRange(start=Instant.parse("2026-10-24T08:30:00Z"), end=Instant.parse(CURRENT[1])),
    )
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, [other], request.context)
    assert caught.value.wire == {
        "Rejected": [{"StartChanged": "weekly"}, {"InvalidDuration": "weekly"}]
    }


# ---- UPDATE ----------------------------------------------------------------------------


def test_update_into_a_conflict_is_refused_with_the_reason() -> None:
    # 08:00-10:00Z runs into brunch (09:30Z)
    document = request_for("UPDATE", duration=7200)
    result = cerebri.plan(document).to_wire()
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")
    assert result["candidates"] == []
    assert result["conflicts"]["rejections"] == [
        {
            "start": CURRENT[0],
            "reasons": [
                {
                    "HardConstraint": {
                        "constraint": {"kind": "NO_OVERLAP"},
                        "object_id": "weekly",
                        "reason": "Overlap",
                        "evidence": {
                            "facts": [],
                            "blocking_objects": ["brunch"],
                            "blocking_occurrences": [],
                        },
                    }
                }
            ],
        }
    ]
    with pytest.raises(PlanError) as caught:
        action_plan_for(cerebri.parse_request(document))
    assert caught.value.code == "plan.no_candidate"


@pytest.mark.parametrize("duration", [1800, 5400])
def test_update_out_of_a_conflict_keeps_the_start(duration: int) -> None:
    document = request_for("UPDATE", duration=duration, title="Weekly (long)")
    result = cerebri.plan(document).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    end = _z(_at(CURRENT[0]) + timedelta(seconds=duration))
    (candidate,) = result["candidates"]
    assert candidate["proposed"]["placements"][0]["range"] == {"start": CURRENT[0], "end": end}
    assert candidate["explanation"][1] == {"reason": "UpdateInPlace", "cost": 0}
    (action,) = action_plan_for(cerebri.parse_request(document)).to_wire()["actions"]
    assert action["action"] == {"kind": "UPDATE_EVENT", "range": {"start": CURRENT[0], "end": end}}


def test_update_checks_the_constraints_too() -> None:
    document = request_for("UPDATE", duration=5400)
    document["constraints"] = [
        {
            "object_id": "weekly",
            "rule": {"kind": "LATEST_END", "value": "2026-10-24T09:00:00Z"},
            "evidence": [],
        }
    ]
    result = cerebri.plan(document).to_wire()
    assert result["outcome"] == "NoSolution"
    (reason,) = result["conflicts"]["rejections"][0]["reasons"]
    assert reason["HardConstraint"]["reason"] == "OutsideBounds"


def test_update_may_not_move_the_start() -> None:
    request = cerebri.parse_request(request_for("UPDATE", duration=1800))
    moved = Placement(
        "weekly",
        TimeRange(
            start=Instant.parse("2026-10-24T07:30:00Z"), end=Instant.parse("2026-10-24T08:00:00Z")
        ),
    )
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, [moved], request.context)
    assert caught.value.wire == {"Rejected": [{"StartChanged": "weekly"}]}


def test_move_still_may_not_resize() -> None:
    document = request_for("MOVE", duration=1800)
    del document["change"]
    result = cerebri.plan(document).to_wire()
    assert result["candidates"] == []
    assert all(
        {"InvalidDuration": "weekly"} in r["reasons"] for r in result["conflicts"]["rejections"]
    )


# ---- the change member -------------------------------------------------------------------


def _issues(document: dict[str, Any]) -> list[Any]:
    issues: list[Any] = cerebri.validate(document).to_wire()["issues"]
    return issues


@pytest.mark.parametrize("operation", ["MOVE", "FIND_SLOT", "PLAN", "ANALYZE", "OPTIMIZE"])
def test_change_with_another_operation_is_an_issue(operation: str) -> None:
    document = request_for(operation)
    expected = [{"ChangeNotAllowed": operation}]
    if operation == "OPTIMIZE":
        # cerebri.validate answers OPTIMIZE as the batch optimiser does (decision 0070): it
        # needs a batch member and new (prospective) targets
        expected = [
            {"BatchRequired": "OPTIMIZE"},
            {"ChangeNotAllowed": operation},
            {"InvalidTargetState": "weekly"},
        ]
    assert _issues(document) == expected
    # the reference planner alone still refuses the operation
    reference = cerebri.planner.validate(document).to_wire()["issues"]
    if operation == "OPTIMIZE":
        assert reference == [{"ChangeNotAllowed": operation}, {"UnsupportedOperation": operation}]


@pytest.mark.parametrize("scope", ["INSTANCE", "THIS_AND_FUTURE"])
def test_instance_scopes_need_a_recurrence_id(scope: str) -> None:
    assert _issues(request_for("RESCHEDULE", scope=scope)) == [{"RequiredRecurrenceId": scope}]
    given = request_for("RESCHEDULE", scope=scope, recurrence_id=CURRENT[0])
    assert _issues(given) == []
    assert cerebri.parse_request(given).change.scope is ChangeScope(scope)  # type: ignore[union-attr]


def test_series_may_name_an_instance() -> None:
    assert _issues(request_for("CANCEL", recurrence_id=CURRENT[0])) == []


def test_change_sequence_must_be_the_target_revision() -> None:
    assert _issues(request_for("UPDATE", sequence=3)) == [{"InvalidChange": "sequence"}]


def test_change_attendees_are_unique_by_address() -> None:
    twice = [
        {"address": "mailto:bob@example.com", "required": True},
        {"address": "MAILTO:Bob@Example.com", "required": False},
    ]
    assert _issues(request_for("UPDATE", attendees=twice)) == [{"InvalidChange": "attendees"}]


def test_create_with_change_must_be_a_new_series() -> None:
    document = example()
    document["change"] = {
        "uid": "new@example.com",
        "scope": "SERIES",
        "sequence": 0,
        "title": "Design review",
        "organizer": "mailto:ann@example.com",
        "attendees": [{"address": "mailto:bob@example.com", "required": False}],
    }
    assert _issues(document) == []
    document["change"].update(scope="INSTANCE", recurrence_id=CURRENT[0], etag='"x"', sequence=2)
    assert _issues(document) == [
        {"InvalidChange": "etag"},
        {"InvalidChange": "recurrence_id"},
        {"InvalidChange": "scope"},
        {"InvalidChange": "sequence"},
    ]


@pytest.mark.parametrize(
    ("edit", "code", "path"),
    [
        ({"extra": 1}, "cpir.unknown_field", "/change/extra"),
        ({"uid": ""}, "cpir.invalid_value", "/change/uid"),
        ({"uid": "a\tb"}, "cpir.invalid_value", "/change/uid"),
        ({"uid": "u" * 1025}, "cpir.invalid_value", "/change/uid"),
        ({"scope": "ALL"}, "cpir.invalid_enum", "/change/scope"),
        ({"sequence": -1}, "cpir.invalid_value", "/change/sequence"),
        ({"sequence": 1.0}, "cpir.invalid_value", "/change/sequence"),
        (
            {"recurrence_id": "2026-10-24T10:00:00"},
            "cpir.invalid_value",
            "/change/recurrence_id",
        ),
        ({"organizer": "ann@example.com"}, "cpir.invalid_value", "/change/organizer"),
        ({"etag": 'has space"'}, "cpir.invalid_value", "/change/etag"),
        (
            {"attendees": [{"address": "mailto:b@x", "required": True, "role": "CHAIR"}]},
            "cpir.unknown_field",
            "/change/attendees/0/role",
        ),
        (
            {"attendees": [{"address": "mailto:b@x"}]},
            "cpir.missing_field",
            "/change/attendees/0/required",
        ),
    ],
)
def test_change_parses_strictly(edit: dict[str, Any], code: str, path: str) -> None:
    document = request_for("UPDATE")
    document["change"].update(edit)
    with pytest.raises(ParseError) as caught:
        cerebri.parse_request(json.dumps(document))
    assert (caught.value.code, caught.value.path) == (code, path)


def test_uid_of_1024_characters_parses() -> None:
    document = request_for("UPDATE", uid="u" * 1024)
    assert cerebri.parse_request(document).change.uid == "u" * 1024  # type: ignore[union-attr]


# ---- requests without change: byte for byte as before ------------------------------------


def test_absent_and_null_change_answer_the_same_bytes() -> None:
    absent = example()
    null = example()
    null["change"] = None
    a, b = cerebri.parse_request(absent), cerebri.parse_request(null)
    assert a.model_dump_json() == b.model_dump_json()
    assert '"change"' not in a.model_dump_json()
    assert a.canonical_size == b.canonical_size
    assert json.dumps(cerebri.plan(a).to_wire()) == json.dumps(cerebri.plan(b).to_wire())


def test_change_is_part_of_the_plan_identity() -> None:
    with_change = cerebri.plan(request_for("UPDATE")).candidates[0].proposed.id
    other = cerebri.plan(request_for("UPDATE", title="Renamed")).candidates[0].proposed.id
    assert with_change != other


@pytest.mark.parametrize("operation", ["RESCHEDULE", "CANCEL", "UPDATE"])
def test_answers_are_deterministic_and_order_free(operation: str) -> None:
    document = request_for(operation)
    first = json.dumps(cerebri.plan(document).to_wire())
    shuffled = copy.deepcopy(document)
    rng = random.Random(23)
    rng.shuffle(shuffled["context"]["objects"])
    rng.shuffle(shuffled["planning_capability"]["mutations"])
    rng.shuffle(shuffled["policy"]["snapshot"]["mutation"]["allowed_actions"])
    assert json.dumps(cerebri.plan(shuffled).to_wire()) == first
    assert json.dumps(cerebri.plan(json.dumps(document)).to_wire()) == first


@pytest.mark.parametrize(
    ("operation", "kind"),
    [("RESCHEDULE", "MOVE_EVENT"), ("CANCEL", "DELETE_EVENT"), ("UPDATE", "UPDATE_EVENT")],
)
def test_analysis_only_changes_yield_no_actions(operation: str, kind: str) -> None:
    document = request_for(operation)
    document["scope"]["max_mutations"] = 0
    result = cerebri.plan(document)
    assert result.candidates
    assert result.candidates[0].explanation[-1].reason.name == "AnalysisOnly"
    request = cerebri.parse_request(document)
    validated = validate_proposal(
        request, result.candidates[0].proposed.placements, request.context
    )
    with pytest.raises(PlanError) as caught:
        to_action_plan(validated)
    assert caught.value.code == "plan.analysis_only"
    document["scope"]["max_mutations"] = 1
    (action,) = action_plan_for(cerebri.parse_request(document)).actions
    assert action.kind.value == kind


def test_with_change_sets_and_removes_the_member() -> None:
    plain = cerebri.parse_request(example())
    change = Change(
        uid="new@example.com",
        scope=ChangeScope.SERIES,
        sequence=0,
        organizer="mailto:ann@example.com",
        attendees=(ChangeAttendee(address="mailto:bob@example.com", required=True),),
    )
    _ = plain.canonical_size  # cached on the original
    changed = plain.with_change(change)
    assert changed.change == change
    assert changed.canonical_size == len(changed.model_dump_json().encode("utf-8"))
    assert changed.canonical_size > plain.canonical_size
    document = example()
    document["change"] = change.model_dump(mode="json")
    assert changed == cerebri.parse_request(document)
    assert changed.with_change(None) == plain
    assert changed.with_change(None).canonical_size == plain.canonical_size


def test_change_issues_have_notes() -> None:
    document = request_for("MOVE", scope="THIS_AND_FUTURE", sequence=9)
    request = cerebri.parse_request(document)
    report = cerebri.validate(request)
    notes = [issue_note(request, issue) for issue in report.issues]
    assert [(n.code, n.path) for n in notes if n is not None] == [
        ("change.not_allowed", "/change"),
        ("change.recurrence_id_required", "/change/recurrence_id"),
    ]
    update = cerebri.parse_request(request_for("UPDATE", sequence=9))
    (issue,) = cerebri.validate(update).issues
    note = issue_note(update, issue)
    assert note is not None
    assert (note.code, note.path) == ("change.invalid", "/change/sequence")
    assert "is 9" in note.message
