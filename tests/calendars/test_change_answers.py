"""When a change asks the attendees again (decision 0073; RFC 6638 section 3.2.8):
:func:`cerebri.calendars.changes.reschedules` compares a component as written with the same
instance before. Each case is written out by hand."""

from __future__ import annotations

import pytest
from icalendar import Calendar, Event

from cerebri.calendars.changes import reschedules

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//answers//EN\r\n"
MASTER = (
    "BEGIN:VEVENT\r\nUID:w@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
    "DTSTART;TZID=Europe/Berlin:20261005T100000\r\nDTEND;TZID=Europe/Berlin:20261005T110000\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Weekly\r\n{extra}END:VEVENT\r\n"
)


def _calendar(*events: str) -> Calendar:
    return Calendar.from_ical(HEAD + "".join(events) + "END:VCALENDAR\r\n")


def _event(text: str) -> Event:
    (event,) = _calendar(text).walk("VEVENT")
    return event


BEFORE = _calendar(MASTER.format(extra=""))
DURATION_MASTER = MASTER.replace("DTEND;TZID=Europe/Berlin:20261005T110000", "DURATION:PT1H")


@pytest.mark.parametrize(
    ("written", "moved"),
    [
        (MASTER.format(extra=""), False),  # the same
        (MASTER.format(extra="LOCATION:Room 2\r\n"), False),  # another property only
        (MASTER.format(extra="EXDATE;TZID=Europe/Berlin:20261012T100000\r\n"), False),
        # the same hour as a DURATION instead of DTEND
        (DURATION_MASTER.format(extra=""), False),
        (MASTER.replace("T100000\r\nDTEND", "T093000\r\nDTEND").format(extra=""), True),
        (MASTER.replace("T110000", "T113000").format(extra=""), True),  # longer
    ],
)
def test_the_master_is_compared_with_the_master(written: str, moved: bool) -> None:
    assert reschedules(_event(written), BEFORE) is moved


def _override(start: str, end: str) -> str:
    return (
        "BEGIN:VEVENT\r\nUID:w@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        "RECURRENCE-ID;TZID=Europe/Berlin:20261012T100000\r\n"
        f"DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n"
        "SUMMARY:Weekly\r\nEND:VEVENT\r\n"
    )


@pytest.mark.parametrize(
    ("start", "end", "moved"),
    [
        ("20261012T100000", "20261012T110000", False),  # a retitled instance: where it was
        ("20261012T140000", "20261012T150000", True),  # moved
        ("20261012T100000", "20261012T103000", True),  # shorter
    ],
)
def test_a_new_override_is_compared_with_the_instance_it_replaces(
    start: str, end: str, moved: bool
) -> None:
    assert reschedules(_event(_override(start, end)), BEFORE) is moved


def test_an_override_is_compared_with_the_override_it_replaces() -> None:
    before = _calendar(MASTER.format(extra=""), _override("20261012T140000", "20261012T150000"))
    same = _event(_override("20261012T140000", "20261012T150000"))
    back = _event(_override("20261012T100000", "20261012T110000"))
    assert reschedules(same, before) is False
    assert reschedules(back, before) is True  # moved back to the series' time: moved again


def test_an_instance_the_series_did_not_have_and_a_first_copy_are_new() -> None:
    other = _override("20261013T100000", "20261013T110000").replace(
        "20261012T100000", "20261013T100000"
    )  # a Tuesday: no instance of the Monday series
    assert reschedules(_event(other), BEFORE) is True
    assert reschedules(_event(MASTER.format(extra="")), None) is True


def test_all_day_dates_are_compared_as_dates() -> None:
    day = (
        "BEGIN:VEVENT\r\nUID:d@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART;VALUE=DATE:20261210\r\n{end}SUMMARY:Offsite\r\nEND:VEVENT\r\n"
    )
    before = _calendar(day.format(end="DTEND;VALUE=DATE:20261212\r\n"))
    assert reschedules(_event(day.format(end="DURATION:P2D\r\n")), before) is False
    assert reschedules(_event(day.format(end="DTEND;VALUE=DATE:20261211\r\n")), before) is True
