"""Scope filters: absent (omitted or null) versus [] versus a list (cpir-0.2.md 6.1)."""

from __future__ import annotations

from typing import Any

import pytest

import cerebri
from tests.planner.helpers import example

TARGET = "design-review"


def _issues(request: dict[str, Any]) -> list[Any]:
    return [i.to_wire() for i in cerebri.validate(request).issues]


@pytest.mark.parametrize("field", ["calendar_ids", "object_ids", "integration_ids"])
def test_omitted_and_null_select_everything_but_empty_selects_nothing(field: str) -> None:
    omitted = example()
    del omitted["scope"][field]
    null = example()
    null["scope"][field] = None
    empty = example()
    empty["scope"][field] = []
    assert _issues(omitted) == _issues(null) == []
    assert _issues(empty) == [{"ScopeViolation": TARGET}]


@pytest.mark.parametrize(
    ("own", "allowed", "selected"),
    [
        ([], None, True),  # no filter: resource-free objects pass
        ([], [], False),
        ([], ["room-a"], False),  # a list excludes resource-free objects
        (["person-a", "room-a"], ["room-a"], False),  # partial coverage
        (["person-a", "room-a"], ["person-a", "room-a", "room-b"], True),  # all contained
        (["room-a"], ["room-b"], False),  # disjoint
        (["room-a"], [], False),
    ],
)
def test_resource_filter_is_all_containment(
    own: list[str], allowed: list[str] | None, selected: bool
) -> None:
    request = example()
    request["context"]["objects"][0]["resource_ids"] = own
    request["scope"]["resource_ids"] = allowed
    assert (_issues(request) == []) is selected


def test_scope_never_hides_blocking_objects() -> None:
    request = example()
    request["scope"]["object_ids"] = [TARGET]  # every busy event is outside the filter
    result = cerebri.plan(request).to_wire()
    assert [c["start"][11:16] for c in result["candidates"]] == ["12:00", "11:45", "14:15", "08:00"]


def test_movable_ids_gate_existing_targets() -> None:
    request = example()
    request["operation"] = "MOVE"
    # The prospective review would need a known time once it is no longer the target.
    request["context"]["objects"] = request["context"]["objects"][1:]
    request["target_ids"] = ["planning"]
    request["duration"]["value"]["knowledge"]["data"] = 3600
    request["constraints"] = []
    request["preferences"]["preferences"] = []
    request["budget"]["max_moved_objects"] = 1
    request["policy"]["snapshot"]["mutation"]["allowed_actions"] = ["MOVE_EVENT"]
    request["planning_capability"]["mutations"] = [
        {
            "object_id": "planning",
            "calendar_id": "work",
            "integration_id": "local-ics",
            "kind": "MOVE_EVENT",
        }
    ]
    request["scope"]["movable_object_ids"] = []
    result = cerebri.plan(request).to_wire()
    assert result["outcome"] == "NoSolution"
    assert all({"Scope": "planning"} in r["reasons"] for r in result["conflicts"]["rejections"])
    request["scope"]["movable_object_ids"] = ["planning"]
    result = cerebri.plan(request).to_wire()
    assert result["outcome"] == "Solution"
    # Ranked by shift from 13:00, then start: 13:00 itself first (shift 0).
    first = result["candidates"][0]
    assert (first["start"][11:16], first["shifted_seconds"], first["mutation_count"]) == (
        "13:00",
        0,
        1,
    )
