"""The instance of a weekly 02:30 series on Europe/Berlin's spring-forward day (2026-03-29,
no 02:30 that day: read at +01:00, 01:30Z-02:30Z) moved and cancelled through the plan graph
on an .ics file (decision 0064): the plan's range, the write, its precondition and its
read-back agree. The file is read back with icalendar and expanded with
recurring-ical-events; the instants are worked out by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import icalendar
import pytest
import recurring_ical_events

from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor
from cerebri.execution.adapters import IcsFileCalendar
from cerebri.temporal import Instant
from tests.execution._ics_change_world import carry_out, change_draft, ics_executor

UID = "night@example.com"
ZONE = "Europe/Berlin"
GAP = "2026-03-29T01:30:00Z"
NIGHT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//gap//EN\r\n"
    f"BEGIN:VEVENT\r\nUID:{UID}\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:4\r\n"
    "DTSTART;TZID=Europe/Berlin:20260322T023000\r\nDTEND;TZID=Europe/Berlin:20260322T033000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Night run\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, IcsFileCalendar, Path]]:
    with ics_executor(tmp_path, NIGHT, "2026-03-01T08:00:00Z") as world:
        yield world


def _carry_out(
    executor: Executor, calendars: IcsFileCalendar, kind: MutationKind, start: str, end: str
) -> dict[str, Any]:
    span = TimeRange(start=Instant.parse(start), end=Instant.parse(end))
    draft = change_draft(
        calendars,
        kind,
        span,
        uid=UID,
        current={"start": GAP, "end": "2026-03-29T02:30:00Z"},
        current_title="Night run",
        zone=ZONE,
        scope="INSTANCE",
        recurrence_id=GAP,
        sequence=4,
    )
    return carry_out(executor, draft)


def _instances(work: Path) -> list[tuple[str, str]]:
    calendar = icalendar.Calendar.from_ical(work.read_bytes())
    found = recurring_ical_events.of(calendar).between(
        datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 5, 1, tzinfo=UTC)
    )
    return sorted(
        (str(Instant.from_datetime(e["DTSTART"].dt)), str(Instant.from_datetime(e["DTEND"].dt)))
        for e in found
    )


def test_the_gap_instance_is_moved_and_read_back(
    world: tuple[Executor, IcsFileCalendar, Path],
) -> None:
    executor, calendars, work = world
    # to Mon 30 March 08:00-09:00 summer time
    shown = _carry_out(
        executor, calendars, MutationKind.MOVE_EVENT, "2026-03-30T06:00:00Z", "2026-03-30T07:00:00Z"
    )
    assert shown["status"] == "completed", shown
    assert "RECURRENCE-ID;TZID=Europe/Berlin:20260329T023000" in work.read_text(encoding="utf-8")
    assert _instances(work) == [
        ("2026-03-22T01:30:00Z", "2026-03-22T02:30:00Z"),
        ("2026-03-30T06:00:00Z", "2026-03-30T07:00:00Z"),
        ("2026-04-05T00:30:00Z", "2026-04-05T01:30:00Z"),
    ]


def test_the_gap_instance_is_cancelled(world: tuple[Executor, IcsFileCalendar, Path]) -> None:
    executor, calendars, work = world
    shown = _carry_out(executor, calendars, MutationKind.DELETE_EVENT, GAP, "2026-03-29T02:30:00Z")
    assert shown["status"] == "completed", shown
    assert "EXDATE;TZID=Europe/Berlin:20260329T023000" in work.read_text(encoding="utf-8")
    assert _instances(work) == [
        ("2026-03-22T01:30:00Z", "2026-03-22T02:30:00Z"),
        ("2026-04-05T00:30:00Z", "2026-04-05T01:30:00Z"),
    ]
