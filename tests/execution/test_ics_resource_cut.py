"""One rule cuts an event's calendar object resource out of an .ics file
(docs/decisions/0061): the ETag the planner puts into ``change.etag`` is the one the .ics
adapter computes from the file it reads back, and the adapter's copy shares nothing with
the file it was cut from. The expected digest is computed here with hashlib over the
resource built by hand: the file's properties, its VTIMEZONE, the events of that UID."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from icalendar import Calendar
from typer.testing import CliRunner

from cerebri.calendars.changes import resource_etag
from cerebri.cli import app
from cerebri.clock import FakeClock
from cerebri.execution.adapters._ics_resources import file_resource
from cerebri.execution.adapters.ics_file import IcsFileCalendar
from cerebri.temporal import Instant

TEXT = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nCALSCALE:GREGORIAN\r\n"
    "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n"
    "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n"
    "END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nTZOFFSETFROM:+0100\r\n"
    "TZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
    "END:VTIMEZONE\r\n"
    "BEGIN:VEVENT\r\nUID:other@x\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T080000\r\nDTEND;TZID=Europe/Berlin:20261005T090000\r\n"
    "SUMMARY:Other\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:sync@x\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:3\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T100000\r\nDTEND;TZID=Europe/Berlin:20261005T110000\r\n"
    "SUMMARY:Sync\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)


def _by_hand() -> str:
    """The resource of ``sync@x`` written out: the file without the other event."""
    start = TEXT.index("BEGIN:VEVENT\r\nUID:other@x")
    end = TEXT.index("BEGIN:VEVENT\r\nUID:sync@x")
    resource = Calendar.from_ical(TEXT[:start] + TEXT[end:])
    return "sha256:" + hashlib.sha256(resource.to_ical()).hexdigest()


def test_the_planner_and_the_adapter_cut_the_same_resource(tmp_path: Path) -> None:
    path = tmp_path / "alice.ics"
    path.write_text(TEXT, newline="")
    answer = CliRunner().invoke(
        app, ["cancel-event", "sync@x", "--ics", str(path), "--emit-request"]
    )
    assert answer.exit_code == 0, answer.output
    planned = json.loads(answer.stdout)["change"]["etag"]
    adapter = IcsFileCalendar({"alice": path}, FakeClock(Instant.parse("2026-10-01T00:00:00Z")))
    resource = adapter.read_resource("alice", "sync@x")
    assert resource is not None
    assert planned == resource_etag(resource) == _by_hand()
    assert adapter.read_resource("alice", "nobody@x") is None


def test_a_cut_resource_shares_nothing_with_the_file_calendar() -> None:
    calendar = Calendar.from_ical(TEXT)
    before = calendar.to_ical()
    resource = file_resource(calendar, "sync@x")
    assert resource is not None
    resource.walk("VEVENT")[0]["SUMMARY"] = "Changed"
    resource.walk("VTIMEZONE")[0]["TZID"] = "Elsewhere"
    assert calendar.to_ical() == before
    assert file_resource(calendar, "nobody@x") is None
