"""An event without length (``DTSTART`` date-time alone: it ends where it starts, RFC 5545
section 3.6.1) updated and cancelled through the plan graph on an .ics file (decision 0074):
planned over the one second after its start (CPIR ranges are not empty), an update of its
title keeps it a point in time, a longer range gives it a ``DTEND``, a cancel removes it.
The file is read back with icalendar; the values are written down by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import icalendar
import pytest

from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor
from cerebri.execution.adapters import IcsFileCalendar
from cerebri.temporal import Instant
from tests.execution._ics_change_world import carry_out, change_draft, ics_executor

UID = "remind@example.com"
NINE, SECOND = "2027-01-05T09:00:00Z", "2027-01-05T09:00:01Z"
POINT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//point//EN\r\n"
    f"BEGIN:VEVENT\r\nUID:{UID}\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:4\r\n"
    "DTSTART:20270105T090000Z\r\nSUMMARY:Reminder\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Executor, IcsFileCalendar, Path]]:
    with ics_executor(tmp_path, POINT, "2026-12-01T08:00:00Z") as world:
        yield world


def _carry_out(
    world: tuple[Executor, IcsFileCalendar, Path],
    kind: MutationKind,
    end: str,
    title: str | None = None,
) -> dict[str, Any]:
    executor, calendars, _ = world
    span = TimeRange(start=Instant.parse(NINE), end=Instant.parse(end))
    draft = change_draft(
        calendars,
        kind,
        span,
        uid=UID,
        current={"start": NINE, "end": SECOND},
        current_title="Reminder",
        zone="UTC",
        scope="SERIES",
        sequence=4,
        title=title,
    )
    return carry_out(executor, draft)


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
