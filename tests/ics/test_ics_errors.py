"""Malformed calendars give a typed ``CalendarError`` with code, UID and line; never a
traceback of another type and never silently free time."""

from __future__ import annotations

import pytest

from cerebri.errors import CerebriError
from cerebri.ics import CODES, CalendarError, busy_periods, parse_calendar, working_periods
from cerebri.ics.budget import WALK_FACTOR
from tests.ics.helpers import calendar, utc, vevent

WINDOW = (utc("2024-01-01 00:00"), utc("2025-01-01 00:00"))


def expand_text(text: str | bytes, *, max_occurrences: int = 100_000) -> None:
    busy_periods([parse_calendar(text, source="bad.ics")], *WINDOW, max_occurrences=max_occurrences)


def failure(text: str | bytes, *, max_occurrences: int = 100_000) -> CalendarError:
    with pytest.raises(CalendarError) as caught:
        expand_text(text, max_occurrences=max_occurrences)
    return caught.value


# Line numbers below count the lines written by calendar()/vevent(): 1 BEGIN:VCALENDAR,
# 2 VERSION, 3 PRODID, 4 BEGIN:VEVENT, 5 UID, 6 DTSTAMP, then the event's properties from 7.


def test_truncated_file_names_the_open_event() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", uid="cut"))
    truncated = text[: text.index("END:VEVENT")]
    error = failure(truncated)
    assert (error.code, error.uid, error.line, error.source) == ("ics.syntax", "cut", 4, "bad.ics")
    assert "truncated" in error.message


def test_truncated_in_the_middle_of_a_line() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", uid="cut"))
    error = failure(text[: text.index("DTSTART") + 12])  # "DTSTART:2024"
    assert (error.code, error.uid, error.line) == ("ics.syntax", "cut", 4)


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("FREQ=SOMETIMES", "frequency"),
        ("COUNT=3", "FREQ"),
        ("FREQ=DAILY;COUNT=0", "COUNT"),
        ("FREQ=DAILY;INTERVAL=0", "INTERVAL"),
        ("FREQ=DAILY;BYMONTH=13", "BYMONTH"),
        ("FREQ=WEEKLY;BYDAY=XX", "weekday"),
        ("FREQ=DAILY;COUNT=2;UNTIL=20240301T000000Z", "UNTIL"),
    ],
)
def test_bad_rrule(rule: str, why: str) -> None:
    error = failure(calendar(vevent("DTSTART:20240105T100000Z", f"RRULE:{rule}", uid="rr")))
    assert (error.code, error.uid, error.line) == ("ics.invalid_rrule", "rr", 8)
    assert why in error.message


def test_unknown_tzid() -> None:
    text = calendar(vevent("SUMMARY:x", "DTSTART;TZID=Mars/Olympus_Mons:20240105T100000", uid="tz"))
    with pytest.raises(CalendarError) as caught:
        parse_calendar(text)
    error = caught.value
    assert (error.code, error.uid, error.line) == ("ics.unknown_timezone", "tz", 8)
    assert "Mars/Olympus_Mons" in error.message


def test_unknown_tzid_on_an_exdate() -> None:
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "RRULE:FREQ=DAILY;COUNT=3",
            "EXDATE;TZID=Nowhere:20240106T100000",
            uid="ex",
        )
    )
    error = failure(text)
    assert (error.code, error.uid, error.line) == ("ics.unknown_timezone", "ex", 9)


def test_unknown_tzid_in_a_calendar_built_in_code() -> None:
    # icalendar alone reads the unknown TZID as a floating time; busy_periods refuses it
    import icalendar

    raw = calendar(vevent("DTSTART;TZID=Atlantis/Capital:20240105T100000", uid="built"))
    built = icalendar.Calendar.from_ical(raw)
    assert built.walk("VEVENT")[0]["DTSTART"].dt.tzinfo is None
    with pytest.raises(CalendarError) as caught:
        busy_periods([built], *WINDOW)
    assert (caught.value.code, caught.value.uid, caught.value.line) == (
        "ics.unknown_timezone",
        "built",
        None,
    )


def test_dtend_before_dtstart() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T090000Z", uid="back"))
    error = failure(text)
    assert (error.code, error.uid, error.line) == ("ics.invalid_range", "back", 8)


def test_all_day_dtend_before_dtstart() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND;VALUE=DATE:20240104", uid="d"))
    assert failure(text).code == "ics.invalid_range"


def test_negative_duration() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "DURATION:-PT1H", uid="neg"))
    error = failure(text)
    assert (error.code, error.uid, error.line) == ("ics.invalid_range", "neg", 8)


def test_period_ending_before_it_starts() -> None:
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "RDATE;VALUE=PERIOD:20240110T100000Z/20240110T090000Z",
            uid="p",
        )
    )
    assert failure(text).code == "ics.invalid_range"


def test_huge_count_hits_the_counted_limit() -> None:
    # A minute-by-minute rule with COUNT 10^9 would make 525 600 instances in 2024 alone.
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "RRULE:FREQ=MINUTELY;COUNT=1000000000", uid="huge")
    )
    error = failure(text, max_occurrences=1000)
    assert (error.code, error.uid, error.line) == ("ics.expansion_limit", "huge", 8)
    assert "1000" in error.message


def test_instances_before_the_window_are_stepped_over_within_a_bound() -> None:
    # Daily since 2000: 8 766 instances precede the 2024 window. They are not charged
    # (the window needs ~5), but stepping over them is bounded by WALK_FACTOR * limit.
    text = calendar(vevent("DTSTART:20000101T100000Z", "RRULE:FREQ=DAILY", uid="old"))
    expand_text(text, max_occurrences=5000)  # 100 000 steps allowed: no error
    error = failure(text, max_occurrences=8766 // WALK_FACTOR - 1)
    assert (error.code, error.uid) == ("ics.expansion_limit", "old")
    assert "--max-occurrences" in error.message


def test_freebusy_periods_count_too() -> None:
    periods = ",".join(f"202401{d:02d}T100000Z/PT1H" for d in range(1, 11))
    text = calendar(f"BEGIN:VFREEBUSY\nUID:fb\nFREEBUSY:{periods}\nEND:VFREEBUSY")
    assert failure(text, max_occurrences=9).code == "ics.expansion_limit"
    expand_text(text, max_occurrences=10)


def test_available_components_share_the_limit() -> None:
    text = calendar(
        "\n".join(
            [
                "BEGIN:VAVAILABILITY",
                "UID:va",
                "DTSTART:20240101T000000Z",
                "BEGIN:AVAILABLE",
                "UID:av",
                "DTSTART:20240101T090000Z",
                "DTEND:20240101T170000Z",
                "RRULE:FREQ=HOURLY",
                "END:AVAILABLE",
                "END:VAVAILABILITY",
            ]
        )
    )
    with pytest.raises(CalendarError) as caught:
        working_periods([parse_calendar(text)], *WINDOW, max_occurrences=100)
    assert (caught.value.code, caught.value.uid) == ("ics.expansion_limit", "av")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("hello world\r\n", 1),
        ("BEGIN:VCALENDAR\r\nthis is no content line\r\nEND:VCALENDAR\r\n", 2),
        ("BEGIN:VCALENDAR\r\nEND:VEVENT\r\n", 2),
        ("END:VCALENDAR\r\n", 1),
        ("VERSION:2.0\r\n", 1),
        ("BEGIN:\r\n", 1),
    ],
)
def test_syntax_errors_point_at_the_line(text: str, line: int) -> None:
    with pytest.raises(CalendarError) as caught:
        parse_calendar(text)
    assert (caught.value.code, caught.value.line) == ("ics.syntax", line)


def test_empty_input() -> None:
    for text in ("", "\r\n\r\n", b""):
        with pytest.raises(CalendarError) as caught:
            parse_calendar(text)
        assert caught.value.code == "ics.syntax"


def test_bytes_that_are_not_utf8() -> None:
    data = calendar(vevent("DTSTART:20240105T100000Z", "SUMMARY:caf\xe9")).encode("latin-1")
    with pytest.raises(CalendarError) as caught:
        parse_calendar(data)
    assert (caught.value.code, caught.value.line) == ("ics.syntax", 8)


def test_two_calendars_in_one_text() -> None:
    one = calendar(vevent("DTSTART:20240105T100000Z"))
    with pytest.raises(CalendarError) as caught:
        parse_calendar(one + one)
    assert caught.value.code == "ics.syntax"


def test_nesting_limit() -> None:
    text = "".join(f"BEGIN:X-LEVEL{i}\r\n" for i in range(40))
    with pytest.raises(CalendarError) as caught:
        parse_calendar(text)
    assert (caught.value.code, caught.value.line) == ("ics.syntax", 33)


def test_unreadable_dtstart() -> None:
    error = failure(calendar(vevent("DTSTART:2024-01-05", uid="dt")))
    assert (error.code, error.uid, error.line) == ("ics.syntax", "dt", 7)


def test_missing_dtstart() -> None:
    error = failure(calendar(vevent("SUMMARY:no start", uid="nostart")))
    assert (error.code, error.uid, error.line) == ("ics.syntax", "nostart", 4)


def test_mixed_date_and_date_time() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND:20240106T100000Z", uid="mix"))
    assert failure(text).code == "ics.syntax"


def test_unsupported_calendar_scale() -> None:
    # Valid iCalendar (RFC 7529 registers other scales) that cerebri does not implement.
    text = calendar(vevent("DTSTART:20240105T100000Z"), header="CALSCALE:CHINESE")
    error = failure(text)
    assert (error.code, error.line) == ("ics.unsupported", 4)


def test_an_unreadable_description_is_skipped() -> None:
    # Documented skip: a broken value of a property that does not affect time.
    text = calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", "GEO:abc"))
    found = busy_periods([parse_calendar(text)], *WINDOW)
    assert [(p.start, p.end) for p in found] == [(utc("2024-01-05 10:00"), utc("2024-01-05 11:00"))]


def test_line_numbers_count_physical_lines_of_folded_text() -> None:
    text = calendar(
        vevent(
            "DESCRIPTION:a long text that is",
            " folded over",
            " three lines",
            "DTSTART:20240105T100000Z",
            "DTEND:20240105T090000Z",
            uid="fold",
        )
    )
    error = failure(text)
    assert (error.code, error.line) == ("ics.invalid_range", 11)


def test_errors_are_cerebri_errors_with_known_codes() -> None:
    error = failure(calendar(vevent("DTSTART:20240105T100000Z", "DURATION:-PT1H")))
    assert isinstance(error, CerebriError)
    assert isinstance(error, ValueError)
    assert error.code in CODES
    assert error.to_wire()["code"] == "ics.invalid_range"
    assert str(error).startswith("ics.invalid_range: ")


@pytest.mark.parametrize(
    ("start", "end", "limit"),
    [
        ("2024-01-02 00:00", "2024-01-01 00:00", 10),
        ("2024-01-01 00:00", "2024-01-01 00:00", 10),
        ("2024-01-01 00:00", "2024-01-02 00:00", -1),
    ],
)
def test_bad_queries_are_value_errors(start: str, end: str, limit: int) -> None:
    parsed = parse_calendar(calendar(vevent("DTSTART:20240105T100000Z")))
    with pytest.raises(ValueError, match=r"window|max_occurrences"):
        busy_periods([parsed], utc(start), utc(end), max_occurrences=limit)


def test_unknown_floating_zone_is_a_value_error() -> None:
    parsed = parse_calendar(calendar(vevent("DTSTART:20240105T100000")))
    with pytest.raises(ValueError, match="unknown time zone"):
        busy_periods([parsed], *WINDOW, floating_zone="Mars/Olympus_Mons")
