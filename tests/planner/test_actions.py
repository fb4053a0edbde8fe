"""Proposals to action plans (planner.md 9.1-9.3)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import cerebri
from cerebri.cpir import Placement, TimeRange
from cerebri.planner import PlanError, to_action_plan, validate_proposal
from cerebri.temporal import Instant
from tests.planner.helpers import DAY, example


def _placement(object_id: str, start: str, end: str) -> Placement:
    return Placement(object_id, TimeRange(start=Instant.parse(start), end=Instant.parse(end)))


def test_best_candidate_becomes_one_create_action() -> None:
    request = cerebri.parse_request(example())
    best = cerebri.plan(request).candidates[0]
    validated = validate_proposal(request, best.proposed.placements, request.context)
    assert validated.id == best.proposed.id
    actions = to_action_plan(validated).to_wire()
    plan_id = best.proposed.id
    assert actions == {
        "plan_id": plan_id,
        "actions": [
            {
                "id": f"{plan_id}-0",
                "source_plan": plan_id,
                "target": "design-review",
                "expected_revision": None,
                "idempotency_key": f"{plan_id}-0",
                "calendar_id": "work",
                "integration_id": "local-ics",
                "confirmation_required": True,
                "action": {
                    "kind": "CREATE_EVENT",
                    "range": {"start": f"{DAY}12:00:00Z", "end": f"{DAY}12:45:00Z"},
                },
            }
        ],
    }


def test_analysis_only_never_yields_actions() -> None:
    document = example()
    document["operation"] = "FIND_SLOT"
    request = cerebri.parse_request(document)
    best = cerebri.plan(request).candidates[0]
    validated = validate_proposal(request, best.proposed.placements, request.context)
    with pytest.raises(PlanError) as caught:
        to_action_plan(validated)
    assert (caught.value.code, caught.value.wire) == ("plan.analysis_only", "AnalysisOnly")


def test_changed_context_is_stale() -> None:
    request = cerebri.parse_request(example())
    best = cerebri.plan(request).candidates[0]
    moved = example()
    moved["context"]["revision"] = 43
    current = cerebri.parse_request(moved).context
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, best.proposed.placements, current)
    assert (caught.value.code, caught.value.wire) == ("plan.stale", "Stale")


def test_forged_placements_are_rejected_with_reasons() -> None:
    request = cerebri.parse_request(example())
    overlapping = [_placement("design-review", f"{DAY}09:00:00Z", f"{DAY}09:45:00Z")]
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, overlapping, request.context)
    wire: Any = caught.value.wire
    kinds = [r["HardConstraint"]["constraint"]["kind"] for r in wire["Rejected"]]
    assert kinds == ["NO_OVERLAP", "REQUIRED_BUFFER"]
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, [], request.context)
    assert caught.value.wire == {"Rejected": ["InvalidTargets"]}
    outside = [_placement("design-review", f"{DAY}16:00:00Z", f"{DAY}16:45:00Z")]
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, outside, request.context)
    wire = caught.value.wire
    assert wire["Rejected"][0] == {"Scope": "design-review"}
    assert wire["Rejected"][1]["HardConstraint"]["constraint"]["kind"] == "LATEST_END"
    assert len(wire["Rejected"]) == 2


def test_invalid_request_refused() -> None:
    document = example()
    document["target_ids"] = []
    request = cerebri.parse_request(document)
    with pytest.raises(PlanError) as caught:
        validate_proposal(request, [], request.context)
    # Without targets the prospective event is a plain context object lacking a known time.
    assert caught.value.wire == {
        "InvalidRequest": {
            "state": "InsufficientInformation",
            "issues": [
                "NoTargets",
                {"RequiredTime": {"object_id": "design-review", "reason": "Missing"}},
            ],
        }
    }


def _canonical(value: Any) -> Any:
    """Independent canonicalisation (planner.md 9.1): sort keys; sort arrays by text."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_canonical(v) for v in value]
        return sorted(
            items,
            key=lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False),
        )
    return value


def test_plan_id_is_sha256_of_canonical_request_and_placements() -> None:
    document = example()
    best = cerebri.plan(document).to_wire()["candidates"][0]
    request_wire = cerebri.parse_request(document).model_dump(mode="json")
    value = {"request": request_wire, "placements": best["proposed"]["placements"]}
    text = json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert best["proposed"]["id"] == "p-" + hashlib.sha256(text.encode()).hexdigest()


def test_plan_id_ignores_list_order_but_not_content() -> None:
    document = example()
    first = cerebri.plan(document).to_wire()["candidates"][0]["proposed"]["id"]
    document["context"]["objects"].reverse()
    document["constraints"].reverse()
    assert cerebri.plan(document).to_wire()["candidates"][0]["proposed"]["id"] == first
    document["request_id"] = "another-request"
    assert cerebri.plan(document).to_wire()["candidates"][0]["proposed"]["id"] != first


def test_action_plan_for_ranks_candidates_from_one() -> None:
    from cerebri.planner import action_plan_for

    request = cerebri.parse_request(example())
    candidates = cerebri.plan(request).candidates
    for rank in (1, 2):
        expected = to_action_plan(
            validate_proposal(request, candidates[rank - 1].proposed.placements, request.context)
        )
        assert action_plan_for(request, rank=rank) == expected
    with pytest.raises(PlanError) as caught:
        action_plan_for(request, rank=len(candidates) + 1)
    assert (caught.value.code, caught.value.wire) == ("plan.no_candidate", "NoCandidate")
    with pytest.raises(ValueError, match="rank counts from 1"):
        action_plan_for(request, rank=0)


def test_action_plan_for_refuses_analysis_only_before_planning() -> None:
    from cerebri.planner import action_plan_for

    document = example()
    document["scope"]["max_mutations"] = 0
    with pytest.raises(PlanError) as caught:
        action_plan_for(cerebri.parse_request(document))
    assert caught.value.code == "plan.analysis_only"
