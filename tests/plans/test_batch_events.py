"""What each event of a batch is beyond its range (decision 0083): the moved event's UID,
the created event's own UID, title, organizer and attendees, and the messages and copies
that reach every attendee as a single create's do."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from cerebri.cpir.batch import Batch
from cerebri.plans import (
    BatchApprovals,
    DraftError,
    builtin_registry,
    draft_from_action_plan,
    validate_draft,
)
from tests.plans import batch

MOVED = "ics-36d7438aff808da97f3b9f96106c6dfd"
REAL_UID = "bob-1on1@example.org"


def _wire(uid: str | None) -> Batch:
    moved: dict[str, object] = {"object_id": MOVED, "required": ["bob"]}
    if uid is not None:
        moved["uid"] = uid
    return Batch.model_validate_json(
        json.dumps(
            {
                "meetings": [
                    {
                        "object_id": "batch-interview-1",
                        "title": "Interview with Dana",
                        "required": ["alice", "bob"],
                        "optional": ["erin"],
                    },
                    {"object_id": "batch-interview-2", "required": ["alice"]},
                    moved,
                ],
                "people": [
                    {"id": "alice", "calendar_id": "alice", "timezone": "UTC",
                     "address": "mailto:alice@example.org"},
                    {"id": "bob", "calendar_id": "bob", "timezone": "UTC",
                     "address": "mailto:bob@example.org"},
                    {"id": "erin", "calendar_id": "erin", "timezone": "UTC",
                     "address": "mailto:erin@example.org"},
                ],
            }
        )
    )  # fmt: skip


def _plan() -> tuple[object, ...]:
    plan = batch.action_plan()
    moved = dataclasses.replace(plan.actions[2], target=MOVED)
    return (plan.actions[0], plan.actions[1], moved)


def test_a_move_of_an_ics_object_without_its_uid_is_refused_when_proposed() -> None:
    actions = _plan()
    with pytest.raises(DraftError) as refused:
        BatchApprovals.from_batch(_wire(None), actions, requester="principal:alice")  # type: ignore[arg-type]
    assert refused.value.code == "draft.unresolved_event"
    assert MOVED in refused.value.message


def test_the_move_addresses_the_event_by_its_uid() -> None:
    actions = _plan()
    approvals = BatchApprovals.from_batch(_wire(REAL_UID), actions, requester="principal:alice")  # type: ignore[arg-type]
    assert approvals.uids == {MOVED: REAL_UID}
    plan = dataclasses.replace(batch.action_plan(), actions=actions)
    steps = {s.key: s for s in draft_from_action_plan(plan, batch=approvals).steps}
    move = steps["move-2"]
    assert (move.params or {})["uid"] == REAL_UID
    assert move.precondition is not None
    assert (move.precondition.check.params or {})["uid"] == REAL_UID
    check = steps["verify-2"].verify
    assert check is not None and (check.check.params or {})["uid"] == REAL_UID


def test_a_created_event_has_its_own_uid_title_organizer_and_attendees() -> None:
    actions = _plan()
    approvals = BatchApprovals.from_batch(_wire(REAL_UID), actions, requester="principal:alice")  # type: ignore[arg-type]
    plan = dataclasses.replace(batch.action_plan(), actions=actions)
    draft = draft_from_action_plan(plan, batch=approvals, titles={"batch-interview-2": "Sync"})
    steps = {s.key: s for s in draft.steps}
    digest = hashlib.sha256(batch.PLAN_ID.encode()).hexdigest()[:12]
    first = f"batch-interview-1-{digest}@cerebri"
    create = steps["create-0"].params or {}
    assert create["object_id"] == first
    # the meeting's own title wins; --title is the default of the meeting without one
    assert create["title"] == "Interview with Dana"
    assert (steps["create-1"].params or {})["title"] == "Sync"
    assert (steps["create-1"].params or {})["object_id"] == f"batch-interview-2-{digest}@cerebri"
    assert create["organizer"] == "mailto:alice@example.org"
    assert [(p["address"], p["required"], p["calendar_id"]) for p in create["attendees"]] == [
        ("mailto:alice@example.org", True, "alice"),
        ("mailto:bob@example.org", True, "bob"),
        ("mailto:erin@example.org", False, "erin"),
    ]
    # the gates cover it; the iTIP REQUESTs to bob and erin (never the organizer) and the
    # copies into their calendars follow its read-back, as for a single create
    assert steps["create-0"].depends_on == ("approve-batch", "approve-owner-2")
    assert steps["create-0"].require_approval is False
    sent = sorted(
        ((s.params or {})["recipient"], (s.params or {})["uid"])
        for s in draft.steps
        if s.capability == "message.itip.send"
    )
    assert sent == [("mailto:bob@example.org", first), ("mailto:erin@example.org", first)]
    copies = sorted(
        ((s.params or {})["calendar_id"], (s.params or {})["uid"], s.depends_on)
        for s in draft.steps
        if s.capability == "calendar.itip.deliver"
    )
    assert copies == [("bob", first, ("verify-0",)), ("erin", first, ("verify-0",))]
    # a meeting without attendees with an address sends nothing
    assert "itip-1-0" not in steps
    # the same UID on every draft of the same plan, another for another plan
    again = draft_from_action_plan(plan, batch=approvals, titles={"batch-interview-2": "Sync"})
    assert again == draft
    other = dataclasses.replace(plan, plan_id="p-other")
    other_steps = {s.key: s for s in draft_from_action_plan(other, batch=approvals).steps}
    assert (other_steps["create-0"].params or {})["object_id"] != first
    assert validate_draft(draft, builtin_registry()).problems == ()


def test_a_created_event_keeps_the_zone_of_its_meeting() -> None:
    actions = _plan()
    approvals = BatchApprovals.from_batch(_wire(REAL_UID), actions, requester="principal:alice")  # type: ignore[arg-type]
    plan = dataclasses.replace(batch.action_plan(), actions=actions)
    zones = {"batch-interview-1": "Europe/Berlin"}
    steps = {s.key: s for s in draft_from_action_plan(plan, batch=approvals, zones=zones).steps}
    assert (steps["create-0"].params or {})["timezone"] == "Europe/Berlin"
    check = steps["verify-0"].verify
    assert check is not None and (check.check.params or {})["timezone"] == "Europe/Berlin"
    assert "timezone" not in (steps["create-1"].params or {})
