"""Validation issues, their order, and the admission limits (planner.md 2)."""

from __future__ import annotations

from typing import Any

import pytest

import cerebri
import cerebri.planner
from cerebri import PlannerLimits
from tests.planner.helpers import DAY, compact_size, event, example, known_time


def issues(request: dict[str, Any], limits: PlannerLimits | None = None) -> list[Any]:
    report = cerebri.validate(request, limits=limits or cerebri.DEFAULT_LIMITS)
    return [issue.to_wire() for issue in report.issues]


def test_example_is_valid() -> None:
    assert cerebri.validate(example()).to_wire() == {"state": "Valid", "issues": []}


def test_issues_sorted_by_compact_json_and_deduplicated() -> None:
    request = example()
    request["budget"]["max_depth"] = 1  # UnsupportedSearchBudget
    request["planning_capability"]["read"] = False  # PlanningPermissionDenied
    request["context"]["objects"].append(event("standup", f"{DAY}06:00:00Z", f"{DAY}06:10:00Z"))
    request["target_ids"] = ["design-review", "design-review", "ghost"]
    # Unit issues first (alphabetical), then payload issues by variant name and payload.
    assert issues(request) == [
        "PlanningPermissionDenied",
        "UnsupportedSearchBudget",
        {"DuplicateObject": "standup"},
        {"DuplicateTarget": "design-review"},
        # read=false also means no capability permits the mutation (cpir-0.2.md 11.2).
        {"MissingPlanningCapability": "design-review"},
        {"UnknownObject": "ghost"},
    ]


def test_mutating_target_needs_capability_and_policy() -> None:
    request = example()
    request["planning_capability"]["mutations"] = []
    request["policy"]["snapshot"]["mode"] = "Shadow"
    assert issues(request) == [
        {"MissingPlanningCapability": "design-review"},
        {"PolicyDenied": "design-review"},
    ]
    request["operation"] = "FIND_SLOT"  # analysis-only skips both checks
    assert issues(request) == []


def test_target_state_rules() -> None:
    request = example()
    request["operation"] = "MOVE"  # MOVE on a prospective target
    assert issues(request) == [{"InvalidTargetState": "design-review"}]
    request = example()
    target = request["context"]["objects"][0]
    target["time"] = known_time(f"{DAY}08:00:00Z", f"{DAY}08:45:00Z", "USER_EXPLICIT")
    assert issues(request) == [{"InvalidTargetState": "design-review"}]


def test_existing_object_needs_fact_source_and_known_time() -> None:
    request = example()
    standup = request["context"]["objects"][1]
    standup["time"]["provenance"] = "MODEL_INFERENCE"
    request["context"]["objects"][2]["time"]["value"] = {"processing": "UNRESOLVED"}
    assert issues(request) == [
        {"InvalidTargetState": "standup"},
        {"RequiredTime": {"object_id": "customer-call", "reason": "Unresolved"}},
    ]


def test_fact_checks() -> None:
    request = example()
    request["context"]["facts"] = [
        {
            "id": "f-time",
            "object_id": "lunch",
            "value": {
                "kind": "SCHEDULED_TIME",
                "value": {"start": f"{DAY}10:30:00Z", "end": f"{DAY}11:00:00Z"},
            },
            "provenance": "INTEGRATION_FACT",
        },
        {
            "id": "f-lock",
            "object_id": "nobody",
            "value": {"kind": "EXTERNAL_LOCK"},
            "provenance": "MODEL_INFERENCE",
        },
        {
            "id": "f-lock",
            "object_id": "lunch",
            "value": {"kind": "EXTERNAL_LOCK"},
            "provenance": "USER_EXPLICIT",
        },
    ]
    assert issues(request) == [
        {"ContradictoryFact": "f-time"},
        {"DuplicateFact": "f-lock"},
        {"InvalidFactSource": "f-lock"},
        {"UnknownObject": "nobody"},
    ]


def test_uncertain_duration_only_for_allowed_analysis() -> None:
    request = example()
    request["duration"]["value"]["knowledge"] = {
        "state": "UNCERTAIN",
        "data": {"value": 2700, "confidence": 0.6},
    }
    assert issues(request) == [{"RequiredDuration": "Uncertain"}]
    request["policy"]["snapshot"]["allow_uncertain_duration"] = True
    assert issues(request) == [{"RequiredDuration": "Uncertain"}]  # still mutating
    request["scope"]["max_mutations"] = 0
    report = cerebri.validate(request)
    assert report.to_wire() == {"state": "ValidWithUncertainty", "issues": []}
    first = cerebri.plan(request).to_wire()["candidates"][0]
    assert [e["reason"] for e in first["explanation"]] == [
        "FeasibleWithinScope",
        {"PreferredStart": "ExplicitCurrentRequest"},
        "AnalysisOnly",
        "DurationUncertain",
    ]


def test_dependency_issues_become_validation_issues() -> None:
    request = example()
    request["constraints"].append(
        {
            "object_id": "design-review",
            "rule": {"kind": "DEPENDENCY_ORDER", "value": "missing"},
            "evidence": [],
        }
    )
    assert issues(request) == [
        {
            "Dependency": {
                "MissingReference": {"predecessor": "missing", "dependent": "design-review"}
            }
        }
    ]
    result = cerebri.plan(request).to_wire()
    assert result["dependency_graph"]["order"] == []
    assert result["search_space"]["evaluated"] == 0


def _pad_to(request: dict[str, Any], size: int) -> None:
    """Grow duration.evidence with ids until the compact text is exactly ``size`` bytes."""
    evidence = request["duration"]["evidence"]
    while compact_size(request) + 131 <= size:
        evidence.append(f"e{len(evidence):04d}".ljust(128, "x"))
    gap = size - compact_size(request)
    if gap:
        # A new id costs len + 3 bytes ("id" plus a comma); one more than 3 is the minimum.
        assert gap >= 4 or not evidence
        evidence.append("y" * (gap - 3) if evidence else "y" * (gap - 2))
    assert compact_size(request) == size


@pytest.mark.parametrize(("size", "admitted"), [(262_144, True), (262_145, False)])
def test_request_size_limit_exact(size: int, admitted: bool) -> None:
    request = example()
    request["budget"]["max_candidates"] = 1
    _pad_to(request, size)
    got = issues(request)
    assert (got != ["InputLimit"]) is admitted


@pytest.mark.parametrize(("extra", "admitted"), [(0, True), (1, False)])
def test_size_times_candidates_limit_exact(extra: int, admitted: bool) -> None:
    request = example()
    request["budget"]["max_candidates"] = 2048  # 8192 bytes × 2048 = 16 MiB exactly
    _pad_to(request, 8192 + extra)
    assert 2048 * compact_size(request) - 16 * 1024 * 1024 == 2048 * extra
    assert (issues(request) == []) is admitted


def test_size_and_cardinality_limits_drop_other_issues() -> None:
    def reference(request: dict[str, Any]) -> list[Any]:
        # the reference planner alone: OPTIMIZE is still unsupported there (decision 0070)
        return [issue.to_wire() for issue in cerebri.planner.validate(request).issues]

    request = example()
    request["operation"] = "OPTIMIZE"
    request["planning_capability"]["plan"] = False
    assert reference(request) == [
        "PlanningPermissionDenied",
        {"MissingPlanningCapability": "design-review"},
        {"UnsupportedOperation": "OPTIMIZE"},
    ]
    request["budget"]["max_candidates"] = 4097
    assert reference(request) == ["InputLimit"]


def test_limits_are_configurable() -> None:
    request = example()
    request["budget"]["max_candidates"] = 5000
    assert issues(request) == ["InputLimit"]
    raised = PlannerLimits(max_candidates=5000, max_work_units=10**8, max_request_work_bytes=10**9)
    assert issues(request, raised) == []
    with pytest.raises(ValueError, match="max_objects"):
        PlannerLimits(max_objects=-1)
