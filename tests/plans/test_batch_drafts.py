"""The plan graph of an optimised batch (issue #24, decision 0076): its keys, gates,
dependencies and idempotency keys, written out by hand for the batch of
:mod:`tests.plans.batch`."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from cerebri.cpir import MutationKind
from cerebri.cpir.batch import Batch
from cerebri.plans import (
    BatchApprovals,
    DraftError,
    PlanDraft,
    builtin_registry,
    draft_from_action_plan,
    topological_order,
    validate_draft,
)
from tests.plans import batch

GATES = ("approve-batch", "approve-owner-2")


def _draft(approvals: BatchApprovals | None = None) -> PlanDraft:
    return draft_from_action_plan(
        batch.action_plan(), batch=approvals or batch.approvals(), titles=batch.TITLES
    )


def test_the_batch_graph_step_by_step() -> None:
    draft = _draft()
    steps = {s.key: s for s in draft.steps}
    assert [s.key for s in draft.steps] == [
        "approve-batch",
        "approve-owner-2",
        "create-0",
        "verify-0",
        "room-0",
        "verify-room-0",
        "create-1",
        "verify-1",
        "move-2",
        "verify-2",
        "create-3",
        "verify-3",
        "record",
    ]
    # one batch approval, by anyone allowed (no named approver), asked first
    first = steps["approve-batch"]
    assert (first.kind, first.require_approval, first.approver, first.depends_on) == (
        "internal",
        True,
        None,
        (),
    )
    assert first.internal is not None and first.internal.action == "await_approval"
    # bob's approval of the move of his event, asked once the batch is approved
    owner = steps["approve-owner-2"]
    assert (owner.require_approval, owner.approver, owner.depends_on) == (
        True,
        "principal:bob",
        ("approve-batch",),
    )
    # every effect waits for every approval and asks for none itself
    effects = ("create-0", "room-0", "create-1", "move-2", "create-3")
    for key in effects:
        assert steps[key].depends_on == GATES, key
        assert steps[key].require_approval is False, key
    # each effect its own idempotency key: the action id, and the room's copy "-room"
    keys = {k: (steps[k].params or {})["idempotency_key"] for k in effects}
    assert keys == {
        "create-0": "p-batch0076-0",
        "room-0": "p-batch0076-0-room",
        "create-1": "p-batch0076-1",
        "move-2": "p-batch0076-2",
        "create-3": "p-batch0076-3",
    }
    # the calendars written: alice's three, the room's copy, bob's move
    calendars = {k: (steps[k].params or {})["calendar_id"] for k in effects}
    assert calendars == {
        "create-0": "alice",
        "room-0": "room-a",
        "create-1": "alice",
        "move-2": "bob",
        "create-3": "alice",
    }
    assert (steps["move-2"].capability, (steps["move-2"].params or {})["expected_revision"]) == (
        "calendar.event.move",
        0,
    )
    # each effect read back in the calendar it wrote, at the range it wrote
    room_check = steps["verify-room-0"].verify
    assert room_check is not None and room_check.of == "room-0"
    # under the created event's own UID (decision 0083), the same in both calendars
    uid = "batch-interview-1-" + hashlib.sha256(b"p-batch0076").hexdigest()[:12] + "@cerebri"
    assert room_check.check.params == {"calendar_id": "room-a", "object_id": uid, "uid": uid}
    assert room_check.check.value == {
        "start": "2031-05-05T09:00:00Z",
        "end": "2031-05-05T10:00:00Z",
    }
    assert steps["room-0"].precondition is not None
    assert (steps["room-0"].precondition.check.params or {})["calendar_id"] == "room-a"
    assert (steps["room-0"].params or {})["title"] == "Interview 1"
    assert steps["record"].depends_on == (
        "verify-0",
        "verify-room-0",
        "verify-1",
        "verify-2",
        "verify-3",
    )
    assert draft.require_approval is True
    assert draft.estimate.human_approvals == 2
    assert validate_draft(draft, builtin_registry()).problems == ()
    order = topological_order(draft)
    assert order.index("approve-owner-2") < min(order.index(k) for k in effects)


def test_the_requester_own_calendars_and_creates_need_no_owner() -> None:
    # bob's calendar owned by alice herself, or by nobody listed: only the batch gate
    for owners in ({"bob": "principal:Alice "}, {}):
        draft = _draft(BatchApprovals(requester="principal:alice", owners=owners))
        gates = [s.key for s in draft.steps if s.internal and s.internal.action == "await_approval"]
        assert gates == ["approve-batch"], owners
        assert draft.steps[1].key == "create-0"
        assert draft.steps[1].depends_on == ("approve-batch",)
    # a create in a calendar bob owns asks no owner either: an owner approves moves
    plan = batch.action_plan()
    created = dataclasses.replace(plan.actions[0], calendar_id="bob")
    draft = draft_from_action_plan(
        dataclasses.replace(plan, actions=(created,)), batch=batch.approvals()
    )
    assert [s.key for s in draft.steps][:2] == ["approve-batch", "create-0"]


def test_two_owners_two_gates_and_the_same_draft_every_time() -> None:
    plan = batch.action_plan()
    second = dataclasses.replace(
        plan.actions[2], id="p-batch0076-4", idempotency_key="p-batch0076-4",
        target="dan-sync", calendar_id="dan",
    )  # fmt: skip
    approvals = BatchApprovals(
        requester="principal:alice", owners={"bob": "principal:bob", "dan": "principal:dan"}
    )
    bigger = dataclasses.replace(plan, actions=(*plan.actions, second))
    draft = draft_from_action_plan(bigger, batch=approvals)
    gates = {s.key: s.approver for s in draft.steps if s.require_approval}
    assert gates == {
        "approve-batch": None,
        "approve-owner-2": "principal:bob",
        "approve-owner-4": "principal:dan",
    }
    assert {s.key: s.depends_on for s in draft.steps if s.key.startswith("move-")} == {
        "move-2": ("approve-batch", "approve-owner-2", "approve-owner-4"),
        "move-4": ("approve-batch", "approve-owner-2", "approve-owner-4"),
    }
    assert draft_from_action_plan(bigger, batch=approvals) == draft
    assert all(
        a.kind in (MutationKind.CREATE_EVENT, MutationKind.MOVE_EVENT) for a in bigger.actions
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"requester": "agent:planner"},
        {"requester": "alice"},
        {"requester": "principal:alice", "owners": {"bob": "bob"}},
        {"requester": "principal:alice", "rooms": {"x": 3}},
    ],
)
def test_bad_batch_arguments_are_refused(arguments: dict[str, object]) -> None:
    with pytest.raises(DraftError) as refused:
        BatchApprovals(**arguments)  # type: ignore[arg-type]
    assert refused.value.code == "draft.invalid_argument"


def test_a_batch_is_not_a_change() -> None:
    with pytest.raises(DraftError) as refused:
        draft_from_action_plan(batch.action_plan(), batch=batch.approvals(), change={})
    assert refused.value.code == "draft.invalid_argument"


def test_approvals_from_an_optimize_batch() -> None:
    wire = {
        "meetings": [{"object_id": "batch-interview-1", "duration": 3600, "required": ["alice"]}],
        "people": [
            {"id": "alice", "calendar_id": "alice", "timezone": "Europe/Berlin"},
            {"id": "bob", "calendar_id": "bob", "timezone": "Europe/Berlin"},
        ],
        "rooms": [{"id": "r1", "calendar_id": "room-a", "capacity": 4}],
    }
    plan = batch.action_plan()
    actions = (dataclasses.replace(plan.actions[0], room_id="r1"), *plan.actions[1:])
    approvals = BatchApprovals.from_batch(
        Batch.model_validate_json(json.dumps(wire)), actions, requester="principal:alice"
    )
    assert approvals == BatchApprovals(
        requester="principal:alice",
        owners={"alice": "principal:alice", "bob": "principal:bob"},
        rooms={"batch-interview-1": "room-a"},
    )
    # the same graph as the hand-made approvals give
    assert draft_from_action_plan(
        dataclasses.replace(plan, actions=actions), batch=approvals, titles=batch.TITLES
    ) == draft_from_action_plan(
        dataclasses.replace(plan, actions=actions), batch=batch.approvals(), titles=batch.TITLES
    )
    unknown = (dataclasses.replace(plan.actions[0], room_id="r9"),)
    with pytest.raises(DraftError) as refused:
        BatchApprovals.from_batch(
            Batch.model_validate_json(json.dumps(wire)), unknown, requester="principal:alice"
        )
    assert refused.value.code == "draft.invalid_argument"
