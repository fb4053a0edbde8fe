"""What the approver of a change sees, and that one approval carries the whole change
(issue #23, decision 0056): a reschedule of one instance submitted to a SQLite store, run
by a worker until it asks for approval, shown by ``describe_approval`` and ``approvals
show``, then approved once and carried out: the move, its read-back, one message per
attendee.

The calendar is a small in-memory fake serving the built-in declarations of contracts C3/C4,
the outbox a recording adapter; local times are computed here with zoneinfo.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from jsonschema import Draft202012Validator

from cerebri._json import JSONValue
from cerebri.cli._change_text import listed
from cerebri.cli._operations import approval_lines, when_text
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind
from cerebri.execution import (
    Executor,
    decide,
    describe_approval,
    list_approvals,
    run_worker,
    show_plan,
    submit,
)
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, Invocation, RecordingAdapter, journal_entries
from cerebri.execution.approval_detail import change_of_step
from cerebri.plans import draft_from_action_plan
from cerebri.service.store_schemas import store_schemas
from cerebri.temporal import Instant
from tests.plans.test_change_drafts import (
    ATTENDEES,
    NOW,
    ORGANIZER,
    RID,
    UID,
    _change,
    _plan,
)

ZONE = "Europe/Berlin"
ALICE, BOB = "principal:alice", "principal:bob"


@dataclasses.dataclass
class Calendar:
    """One event instance: where it is and its SEQUENCE; counts the writes."""

    range: dict[str, str]
    revision: int = 4
    writes: int = 0

    def invoke(self, invocation: Invocation) -> dict[str, JSONValue]:
        params = invocation.params
        if invocation.capability == "calendar.event.move":
            self.range = {"start": str(params["start"]), "end": str(params["end"])}
            self.revision += 1
            self.writes += 1
            return {"moved": True}
        assert params.get("uid") == UID and params.get("recurrence_id") == RID
        found = {"exists": True, "range": dict(self.range), "revision": self.revision}
        return {**found, "sequence": self.revision}  # also read in attendees' calendars


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, Calendar, Path]]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    calendar = Calendar(dict(NOW))
    journal = tmp_path / "itip.jsonl"
    adapters = (
        Adapters()
        .with_adapter("calendar.event.get", calendar)
        .with_adapter("calendar.event.move", calendar)
        .with_adapter("message.itip.send", RecordingAdapter(journal, result={"sent": True}))
        .with_adapter(
            "message.itip.get", RecordingAdapter(tmp_path / "get.jsonl", result={"done": True})
        )
        .with_adapter(  # attendees' copies (decision 0057)
            "calendar.itip.deliver",
            RecordingAdapter(tmp_path / "deliver.jsonl", result={"written": True}),
        )
    )
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    executor = Executor(engine, clock, SequentialIds("c"), adapters=adapters)
    try:
        yield executor, calendar, journal
    finally:
        engine.dispose()


def _local(utc: str) -> str:
    moment = datetime.fromisoformat(utc.replace("Z", "+00:00")).astimezone(UTC)
    return moment.astimezone(ZoneInfo(ZONE)).isoformat()


def _run(executor: Executor) -> None:
    report = run_worker(executor, until_idle=True, poll_seconds=0.01)
    assert report.errors == 0, report.last_error


def _submitted(executor: Executor) -> tuple[str, dict[str, Any], dict[str, str]]:
    """alice's reschedule of one instance (Bob removed... no: the event's own attendees),
    run until it waits: (plan id, the approval, the new range)."""
    plan, action = _plan(MutationKind.MOVE_EVENT)
    draft = draft_from_action_plan(
        plan,
        change=_change(),
        current={action.target: NOW},
        titles={action.target: "Budget sync"},
        zones={action.target: ZONE},
    )
    plan_id = submit(executor, draft, requester=ALICE).plan_id
    _run(executor)
    (approval,) = list_approvals(executor)
    span = {"start": str(action.placement.range.start), "end": str(action.placement.range.end)}
    return plan_id, approval, span


def test_the_approver_sees_before_after_attendees_and_messages(
    world: tuple[Executor, Calendar, Path],
) -> None:
    executor, _, _ = world
    _, approval, span = _submitted(executor)
    shown = describe_approval(executor, str(approval["id"]))
    proposed = shown["proposed"]
    assert isinstance(proposed, dict)
    assert proposed["step_key"] == "move-0"
    people = sorted(ATTENDEES, key=lambda a: a["address"].lower())
    assert proposed["change"] == {
        "kind": "reschedule",
        "uid": UID,
        "recurrence_id": RID,
        "scope": "INSTANCE",
        "organizer": ORGANIZER,
        "before": {
            **NOW,
            "local_start": _local(NOW["start"]),
            "local_end": _local(NOW["end"]),
            "title": "Budget sync",
            "location": None,
        },
        "after": {
            **span,
            "local_start": _local(span["start"]),
            "local_end": _local(span["end"]),
            "title": "Budget sync",
            "location": None,
        },
        "attendees": [
            {
                "address": p["address"],
                "name": p["name"],
                "required": p["required"],
                "status": "kept",
            }
            for p in people
        ],
        "recipients": [
            {"step_key": f"itip-0-{n}", "address": address, "method": "REQUEST", "sequence": 5}
            for n, address in enumerate(
                ["mailto:al@example.com", "mailto:bob@example.com", "mailto:Zoe@example.com"]
            )
        ],
        "deliveries": [  # copies into the attendees' own calendars (decision 0057)
            {
                "step_key": f"deliver-0-{n}",
                "calendar_id": calendar_id,
                "address": f"mailto:{calendar_id}@example.com",
                "method": "REQUEST",
                "sequence": 5,
            }
            for n, calendar_id in enumerate(["al", "bob"])
        ],
    }
    # the documented GET /v1/approvals/{id} body (the route adds the signing payloads)
    schema = store_schemas()["ApprovalDetail"]
    assert "$ref" not in json.dumps(schema)
    problems = list(Draft202012Validator(schema).iter_errors({**shown, "signing": None}))
    assert problems == []
    lines = approval_lines(shown)
    # 2026-10-12 is summer time in Berlin (+02:00); the planned slot is 2026-10-05
    assert "change: reschedule of one instance" in lines
    assert f"uid: {UID}, instance {RID} (its original start)" in lines
    assert (
        "before: 2026-10-12T07:00:00Z - 2026-10-12T08:00:00Z UTC, "
        f"2026-10-12T09:00:00+02:00 - 2026-10-12T10:00:00+02:00 {ZONE}"
    ) in lines
    assert (
        f"after: {span['start']} - {span['end']} UTC, "
        f"{_local(span['start'])} - {_local(span['end'])} {ZONE}"
    ) in lines
    assert "event title: Budget sync" in lines
    assert f"organizer: {ORGANIZER}" in lines
    assert (
        "attendees: <mailto:al@example.com> (required, kept); Bob <mailto:bob@example.com> "
        "(required, kept); Olga <mailto:olga@example.com> (required, kept); "
        "<mailto:Zoe@example.com> (optional, kept)"
    ) in lines
    assert lines[lines.index(f"organizer: {ORGANIZER}") + 2].startswith(
        "messages: REQUEST to mailto:al@example.com (SEQUENCE 5, step itip-0-0); "
    )
    # what a CalDAV server that schedules takes over is said, after the messages (0068)
    said = [line for line in lines if line.startswith("delivery: where the organizer's CalDAV")]
    assert len(said) == 1 and "calendar-auto-schedule" in said[0]
    assert lines.index(said[0]) > lines.index(f"organizer: {ORGANIZER}") + 2
    # the range of a change is shown as before/after, not as the create's start/end lines
    assert not any(line.startswith(("start:", "end:", "title:")) for line in lines)


def test_one_approval_carries_the_change_and_its_messages(
    world: tuple[Executor, Calendar, Path],
) -> None:
    executor, calendar, journal = world
    plan_id, approval, span = _submitted(executor)
    assert calendar.writes == 0 and journal_entries(journal) == []
    decide(executor, str(approval["id"]), approve=True, by=BOB)
    _run(executor)
    assert (calendar.writes, calendar.range, calendar.revision) == (1, span, 5)
    sent = journal_entries(journal)
    assert [(e["params"]["recipient"], e["params"]["method"]) for e in sent] == [  # type: ignore[index,call-overload]
        ("mailto:al@example.com", "REQUEST"),
        ("mailto:bob@example.com", "REQUEST"),
        ("mailto:Zoe@example.com", "REQUEST"),
    ]
    assert len(list_approvals(executor, status=None)) == 1  # nobody was asked again
    plan = show_plan(executor, plan_id)
    assert plan["status"] == "completed"


def _shown(draft: Any) -> dict[str, Any]:
    """``describe_approval``'s answer for the draft's first step, without a store."""
    specs = [s.to_wire() for s in draft.steps]
    step = specs[0]
    params = step["params"]
    return {
        "id": "a-1",
        "status": "open",
        "decided_by": None,
        "status_reason": None,
        "requester": ALICE,
        "plan_id": "p-1",
        "plan_revision": 1,
        "proposed": {
            "step_key": step["key"],
            "capability": step["capability"],
            "does": None,
            "target": step["target"],
            "object_id": params["object_id"],
            "title": params.get("title"),
            "calendar_id": params["calendar_id"],
            "start": params.get("start"),
            "end": params.get("end"),
            "timezone": params.get("timezone"),
            "local_start": None,
            "local_end": None,
            "change": change_of_step(step, specs),
        },
        "envelope_digest": None,
        "author": None,
        "expires_at": "2026-10-02T08:00:00Z",
    }


def test_an_update_shows_what_changes_and_who_is_removed() -> None:
    plan, action = _plan(MutationKind.UPDATE_EVENT)
    carol = {"address": "mailto:carol@example.com", "name": None, "required": False,
             "calendar_id": None}  # fmt: skip
    new = [a for a in ATTENDEES if a["address"] != "mailto:bob@example.com"] + [carol]
    draft = draft_from_action_plan(
        plan,
        change=_change(title="Design review", location="Room 2", attendees=new),
        previous_attendees=ATTENDEES,
        current={action.target: NOW},
        titles={action.target: "Weekly"},
    )
    shown = _shown(draft)
    change = shown["proposed"]["change"]
    assert change["kind"] == "update"
    assert [(a["address"], a["status"]) for a in change["attendees"]] == [
        ("mailto:al@example.com", "kept"),
        ("mailto:bob@example.com", "removed"),
        ("mailto:carol@example.com", "added"),
        ("mailto:olga@example.com", "kept"),
        ("mailto:Zoe@example.com", "kept"),
    ]
    lines = approval_lines(shown)
    assert "change: update of one instance" in lines
    assert "title: Weekly -> Design review" in lines
    assert "location: - -> Room 2" in lines
    assert f"before: {NOW['start']} - {NOW['end']} UTC, no local zone named" in lines
    assert any(line.startswith("messages: REQUEST to mailto:al@example.com") for line in lines)
    assert any("CANCEL to mailto:bob@example.com (SEQUENCE 5, step itip-0-1)" in x for x in lines)
    attendees = next(line for line in lines if line.startswith("attendees: "))
    assert "Bob <mailto:bob@example.com> (required, removed)" in attendees
    assert "<mailto:carol@example.com> (optional, added)" in attendees


def test_a_cancel_shows_the_event_as_read_and_cancel_messages() -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = draft_from_action_plan(
        plan, change=_change("SERIES"), current={action.target: NOW}, zones={action.target: ZONE}
    )
    shown = _shown(draft)
    assert shown["proposed"]["change"]["after"] is None
    lines = approval_lines(shown)
    assert "change: cancel of the whole event or series" in lines
    assert f"uid: {UID}" in lines
    assert (
        f"before: {NOW['start']} - {NOW['end']} UTC, "
        f"{_local(NOW['start'])} - {_local(NOW['end'])} {ZONE}"
    ) in lines
    assert "after: cancelled" in lines
    messages = next(line for line in lines if line.startswith("messages: "))
    assert messages.count("CANCEL to ") == 3 and "REQUEST" not in messages


def test_a_create_that_invites_keeps_its_lines_and_lists_the_invitations() -> None:
    plan, action = _plan(MutationKind.CREATE_EVENT, revision=None)
    draft = draft_from_action_plan(
        plan, change=_change("SERIES", sequence=0, etag=None, title="Kick-off")
    )
    lines = approval_lines(_shown(draft))
    assert "title: Kick-off" in lines
    assert f"start: {action.placement.range.start} UTC, no local zone named" in lines
    assert "change: create" in lines
    assert not any(line.startswith("attendees: none invited") for line in lines)
    assert any(
        line.startswith("messages: REQUEST to mailto:al@example.com (SEQUENCE 0") for line in lines
    )
    # a create without a change is shown as before (decision 0039)
    plain = _shown(draft_from_action_plan(plan))
    assert plain["proposed"]["change"] is None
    assert "attendees: none invited (the step writes the event into calendar work only)" in (
        approval_lines(plain)
    )


def test_approvals_list_shows_a_cancel_by_the_time_and_title_it_had() -> None:
    plan, action = _plan(MutationKind.DELETE_EVENT)
    draft = draft_from_action_plan(
        plan,
        change=_change(),
        current={action.target: NOW},
        titles={action.target: "Weekly"},
        zones={action.target: ZONE},
    )
    proposed = _shown(draft)["proposed"]
    proposed["local_start"] = proposed["local_end"] = None
    row = listed(proposed)
    assert (row["title"], row["start"], row["end"]) == ("Weekly", NOW["start"], NOW["end"])
    # 07:00Z on 2026-10-12 is 09:00 in Berlin (summer time)
    assert when_text(row) == f"2026-10-12 09:00-10:00 {ZONE}"


def test_an_update_lists_added_and_removed_people_and_the_copies_it_writes() -> None:
    """dave added (his calendar ``dave``), bob removed: the approver sees both, the
    messages, and the copies written into al's, bob's and dave's calendars (decision 0057)."""
    plan, action = _plan(MutationKind.UPDATE_EVENT)
    dave = {"address": "mailto:dave@example.com", "name": None, "required": True,
            "calendar_id": "dave"}  # fmt: skip
    new = [a for a in ATTENDEES if a["address"] != "mailto:bob@example.com"] + [dave]
    draft = draft_from_action_plan(
        plan,
        change=_change(attendees=new),
        previous_attendees=ATTENDEES,
        current={action.target: NOW},
        titles={action.target: "Weekly"},
    )
    shown = _shown(draft)
    change = shown["proposed"]["change"]
    statuses = {a["address"]: a["status"] for a in change["attendees"]}
    assert statuses["mailto:dave@example.com"] == "added"
    assert statuses["mailto:bob@example.com"] == "removed"
    assert statuses["mailto:al@example.com"] == "kept"
    delivers = [s for s in draft.steps if s.capability == "calendar.itip.deliver"]
    expected = [
        (s.key, s.params["calendar_id"], s.params["attendee"], s.params["method"])
        for s in delivers
        if s.params
    ]
    assert {row[1] for row in expected} == {"al", "bob", "dave"}
    got = change["deliveries"]
    assert [(d["step_key"], d["calendar_id"], d["address"], d["method"]) for d in got] == expected
    assert ("bob", "mailto:bob@example.com", "CANCEL") in [row[1:] for row in expected]
    copies = next(line for line in approval_lines(shown) if line.startswith("copies: "))
    for key, calendar_id, address, method in expected:
        assert f"{method} into calendar {calendar_id} of {address}" in copies
        assert f"step {key})" in copies
