"""An all-day event (``DTSTART;VALUE=DATE``) changed through the plan graph on an .ics file
(decisions 0050, 0056): the plan used Europe/Berlin, so the write, its precondition and its
read-back all read the dates in that zone, and the read-back holds.

The file is read back with icalendar, the expected instants computed here with zoneinfo.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest

from cerebri._json import JSONValue
from cerebri.calendars.changes import resource_etag
from cerebri.clock import FakeClock, SequentialIds
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor, decide, list_approvals, run_worker, show_plan, submit
from cerebri.execution import store as execution_store
from cerebri.execution.adapters import Adapters, IcsFileCalendar, Invocation
from cerebri.execution.adapters.base import AdapterError
from cerebri.execution.adapters.ics_file import CALENDAR_CAPABILITIES
from cerebri.plans import draft_from_action_plan
from cerebri.temporal import Instant
from tests.plans.test_change_drafts import _change, _plan

UID = "offsite@example.com"
ZONE = "Europe/Berlin"
OFFSITE = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//all day//EN\r\n"
    "BEGIN:VEVENT\r\nUID:offsite@example.com\r\nDTSTAMP:20260901T000000Z\r\n"
    "DTSTART;VALUE=DATE:20261005\r\nDTEND;VALUE=DATE:20261006\r\n"
    "SEQUENCE:4\r\nSUMMARY:Offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def _midnight(day: date) -> Instant:
    local = datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(ZONE))
    return Instant.parse(f"{local.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, IcsFileCalendar, Path]]:
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    execution_store.init(url)
    engine = execution_store.open_engine(execution_store.parse_store_url(url))
    clock = FakeClock(Instant.parse("2026-10-01T08:00:00Z"))
    work = tmp_path / "work.ics"
    work.write_text(OFFSITE, encoding="utf-8", newline="")
    calendars = IcsFileCalendar({"work": work}, clock)
    adapters = Adapters()
    for name in CALENDAR_CAPABILITIES:
        adapters = adapters.with_adapter(name, calendars)
    executor = Executor(engine, clock, SequentialIds("a"), adapters=adapters)
    try:
        yield executor, calendars, work
    finally:
        engine.dispose()


def _carry_out(
    executor: Executor, calendars: IcsFileCalendar, kind: MutationKind, first: date, last: date
) -> dict[str, Any]:
    """Change the offsite to the whole days ``first`` to ``last`` (inclusive) in Berlin."""
    plan, action = _plan(kind)
    span = TimeRange(start=_midnight(first), end=_midnight(date.fromordinal(last.toordinal() + 1)))
    action = dataclasses.replace(
        action, placement=dataclasses.replace(action.placement, range=span)
    )
    plan = dataclasses.replace(plan, actions=(action,))
    resource = calendars.read_resource("work", UID)
    assert resource is not None
    change = _change(
        scope="SERIES", uid=UID, etag=resource_etag(resource), organizer=None, attendees=None
    )
    now = {"start": str(_midnight(date(2026, 10, 5))), "end": str(_midnight(date(2026, 10, 6)))}
    draft = draft_from_action_plan(
        plan,
        change=change,
        current={action.target: now},
        titles={action.target: "Offsite"},
        zones={action.target: ZONE},
    )
    plan_id = submit(executor, draft, requester="principal:alice").plan_id
    for _ in range(2):
        report = run_worker(executor, until_idle=True, poll_seconds=0.01)
        assert report.errors == 0, report.last_error
        for asked in list_approvals(executor):
            decide(executor, str(asked["id"]), approve=True, by="principal:bob")
    return show_plan(executor, plan_id)


def _dates(work: Path) -> tuple[object, object, int]:
    (event,) = icalendar.Calendar.from_ical(work.read_bytes()).walk("VEVENT")
    return event["DTSTART"].dt, event["DTEND"].dt, int(event["SEQUENCE"])


def test_an_all_day_event_is_rescheduled_and_read_back_in_the_plans_zone(
    world: tuple[Executor, IcsFileCalendar, Path],
) -> None:
    executor, calendars, work = world
    shown = _carry_out(
        executor, calendars, MutationKind.MOVE_EVENT, date(2026, 10, 7), date(2026, 10, 7)
    )
    assert shown["status"] == "completed", shown
    assert _dates(work) == (date(2026, 10, 7), date(2026, 10, 8), 5)


def test_an_all_day_event_lasts_two_days_after_an_update_and_verifies(
    world: tuple[Executor, IcsFileCalendar, Path],
) -> None:
    executor, calendars, work = world
    shown = _carry_out(
        executor, calendars, MutationKind.UPDATE_EVENT, date(2026, 10, 5), date(2026, 10, 6)
    )
    assert shown["status"] == "completed", shown
    assert _dates(work) == (date(2026, 10, 5), date(2026, 10, 7), 5)


def _get(params: dict[str, JSONValue]) -> Invocation:
    return Invocation("calendar.event.get", "o", params, "plan_step:s", "k")


def test_without_a_zone_an_all_day_read_is_still_refused(
    world: tuple[Executor, IcsFileCalendar, Path],
) -> None:
    _, calendars, _ = world
    params: dict[str, JSONValue] = {"calendar_id": "work", "object_id": "o", "uid": UID}
    with pytest.raises(AdapterError, match="DATE \\(all-day\\)"):
        calendars.invoke(_get(params))
    zoned = calendars.invoke(_get({**params, "timezone": ZONE}))
    expected = {
        "start": str(_midnight(date(2026, 10, 5))),
        "end": str(_midnight(date(2026, 10, 6))),
    }
    assert zoned["range"] == expected
