"""An all-day event (``DTSTART;VALUE=DATE``) changed through the plan graph on an .ics file
(decisions 0050, 0056): the plan used Europe/Berlin, so the write, its precondition and its
read-back all read the dates in that zone, and the read-back holds.

The file is read back with icalendar, the expected instants computed here with zoneinfo.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import icalendar
import pytest

from cerebri._json import JSONValue
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor
from cerebri.execution.adapters import IcsFileCalendar, Invocation
from cerebri.execution.adapters.base import AdapterError
from cerebri.temporal import Instant
from tests.execution._ics_change_world import carry_out, change_draft, ics_executor

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
    with ics_executor(tmp_path, OFFSITE, "2026-10-01T08:00:00Z") as world:
        yield world


def _carry_out(
    executor: Executor, calendars: IcsFileCalendar, kind: MutationKind, first: date, last: date
) -> dict[str, Any]:
    """Change the offsite to the whole days ``first`` to ``last`` (inclusive) in Berlin."""
    span = TimeRange(start=_midnight(first), end=_midnight(date.fromordinal(last.toordinal() + 1)))
    now = {"start": str(_midnight(date(2026, 10, 5))), "end": str(_midnight(date(2026, 10, 6)))}
    draft = change_draft(
        calendars,
        kind,
        span,
        uid=UID,
        current=now,
        current_title="Offsite",
        zone=ZONE,
        scope="SERIES",
    )
    return carry_out(executor, draft)


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
