"""``find-slot --ics-out``: the picked slot as an .ics invitation that imports back busy
(docs/decisions/0028-an-event-out.md)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from icalendar import Calendar
from typer.testing import CliRunner, Result

from cerebri.cli import app
from cerebri.ics import busy_periods, parse_calendar
from cerebri.temporal import Instant

BERLIN = ZoneInfo("Europe/Berlin")
AT = "2026-10-01T07:30:00Z"
WINDOW = "2026-10-05T09:00/2026-10-05T13:00"  # Berlin local (UTC+2)
ERROR_LINE = re.compile(r"error (?P<code>[a-z_]+\.[a-z_]+)(?: at \S+)?: .+\n")

# alice: 09:00-10:00 and 10:30-11:00 Berlin; bob: 10:00-10:30 Berlin (written in UTC)
ALICE = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:a1
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20261005T090000
DTEND;TZID=Europe/Berlin:20261005T100000
SUMMARY:standup
ORGANIZER;CN=Alice:mailto:alice@example.com
ATTENDEE:mailto:dan@example.com
END:VEVENT
BEGIN:VEVENT
UID:a2
DTSTAMP:20260101T000000Z
DTSTART;TZID=Europe/Berlin:20261005T103000
DTEND;TZID=Europe/Berlin:20261005T110000
SUMMARY:review
ORGANIZER:mailto:erin@example.com
ATTENDEE:mailto:ALICE@example.com
END:VEVENT
END:VCALENDAR
"""
BOB = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
X-WR-CALNAME:bob@example.com
BEGIN:VEVENT
UID:b1
DTSTAMP:20260101T000000Z
DTSTART:20261005T080000Z
DTEND:20261005T083000Z
SUMMARY:dentist
END:VEVENT
END:VCALENDAR
"""
BUSY = [  # every busy interval above, in UTC
    (datetime(2026, 10, 5, 7, tzinfo=UTC), datetime(2026, 10, 5, 8, tzinfo=UTC)),
    (datetime(2026, 10, 5, 8, 30, tzinfo=UTC), datetime(2026, 10, 5, 9, tzinfo=UTC)),
    (datetime(2026, 10, 5, 8, tzinfo=UTC), datetime(2026, 10, 5, 8, 30, tzinfo=UTC)),
]


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args])


def error_code(result: Result) -> str:
    match = ERROR_LINE.fullmatch(result.stderr)
    assert match is not None, result.stderr
    return match["code"]


def free_starts(busy: list[tuple[datetime, datetime]], minutes: int) -> list[datetime]:
    """Brute force: every 15-minute start in the window whose meeting touches no busy time."""
    start = datetime(2026, 10, 5, 9, tzinfo=BERLIN)
    end = datetime(2026, 10, 5, 13, tzinfo=BERLIN)
    length = timedelta(minutes=minutes)
    found, moment = [], start
    while moment + length <= end:
        if all(moment + length <= b or moment >= e for b, e in busy):
            found.append(moment.astimezone(UTC))
        moment += timedelta(minutes=15)
    return found


@pytest.fixture
def cals(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "alice.ics").write_text(ALICE)
    (tmp_path / "bob.ics").write_text(BOB)
    return {"alice": tmp_path / "alice.ics", "bob": tmp_path / "bob.ics", "tmp": tmp_path}


def find(cals: dict[str, Path], *extra: str | Path) -> Result:
    base = ["find-slot", "--ics", cals["alice"], "--ics", cals["bob"], "--between", WINDOW]
    return run(*base, "--tz", "Europe/Berlin", "--duration", "45m", *extra)


def only_event(data: bytes) -> Calendar:
    calendar = Calendar.from_ical(data)
    assert len(calendar.walk("VEVENT")) == 1
    return calendar


def test_writes_the_first_candidate_as_a_request(cals: dict[str, Path]) -> None:
    out = cals["tmp"] / "meeting.ics"
    result = find(cals, "--ics-out", out, "--at", AT, "--title", "Planning")
    assert result.exit_code == 0, result.output
    calendar = only_event(out.read_bytes())
    (event,) = calendar.walk("VEVENT")
    first = free_starts(BUSY, 45)[0]
    assert first == datetime(2026, 10, 5, 9, tzinfo=UTC)  # 11:00 Berlin, after the review
    assert str(calendar["METHOD"]) == "REQUEST"
    assert event.start == first and event.end == first + timedelta(minutes=45)
    assert str(event["DTSTART"].params["TZID"]) == "Europe/Berlin"
    assert event.start.utcoffset() == timedelta(hours=2)  # local time, not UTC
    assert [tz.tz_name for tz in calendar.timezones] == ["Europe/Berlin"]
    assert event.decoded("DTSTAMP") == datetime(2026, 10, 1, 7, 30, tzinfo=UTC)
    assert str(event["SUMMARY"]) == "Planning"
    assert str(event["ORGANIZER"]) == "mailto:alice@example.com"  # owner of the first file
    attendees = event["ATTENDEE"] if isinstance(event["ATTENDEE"], list) else [event["ATTENDEE"]]
    assert [str(a) for a in attendees] == ["mailto:bob@example.com"]
    assert str(event["TRANSP"]) == "OPAQUE"
    plan = json.loads(find(cals, "--json").stdout)["candidates"][0]["proposed"]["id"]
    assert str(event["UID"]) == "cerebri-" + plan.removeprefix("p-")


def test_the_written_event_imports_back_as_one_busy_period(cals: dict[str, Path]) -> None:
    out = cals["tmp"] / "meeting.ics"
    assert find(cals, "--ics-out", out, "--at", AT).exit_code == 0
    first = free_starts(BUSY, 45)[0]
    parsed = parse_calendar(out.read_text(), source="meeting.ics")
    window = (Instant.parse("2026-10-05T00:00:00Z"), Instant.parse("2026-10-06T00:00:00Z"))
    periods = busy_periods([parsed], *window)
    assert [(p.start, p.end) for p in periods] == [
        (Instant.from_datetime(first), Instant.from_datetime(first + timedelta(minutes=45)))
    ]
    again = find(cals, "--ics", out, "--json")
    assert again.exit_code == 0, again.output
    starts = [c["start"] for c in json.loads(again.stdout)["candidates"]]
    busy = [*BUSY, (first, first + timedelta(minutes=45))]
    expected = [s.strftime("%Y-%m-%dT%H:%M:%SZ") for s in free_starts(busy, 45)]
    assert starts == expected
    assert Instant.from_datetime(first).format() not in starts


def test_pick_chooses_a_later_candidate_and_bytes_repeat(cals: dict[str, Path]) -> None:
    one, two = cals["tmp"] / "one.ics", cals["tmp"] / "two.ics"
    for path in (one, two):
        assert find(cals, "--ics-out", path, "--pick", "3", "--at", AT).exit_code == 0
    assert one.read_bytes() == two.read_bytes()
    (event,) = only_event(one.read_bytes()).walk("VEVENT")
    assert event.start == free_starts(BUSY, 45)[2]
    assert str(event["SUMMARY"]) == "Meeting"


def test_create_title_uid_and_extra_attendees(cals: dict[str, Path]) -> None:
    out = cals["tmp"] / "m.ics"
    result = find(
        cals,
        *("--create", "Sync", "--ics-out", out, "--uid", "sync-1@example.com", "--at", AT),
        *("--attendee", "Carol <carol@example.com>", "--organizer", "bob@example.com"),
    )
    assert result.exit_code == 0, result.output
    (event,) = only_event(out.read_bytes()).walk("VEVENT")
    assert str(event["SUMMARY"]) == "Sync"
    assert str(event["UID"]) == "sync-1@example.com"
    assert str(event["ORGANIZER"]) == "mailto:bob@example.com"
    people = [(str(a), a.params.get("CN")) for a in event["ATTENDEE"]]
    assert people == [("mailto:alice@example.com", "Alice"), ("mailto:carol@example.com", "Carol")]


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        (("--pick", "99"), "calendars.invalid_pick"),
        (("--pick", "0"), "calendars.invalid_pick"),
        (("--duration", "5h"), "calendars.no_candidate"),
        (("--attendee", "nobody"), "input.invalid_option"),
        (("--uid", "has space"), "input.invalid_option"),
        (("--at", "yesterday"), "input.invalid_option"),
    ],
)
def test_refusals_write_nothing(cals: dict[str, Path], extra: tuple[str, ...], code: str) -> None:
    out = cals["tmp"] / "m.ics"
    result = find(cals, "--ics-out", out, *extra)
    assert result.exit_code != 0
    assert error_code(result) == code
    assert not out.exists()


@pytest.mark.parametrize("option", [("--pick", "2"), ("--title", "x"), ("--attendee", "a@b.c")])
def test_event_options_need_ics_out(cals: dict[str, Path], option: tuple[str, str]) -> None:
    result = find(cals, *option)
    assert error_code(result) == "input.invalid_option"
    assert option[0] in result.stderr
