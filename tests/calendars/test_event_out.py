"""``slot_event`` and ``calendar_owner`` through the Python API (decision 0028)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from icalendar import Calendar

from cerebri.calendars import SlotEventError, SlotQuery, find_slot, slot_event
from cerebri.calendars.owners import calendar_owner, calendar_owners
from cerebri.clock import FakeClock
from cerebri.cpir import PlanningRequest, PlanningResult, parse_request
from cerebri.errors import InvalidArgumentError
from cerebri.ics import parse_calendar
from cerebri.temporal import Instant

BUSY = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:x
DTSTAMP:20260101T000000Z
DTSTART:20261005T090000Z
DTEND:20261005T100000Z
END:VEVENT
END:VCALENDAR
"""


def _answer(
    zone: str = "UTC", end: str = "2026-10-05T12:00:00Z"
) -> tuple[PlanningRequest, PlanningResult]:
    query = SlotQuery(Instant.parse("2026-10-05T09:00:00Z"), Instant.parse(end), 3600, zone=zone)
    request, result = find_slot([("c", parse_calendar(BUSY))], query)
    return parse_request(request), result


def test_utc_target_writes_utc_times_without_vtimezone() -> None:
    request, result = _answer()
    clock = FakeClock(Instant.parse("2026-10-01T00:00:00Z"))
    data = slot_event(request, result, title="T", dtstamp=clock.now())
    calendar = Calendar.from_ical(data)
    (event,) = calendar.walk("VEVENT")
    assert calendar.timezones == []
    assert event.start == datetime(2026, 10, 5, 10, tzinfo=UTC)  # first hour after x
    assert "TZID" not in event["DTSTART"].params
    assert "ORGANIZER" not in event and "ATTENDEE" not in event


def test_zone_and_organizer_not_repeated_as_attendee() -> None:
    request, result = _answer("America/New_York")
    data = slot_event(
        request,
        result,
        title="T",
        dtstamp=Instant.parse("2026-10-01T00:00:00Z"),
        organizer="mailto:a@example.com",
        attendees=["A@example.com", "b@example.com", "b@example.com"],
    )
    (event,) = Calendar.from_ical(data).walk("VEVENT")
    assert str(event["DTSTART"].params["TZID"]) == "America/New_York"
    assert event.start.hour == 6  # 10:00Z is 06:00 EDT
    assert str(event["ATTENDEE"]) == "mailto:b@example.com"


def test_refusals() -> None:
    request, result = _answer(end="2026-10-05T10:00:00Z")  # fully busy: no candidate
    stamp = Instant.parse("2026-10-01T00:00:00Z")
    with pytest.raises(SlotEventError) as none:
        slot_event(request, result, title="T", dtstamp=stamp)
    assert none.value.code == "calendars.no_candidate"
    request, result = _answer()
    with pytest.raises(SlotEventError) as bad:
        slot_event(request, result, pick=len(result.candidates) + 1, title="T", dtstamp=stamp)
    assert bad.value.code == "calendars.invalid_pick"
    for kwargs in ({"title": " "}, {"title": "T", "uid": ""}, {"title": "T", "organizer": "x"}):
        with pytest.raises(InvalidArgumentError) as wrong:
            slot_event(request, result, dtstamp=stamp, **kwargs)  # type: ignore[arg-type]
        assert wrong.value.code == "calendars.invalid_argument"


def _cal(head: str, body: str = "") -> str:
    return f"BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//EN\n{head}{body}END:VCALENDAR\n"


def _event(uid: str, *people: str) -> str:
    lines = "".join(f"{p}\n" for p in people)
    return (
        f"BEGIN:VEVENT\nUID:{uid}\nDTSTAMP:20260101T000000Z\n"
        f"DTSTART:20261005T090000Z\n{lines}END:VEVENT\n"
    )


@pytest.mark.parametrize(
    ("text", "owner"),
    [
        (
            _cal(
                "",
                "BEGIN:VFREEBUSY\nUID:f\nDTSTAMP:20260101T000000Z\n"
                "ORGANIZER;CN=Fay:mailto:fay@example.com\nEND:VFREEBUSY\n",
            ),
            "Fay <fay@example.com>",
        ),
        (_cal("X-WR-CALNAME:gus@example.com\n"), "gus@example.com"),
        (_cal("X-WR-CALNAME:Work\n"), None),
        (
            _cal(
                "",
                _event("1", "ORGANIZER:mailto:h@x.org", "ATTENDEE:mailto:i@x.org")
                + _event("2", "ATTENDEE:mailto:I@x.org")
                + _event("3"),
            ),
            "i@x.org",
        ),
        (_cal("", _event("1", "ORGANIZER:mailto:h@x.org", "ATTENDEE:mailto:i@x.org")), None),
    ],
)
def test_calendar_owner(text: str, owner: str | None) -> None:
    assert calendar_owner(parse_calendar(text)) == owner


def test_calendar_owners_keeps_order_and_skips_unknown() -> None:
    pairs = [
        ("z", parse_calendar(_cal("X-WR-CALNAME:z@example.com\n"))),
        ("n", parse_calendar(_cal(""))),
        ("a", parse_calendar(_cal("X-WR-CALNAME:a@example.com\n"))),
    ]
    assert list(calendar_owners(pairs).items()) == [("z", "z@example.com"), ("a", "a@example.com")]
    with pytest.raises(InvalidArgumentError):
        calendar_owner("not a calendar")  # type: ignore[arg-type]
