"""Whole local days of an all-day event at plan time (cerebri.calendars.change_days,
decision 0064). Each event is read with find_event from DATE values, and each expected UTC
instant is worked out by hand from the zone's offsets (Europe/Berlin +01:00 / +02:00,
America/New_York -05:00 / -04:00)."""

from __future__ import annotations

from datetime import date

import pytest
from icalendar import Calendar

from cerebri.calendars import find_event
from cerebri.calendars.change_days import all_day_end, all_day_search
from cerebri.calendars.changes import EventView
from cerebri.errors import CerebriError
from cerebri.temporal import Instant

DAY = 86_400


def _offsite(zone: str, first: str, end: str) -> EventView:
    text = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\n"
        "UID:off@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;VALUE=DATE:{first}\r\nDTEND;VALUE=DATE:{end}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    view = find_event(Calendar.from_ical(text), "off@example.org", floating_zone=zone)
    assert view is not None
    return view


@pytest.mark.parametrize(
    ("zone", "first", "days", "start", "end"),
    [
        # Sat 28 March 00:00 +01:00 to Mon 30 March 00:00 +02:00: 47 hours
        ("Europe/Berlin", "20260328", 2, "2026-03-27T23:00:00Z", "2026-03-29T22:00:00Z"),
        # Sat 24 October 00:00 +02:00 to Mon 26 October 00:00 +01:00: 49 hours
        ("Europe/Berlin", "20261024", 2, "2026-10-23T22:00:00Z", "2026-10-25T23:00:00Z"),
        # the change day alone: Sun 29 March, 23 hours
        ("Europe/Berlin", "20260329", 1, "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"),
        # Sat 7 March 00:00 -05:00 to Mon 9 March 00:00 -04:00: 47 hours
        ("America/New_York", "20260307", 2, "2026-03-07T05:00:00Z", "2026-03-09T04:00:00Z"),
        # Sat 31 October 00:00 -04:00 to Mon 2 November 00:00 -05:00: 49 hours
        ("America/New_York", "20261031", 2, "2026-10-31T04:00:00Z", "2026-11-02T05:00:00Z"),
    ],
)
def test_an_update_ends_at_the_local_midnight_days_later(
    zone: str, first: str, days: int, start: str, end: str
) -> None:
    following = date.fromordinal(date.fromisoformat(first).toordinal() + 1)
    view = _offsite(zone, first, f"{following:%Y%m%d}")  # one day as stored
    assert view.start == Instant.parse(start)
    assert all_day_end(view, days * DAY, zone) == Instant.parse(end)


def test_without_a_new_length_the_event_keeps_its_own_days() -> None:
    # stored as 28-30 March: two local days, 47 hours
    view = _offsite("Europe/Berlin", "20260328", "20260330")
    assert (view.end - view.start) // 1_000_000_000 == 47 * 3_600
    assert all_day_end(view, None, "Europe/Berlin") == view.end
    # a reschedule keeps the exact length: 47 hours fit no two 24-hour days
    window = (Instant.parse("2026-04-05T22:00:00Z"), Instant.parse("2026-04-12T22:00:00Z"))
    with pytest.raises(CerebriError, match="47 hours"):
        all_day_search("off", view, None, window, "Europe/Berlin")
    # two days in June search 2 x 86 400 s
    june = _offsite("Europe/Berlin", "20260601", "20260603")
    assert all_day_search("off", june, None, window, "Europe/Berlin") == 2 * DAY


@pytest.mark.parametrize(
    ("zone", "window", "day"),
    [
        ("Europe/Berlin", ("2026-03-26T23:00:00Z", "2026-04-02T22:00:00Z"), "2026-03-29"),
        ("Europe/Berlin", ("2026-10-22T22:00:00Z", "2026-10-29T23:00:00Z"), "2026-10-25"),
        ("America/New_York", ("2026-03-05T05:00:00Z", "2026-03-12T04:00:00Z"), "2026-03-08"),
        ("America/New_York", ("2026-10-29T04:00:00Z", "2026-11-05T05:00:00Z"), "2026-11-01"),
    ],
)
def test_a_reschedule_window_holding_a_change_day_is_refused(
    zone: str, window: tuple[str, str], day: str
) -> None:
    view = _offsite(zone, "20260601", "20260602")
    span = (Instant.parse(window[0]), Instant.parse(window[1]))
    with pytest.raises(CerebriError) as caught:
        all_day_search("off", view, None, span, zone)
    assert caught.value.code == "input.invalid_option"
    assert day in caught.value.message


def test_a_window_ending_at_the_change_days_midnight_is_searched() -> None:
    # 23-29 March 00:00 in Berlin: every day 24 hours, the 29th not touched
    window = (Instant.parse("2026-03-22T23:00:00Z"), Instant.parse("2026-03-28T23:00:00Z"))
    view = _offsite("Europe/Berlin", "20260601", "20260602")
    assert all_day_search("off", view, None, window, "Europe/Berlin") == DAY
