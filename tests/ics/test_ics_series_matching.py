"""EXDATE and RECURRENCE-ID name instances by instant; repeated UIDs keep their busy time.

Expected answers are worked out by hand in each test: Europe/Berlin is UTC+2 until
2026-10-25 (CEST), America/New_York UTC-4 (EDT) until 2026-11-01.
"""

from __future__ import annotations

from datetime import UTC, datetime

import icalendar
import recurring_ical_events

from cerebri.calendars.query import event_objects
from cerebri.ics import busy_periods, calendar_warnings, parse_calendar
from tests.ics.helpers import calendar, span, spans, utc, vevent

WINDOW = span("2026-10-04 00:00", "2026-10-09 00:00")
DAILY_BERLIN = (
    "DTSTART;TZID=Europe/Berlin:20261001T110000",  # 09:00Z every day
    "DURATION:PT1H",
    "RRULE:FREQ=DAILY;COUNT=10",
)


def hour(day: int, at: int = 9) -> tuple[object, object]:
    return utc(f"2026-10-{day:02d} {at:02d}:00"), utc(f"2026-10-{day:02d} {at + 1:02d}:00")


def codes(text: str) -> list[tuple[str, str | None, int | None]]:
    parsed = parse_calendar(text)
    busy_periods(parsed, *WINDOW)
    return [(w.code, w.uid, w.line) for w in calendar_warnings(parsed)]


def test_exdate_in_another_zone_removes_only_the_instance_at_that_instant() -> None:
    # 11:00 New York is 15:00Z: no instance there, so nothing is removed. 05:00 New York
    # is 09:00Z: that instance goes.
    text = calendar(
        vevent(
            *DAILY_BERLIN,
            "EXDATE;TZID=America/New_York:20261005T110000",
            "EXDATE;TZID=America/New_York:20261007T050000",
            uid="s",
        )
    )
    busy = busy_periods(parse_calendar(text), *WINDOW)
    assert spans(busy) == [hour(4), hour(5), hour(6), hour(8)]


def test_utc_and_floating_exdates() -> None:
    # 09:00Z is the 11:00 Berlin instance; a floating 11:00 is read in the series' zone.
    text = calendar(
        vevent(*DAILY_BERLIN, "EXDATE:20261005T090000Z", "EXDATE:20261006T110000", uid="s")
    )
    busy = busy_periods(parse_calendar(text), *WINDOW)
    assert spans(busy) == [hour(4), hour(7), hour(8)]


def test_override_in_another_zone_replaces_only_the_instance_it_names() -> None:
    # RECURRENCE-ID 11:00 New York (15:00Z) names no instance: the 09:00Z instance stays and
    # the override stands on its own at 13:00Z. 05:00 New York (09:00Z) on the 7th names
    # the instance of that day, which moves to 12:00Z.
    text = calendar(
        vevent(*DAILY_BERLIN, uid="s"),
        vevent(
            "RECURRENCE-ID;TZID=America/New_York:20261005T110000",
            "DTSTART:20261005T130000Z",
            "DURATION:PT1H",
            uid="s",
        ),
        vevent(
            "RECURRENCE-ID;TZID=America/New_York:20261007T050000",
            "DTSTART:20261007T120000Z",
            "DURATION:PT1H",
            uid="s",
        ),
    )
    busy = busy_periods(parse_calendar(text), *WINDOW)
    assert spans(busy) == [hour(4), hour(5), hour(5, 13), hour(6), hour(7, 12), hour(8)]
    assert busy[2].recurrence_id == "20261005T150000Z"
    assert busy[4].recurrence_id == "20261007T090000Z"


def test_override_does_not_swallow_the_instance_whose_utc_time_equals_its_local_time() -> None:
    # Hourly in Berlin: the override names 09:00 Berlin (07:00Z). The library also took the
    # 11:00 Berlin instance (09:00Z) for it and dropped that instance.
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20261005T080000",
            "DURATION:PT30M",
            "RRULE:FREQ=HOURLY;COUNT=5",
            uid="h",
        ),
        vevent(
            "RECURRENCE-ID;TZID=Europe/Berlin:20261005T090000",
            "DTSTART:20261005T071500Z",
            "DURATION:PT30M",
            uid="h",
        ),
    )
    busy = busy_periods(parse_calendar(text), *WINDOW)
    assert [p.start for p in busy] == [
        utc("2026-10-05 06:00"),
        utc("2026-10-05 07:15"),
        utc("2026-10-05 08:00"),
        utc("2026-10-05 09:00"),
        utc("2026-10-05 10:00"),
    ]


def test_this_and_future_matched_by_instant() -> None:
    # RANGE=THISANDFUTURE at 05:00 New York = 09:00Z on the 6th: that and later instances
    # move two hours later; 11:00 New York would name nothing.
    text = calendar(
        vevent(*DAILY_BERLIN, uid="s"),
        vevent(
            "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=America/New_York:20261006T050000",
            "DTSTART:20261006T110000Z",
            "DURATION:PT1H",
            uid="s",
        ),
    )
    parsed = parse_calendar(text)
    busy = busy_periods(parsed, *WINDOW)
    assert spans(busy) == [hour(4), hour(5), hour(6, 11), hour(7, 11), hour(8, 11)]
    assert [p.recurrence_id for p in busy][2:] == [
        "20261006T090000Z",
        "20261007T090000Z",
        "20261008T090000Z",
    ]
    assert calendar_warnings(parsed) == ()


def test_unmatched_values_are_reported_with_uid_and_line_whatever_the_window() -> None:
    text = calendar(
        vevent(*DAILY_BERLIN, "EXDATE;TZID=America/New_York:20261005T110000", uid="s"),
        vevent(
            "RECURRENCE-ID;TZID=America/New_York:20261006T110000",
            "DTSTART:20261006T150000Z",
            "DURATION:PT1H",
            uid="s",
        ),
    )
    # lines: 4 BEGIN, 5 UID, 6 DTSTAMP, 7-9 series, 10 EXDATE; 12 BEGIN, 15 RECURRENCE-ID
    expected = [("ics.unmatched_exdate", "s", 10), ("ics.unmatched_recurrence_id", "s", 15)]
    assert codes(text) == expected
    far = parse_calendar(text)
    busy_periods(far, *span("2030-01-01 00:00", "2030-01-02 00:00"))
    assert [(w.code, w.uid, w.line) for w in calendar_warnings(far)] == expected


def test_matching_values_are_not_reported() -> None:
    text = calendar(
        vevent(*DAILY_BERLIN, "EXDATE:20261005T090000Z", uid="s"),
        vevent(
            "RECURRENCE-ID;TZID=America/New_York:20261006T050000",
            "DTSTART:20261006T150000Z",
            "DURATION:PT1H",
            uid="s",
        ),
    )
    assert codes(text) == []


def test_all_day_exdate_matches_by_date() -> None:
    text = calendar(
        vevent(
            "DTSTART;VALUE=DATE:20261001",
            "RRULE:FREQ=DAILY;COUNT=10",
            "EXDATE;VALUE=DATE:20261005",
            "EXDATE;VALUE=DATE:20261020",
            uid="d",
        )
    )
    parsed = parse_calendar(text)
    busy = busy_periods(parsed, *WINDOW)
    assert [p.recurrence_id for p in busy] == ["20261004", "20261006", "20261007", "20261008"]
    assert [w.code for w in calendar_warnings(parsed)] == ["ics.unmatched_exdate"]


# --- several components with one UID and no RECURRENCE-ID ----------------------------------


def test_two_events_with_one_uid_are_both_busy_and_reported() -> None:
    text = calendar(
        vevent("DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", uid="dup"),
        vevent("DTSTART:20261005T140000Z", "DTEND:20261005T150000Z", uid="dup"),
    )
    parsed = parse_calendar(text)
    busy = busy_periods(parsed, *WINDOW)
    assert spans(busy) == [hour(5), hour(5, 14)]
    # lines: 4-9 the first VEVENT, 10 the BEGIN of the second
    assert [(w.code, w.uid, w.line) for w in calendar_warnings(parsed)] == [
        ("ics.duplicate_uid", "dup", 10)
    ]
    objects = event_objects([("cal", busy)], "UTC")
    assert len(objects) == 2


def test_two_series_with_one_uid_both_expand() -> None:
    text = calendar(
        vevent("DTSTART:20261005T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=2", uid="d"),
        vevent("DTSTART:20261005T140000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=2", uid="d"),
    )
    busy = busy_periods(parse_calendar(text), *WINDOW)
    assert spans(busy) == [hour(5), hour(5, 14), hour(6), hour(6, 14)]


def test_a_higher_sequence_is_an_update_not_a_second_event() -> None:
    text = calendar(
        vevent("DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", "SEQUENCE:1", uid="u"),
        vevent("DTSTART:20261005T140000Z", "DTEND:20261005T150000Z", "SEQUENCE:2", uid="u"),
    )
    parsed = parse_calendar(text)
    busy = busy_periods(parsed, *WINDOW)
    assert spans(busy) == [hour(5, 14)]
    assert calendar_warnings(parsed) == ()


def test_identical_copies_give_one_busy_period_and_a_warning() -> None:
    event = vevent("DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", uid="twice")
    parsed = parse_calendar(calendar(event, event))
    assert spans(busy_periods(parsed, *WINDOW)) == [hour(5)]
    assert [w.code for w in calendar_warnings(parsed)] == ["ics.duplicate_uid"]


# --- what recurring-ical-events does today (a library fix shows up here) -------------------


def library_starts(text: str) -> list[datetime]:
    found = recurring_ical_events.of(icalendar.Calendar.from_ical(text)).between(
        datetime(2026, 10, 4, tzinfo=UTC), datetime(2026, 10, 9, tzinfo=UTC)
    )
    return sorted(event["DTSTART"].dt.astimezone(UTC) for event in found)


def test_library_compares_exdate_wall_times_across_zones() -> None:
    text = calendar(vevent(*DAILY_BERLIN, "EXDATE;TZID=America/New_York:20261005T110000"))
    day = [datetime(2026, 10, d, 9, tzinfo=UTC) for d in (4, 5, 6, 7, 8)]
    assert library_starts(text) == [day[0], *day[2:]]  # 11:00 New York removed 09:00Z
    assert [p.start.to_datetime() for p in busy_periods(parse_calendar(text), *WINDOW)] == day


def test_library_lets_one_override_swallow_another_instance() -> None:
    text = calendar(
        vevent(
            "DTSTART;TZID=Europe/Berlin:20261005T080000",
            "DURATION:PT30M",
            "RRULE:FREQ=HOURLY;COUNT=5",
        ),
        vevent(
            "RECURRENCE-ID;TZID=Europe/Berlin:20261005T090000",
            "DTSTART:20261005T071500Z",
            "DURATION:PT30M",
        ),
    )
    # 06:00Z, the override at 07:15Z, 08:00Z, [09:00Z lost], 10:00Z
    assert len(library_starts(text)) == 4
    assert len(busy_periods(parse_calendar(text), *WINDOW)) == 5


def test_library_keeps_only_the_first_of_two_events_with_one_uid() -> None:
    text = calendar(
        vevent("DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", uid="dup"),
        vevent("DTSTART:20261005T140000Z", "DTEND:20261005T150000Z", uid="dup"),
    )
    assert library_starts(text) == [datetime(2026, 10, 5, 9, tzinfo=UTC)]
    assert len(busy_periods(parse_calendar(text), *WINDOW)) == 2
