"""``cerebri propose REQUEST --as plan-graph`` for an OPTIMIZE request (decision 0077): the
plan graph is one batch (decision 0076): one approve-batch gate, an owner's gate for the
move in another person's calendar, then the create (with its room copy) and the move, each
with its own idempotency key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cerebri.proposals import ObjectStore, load_json
from tests.cli.test_cli_proposals import KEY_AT, PROPOSE_AT, error_code, run
from tests.optimize_wire.test_wire_answer import repair, span
from tests.optimize_wire.wire_helpers import MONDAY


def _propose(tmp_path: Path, request: dict[str, Any], *extra: str) -> Any:
    made = run(
        "keys", "new", "alice", "--dir", tmp_path / "keys", "--at", KEY_AT,
        "--principal", "principal:alice",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    (tmp_path / "request.json").write_text(json.dumps(request), encoding="utf-8")
    return run(
        "propose", tmp_path / "request.json", "--key", tmp_path / "keys" / "alice.pem",
        "--keyid", "alice", "--store", tmp_path / "store", "--at", PROPOSE_AT,
        "--out", tmp_path / "env.json", *extra,
    )  # fmt: skip


def test_an_optimize_becomes_one_batch_with_an_owner_gate(tmp_path: Path) -> None:
    # repair(1), by hand: m-a is created at 08-09Z in room r1 (r1-cal); ann's "sync" (in
    # ann-cal, revision 2) moves to 07-08Z. alice asks, so ann must approve the move.
    done = _propose(tmp_path, repair(1), "--as", "plan-graph")
    assert done.exit_code == 0, done.output
    envelope = load_json((tmp_path / "env.json").read_bytes())
    assert envelope["candidate"]["artifact/type"] == "cerebri.plan-graph.v1"
    plan_id = envelope["idempotency/key"]
    assert plan_id.startswith("p-")
    graph = json.loads(ObjectStore(tmp_path / "store").get(envelope["candidate"]["artifact/ref"]))
    steps = {step["key"]: step for step in graph["steps"]}
    assert list(steps) == [
        "approve-batch",
        "approve-owner-1",
        "create-0",
        "verify-0",
        "room-0",
        "verify-room-0",
        "move-1",
        "verify-1",
        "record",
    ]
    assert steps["approve-batch"]["require_approval"] is True
    assert "requested by principal:alice" in steps["approve-batch"]["title"]
    owner = steps["approve-owner-1"]
    assert (owner["approver"], owner["depends_on"]) == ("principal:ann", ["approve-batch"])
    # ann is told which event moves, from where to where (sync sits at 08-09Z, MONDAY)
    assert owner["title"].endswith(
        f"sync in their calendar ann-cal from [{MONDAY}08:00:00Z, {MONDAY}09:00:00Z) "
        f"to [{MONDAY}07:00:00Z, {MONDAY}08:00:00Z)"
    )
    gates = ["approve-batch", "approve-owner-1"]
    # the created event's own UID (decision 0083): the meeting id and the plan id's digest
    uid = f"m-a-{hashlib.sha256(plan_id.encode()).hexdigest()[:12]}@cerebri"
    expected = {
        "create-0": ("calendar.event.create", uid, "ann-cal", f"{plan_id}-0", "08:00:00"),
        "room-0": ("calendar.event.create", uid, "r1-cal", f"{plan_id}-0-room", "08:00:00"),
        "move-1": ("calendar.event.move", "sync", "ann-cal", f"{plan_id}-1", "07:00:00"),
    }
    for key, (capability, target, calendar, idempotency, start) in expected.items():
        step = steps[key]
        params = step["params"]
        assert (step["capability"], step["target"], step["depends_on"]) == (
            capability,
            target,
            gates,
        )
        assert (params["calendar_id"], params["idempotency_key"]) == (calendar, idempotency)
        hour = int(start[:2])
        assert {"start": params["start"], "end": params["end"]} == span(
            start, f"{hour + 1:02d}:00:00"
        )
    assert steps["move-1"]["params"]["expected_revision"] == 2
    assert steps["record"]["depends_on"] == ["verify-0", "verify-room-0", "verify-1"]


def test_the_action_plan_of_an_optimize_and_no_second_candidate(tmp_path: Path) -> None:
    done = _propose(tmp_path, repair(1))
    assert done.exit_code == 0, done.output
    envelope = load_json((tmp_path / "env.json").read_bytes())
    assert envelope["candidate"]["artifact/type"] == "cerebri.action-plan.v1"
    plan = json.loads(ObjectStore(tmp_path / "store").get(envelope["candidate"]["artifact/ref"]))
    assert [(a["target"], a["action"]["kind"]) for a in plan["actions"]] == [
        ("m-a", "CREATE_EVENT"),
        ("sync", "MOVE_EVENT"),
    ]
    second = run(
        "propose", tmp_path / "request.json", "--key", tmp_path / "keys" / "alice.pem",
        "--keyid", "alice", "--store", tmp_path / "store", "--at", PROPOSE_AT,
        "--candidate", "2",
    )  # fmt: skip
    assert (second.exit_code, error_code(second)) == (2, "plan.no_candidate")


def test_an_infeasible_batch_is_not_proposed(tmp_path: Path) -> None:
    done = _propose(tmp_path, repair(0), "--as", "plan-graph")
    assert (done.exit_code, error_code(done)) == (2, "plan.no_candidate")
    assert not (tmp_path / "env.json").exists()
