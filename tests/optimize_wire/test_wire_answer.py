"""The answer to a CPIR OPTIMIZE (decision 0070): PlanningResult with a ``batch`` member,
its action plan, routing through ``cerebri.plan`` and the CLI, deterministic bytes.

The solver is the brute-force stand-in of ``wire_helpers`` (the CP-SAT solver lands on its
own branch); the expected placements are worked out by hand in each test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cerebri
from cerebri._json import compact
from cerebri.cli import app
from cerebri.optimize import batch_action_plan, plan_batch
from cerebri.planner import PlanError
from cerebri.plans.action_plan_wire import parse_action_plan
from tests.optimize_wire.wire_helpers import (
    MONDAY,
    brute_force,
    existing,
    meeting,
    optimize_request,
)

ROOT = Path(__file__).resolve().parents[2]


def three() -> dict[str, Any]:
    """ann (Berlin 09-17 = grains 1..8, busy grain 4), bob (London 09-12 = grains 2..4),
    room r1 (busy grain 6); one-hour grains from 06Z. Weights: early only.

    By hand: m-a (ann, bob, room) earliest common grain is 2; m-b (ann, room) after m-a:
    grain 3; m-c (bob) cannot be at 2 (bob in m-a): grain 3. early = 2 + 3 + 3 = 8. The
    only other candidates cost more (m-c at 4: 9; m-c at 2 pushes m-a to 3 and m-b to 5:
    10), so the optimum is unique."""
    return optimize_request(
        [
            meeting("m-a", ["ann", "bob"], room={"capacity": 2}, title="Interview"),
            meeting("m-b", ["ann"], room={}, after=[{"object_id": "m-a"}]),
            meeting("m-c", ["bob"]),
        ],
        objects=[
            existing("ann-busy", MONDAY + "10:00:00Z", MONDAY + "10:30:00Z", calendar="ann-cal"),
            existing(
                "room-busy",
                MONDAY + "12:00:00Z",
                MONDAY + "13:00:00Z",
                calendar="zoe-cal",
                resources=["r1"],
            ),
        ],
    )


def span(start: str, end: str) -> dict[str, str]:
    return {"start": MONDAY + start + "Z", "end": MONDAY + end + "Z"}


def test_three_meetings_two_people_one_room() -> None:
    result = cerebri.plan(three(), solver=brute_force).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    assert result["validation"] == {"state": "Valid", "issues": []}
    (candidate,) = result["candidates"]
    assert candidate["proposed"]["placements"] == [
        {"object_id": "m-a", "range": span("08:00:00", "09:00:00")},
        {"object_id": "m-b", "range": span("09:00:00", "10:00:00")},
        {"object_id": "m-c", "range": span("09:00:00", "10:00:00")},
    ]
    assert (candidate["cost"], candidate["mutation_count"], candidate["shifted_seconds"]) == (
        8,
        3,
        0,
    )
    assert (candidate["start"], candidate["object_id"]) == (MONDAY + "08:00:00Z", "m-a")
    assert candidate["explanation"][:2] == [
        {"reason": "FeasibleWithinScope", "cost": 0},
        {"reason": {"BatchScore": {"hard": 0, "medium": 0, "soft": 8}}, "cost": 8},
    ]
    assert [
        (e["reason"]["BatchTerm"]["meeting_id"], e["cost"]) for e in candidate["explanation"][2:]
    ] == [
        ("m-a", 2),
        ("m-b", 3),
        ("m-c", 3),
    ]
    batch = result["batch"]
    assert (batch["status"], batch["score"], batch["bound"], batch["conflict"]) == (
        "OPTIMAL",
        {"hard": 0, "medium": 0, "soft": 8},
        8,
        [],
    )
    assert [(a["object_id"], a["room_id"], a["moved"], a["new"]) for a in batch["assignments"]] == [
        ("m-a", "r1", False, True),
        ("m-b", "r1", False, True),
        ("m-c", None, False, True),
    ]
    space = result["search_space"]
    assert (space["evaluated"], space["exhausted"], space["granularity"]) == (10, True, 3600)
    assert space["objective"].startswith("batch: hard; medium")
    assert result["conflicts"] == {"rejections": []}


def repair(max_repairs: int) -> dict[str, Any]:
    """bob is free only at grain 2 (08-09Z); the existing "sync" (ann and the room) sits
    there. By hand: m-a must take grain 2, so sync moves to the only earlier grain ann has,
    1 (07-08Z). Score: early m-a 2 (early charges new meetings only), move 10 x move_cost 1
    = 12."""
    sync = existing(
        "sync", MONDAY + "08:00:00Z", MONDAY + "09:00:00Z", calendar="ann-cal", resources=["r1"]
    )
    request = optimize_request(
        [meeting("m-a", ["ann", "bob"], room={}), meeting("sync", ["ann"], room={})],
        objects=[sync],
    )
    request["batch"]["people"][1]["hours"] = [{"days": ["Mon"], "start": "09:00", "end": "10:00"}]
    request["scope"]["movable_object_ids"] = ["sync"]
    request["budget"].update(max_repairs=max_repairs, max_moved_objects=1, max_depth=1)
    return request


def test_a_repair_moves_an_existing_meeting() -> None:
    result = cerebri.plan(repair(1), solver=brute_force).to_wire()
    assert (result["outcome"], result["assessment"]) == ("Solution", "ProvenOptimal")
    (candidate,) = result["candidates"]
    assert candidate["proposed"]["placements"] == [
        {"object_id": "m-a", "range": span("08:00:00", "09:00:00")},
        {"object_id": "sync", "range": span("07:00:00", "08:00:00")},
    ]
    assert (candidate["cost"], candidate["shifted_seconds"]) == (12, 3600)
    assert result["batch"]["assignments"][1] == {
        "object_id": "sync",
        "range": span("07:00:00", "08:00:00"),
        "room_id": "r1",
        "moved": True,
        "new": False,
    }


def test_without_repairs_the_batch_is_proven_infeasible() -> None:
    result = cerebri.plan(repair(0), solver=brute_force).to_wire()
    assert (result["outcome"], result["assessment"]) == ("NoSolution", "Complete")
    assert result["candidates"] == []
    assert (result["batch"]["status"], result["batch"]["score"]) == ("INFEASIBLE", None)
    assert result["search_space"]["exhausted"] is True
    with pytest.raises(PlanError) as raised:
        batch_action_plan(cerebri.parse_request(repair(0)), solver=brute_force)
    assert raised.value.code == "plan.no_candidate"


def test_the_action_plan_creates_and_moves_with_rooms() -> None:
    request = cerebri.parse_request(repair(1))
    plan = batch_action_plan(request, solver=brute_force)
    result = plan_batch(request, solver=brute_force)
    assert plan.plan_id == result.candidates[0].proposed.id
    wire = plan.to_wire()
    assert [
        (a["target"], a["expected_revision"], a["action"]["kind"], a["action"].get("room_id"))
        for a in wire["actions"]
    ] == [("m-a", None, "CREATE_EVENT", "r1"), ("sync", 2, "MOVE_EVENT", "r1")]
    assert wire["actions"][1]["action"]["range"] == span("07:00:00", "08:00:00")
    assert [a["id"] for a in wire["actions"]] == [f"{plan.plan_id}-0", f"{plan.plan_id}-1"]
    # the plan graph reads it back, rooms included
    again = parse_action_plan(json.dumps(wire).encode())
    assert again == plan


def test_analysis_only_optimize_plans_but_acts_never() -> None:
    request = three()
    request["scope"]["max_mutations"] = 0
    result = cerebri.plan(request, solver=brute_force).to_wire()
    (candidate,) = result["candidates"]
    assert candidate["mutation_count"] == 0
    assert {"reason": "AnalysisOnly", "cost": 0} in candidate["explanation"]
    with pytest.raises(PlanError) as raised:
        batch_action_plan(cerebri.parse_request(request), solver=brute_force)
    assert raised.value.code == "plan.analysis_only"


def test_an_invalid_optimize_is_insufficient_information_without_batch_report() -> None:
    request = three()
    del request["batch"]
    result = cerebri.plan(request, solver=brute_force).to_wire()
    assert result["outcome"] == "InsufficientInformation"
    assert result["validation"]["issues"] == [{"BatchRequired": "OPTIMIZE"}]
    assert "batch" not in result
    assert result["search_space"]["evaluated"] == 0


def test_other_operations_answer_without_batch() -> None:
    result = cerebri.plan(
        optimize_request([meeting("m-a", ["ann"])]) | {"operation": "CREATE", "batch": None}
    )
    assert "batch" not in result.to_wire()


def test_same_bytes_twice_and_in_list_order() -> None:
    first = compact(cerebri.plan(three(), solver=brute_force).to_wire())
    assert compact(cerebri.plan(three(), solver=brute_force).to_wire()) == first
    shuffled = three()
    shuffled["batch"]["meetings"].reverse()
    shuffled["batch"]["people"].reverse()
    shuffled["context"]["objects"].reverse()
    shuffled["planning_capability"]["mutations"].reverse()
    again = cerebri.plan(shuffled, solver=brute_force).to_wire()
    # the request bytes differ (list order), so the plan id does; nothing else may
    again["candidates"][0]["proposed"]["id"] = json.loads(first)["candidates"][0]["proposed"]["id"]
    assert compact(again) == first


_SCRIPT = """
import json, sys
import cerebri
from cerebri._json import compact
from tests.optimize_wire.wire_helpers import brute_force
sys.stdout.write(compact(cerebri.plan(sys.stdin.read(), solver=brute_force).to_wire()))
"""


def test_same_bytes_under_another_hash_seed() -> None:
    text = json.dumps(three())
    outputs = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            input=text,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env=env,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["batch"]["score"]["soft"] == 8


def test_the_cli_routes_optimize(tmp_path: Path) -> None:
    request = three()
    del request["batch"]
    path = tmp_path / "optimize.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    done = CliRunner().invoke(app, ["plan", str(path)])
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["validation"]["issues"] == [{"BatchRequired": "OPTIMIZE"}]
    assert answer["search_space"]["objective"].startswith("batch:")


def test_three_meetings_on_the_dst_day() -> None:
    """Sunday 2026-10-25: Berlin and London both turn their clocks back at 01:00Z. One-hour
    grains from 22Z (00:00 CEST). ann (Berlin, 01:00-04:00) is open on grains 1..4 (23Z,
    00Z, 01Z, 02Z: four real hours); bob (London, 01:00-02:00) on grains 2 (00Z = 01:00
    BST) and 3 (01Z = 01:00 GMT, the repeated hour). By hand: m-a (ann, bob, room) at 2,
    m-b (ann, bob) after m-a at 3, m-c (ann, room) at the only other grain ann has
    before them, 1. early = 2 + 3 + 1 = 6; any other placement costs more."""
    request = optimize_request(
        [
            meeting("m-a", ["ann", "bob"], room={}),
            meeting("m-b", ["ann", "bob"], after=[{"object_id": "m-a"}]),
            meeting("m-c", ["ann"], room={}),
        ],
        people=[
            {
                "id": "ann",
                "calendar_id": "ann-cal",
                "timezone": "Europe/Berlin",
                "hours": [{"days": ["Sun"], "start": "01:00", "end": "04:00"}],
            },
            {
                "id": "bob",
                "calendar_id": "bob-cal",
                "timezone": "Europe/London",
                "hours": [{"days": ["Sun"], "start": "01:00", "end": "02:00"}],
            },
        ],
        start="2026-10-24T22:00:00Z",
        end="2026-10-25T23:00:00Z",
    )
    result = cerebri.plan(request, solver=brute_force).to_wire()
    assert (result["outcome"], result["batch"]["score"]) == (
        "Solution",
        {"hard": 0, "medium": 0, "soft": 6},
    )
    assert result["candidates"][0]["proposed"]["placements"] == [
        {
            "object_id": "m-a",
            "range": {"start": "2026-10-25T00:00:00Z", "end": "2026-10-25T01:00:00Z"},
        },
        {
            "object_id": "m-b",
            "range": {"start": "2026-10-25T01:00:00Z", "end": "2026-10-25T02:00:00Z"},
        },
        {
            "object_id": "m-c",
            "range": {"start": "2026-10-24T23:00:00Z", "end": "2026-10-25T00:00:00Z"},
        },
    ]
    assert [a["room_id"] for a in result["batch"]["assignments"]] == ["r1", None, "r1"]


@pytest.mark.parametrize("request_of", [three, lambda: repair(1), lambda: repair(0)])
def test_the_default_solver_answers_as_the_brute_force_one(request_of: Any) -> None:
    # cerebri.plan without solver= loads the CP-SAT solver (default_solver); on these small
    # batches it must reach the brute-force optimum: same outcome, assessment and score.
    exact = cerebri.plan(request_of(), solver=brute_force).to_wire()
    real = cerebri.plan(request_of()).to_wire()
    assert (real["outcome"], real["assessment"]) == (exact["outcome"], exact["assessment"])
    assert real["batch"]["status"] == exact["batch"]["status"]
    assert real["batch"]["score"] == exact["batch"]["score"]
