"""Attendee hours that cross midnight (``--hours bob=22:00-06:00@ZONE``,
docs/decisions/0067): a day's hours open on that local day and close on the next.

The week is Thursday 2026-10-22 to Thursday 2026-10-29 (UTC), across the EU's return to
standard time on Sunday 2026-10-25 (Berlin: UTC+2 before, UTC+1 after). Every instant
below was worked out by hand from those offsets and is written as a UTC literal: Bob works
Mon-Fri 22:00-06:00 Berlin time, so a Thursday shift is 20:00Z-04:00Z before the change
and a Monday shift 21:00Z-05:00Z after it.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cerebri.calendars import AttendeeHours
from cerebri.calendars.attendee_hours import parse_hours
from cerebri.calendars.change_body import read_change_body
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.closed_time import Hours, closed_spans
from cerebri.cli import app
from cerebri.errors import CerebriError
from cerebri.temporal import Instant, Interval

WEEKDAYS = frozenset(range(5))


def _z(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# Bob's closed time (Mon-Fri 22:00-06:00 Europe/Berlin), by hand. The first span starts at
# Wednesday 06:00 CEST (Tuesday's shift ends then), not at Wednesday's midnight.
CLOSED = [
    ("2026-10-21T04:00Z", "2026-10-21T20:00Z"),  # Wed 06:00-22:00 CEST
    ("2026-10-22T04:00Z", "2026-10-22T20:00Z"),  # Thu
    ("2026-10-23T04:00Z", "2026-10-23T20:00Z"),  # Fri
    ("2026-10-24T04:00Z", "2026-10-26T21:00Z"),  # Sat 06:00 CEST - Mon 22:00 CET (65 h)
    ("2026-10-27T05:00Z", "2026-10-27T21:00Z"),  # Tue 06:00-22:00 CET
    ("2026-10-28T05:00Z", "2026-10-28T21:00Z"),  # Wed
    ("2026-10-29T05:00Z", "2026-10-29T21:00Z"),  # Thu
]
# The open shifts inside the window [22T00:00Z, 29T00:00Z), by hand.
OPEN = [
    ("2026-10-22T00:00Z", "2026-10-22T04:00Z"),  # Wednesday's shift, from the window start
    ("2026-10-22T20:00Z", "2026-10-23T04:00Z"),  # Thu 22:00 CEST - Fri 06:00 CEST
    ("2026-10-23T20:00Z", "2026-10-24T04:00Z"),  # Fri - Sat morning
    ("2026-10-26T21:00Z", "2026-10-27T05:00Z"),  # Mon 22:00 CET - Tue 06:00 CET
    ("2026-10-27T21:00Z", "2026-10-28T05:00Z"),
    ("2026-10-28T21:00Z", "2026-10-29T00:00Z"),  # Wednesday's shift, to the window end
]
WINDOW = ("2026-10-22T00:00Z", "2026-10-29T00:00Z")


def _ns(text: str) -> int:
    return Instant.from_datetime(_z(text)).ns


def test_closed_time_of_overnight_hours_across_a_dst_change() -> None:
    window = Interval(_ns(WINDOW[0]), _ns(WINDOW[1]))
    rule = Hours("Europe/Berlin", (time(22), time(6)), WEEKDAYS)
    assert closed_spans(window, rule) == [Interval(_ns(a), _ns(b)) for a, b in CLOSED]


def test_overnight_hours_every_day_close_the_day_between_two_shifts() -> None:
    window = Interval(_ns("2026-10-24T00:00Z"), _ns("2026-10-26T00:00Z"))
    spans = closed_spans(window, Hours("Europe/Berlin", (time(22), time(6)), None))
    # Fri 23 to Mon 26 local: each day closed 06:00-22:00, CEST until Sunday's 03:00.
    assert spans == [
        Interval(_ns(a), _ns(b))
        for a, b in [
            ("2026-10-23T04:00Z", "2026-10-23T20:00Z"),
            ("2026-10-24T04:00Z", "2026-10-24T20:00Z"),
            ("2026-10-25T05:00Z", "2026-10-25T21:00Z"),  # 06:00 CET: 8 h after 22:00 CEST
            ("2026-10-26T05:00Z", "2026-10-26T21:00Z"),
        ]
    ]


def test_the_text_form_reads_overnight_hours() -> None:
    entry = parse_hours("bob=Mon-Fri 22:00-06:00@Asia/Tokyo", default_zone="UTC")
    assert entry == AttendeeHours("bob", "Asia/Tokyo", time(22), time(6), WEEKDAYS)
    assert entry.overnight
    assert not parse_hours("bob=09:00-17:00", default_zone="UTC").overnight
    to_midnight = parse_hours("bob=18:00-00:00", default_zone="UTC")
    assert (to_midnight.start, to_midnight.end) == (time(18), time(0))
    with pytest.raises(ValueError, match="must not end when they start"):
        parse_hours("bob=06:00-06:00", default_zone="UTC")


def _calendar(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.ics"
    path.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:{name}-old@test\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART:20260101T000000Z\r\nDTEND:20260101T010000Z\r\nSUMMARY:old\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n",
        newline="",
    )
    return path


def test_find_slot_offers_only_starts_inside_the_overnight_shifts(tmp_path: Path) -> None:
    args = [
        "find-slot",
        "--ics",
        str(_calendar(tmp_path, "alice")),
        "--ics",
        str(_calendar(tmp_path, "bob")),
        "--between",
        f"{WINDOW[0]}/{WINDOW[1]}".replace("Z", ""),
        "--duration",
        "1h",
        "--granularity",
        "1h",
        "--hours",
        "bob=Mon-Fri 22:00-06:00@Europe/Berlin",
        "--top",
        "0",
    ]
    answer = CliRunner().invoke(app, [*args, "--json"])
    assert answer.exit_code == 0, answer.output
    starts = sorted(c["start"] for c in json.loads(answer.stdout)["candidates"])
    expected = []
    for begin, end in OPEN:
        moment = _z(begin)
        while moment + timedelta(hours=1) <= _z(end):
            expected.append(f"{moment.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}")
            moment += timedelta(hours=1)
    assert len(expected) == 4 + 8 + 8 + 8 + 8 + 3
    assert starts == expected
    emitted = CliRunner().invoke(app, [*args, "--emit-request"])
    assert emitted.exit_code == 0, emitted.output
    ids = [o["id"] for o in json.loads(emitted.stdout)["context"]["objects"]]
    assert "outside-working-hours-bob-2026-10-24T0600-2026-10-26T2200" in ids


def test_the_http_and_bridge_bodies_take_overnight_hours(tmp_path: Path) -> None:
    text = _calendar(tmp_path, "bob").read_text()
    body = {
        "uid": "bob-old@test",
        "calendars": [{"id": "bob", "ics": text}],
        "between": "2026-10-22T00:00/2026-10-29T00:00",
        "hours": ["bob=Mon-Fri 22:00-06:00@Europe/Berlin"],
    }
    question = read_change_body(ChangeOperation.RESCHEDULE, json.dumps(body).encode())
    assert question.ask.attendee_hours == (
        AttendeeHours("bob", "Europe/Berlin", time(22), time(6), WEEKDAYS),
    )
    body["hours"] = ["bob=06:00-06:00"]
    with pytest.raises(CerebriError, match="must not end when they start") as caught:
        read_change_body(ChangeOperation.RESCHEDULE, json.dumps(body).encode())
    assert caught.value.path == "/hours/0"
