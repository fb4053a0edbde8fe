"""What ``approvals show`` says of a batch's gates (decision 0083): the batch gate lists
every create (title, UTC range, attendees, room) and move (to where); an owner's gate the
move in that owner's calendar."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

from cerebri.cli._operations import approval_lines
from cerebri.clock import FakeClock, SequentialIds
from cerebri.execution import Executor
from cerebri.execution import store as execution_store
from cerebri.execution.approval_detail import proposed_by_step
from cerebri.plans import draft_from_action_plan
from cerebri.plans.change_facts import ChangeParty
from tests.execution.rules_support import START
from tests.plans import batch

BOB_ADDRESS = "mailto:bob@example.org"


def _steps() -> list[dict[str, Any]]:
    approvals = dataclasses.replace(
        batch.approvals(),
        organizer="mailto:alice@example.org",
        attendees={"batch-interview-1": (ChangeParty(BOB_ADDRESS, None, True, "bob"),)},
        uids={"bob-1on1": "bob-1on1@example.org"},
    )
    draft = draft_from_action_plan(batch.action_plan(), batch=approvals, titles=batch.TITLES)
    return [step.model_dump(mode="json") for step in draft.steps]


def _executor(tmp_path: Path) -> Executor:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    return Executor(engine, FakeClock(START), SequentialIds("g"))


def _uid(meeting: str) -> str:
    return f"{meeting}-{hashlib.sha256(batch.PLAN_ID.encode()).hexdigest()[:12]}@cerebri"


def test_the_batch_gate_lists_each_write(tmp_path: Path) -> None:
    steps = _steps()
    by_key = {s["key"]: s for s in steps}
    ex = _executor(tmp_path)
    try:
        shown = proposed_by_step(ex, {"kind": "approval", "step": by_key["approve-batch"]}, steps)
        owner = proposed_by_step(ex, {"kind": "approval", "step": by_key["approve-owner-2"]}, steps)
    finally:
        ex.engine.dispose()
    assert shown is not None and owner is not None
    assert str(shown["does"]).startswith("an approval gate: approve batch p-batch0076")
    covers = shown["covers"]
    assert isinstance(covers, list)
    assert [(c["step_key"], c["kind"], c["uid"]) for c in covers] == [  # type: ignore[index]
        ("create-0", "create", _uid("batch-interview-1")),
        ("create-1", "create", _uid("batch-interview-2")),
        ("move-2", "reschedule", "bob-1on1@example.org"),
        ("create-3", "create", _uid("batch-debrief")),
    ]
    first = covers[0]
    assert first == {
        "step_key": "create-0",
        "kind": "create",
        "uid": _uid("batch-interview-1"),
        "title": "Interview 1",
        "calendar_id": "alice",
        "start": "2031-05-05T09:00:00Z",
        "end": "2031-05-05T10:00:00Z",
        "from_start": None,
        "from_end": None,
        "attendees": [BOB_ADDRESS],
        "room_calendar_id": "room-a",
    }
    # bob's gate: only the move in his calendar
    assert [c["step_key"] for c in owner["covers"]] == ["move-2"]  # type: ignore[index, union-attr]
    lines = approval_lines(
        {
            "id": "a-1",
            "status": "open",
            "decided_by": None,
            "status_reason": None,
            "requester": batch.REQUESTER,
            "plan_id": "plan-1",
            "plan_revision": 1,
            "proposed": shown,
            "request": {},
            "envelope_digest": None,
            "expires_at": "2031-05-01T00:00:00Z",
        }
    )
    text = "\n".join(lines)
    assert "does: None" not in text
    assert (
        f'create {_uid("batch-interview-1")} "Interview 1" 2031-05-05T09:00:00Z - '
        "2031-05-05T10:00:00Z UTC in calendar alice; attendees: mailto:bob@example.org; "
        "room: room-a"
    ) in text
    assert (
        "reschedule bob-1on1@example.org in calendar bob: from its current time to "
        "2031-05-05T14:00:00Z - 2031-05-05T14:30:00Z UTC"
    ) in text
