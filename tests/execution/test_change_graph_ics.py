"""A change plan graph carried out by the real adapters (issue #23, decision 0056): one
instance of a weekly series in an .ics file rescheduled, one approval, then one REQUEST per
attendee in the outbox; and the same series cancelled for one instance (CANCELs).

The calendar is read back with recurring-ical-events and the messages with icalendar, not
with cerebri's reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest
import recurring_ical_events

from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.changes import ChangeScope, resource_etag, resource_sequence
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.slot_search import SlotSearch
from cerebri.calendars.sources import load_sources
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind, parse_request
from cerebri.errors import CerebriError
from cerebri.execution import (
    Executor,
    list_approvals,
    show_plan,
    submit,
)
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.execution.adapters.itip_copies import CopyDelivery
from cerebri.execution.adapters.itip_delivery import ItipDelivery
from cerebri.planner import action_plan_for
from cerebri.plans import change_inputs, draft_from_action_plan
from cerebri.temporal import Instant
from tests.execution._ics_change_world import run_and_approve
from tests.plans.test_change_drafts import ORGANIZER, _change, _plan

UID = "weekly@example.com"
RID = "2026-10-05T08:00:00Z"  # Monday 10:00 in Berlin (summer time)
PEOPLE = [
    {"address": "mailto:bob@example.com", "name": "Bob", "required": True, "calendar_id": "bob"},
    {"address": "mailto:zoe@example.com", "name": None, "required": False, "calendar_id": None},
    {"address": ORGANIZER, "name": "Olga", "required": True, "calendar_id": "work"},
]
SERIES = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//change graph//EN\r\n"
    "BEGIN:VEVENT\r\nUID:weekly@example.com\r\nDTSTAMP:20260901T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20260928T100000\r\nDTEND;TZID=Europe/Berlin:20260928T110000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=4\r\nSEQUENCE:4\r\nSUMMARY:Weekly\r\n"
    "ORGANIZER;CN=Olga:mailto:olga@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com\r\n"
    "ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:zoe@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:olga@example.com\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, IcsFileCalendar, Path, Path]]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    work = tmp_path / "work.ics"
    work.write_text(SERIES, encoding="utf-8")
    files = {"work": work, "bob": tmp_path / "bob.ics"}  # bob's calendar: empty
    calendars = IcsFileCalendar(files, clock)
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    itip = ItipDelivery(clock, outbox=outbox, read_resource=calendars.read_resource)
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendars)
    adapters = adapters.with_adapter("message.itip.send", itip).with_adapter(
        "message.itip.get", itip
    )
    copies = CopyDelivery(lambda calendar_id: calendars)  # bob's calendar (decision 0057)
    adapters = adapters.with_adapter("calendar.itip.deliver", copies)
    executor = Executor(engine, clock, SequentialIds("g"), adapters=adapters)
    try:
        yield executor, calendars, work, outbox
    finally:
        engine.dispose()


def _carry_out(
    executor: Executor,
    calendars: IcsFileCalendar,
    kind: MutationKind,
    revision: int = 4,
    **extra: Any,
) -> str:
    """Plan ``kind`` of the instance at RID, submit, run, approve once, run: the plan id."""
    plan, action = _plan(kind, revision=revision)
    resource = calendars.read_resource("work", UID)
    assert resource is not None
    etag = resource_etag(resource)
    change = _change(uid=UID, recurrence_id=RID, etag=etag, attendees=PEOPLE, **extra)
    draft = draft_from_action_plan(
        plan,
        change=change,
        current={action.target: {"start": RID, "end": "2026-10-05T09:00:00Z"}},
        titles={action.target: "Weekly"},
    )
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    run_and_approve(executor)
    assert len(list_approvals(executor, status=None)) == 1  # one decision for the change
    assert show_plan(executor, plan_id)["status"] == "completed"
    return plan_id


def _instances(work: Path) -> list[tuple[datetime, datetime, int]]:
    calendar = icalendar.Calendar.from_ical(work.read_text(encoding="utf-8"))
    found = recurring_ical_events.of(calendar).between(
        datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)
    )
    return sorted(
        (e["DTSTART"].dt.astimezone(UTC), e["DTEND"].dt.astimezone(UTC), int(e["SEQUENCE"]))
        for e in found
    )


def _messages(outbox: Path) -> list[dict[str, Any]]:
    seen = []
    for path in sorted(outbox.glob("*.ics")):
        calendar = icalendar.Calendar.from_ical(path.read_bytes())
        (event,) = calendar.walk("VEVENT")
        attendees = event.get("ATTENDEE")
        named = attendees if isinstance(attendees, list) else [attendees]
        seen.append(
            {
                "method": str(calendar["METHOD"]),
                "sequence": int(event["SEQUENCE"]),
                "uid": str(event["UID"]),
                "recurrence_id": (
                    event["RECURRENCE-ID"].dt.astimezone(UTC) if "RECURRENCE-ID" in event else None
                ),
                "attendees": sorted(str(a).lower() for a in named),
            }
        )
    return seen


def test_reschedule_one_instance_of_a_weekly_series(
    world: tuple[Executor, IcsFileCalendar, Path, Path],
) -> None:
    executor, calendars, work, outbox = world
    _carry_out(executor, calendars, MutationKind.MOVE_EVENT)
    # _plan's action moves to the design-review slot: 2026-10-05 12:00-12:45 UTC
    moved = (datetime(2026, 10, 5, 12, tzinfo=UTC), datetime(2026, 10, 5, 12, 45, tzinfo=UTC))
    instances = _instances(work)
    assert (*moved, 5) in instances
    assert len(instances) == 4
    assert all(start != datetime(2026, 10, 5, 8, tzinfo=UTC) for start, _, _ in instances)
    messages = _messages(outbox)
    # the message names every attendee, olga too (she is one: RFC 5546 3.2.2, the full
    # list; decision 0073); she is its ORGANIZER and is sent nothing (decision 0048)
    everyone = ["mailto:bob@example.com", "mailto:olga@example.com", "mailto:zoe@example.com"]
    rid = datetime(2026, 10, 5, 8, tzinfo=UTC)
    request = {"method": "REQUEST", "sequence": 5, "uid": UID, "recurrence_id": rid}
    assert messages == [{**request, "attendees": everyone}] * 2  # bob, zoe; not the organizer


def test_cancel_one_instance_of_a_weekly_series(
    world: tuple[Executor, IcsFileCalendar, Path, Path],
) -> None:
    executor, calendars, work, outbox = world
    _carry_out(executor, calendars, MutationKind.DELETE_EVENT)
    starts = [start for start, _, _ in _instances(work)]
    assert starts == [
        datetime(2026, 9, 28, 8, tzinfo=UTC),
        datetime(2026, 10, 12, 8, tzinfo=UTC),
        datetime(2026, 10, 19, 8, tzinfo=UTC),
    ]
    assert [(m["method"], m["sequence"]) for m in _messages(outbox)] == [("CANCEL", 5)] * 2


def test_reschedule_this_and_future_splits_the_series(
    world: tuple[Executor, IcsFileCalendar, Path, Path],
) -> None:
    executor, calendars, work, outbox = world
    _carry_out(executor, calendars, MutationKind.MOVE_EVENT, scope="THIS_AND_FUTURE")
    # 10:00 Berlin (08:00Z) moved to 12:00Z = 14:00 Berlin from 2026-10-05 on
    assert [start for start, _, _ in _instances(work)] == [
        datetime(2026, 9, 28, 8, tzinfo=UTC),
        datetime(2026, 10, 5, 12, tzinfo=UTC),
        datetime(2026, 10, 12, 12, tzinfo=UTC),
        datetime(2026, 10, 19, 12, tzinfo=UTC),
    ]
    told = sorted((m["uid"] == UID, m["sequence"], m["recurrence_id"]) for m in _messages(outbox))
    # each of bob and zoe: the new series (SEQUENCE 0) and the shortened old one (5)
    assert told == [(False, 0, None), (False, 0, None), (True, 5, None), (True, 5, None)]


def test_update_one_instance_title_and_length(
    world: tuple[Executor, IcsFileCalendar, Path, Path],
) -> None:
    executor, calendars, work, outbox = world
    _carry_out(executor, calendars, MutationKind.UPDATE_EVENT, title="Weekly (long)")
    calendar = icalendar.Calendar.from_ical(work.read_text(encoding="utf-8"))
    found = recurring_ical_events.of(calendar).at((2026, 10, 5))
    assert [(str(e["SUMMARY"]), int(e["SEQUENCE"])) for e in found] == [("Weekly (long)", 5)]
    assert [(m["method"], m["sequence"]) for m in _messages(outbox)] == [("REQUEST", 5)] * 2


# master SEQUENCE 0, the 2026-10-12 instance moved to 11:00 by a calendar that raised it to 3
RAISED = SERIES.replace("SEQUENCE:4", "SEQUENCE:0").replace(
    "END:VEVENT\r\nEND:VCALENDAR",
    "END:VEVENT\r\nBEGIN:VEVENT\r\nUID:weekly@example.com\r\nDTSTAMP:20260901T000000Z\r\n"
    "RECURRENCE-ID;TZID=Europe/Berlin:20261012T100000\r\n"
    "DTSTART;TZID=Europe/Berlin:20261012T110000\r\nDTEND;TZID=Europe/Berlin:20261012T120000\r\n"
    "SEQUENCE:3\r\nSUMMARY:Weekly\r\nORGANIZER;CN=Olga:mailto:olga@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com\r\n"
    "ATTENDEE;ROLE=OPT-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:zoe@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:olga@example.com\r\n"
    "END:VEVENT\r\nEND:VCALENDAR",
)


@pytest.mark.parametrize(
    ("kind", "scope"),
    [
        (MutationKind.MOVE_EVENT, "INSTANCE"),
        (MutationKind.MOVE_EVENT, "SERIES"),
        (MutationKind.MOVE_EVENT, "THIS_AND_FUTURE"),
        (MutationKind.DELETE_EVENT, "INSTANCE"),
    ],
)
def test_an_override_above_the_master_sets_the_revision(
    world: tuple[Executor, IcsFileCalendar, Path, Path], kind: MutationKind, scope: str
) -> None:
    """decision 0050: the revision is the highest SEQUENCE of any component (3, the
    override's, not the master's 0 nor the moved instance's); the change writes 4 and every
    message carries 4 (no itip.sequence_moved after the calendar changed)."""
    executor, calendars, work, outbox = world
    work.write_text(RAISED, encoding="utf-8")
    resource = calendars.read_resource("work", UID)
    assert resource is not None
    revision = resource_sequence(resource, UID)
    assert revision == 3
    _carry_out(executor, calendars, kind, revision=revision, sequence=revision, scope=scope)
    stored = icalendar.Calendar.from_ical(work.read_text(encoding="utf-8"))
    old = [int(e["SEQUENCE"]) for e in stored.walk("VEVENT") if str(e["UID"]) == UID]
    assert max(old) == 4
    sent = [(m["uid"] == UID, m["sequence"]) for m in _messages(outbox)]
    new = [(False, 0)] * 2 if scope == "THIS_AND_FUTURE" else []
    assert sorted(sent) == sorted([*new, (True, 4), (True, 4)])


# Mondays 09:00 Berlin from 2026-11-30; the 12-14 instance moved to 11:00 on its own
MOVED_MONDAY = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//change graph//EN\r\n"
    "BEGIN:VEVENT\r\nUID:monday@example.com\r\nDTSTAMP:20261101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261130T090000\r\nDTEND;TZID=Europe/Berlin:20261130T100000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=6\r\nSEQUENCE:0\r\nSUMMARY:Monday\r\n"
    "ORGANIZER;CN=Olga:mailto:olga@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com\r\n"
    "END:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:monday@example.com\r\nDTSTAMP:20261101T000000Z\r\n"
    "RECURRENCE-ID;TZID=Europe/Berlin:20261214T090000\r\n"
    "DTSTART;TZID=Europe/Berlin:20261214T110000\r\nDTEND;TZID=Europe/Berlin:20261214T120000\r\n"
    "SEQUENCE:1\r\nSUMMARY:Monday\r\nORGANIZER;CN=Olga:mailto:olga@example.com\r\n"
    "ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=ACCEPTED:mailto:bob@example.com\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _series_ask(first: str, last: str) -> EventChangeAsk:
    berlin = ZoneInfo("Europe/Berlin")
    window = tuple(
        Instant.from_datetime(datetime.fromisoformat(d).replace(tzinfo=berlin))
        for d in (first, last)
    )
    return EventChangeAsk(
        ChangeOperation.RESCHEDULE,
        "monday@example.com",
        scope=ChangeScope.SERIES,
        window=(window[0], window[1]),
        zone="Europe/Berlin",
        granularity_seconds=1800,
        working_hours=(time(8), time(18)),
    )


def _load_files(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> Any:
    window = (Instant.parse("2026-11-01T00:00:00Z"), Instant.parse("2027-02-01T00:00:00Z"))
    return load_sources(paths, urls, window, ids=ids)


def test_a_series_move_is_anchored_on_an_instance_not_moved_on_its_own(
    world: tuple[Executor, IcsFileCalendar, Path, Path],
) -> None:
    """decision 0055: the 12-14 instance was moved to 11:00, so the series move is measured
    from 12-21 09:00; what the approval shows, what is written and verify all agree."""
    executor, _, work, _ = world
    work.write_text(MOVED_MONDAY, encoding="utf-8")
    search = SlotSearch(ics=[work])
    with pytest.raises(CerebriError) as refused:  # only the moved instance in the window
        plan_event_change(_series_ask("2026-12-14T00:00", "2026-12-19T00:00"), search, _load_files)
    assert refused.value.code == "input.invalid_option"
    assert "--instance or widen --between" in refused.value.message
    found = plan_event_change(
        _series_ask("2026-12-14T00:00", "2026-12-26T00:00"), search, _load_files
    )
    assert found.event.start == Instant.parse("2026-12-21T08:00:00Z")  # 09:00 Berlin
    request = parse_request(json.dumps(found.answer.request).encode())
    actions = action_plan_for(request, limits=FIND_SLOT_LIMITS)
    (action,) = actions.actions
    after = action.placement.range.start.to_datetime()
    assert after is not None
    draft = draft_from_action_plan(
        actions, titles={action.target: "Monday"}, **change_inputs(request, actions)
    )
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    run_and_approve(executor)
    assert show_plan(executor, plan_id)["status"] == "completed"  # verify agreed
    calendar = icalendar.Calendar.from_ical(work.read_text(encoding="utf-8"))
    starts = sorted(
        e["DTSTART"].dt.astimezone(UTC)
        for e in recurring_ical_events.of(calendar).between(
            datetime(2026, 11, 1, tzinfo=UTC), datetime(2027, 2, 1, tzinfo=UTC)
        )
    )
    shift = after - datetime(2026, 12, 21, 8, tzinfo=UTC)
    assert after.astimezone(UTC) in starts  # the chosen candidate is the 12-21 instance now
    assert datetime(2026, 12, 14, 10, tzinfo=UTC) + shift in starts  # 11:00 shifted alike
    assert len(starts) == 6
