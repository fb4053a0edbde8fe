"""An event without length (``DTSTART`` date-time alone: it ends where it starts, RFC 5545
section 3.6.1) updated and cancelled through the plan graph on an .ics file (decision 0074):
planned over the one second after its start (CPIR ranges are not empty), an update of its
title keeps it a point in time, a longer range gives it a ``DTEND``, a cancel removes it.
The file is read back with icalendar; the values are written down by hand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import icalendar
import pytest

from cerebri.calendars.changes import resource_etag
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor, decide, list_approvals, run_worker, show_plan, submit
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, IcsFileCalendar
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.plans import draft_from_action_plan
from cerebri.temporal import Instant
from tests.plans.test_change_drafts import _change, _plan

UID = "remind@example.com"
NINE, SECOND = "2027-01-05T09:00:00Z", "2027-01-05T09:00:01Z"
POINT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//point//EN\r\n"
    f"BEGIN:VEVENT\r\nUID:{UID}\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:4\r\n"
    "DTSTART:20270105T090000Z\r\nSUMMARY:Reminder\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, IcsFileCalendar, Path]]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse("2026-12-01T08:00:00Z"))
    work = tmp_path / "work.ics"
    work.write_text(POINT, encoding="utf-8", newline="")
    calendars = IcsFileCalendar({"work": work}, clock)
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendars)
    try:
        yield Executor(engine, clock, SequentialIds("a"), adapters=adapters), calendars, work
    finally:
        engine.dispose()


def _carry_out(
    world: tuple[Executor, IcsFileCalendar, Path],
    kind: MutationKind,
    end: str,
    title: str | None = None,
) -> dict[str, Any]:
    executor, calendars, _ = world
    plan, action = _plan(kind)
    span = TimeRange(start=Instant.parse(NINE), end=Instant.parse(end))
    action = dataclasses.replace(
        action, placement=dataclasses.replace(action.placement, range=span)
    )
    plan = dataclasses.replace(plan, actions=(action,))
    resource = calendars.read_resource("work", UID)
    assert resource is not None
    change = _change(
        scope="SERIES",
        uid=UID,
        etag=resource_etag(resource),
        sequence=4,
        title=title,
        organizer=None,
        attendees=None,
    )
    draft = draft_from_action_plan(
        plan,
        change=change,
        current={action.target: {"start": NINE, "end": SECOND}},
        titles={action.target: "Reminder"},
        zones={action.target: "UTC"},
    )
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    for _ in range(2):
        report = run_worker(executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error
        for asked in list_approvals(executor):
            decide(executor, str(asked["id"]), approve=True, by="principal:bob")
    return show_plan(executor, plan_id)


def _event(work: Path) -> Any:
    calendar = icalendar.Calendar.from_ical(work.read_bytes())
    return [e for e in calendar.walk("VEVENT") if str(e["UID"]) == UID]


def test_a_new_title_keeps_the_point_in_time(
    world: tuple[Executor, IcsFileCalendar, Path],
) -> None:
    shown = _carry_out(world, MutationKind.UPDATE_EVENT, SECOND, title="Call Bob")
    assert shown["status"] == "completed", shown
    (event,) = _event(world[2])
    assert (event["DTSTART"].to_ical(), str(event["SUMMARY"])) == (b"20270105T090000Z", "Call Bob")
    assert "DTEND" not in event and "DURATION" not in event
    assert int(event["SEQUENCE"]) == 5


def test_a_longer_range_gives_it_a_length(world: tuple[Executor, IcsFileCalendar, Path]) -> None:
    shown = _carry_out(world, MutationKind.UPDATE_EVENT, "2027-01-05T09:30:00Z")
    assert shown["status"] == "completed", shown
    (event,) = _event(world[2])
    assert event["DTEND"].to_ical() == b"20270105T093000Z"


def test_it_is_cancelled(world: tuple[Executor, IcsFileCalendar, Path]) -> None:
    shown = _carry_out(world, MutationKind.DELETE_EVENT, SECOND)
    assert shown["status"] == "completed", shown
    assert _event(world[2]) == []
