"""Variants of the public ``request.json`` asserted by upstream tests (conformance README
section 3, marked T), and the ranking goldens of planner.md section 7.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import cerebri

pytestmark = pytest.mark.conformance

T = "2026-10-01T"


@pytest.fixture
def base(conformance: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (conformance / "cerebri" / "request.json").read_text(encoding="utf-8")
    )
    return loaded


def _plan(request: dict[str, Any]) -> dict[str, Any]:
    return cerebri.plan(request).to_wire()


@pytest.mark.parametrize(
    ("budget", "outcome", "assessment", "evaluated"),
    [
        (5, "Solution", "BestFound", 5),
        (11, "Solution", "ProvenOptimal", 11),
        (1, "NeedsRelaxation", "BestFound", 1),
        (0, "NeedsRelaxation", "BestFound", 0),
    ],
)
def test_budget_variants(
    base: dict[str, Any], budget: int, outcome: str, assessment: str, evaluated: int
) -> None:
    base["budget"]["max_candidates"] = budget
    result = _plan(base)
    assert (result["outcome"], result["assessment"]) == (outcome, assessment)
    assert result["search_space"]["evaluated"] == evaluated
    assert result["search_space"]["exhausted"] is (budget == 11)


def test_budget_five_keeps_only_ten_oclock(base: dict[str, Any]) -> None:
    base["budget"]["max_candidates"] = 5  # 09:00 … 10:00 evaluated; only 10:00 is free
    result = _plan(base)
    assert [c["start"] for c in result["candidates"]] == [f"{T}10:00:00Z"]


def test_scope_inside_busy_block_is_no_solution(base: dict[str, Any]) -> None:
    base["scope"]["time_range"] = {"start": f"{T}09:00:00Z", "end": f"{T}10:00:00Z"}
    result = _plan(base)
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")
    assert result["search_space"]["evaluated"] == 3  # 09:00, 09:15, 09:30 fit the hour


def test_work_limit_is_input_limit_only(base: dict[str, Any]) -> None:
    base["budget"]["max_candidates"] = 4096
    base["constraints"] = [
        {"object_id": "new-event", "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    ] * 100
    result = _plan(base)
    assert result["validation"] == {"state": "InsufficientInformation", "issues": ["InputLimit"]}
    assert result["search_space"]["evaluated"] == 0
    assert result["compilation"] is None


def test_reversed_objects_give_identical_bytes(base: dict[str, Any]) -> None:
    reversed_request = copy.deepcopy(base)
    reversed_request["context"]["objects"].reverse()
    assert json.dumps(_plan(base)) == json.dumps(_plan(reversed_request))


def test_plan_ids_are_distinct_and_content_addressed(base: dict[str, Any]) -> None:
    ids = [c["proposed"]["id"] for c in _plan(base)["candidates"]]
    assert len(set(ids)) == len(ids) == 7
    assert all(i.startswith("p-") and len(i) == 66 for i in ids)
    bumped = copy.deepcopy(base)
    bumped["policy"]["policy_version"] += 1
    bumped_ids = [c["proposed"]["id"] for c in _plan(bumped)["candidates"]]
    assert set(ids).isdisjoint(bumped_ids)


def test_explicit_preference_beats_personal(base: dict[str, Any]) -> None:
    base["preferences"]["preferences"] = [
        {"source": "PersonalLearned", "preferred_start": f"{T}10:00:00Z", "evidence": []},
        {"source": "ExplicitCurrentRequest", "preferred_start": f"{T}11:00:00Z", "evidence": []},
    ]
    result = _plan(base)
    order = [(c["start"][11:16], c["cost"]) for c in result["candidates"]]
    assert order == [
        ("11:00", 0),
        ("10:45", 900),
        ("11:15", 900),
        ("10:30", 1800),
        ("11:30", 1800),
        ("10:15", 2700),
        ("10:00", 3600),
    ]
    first = result["candidates"][0]
    assert first["ordering_key"]["preference_distance_seconds"] == first["cost"] == 0
    assert first["ranking_features"]["preferred_start_source"] == "ExplicitCurrentRequest"


def test_infeasible_learned_preference_keeps_ten_first(base: dict[str, Any]) -> None:
    base["preferences"]["preferences"] = [
        {"source": "PersonalLearned", "preferred_start": f"{T}09:00:00Z", "evidence": []}
    ]
    first = _plan(base)["candidates"][0]
    assert first["start"] == f"{T}10:00:00Z"
    assert first["explanation"][1] == {
        "reason": {"PreferredStart": "PersonalLearned"},
        "cost": 3600,
    }


def test_find_slot_on_existing_event_ranks_by_shift(base: dict[str, Any]) -> None:
    # planner.md 7: FIND_SLOT on `busy` moved to 11:00-12:00, 3600 s, preference 10:30.
    base["operation"] = "FIND_SLOT"
    base["context"]["objects"] = [o for o in base["context"]["objects"] if o["id"] == "busy"]
    busy = base["context"]["objects"][0]
    busy["time"]["value"]["knowledge"]["data"] = {
        "start": f"{T}11:00:00Z",
        "end": f"{T}12:00:00Z",
    }
    base["target_ids"] = ["busy"]
    base["duration"]["value"]["knowledge"]["data"] = 3600
    base["preferences"]["preferences"] = [
        {"source": "ExplicitCurrentRequest", "preferred_start": f"{T}10:30:00Z", "evidence": []}
    ]
    result = _plan(base)
    firsts = [(c["start"][11:16], c["cost"], c["shifted_seconds"]) for c in result["candidates"]]
    assert firsts[:5] == [
        ("10:30", 0, 1800),
        ("10:45", 900, 900),
        ("10:15", 900, 2700),
        ("11:00", 1800, 0),
        ("10:00", 1800, 3600),
    ]
    assert all(c["mutation_count"] == 0 for c in result["candidates"])
    assert result["candidates"][0]["explanation"][-1] == {"reason": "AnalysisOnly", "cost": 0}


def test_two_targets_valid_on_validate_but_not_plannable(base: dict[str, Any]) -> None:
    base["context"]["objects"].append(
        {**copy.deepcopy(base["context"]["objects"][0]), "id": "second-event"}
    )
    base["target_ids"] = ["new-event", "second-event"]
    base["planning_capability"]["mutations"].append(
        {**base["planning_capability"]["mutations"][0], "object_id": "second-event"}
    )
    assert cerebri.validate(base).to_wire() == {"state": "Valid", "issues": []}
    result = _plan(base)
    assert result["validation"] == {
        "state": "InsufficientInformation",
        "issues": ["UnsupportedTargetCount"],
    }
    assert result["outcome"] == "InsufficientInformation"
