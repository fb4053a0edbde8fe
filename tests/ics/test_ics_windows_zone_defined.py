"""A Windows zone name that the file defines with its own ``VTIMEZONE`` is read by that
definition (RFC 5545 section 3.6.5); the CLDR table maps only names the file does not define
(issue 21 item 13, docs/decisions/0037).

Expected instants are worked out by hand: 10:00 at a fixed +05:00 is 05:00Z; 10:00 in
Pacific/Auckland on 2024-01-05 (NZDT, +13:00) is 2024-01-04 21:00Z.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from cerebri.ics import BusyPeriod, busy_periods, parse_calendar
from tests.ics.helpers import calendar, span, spans, utc, vevent

NZ = "New Zealand Standard Time"
JANUARY = (utc("2024-01-01 00:00"), utc("2024-02-01 00:00"))
EVENT = vevent(f"DTSTART;TZID={NZ}:20240105T100000", f"DTEND;TZID={NZ}:20240105T110000")
FIXED_PLUS_FIVE = "\n".join(
    [
        "BEGIN:VTIMEZONE",
        f"TZID:{NZ}",
        "BEGIN:STANDARD",
        "DTSTART:16010101T000000",
        "TZOFFSETFROM:+0500",
        "TZOFFSETTO:+0500",
        "TZNAME:FIVE",
        "END:STANDARD",
        "END:VTIMEZONE",
    ]
)


def _busy(text: str) -> tuple[BusyPeriod, ...]:
    return busy_periods([parse_calendar(text, source="inline.ics")], *JANUARY)


def test_the_files_own_vtimezone_defines_a_windows_name() -> None:
    assert spans(_busy(calendar(FIXED_PLUS_FIVE, EVENT))) == [
        span("2024-01-05 05:00", "2024-01-05 06:00")
    ]


def test_a_vtimezone_after_the_events_still_defines_the_name() -> None:
    assert spans(_busy(calendar(EVENT, FIXED_PLUS_FIVE))) == [
        span("2024-01-05 05:00", "2024-01-05 06:00")
    ]


def test_without_a_vtimezone_the_windows_name_is_pacific_auckland() -> None:
    auckland = ZoneInfo("Pacific/Auckland")
    start = datetime(2024, 1, 5, 10, tzinfo=auckland).astimezone(ZoneInfo("UTC"))
    assert start.isoformat() == "2024-01-04T21:00:00+00:00"  # NZDT, +13:00
    assert spans(_busy(calendar(EVENT))) == [span("2024-01-04 21:00", "2024-01-04 22:00")]


def test_an_iana_name_still_uses_tzdata_over_an_embedded_copy() -> None:
    # An IANA name is complete in tzdata; a file's copy is often truncated (decision 0009).
    berlin = FIXED_PLUS_FIVE.replace(f"TZID:{NZ}", "TZID:Europe/Berlin")
    event = vevent("DTSTART;TZID=Europe/Berlin:20240105T100000", "DURATION:PT1H")
    assert spans(_busy(calendar(berlin, event))) == [span("2024-01-05 09:00", "2024-01-05 10:00")]
