"""An all-day event made two days long across a daylight-saving change (decision 0064): the
range ``cerebri update-event --duration 2d`` plans is the true UTC range of the two local
days (47 hours in spring, 49 in autumn in Europe/Berlin), and the ics_file adapter carries it
out as ``DTSTART;VALUE=DATE``/``DTEND;VALUE=DATE`` without refusing it after approval.

Expected instants are worked out by hand from Berlin's offsets (+01:00 winter, +02:00
summer); the file is read back with icalendar.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import icalendar
import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.cpir import MutationKind
from cerebri.cpir.scalars import TimeRange
from cerebri.execution import Executor
from cerebri.execution.adapters import IcsFileCalendar
from cerebri.temporal import Instant
from tests.execution._ics_change_world import carry_out, change_draft, ics_executor

UID = "offsite@example.com"
ZONE = "Europe/Berlin"

# (first day, the planned UTC range of two local days, the DTEND date written)
CASES = {
    # Sat 28 March 00:00 CET (+01:00) to Mon 30 March 00:00 CEST (+02:00): 47 hours
    "spring": (
        date(2026, 3, 28),
        "2026-03-27T23:00:00Z",
        "2026-03-29T22:00:00Z",
        date(2026, 3, 30),
    ),
    # Sat 24 October 00:00 CEST (+02:00) to Mon 26 October 00:00 CET (+01:00): 49 hours
    "autumn": (
        date(2026, 10, 24),
        "2026-10-23T22:00:00Z",
        "2026-10-25T23:00:00Z",
        date(2026, 10, 26),
    ),
}


def _text(first: date) -> str:
    following = date.fromordinal(first.toordinal() + 1)
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//all day dst//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:{UID}\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;VALUE=DATE:{first:%Y%m%d}\r\nDTEND;VALUE=DATE:{following:%Y%m%d}\r\n"
        "SEQUENCE:4\r\nSUMMARY:Offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


@pytest.fixture(params=sorted(CASES))
def world(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Executor, IcsFileCalendar, Path]]:
    case = str(request.param)
    with ics_executor(tmp_path, _text(CASES[case][0]), "2026-03-01T08:00:00Z") as world:
        yield (case, *world)


def test_two_whole_days_across_a_dst_change_are_planned_and_written_alike(
    world: tuple[str, Executor, IcsFileCalendar, Path],
) -> None:
    case, executor, calendars, work = world
    first, start, end, written_end = CASES[case]
    answer = CliRunner().invoke(
        app,
        ["update-event", UID, "--ics", str(work), "--tz", ZONE, "--duration", "2d", "--json"],
    )
    assert answer.exit_code == 0, answer.output
    found = json.loads(answer.stdout)
    (candidate,) = found["candidates"]
    span = candidate["proposed"]["placements"][0]["range"]
    assert (span["start"], span["end"]) == (start, end)  # plan time: the true UTC range

    planned = TimeRange(start=Instant.parse(span["start"]), end=Instant.parse(span["end"]))
    before = {"start": found["event"]["start"], "end": found["event"]["end"]}
    draft = change_draft(
        calendars,
        MutationKind.UPDATE_EVENT,
        planned,
        uid=UID,
        current=before,
        current_title="Offsite",
        zone=ZONE,
        scope="SERIES",
    )
    shown = carry_out(executor, draft)
    assert shown["status"] == "completed", shown  # act time: no change.not_whole_days

    (event,) = icalendar.Calendar.from_ical(work.read_bytes()).walk("VEVENT")
    assert (event["DTSTART"].dt, event["DTEND"].dt) == (first, written_end)
    text = work.read_text(encoding="utf-8")
    assert f"DTSTART;VALUE=DATE:{first:%Y%m%d}" in text
    assert f"DTEND;VALUE=DATE:{written_end:%Y%m%d}" in text
