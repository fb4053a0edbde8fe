"""Property tests: the planner against an independent brute-force reference.

The reference (``tests/reference.py``) is written from planner.md sections 5-8 and
cpir-0.2.md sections 6, 9 and 10; the random requests come from ``tests/strategies.py``.
The first block checks the reference itself against hand-computed values so that a shared
misreading of the spec cannot hide behind "both agree".
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cerebri
from reference import ReferenceResult, constraint_set, hard_checks, parse_instant, reference_plan
from strategies import TARGET, requests, shuffled

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def wire(request: dict[str, Any]) -> dict[str, Any]:
    return cerebri.plan(copy.deepcopy(request)).to_wire()


def candidate_view(candidate: dict[str, Any]) -> dict[str, Any]:
    """The planner's candidate in the reference's shape (plan id and proposal dropped)."""
    placements = candidate["proposed"]["placements"]
    assert len(placements) == 1
    assert placements[0]["object_id"] == candidate["object_id"]
    assert placements[0]["range"]["start"] == candidate["start"]
    key = candidate["ordering_key"]
    assert key == {
        "preference_distance_seconds": candidate["cost"],
        "mutation_count": candidate["mutation_count"],
        "shifted_seconds": candidate["shifted_seconds"],
        "start": candidate["start"],
        "object_id": candidate["object_id"],
    }
    return {
        "start": candidate["start"],
        "end": placements[0]["range"]["end"],
        "object_id": candidate["object_id"],
        "cost": candidate["cost"],
        "mutation_count": candidate["mutation_count"],
        "shifted_seconds": candidate["shifted_seconds"],
        "explanation": candidate["explanation"],
        "ranking_features": candidate["ranking_features"],
    }


def grid_positions(request: dict[str, Any]) -> int:
    start = parse_instant(request["scope"]["time_range"]["start"])
    end = parse_instant(request["scope"]["time_range"]["end"])
    duration = request_duration(request) * 1_000_000
    step = request["granularity"] * 1_000_000
    count = 0
    while start + count * step + duration <= end:
        count += 1
    return count


def request_duration(request: dict[str, Any]) -> int:
    knowledge = request["duration"]["value"]["knowledge"]
    data = knowledge["data"]
    return int(data["value"] if knowledge["state"] == "UNCERTAIN" else data)


def starts(result: ReferenceResult) -> list[str]:
    return [candidate["start"] for candidate in result.candidates]


def at(hhmm: str, day: str = "2026-10-01") -> str:
    return f"{day}T{hhmm}:00Z"


def event(
    object_id: str, start: str | None, end: str | None, *, revision: int | None = 1
) -> dict[str, Any]:
    if start is None or end is None:
        value: dict[str, Any] = {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}}
    else:
        value = {
            "processing": "RESOLVED",
            "knowledge": {"state": "KNOWN", "data": {"start": start, "end": end}},
        }
    return {
        "id": object_id,
        "revision": revision,
        "kind": {"kind": "EVENT"},
        "calendar_id": "synthetic-calendar",
        "integration_id": "mock",
        "resource_ids": [],
        "time": {
            "value": value,
            "provenance": "USER_EXPLICIT" if revision is None else "INTEGRATION_FACT",
            "confidence": None,
            "evidence": [],
        },
        "timezone": "Europe/Berlin",
        "semantics": None,
    }


def walkthrough() -> dict[str, Any]:
    """cpir-0.2.md section 13 (``examples/request.json``), written out as CPIR 0.2."""
    return {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": "synthetic-request",
        "trace_id": "synthetic-trace",
        "principal_id": "synthetic-user",
        "operation": "CREATE",
        "scope": {
            "time_range": {"start": at("09:00"), "end": at("12:00")},
            "calendar_ids": None,
            "object_ids": None,
            "resource_ids": None,
            "integration_ids": None,
            "movable_object_ids": None,
            "max_mutations": 3,
        },
        "context": {
            "revision": 1,
            "captured_at": at("08:00"),
            "objects": [
                event("new-event", None, None, revision=None),
                event("busy", at("09:00"), at("10:00")),
            ],
            "facts": [],
        },
        "target_ids": ["new-event"],
        "duration": {
            "value": {"processing": "RESOLVED", "knowledge": {"state": "KNOWN", "data": 1800}},
            "provenance": "USER_EXPLICIT",
            "confidence": None,
            "evidence": [],
        },
        "constraints": [],
        "preferences": {"preferences": []},
        "policy": {
            "policy_set_id": "local-test-policy",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {"max_mutations": 3, "allowed_actions": ["CREATE_EVENT", "MOVE_EVENT"]},
                "mode": "Test",
            },
        },
        "planning_capability": {
            "read": True,
            "plan": True,
            "mutations": [
                {
                    "object_id": "new-event",
                    "calendar_id": "synthetic-calendar",
                    "integration_id": "mock",
                    "kind": "CREATE_EVENT",
                }
            ],
        },
        "granularity": 900,
        "budget": {"max_candidates": 256, "max_repairs": 0, "max_moved_objects": 1, "max_depth": 0},
    }


def overlap_with(blocker: str, object_id: str = "new-event") -> dict[str, Any]:
    return {
        "HardConstraint": {
            "constraint": {"kind": "NO_OVERLAP"},
            "object_id": object_id,
            "reason": "Overlap",
            "evidence": {"facts": [], "blocking_objects": [blocker], "blocking_occurrences": []},
        }
    }


def preference(source: str, when: str) -> dict[str, Any]:
    return {"source": source, "preferred_start": when, "evidence": []}


# --------------------------------------------------------------------------------------
# The reference against hand-computed values (each case is then also run by the planner)
# --------------------------------------------------------------------------------------


def checked(request: dict[str, Any]) -> ReferenceResult:
    """The reference's answer, after asserting that the planner gives the same one."""
    assert_matches_reference(request)
    return reference_plan(request)


def test_reference_walkthrough_section_13() -> None:
    result = checked(walkthrough())
    assert (result.outcome, result.assessment) == ("Solution", "ProvenOptimal")
    assert (result.evaluated, result.exhausted) == (11, True)
    assert starts(result) == [at(t) for t in ("10:00", "10:15", "10:30", "10:45", "11:00")] + [
        at("11:15"),
        at("11:30"),
    ]
    assert result.candidates[0]["end"] == at("10:30")
    assert result.rejections == [
        {"start": at(t), "reasons": [overlap_with("busy")]}
        for t in ("09:00", "09:15", "09:30", "09:45")
    ]
    first = result.candidates[0]
    assert (first["cost"], first["mutation_count"], first["shifted_seconds"]) == (0, 1, 0)
    assert first["explanation"] == [
        {"reason": "FeasibleWithinScope", "cost": 0},
        {"reason": "EarliestTieBreak", "cost": 0},
    ]
    assert first["ranking_features"]["preferred_start_source"] is None


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        (11, ("Solution", "ProvenOptimal", 11, True, 7)),
        (5, ("Solution", "BestFound", 5, False, 1)),
        (4, ("NeedsRelaxation", "BestFound", 4, False, 0)),
        (0, ("NeedsRelaxation", "BestFound", 0, False, 0)),
    ],
)
def test_reference_budget_accounting(budget: int, expected: tuple[Any, ...]) -> None:
    """planner.md section 5: budget 11 on the walk-through is complete, 5 is not."""
    request = walkthrough()
    request["budget"]["max_candidates"] = budget
    result = checked(request)
    observed = (
        result.outcome,
        result.assessment,
        result.evaluated,
        result.exhausted,
        len(result.candidates),
    )
    assert observed == expected


def test_reference_budget_zero_when_nothing_fits_is_complete() -> None:
    request = walkthrough()
    request["budget"]["max_candidates"] = 0
    request["duration"]["value"]["knowledge"]["data"] = 4 * 3600
    result = checked(request)
    assert (result.outcome, result.assessment, result.evaluated) == ("NoSolution", "Complete", 0)


def test_reference_preference_golden() -> None:
    """planner.md section 7: explicit 11:00 beats personal 10:00."""
    request = walkthrough()
    request["preferences"]["preferences"] = [
        preference("PersonalLearned", at("10:00")),
        preference("ExplicitCurrentRequest", at("11:00")),
    ]
    result = checked(request)
    ranked = [(c["start"][11:16], c["cost"]) for c in result.candidates]
    assert ranked == [
        ("11:00", 0),
        ("10:45", 900),
        ("11:15", 900),
        ("10:30", 1800),
        ("11:30", 1800),
        ("10:15", 2700),
        ("10:00", 3600),
    ]
    assert result.candidates[0]["explanation"][1] == {
        "reason": {"PreferredStart": "ExplicitCurrentRequest"},
        "cost": 0,
    }


def test_reference_find_slot_on_existing_object_uses_shift() -> None:
    """planner.md section 7: FIND_SLOT on ``busy`` at 11:00-12:00, 1 h, preference 10:30."""
    request = walkthrough()
    request["operation"] = "FIND_SLOT"
    request["target_ids"] = ["busy"]
    request["context"]["objects"] = [event("busy", at("11:00"), at("12:00"))]
    request["duration"]["value"]["knowledge"]["data"] = 3600
    request["preferences"]["preferences"] = [preference("ExplicitCurrentRequest", at("10:30"))]
    result = checked(request)
    top = [(c["start"][11:16], c["cost"], c["shifted_seconds"]) for c in result.candidates[:5]]
    assert top == [
        ("10:30", 0, 1800),
        ("10:45", 900, 900),
        ("10:15", 900, 2700),
        ("11:00", 1800, 0),
        ("10:00", 1800, 3600),
    ]
    assert all(c["mutation_count"] == 0 for c in result.candidates)
    assert result.candidates[0]["explanation"][-1] == {"reason": "AnalysisOnly", "cost": 0}


def test_reference_truncates_sub_second_distances() -> None:
    request = walkthrough()
    request["preferences"]["preferences"] = [
        preference("SessionContext", "2026-10-01T10:14:59.200Z"),
        preference("SessionContext", "2026-10-01T10:15:00.800Z"),  # later: loses the tie
    ]
    result = checked(request)
    costs = {c["start"][11:16]: c["cost"] for c in result.candidates}
    assert costs["10:15"] == 0  # 0.8 s truncates to 0
    assert costs["10:00"] == 899  # 899.2 s truncates to 899
    assert costs["10:30"] == 900  # 900.8 s truncates to 900


def test_reference_design_review_example() -> None:
    """examples/design-review.json, computed by hand: buffer 15 min, 45 min, latest end 15:00."""
    request = json.loads((EXAMPLES / "design-review.json").read_text())
    result = checked(request)
    ranked = [(c["start"][11:16], c["cost"]) for c in result.candidates]
    assert ranked == [("12:00", 0), ("11:45", 900), ("14:15", 8100), ("08:00", 14400)]
    assert (result.evaluated, result.exhausted, result.outcome) == (34, True, "Solution")


def test_reference_constraint_order_and_wire() -> None:
    """Constraints (with fact-derived ones) are checked in compact-JSON text order."""
    request = walkthrough()
    request["context"]["facts"] = [
        {
            "id": "lock-fact",
            "object_id": "new-event",
            "value": {"kind": "EXTERNAL_LOCK"},
            "provenance": "SYSTEM_FACT",
        },
        {
            "id": "due",
            "object_id": "new-event",
            "value": {"kind": "DEADLINE", "value": at("10:30")},
            "provenance": "USER_EXPLICIT",
        },
    ]
    request["constraints"] = [
        {
            "object_id": "new-event",
            "rule": {"kind": "EARLIEST_START", "value": at("09:30")},
            "evidence": ["z", "a", "z"],
        },
        {"object_id": "busy", "rule": {"kind": "RECURRENCE_RULE"}, "evidence": []},
    ]
    texts = [spec["rule"]["kind"] for spec in constraint_set(request)]
    # "busy" < "new-event"; then DEADLINE < EARLIEST_START < EXTERNAL_LOCK.
    assert texts == ["RECURRENCE_RULE", "DEADLINE", "EARLIEST_START", "EXTERNAL_LOCK"]
    reasons = hard_checks(
        request, "new-event", parse_instant(at("09:15")), parse_instant(at("09:45"))
    )
    assert reasons == [
        overlap_with("busy"),
        {
            "HardConstraint": {
                "constraint": {"kind": "RECURRENCE_RULE"},
                "object_id": "busy",
                "reason": "UnsupportedRecurrence",
                "evidence": {"facts": [], "blocking_objects": [], "blocking_occurrences": []},
            }
        },
        {
            "HardConstraint": {
                "constraint": {"kind": "EARLIEST_START", "value": at("09:30")},
                "object_id": "new-event",
                "reason": "OutsideBounds",
                "evidence": {
                    "facts": ["a", "z"],
                    "blocking_objects": [],
                    "blocking_occurrences": [],
                },
            }
        },
        {
            "HardConstraint": {
                "constraint": {
                    "kind": "EXTERNAL_LOCK",
                    "value": {"provenance": "SYSTEM_FACT", "reason": "source fact"},
                },
                "object_id": "new-event",
                "reason": "Locked",
                "evidence": {
                    "facts": ["lock-fact"],
                    "blocking_objects": [],
                    "blocking_occurrences": [],
                },
            }
        },
    ]
    result = checked(request)
    assert (result.outcome, result.assessment, result.candidates) == ("NoSolution", "Complete", [])


def test_constraint_order_uses_escaped_json_text_with_raw_utf8() -> None:
    """Sorting is on serde_json text: ``"`` is written ``\\"`` and ``ü`` stays raw UTF-8."""
    request = walkthrough()
    reasons = ["say ü", 'say "1"', "say z", "say #1"]
    request["constraints"] = [
        {
            "object_id": "new-event",
            "rule": {"kind": "EXTERNAL_LOCK", "value": {"provenance": "DEFAULT", "reason": r}},
            "evidence": [],
        }
        for r in reasons
    ]
    expected = ["say #1", 'say "1"', "say z", "say ü"]
    assert [spec["rule"]["value"]["reason"] for spec in constraint_set(request)] == expected
    planned = assert_matches_reference(request)
    last = planned["conflicts"]["rejections"][-1]["reasons"]
    assert [r["HardConstraint"]["constraint"]["value"]["reason"] for r in last] == expected


def test_reference_explicit_date_uses_the_object_zone() -> None:
    """Kiritimati is UTC+14: 10:00Z on 2026-10-01 is 2026-10-02 00:00 local."""
    request = walkthrough()
    request["context"]["objects"] = [event("new-event", None, None, revision=None)]
    request["context"]["objects"][0]["timezone"] = "Pacific/Kiritimati"
    request["constraints"] = [
        {
            "object_id": "new-event",
            "rule": {"kind": "EXPLICIT_DATE", "value": "2026-10-02"},
            "evidence": [],
        }
    ]
    result = checked(request)
    # 09:45Z-10:15Z is 23:45-00:15 local: the start's date (2026-10-01) decides.
    assert starts(result)[0] == at("10:00")
    assert [r["start"] for r in result.rejections] == [
        at(t) for t in ("09:00", "09:15", "09:30", "09:45")
    ]


def test_reference_buffer_dependency_and_missing_range() -> None:
    request = walkthrough()
    request["context"]["objects"].append(
        {**event("room", None, None, revision=None), "kind": {"kind": "RESOURCE"}}
    )
    request["constraints"] = [
        {
            "object_id": "new-event",
            "rule": {"kind": "REQUIRED_BUFFER", "value": 900},
            "evidence": [],
        },
        {
            "object_id": "new-event",
            "rule": {"kind": "DEPENDENCY_ORDER", "value": "busy"},
            "evidence": [],
        },
    ]
    result = checked(request)
    assert starts(result)[0] == at("10:15")  # 10:00 touches busy: gap 0 < 900
    rejected = {r["start"][11:16]: r["reasons"] for r in result.rejections}
    assert rejected["10:00"][0]["HardConstraint"]["reason"] == "InsufficientBuffer"
    assert [r["HardConstraint"]["reason"] for r in rejected["09:45"]] == [
        "Overlap",
        "DependencyOrder",
        "InsufficientBuffer",
    ]
    # A constraint on an object without any range fails every candidate.
    request["constraints"].append(
        {"object_id": "room", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    )
    request["constraints"].append(
        {
            "object_id": "new-event",
            "rule": {"kind": "DEPENDENCY_ORDER", "value": "room"},
            "evidence": [],
        }
    )
    result = checked(request)
    assert result.candidates == []
    last = result.rejections[-1]["reasons"]
    assert last[0]["HardConstraint"]["reason"] == "DependencyMissing"
    assert last[-1] == "InvalidTargets"


def test_reference_matches_planner_on_the_examples() -> None:
    for request in (walkthrough(), json.loads((EXAMPLES / "design-review.json").read_text())):
        assert_matches_reference(request)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------


def assert_matches_reference(request: dict[str, Any]) -> dict[str, Any]:
    planned = wire(request)
    expected = reference_plan(request)
    assert planned["validation"] == {"state": expected.validation_state, "issues": []}
    assert planned["search_space"]["evaluated"] == expected.evaluated
    assert planned["search_space"]["exhausted"] == expected.exhausted
    assert planned["conflicts"]["rejections"] == expected.rejections
    assert [candidate_view(c) for c in planned["candidates"]] == expected.candidates
    assert (planned["outcome"], planned["assessment"]) == (expected.outcome, expected.assessment)
    assert planned["compilation"] is None
    return planned


@settings(PROPERTY_SETTINGS, max_examples=300)
@given(requests())
def test_planner_equals_reference(request: dict[str, Any]) -> None:
    assert_matches_reference(request)


@PROPERTY_SETTINGS
@given(requests(), st.randoms(use_true_random=False))
def test_output_is_independent_of_input_order(request: dict[str, Any], rng: random.Random) -> None:
    baseline = json.dumps(wire(request))
    for _ in range(2):
        assert json.dumps(wire(shuffled(request, rng))) == baseline


@PROPERTY_SETTINGS
@given(requests())
def test_budget_accounting(request: dict[str, Any]) -> None:
    planned = wire(request)
    space = planned["search_space"]
    budget = request["budget"]["max_candidates"]
    positions = grid_positions(request)
    assert space["evaluated"] <= budget
    assert space["evaluated"] == len(planned["candidates"]) + len(
        planned["conflicts"]["rejections"]
    )
    assert space["evaluated"] == min(budget, positions)
    assert space["exhausted"] == (positions <= budget)
    assert all(rejection["reasons"] for rejection in planned["conflicts"]["rejections"])
    evaluated_starts = [r["start"] for r in planned["conflicts"]["rejections"]]
    evaluated_starts += [c["start"] for c in planned["candidates"]]
    assert len(set(evaluated_starts)) == len(evaluated_starts)


@PROPERTY_SETTINGS
@given(requests(), st.data())
def test_every_candidate_passes_the_hard_checks_again(
    request: dict[str, Any], data: st.DataObject
) -> None:
    planned = wire(request)
    candidates = planned["candidates"]
    if not candidates:
        return
    picks = {0, len(candidates) - 1, data.draw(st.integers(0, len(candidates) - 1))}
    for index in sorted(picks):
        placement = candidates[index]["proposed"]["placements"][0]
        pinned = copy.deepcopy(request)
        pinned["constraints"].append(
            {
                "object_id": TARGET,
                "rule": {"kind": "EXPLICIT_TIME", "value": dict(placement["range"])},
                "evidence": [],
            }
        )
        again = wire(pinned)
        assert again["validation"]["state"] == planned["validation"]["state"]
        assert [c["start"] for c in again["candidates"]] == [placement["range"]["start"]]


@PROPERTY_SETTINGS
@given(requests())
def test_ranking_is_a_strict_total_order(request: dict[str, Any]) -> None:
    candidates = wire(request)["candidates"]
    keys = [
        (
            c["cost"],
            c["mutation_count"],
            c["shifted_seconds"],
            datetime.fromisoformat(c["start"]),
        )
        for c in candidates
    ]
    assert all(earlier < later for earlier, later in itertools.pairwise(keys))
