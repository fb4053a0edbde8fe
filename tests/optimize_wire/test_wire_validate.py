"""Validation of CPIR OPTIMIZE requests and of the ``batch`` member (decision 0070)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import cerebri
import cerebri.planner
from cerebri.errors import ParseError
from tests.optimize_wire.wire_helpers import MONDAY, existing, meeting, optimize_request
from tests.planner.helpers import compact_size, example


def issues(request: dict[str, Any]) -> list[Any]:
    return [issue.to_wire() for issue in cerebri.validate(request).issues]


def three() -> dict[str, Any]:
    return optimize_request(
        [
            meeting("m-a", ["ann", "bob"], room={"capacity": 2}),
            meeting("m-b", ["ann"], room={}),
            meeting("m-c", ["bob"]),
        ]
    )


def test_a_well_formed_optimize_is_valid() -> None:
    report = cerebri.validate(three())
    assert (report.state.value, report.issues) == ("Valid", ())


def test_optimize_without_batch_is_an_issue() -> None:
    request = three()
    del request["batch"]
    assert issues(request) == [{"BatchRequired": "OPTIMIZE"}]


def test_batch_with_another_operation_is_an_issue_and_the_budget_stays_reference() -> None:
    request = example()
    request["batch"] = three()["batch"]
    assert issues(request) == [{"BatchNotAllowed": "CREATE"}]
    request = example()
    request["budget"]["max_repairs"] = 1
    assert issues(request) == ["UnsupportedSearchBudget"]


def test_optimize_may_ask_for_repairs_and_depth() -> None:
    request = three()
    request["budget"].update(max_repairs=3, max_depth=2, max_moved_objects=3)
    assert issues(request) == []
    # the reference planner alone still refuses both the operation and the budget
    reference = [i.to_wire() for i in cerebri.planner.validate(request).issues]
    assert reference == ["UnsupportedSearchBudget", {"UnsupportedOperation": "OPTIMIZE"}]


def test_targets_must_be_new_and_granted() -> None:
    request = three()
    request["planning_capability"]["mutations"] = request["planning_capability"]["mutations"][1:]
    request["policy"]["snapshot"]["mutation"]["allowed_actions"] = ["MOVE_EVENT"]
    assert issues(request) == [
        {"MissingPlanningCapability": "m-a"},
        {"PolicyDenied": "m-a"},
        {"PolicyDenied": "m-b"},
        {"PolicyDenied": "m-c"},
    ]
    sync = existing("sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="ann-cal")
    request = optimize_request([meeting("sync", ["ann"])], objects=[sync])
    request["target_ids"] = ["sync"]
    assert {"InvalidTargetState": "sync"} in issues(request)


def test_a_movable_meeting_needs_move_permission_and_scope() -> None:
    sync = existing("sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="ann-cal")
    request = optimize_request([meeting("m-a", ["ann"]), meeting("sync", ["ann"])], objects=[sync])
    request["planning_capability"]["mutations"] = request["planning_capability"]["mutations"][:1]
    request["scope"]["movable_object_ids"] = []
    request["scope"]["calendar_ids"] = ["ann-cal"]
    assert issues(request) == [
        {"InvalidBatch": {"id": "sync", "field": "movable"}},
        {"MissingPlanningCapability": "sync"},
    ]
    request["scope"]["calendar_ids"] = ["zoe-cal"]
    got = issues(request)
    assert {"ScopeViolation": "sync"} in got and {"ScopeViolation": "m-a"} in got


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b["meetings"].pop(), {"InvalidBatch": {"id": "m-c", "field": "target"}}),
        (
            lambda b: b["meetings"].append(meeting("ghost", ["ann"])),
            {"InvalidBatch": {"id": "ghost", "field": "meeting"}},
        ),
        (
            lambda b: b["meetings"].append(meeting("m-a", ["ann"])),
            {"InvalidBatch": {"id": "m-a", "field": "meeting"}},
        ),
        (
            lambda b: b["meetings"][2].update(required=["cy"]),
            {"InvalidBatch": {"id": "cy", "field": "person"}},
        ),
        (
            lambda b: b["people"].append(dict(b["people"][0])),
            {"InvalidBatch": {"id": "ann", "field": "person"}},
        ),
        (
            lambda b: b["meetings"][1].update(room={"room_ids": ["r9"]}),
            {"InvalidBatch": {"id": "r9", "field": "room"}},
        ),
        (
            lambda b: b["rooms"].append(dict(b["rooms"][0])),
            {"InvalidBatch": {"id": "r1", "field": "room"}},
        ),
        (
            lambda b: b["meetings"][0].update(duration=1800),
            {"InvalidBatch": {"id": "m-a", "field": "duration"}},
        ),
        (
            lambda b: b["meetings"][0].update(
                window={"start": MONDAY + "07:30:00Z", "end": MONDAY + "12:00:00Z"}
            ),
            {"InvalidBatch": {"id": "m-a", "field": "window"}},
        ),
        (
            lambda b: b["meetings"][0].update(
                window={"start": MONDAY + "07:00:00Z", "end": MONDAY + "17:00:00Z"}
            ),
            {"InvalidBatch": {"id": "m-a", "field": "window"}},
        ),
        (
            lambda b: b["meetings"][0].update(after=[{"object_id": "nope"}]),
            {"InvalidBatch": {"id": "m-a", "field": "after"}},
        ),
        (
            lambda b: b["meetings"][0].update(after=[{"object_id": "m-b", "gap_seconds": 60}]),
            {"InvalidBatch": {"id": "m-a", "field": "after"}},
        ),
        (
            lambda b: b["meetings"][0].update(not_same_day_as=["nope"]),
            {"InvalidBatch": {"id": "m-a", "field": "not_same_day_as"}},
        ),
        (
            lambda b: b["meetings"][0].update(not_same_day_as=["m-a"]),
            {"InvalidBatch": {"id": "m-a", "field": "not_same_day_as"}},
        ),
        (
            lambda b: b["meetings"][0].update(after=[{"object_id": "m-a"}]),
            {"InvalidBatch": {"id": "m-a", "field": "after"}},
        ),
        (
            lambda b: b["meetings"][0].update(required=["ann", "ann"]),
            {"InvalidBatch": {"id": "m-a", "field": "attendees"}},
        ),
        (
            lambda b: b["meetings"][0].update(optional=list(b["meetings"][0]["required"])),
            {"InvalidBatch": {"id": "m-a", "field": "attendees"}},
        ),
        (
            lambda b: b["meetings"][0].update(preferred_start=MONDAY + "17:00:00Z"),
            {"InvalidBatch": {"id": "m-a", "field": "preferred_start"}},
        ),
        (
            lambda b: b.update(travel=[{"a": "HQ", "b": "Lab", "seconds": 600}]),
            {"InvalidBatch": {"id": "HQ|Lab", "field": "travel"}},
        ),
    ],
)
def test_each_batch_issue(change: Any, expected: Any) -> None:
    request = three()
    change(request["batch"])
    assert issues(request) == [expected]


def test_an_existing_meeting_off_the_grid_is_an_issue() -> None:
    sync = existing("sync", MONDAY + "08:30:00Z", MONDAY + "09:30:00Z", calendar="ann-cal")
    request = optimize_request([meeting("m-a", ["ann"]), meeting("sync", ["ann"])], objects=[sync])
    assert issues(request) == [{"InvalidBatch": {"id": "sync", "field": "time"}}]


@pytest.mark.parametrize(
    ("object_id", "rule"),
    [
        ("m-a", {"kind": "REQUIRED_BUFFER", "value": 900}),
        ("m-a", {"kind": "NO_OVERLAP"}),
        ("m-a", {"kind": "FIXED_DURATION", "value": 3600}),
        ("m-a", {"kind": "EXTERNAL_LOCK", "value": {"provenance": "USER_EXPLICIT", "reason": "x"}}),
        ("ann-busy", {"kind": "NO_OVERLAP"}),
    ],
)
def test_constraints_the_optimiser_does_not_map_are_named(object_id: str, rule: Any) -> None:
    request = optimize_request(
        [meeting("m-a", ["ann"])],
        objects=[
            existing("ann-busy", MONDAY + "10:00:00Z", MONDAY + "11:00:00Z", calendar="ann-cal")
        ],
    )
    request["constraints"] = [{"object_id": object_id, "rule": rule, "evidence": []}]
    assert issues(request) == [
        {"UnsupportedBatchConstraint": {"object_id": object_id, "kind": rule["kind"]}}
    ]


def test_targets_beyond_max_mutations_are_an_issue() -> None:
    request = three()
    request["scope"]["max_mutations"] = 2
    assert issues(request) == [{"BatchLimit": "max_mutations"}]
    request["scope"]["max_mutations"] = 0  # analysis-only: no limit, no permission checks
    assert issues(request) == []


def test_optimize_admission_limits() -> None:
    request = three()
    # 20 000 one-minute grains are admitted, 20 001 are not
    request["granularity"] = 60
    request["duration"]["value"]["knowledge"]["data"] = 3600
    request["scope"]["time_range"] = {
        "start": "2026-10-05T00:00:00Z",
        "end": "2026-10-18T21:20:00Z",
    }
    assert issues(request) == []
    request["scope"]["time_range"]["end"] = "2026-10-18T21:21:00Z"
    assert issues(request) == ["InputLimit"]


def test_optimize_may_exceed_the_reference_size_limit() -> None:
    request = three()
    request["batch"]["meetings"][0]["title"] = "x" * 1000
    for index in range(300):  # beyond 256 objects and 256 KiB, far below 4096 and 4 MiB
        filler = existing(
            f"f{index:03d}", MONDAY + "06:00:00Z", MONDAY + "07:00:00Z", calendar="zoe-cal"
        )
        filler["semantics"] = None
        request["context"]["objects"].append(filler)
    request["request_id"] = "r" * 100
    assert compact_size(request) < 4 * 1024 * 1024
    assert issues(request) == []
    reference = dict(request, operation="CREATE")
    del reference["batch"]
    assert [i.to_wire() for i in cerebri.planner.validate(reference).issues] == ["InputLimit"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda b: b.update(unknown=1),
        lambda b: b["meetings"][0].update(colour="red"),
        lambda b: b["people"][0]["hours"][0].update(end="08:00"),
        lambda b: b["people"][0]["hours"][0].update(days=["Mon", "Mon"]),
        lambda b: b["people"][0].update(timezone="Mars/Olympus"),
        lambda b: b["meetings"][0].update(duration=0),
        lambda b: b.update(meetings=[]),
        lambda b: b.update(solver={"workers": 0}),
    ],
)
def test_malformed_batch_is_a_parse_error(edit: Any) -> None:
    request = three()
    edit(request["batch"])
    with pytest.raises(ParseError):
        cerebri.parse_request(json.dumps(request))


def test_absent_batch_keeps_the_request_bytes() -> None:
    request = example()
    parsed = cerebri.parse_request(request)
    assert parsed.canonical_size == cerebri.parse_request(dict(request, batch=None)).canonical_size
    assert '"batch"' not in parsed.model_dump_json()
    optimize = cerebri.parse_request(three())
    assert '"batch":{"meetings":' in optimize.model_dump_json()


def test_the_request_schema_describes_batch() -> None:
    from cerebri.cpir.schema import request_json_schema

    schema = request_json_schema()
    assert "batch" in schema["properties"]
    assert "batch" not in schema.get("required", [])
    assert {"Batch", "BatchMeeting", "BatchPerson", "BatchHours"} <= set(schema["$defs"])


def test_a_horizon_without_a_whole_grain_is_an_issue() -> None:
    request = three()
    request["scope"]["time_range"] = {"start": MONDAY + "06:00:00Z", "end": MONDAY + "06:30:00Z"}
    assert issues(request) == [{"InvalidBatch": {"id": "scope.time_range", "field": "window"}}]
