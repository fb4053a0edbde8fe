"""Real calendars with one odd event: what is read leniently (with an ``ics.lenient``
warning), what is refused, and what ``skip_invalid_events`` leaves out (docs/decisions/0014).

Line numbers count the lines written by ``calendar()``/``vevent()``: 1 BEGIN:VCALENDAR,
2 VERSION, 3 PRODID, 4 BEGIN:VEVENT, 5 UID, 6 DTSTAMP, then the event's properties from 7.
"""

from __future__ import annotations

import pytest
from icalendar import Calendar

from cerebri.calendars import context_objects
from cerebri.errors import CerebriError
from cerebri.ics import (
    CalendarArgumentError,
    CalendarError,
    CalendarWarning,
    busy_periods,
    calendar_incomplete,
    calendar_warnings,
    object_id,
    parse_calendar,
    warnings_of,
    working_periods,
)
from cerebri.ics.warnings import add_warning
from cerebri.temporal import Instant
from tests.ics.helpers import calendar, span, spans, utc, vevent

WINDOW = (utc("2024-01-01 00:00"), utc("2024-02-01 00:00"))


def read(
    text: str,
    *,
    skip: bool = False,
    zone: str = "UTC",
    window: tuple[Instant, Instant] = WINDOW,
) -> tuple[Calendar, list[tuple[Instant, Instant]]]:
    parsed = parse_calendar(text, source="odd.ics", skip_invalid_events=skip)
    found = busy_periods(parsed, *window, floating_zone=zone)
    return parsed, spans(found)


def only_warning(parsed: Calendar) -> CalendarWarning:
    (warning,) = calendar_warnings(parsed)
    return warning


# --------------------------------------------------------------------------- leniencies


def test_date_start_with_a_midnight_date_time_end_is_an_all_day_event() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND:20240107T000000Z", uid="mid"))
    parsed, found = read(text)
    # Two whole days, 5 and 6 January, read as dates (floating: midnight in the zone given).
    assert found == [span("2024-01-05 00:00", "2024-01-07 00:00")]
    _, berlin = read(text, zone="Europe/Berlin")  # CET = UTC+1 in January
    assert berlin == [span("2024-01-04 23:00", "2024-01-06 23:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line, warning.source) == (
        "ics.lenient",
        "mid",
        8,
        "odd.ics",
    )
    assert "DATE 2024-01-07" in warning.message


def test_date_start_with_a_zoned_midnight_end_reads_the_end_date() -> None:
    text = calendar(
        vevent("DTSTART;VALUE=DATE:20240105", "DTEND;TZID=Europe/Berlin:20240106T000000", uid="z")
    )
    parsed, found = read(text)
    assert found == [span("2024-01-05 00:00", "2024-01-06 00:00")]
    assert only_warning(parsed).line == 8


def test_date_start_with_a_date_time_end_at_another_hour_stays_refused() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:20240105", "DTEND:20240106T100000Z", uid="hm"))
    with pytest.raises(CalendarError) as caught:
        read(text)
    assert (caught.value.code, caught.value.uid, caught.value.line) == ("ics.syntax", "hm", 8)


def test_spaces_inside_an_rrule_value_are_removed() -> None:
    # 2024-01-01 is a Monday: MO, WE with COUNT=4 gives Jan 1, 3, 8, 10 at 09:00-09:30.
    text = calendar(
        vevent(
            "DTSTART:20240101T090000Z",
            "DTEND:20240101T093000Z",
            "RRULE:FREQ=WEEKLY;BYDAY=MO, WE;COUNT=4",
            uid="sp",
        )
    )
    parsed, found = read(text)
    assert found == [
        span("2024-01-01 09:00", "2024-01-01 09:30"),
        span("2024-01-03 09:00", "2024-01-03 09:30"),
        span("2024-01-08 09:00", "2024-01-08 09:30"),
        span("2024-01-10 09:00", "2024-01-10 09:30"),
    ]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "sp", 9)


def test_spaces_in_a_folded_rrule_keep_later_line_numbers() -> None:
    # The RRULE is folded over lines 9-10 (icalendar issue 165 writes it this way); a bad
    # DTEND on line 11 must still be reported at line 11.
    rule = "RRULE:FREQ=DAILY;BYDAY=MO, TU\n ;COUNT=2"
    good = calendar(vevent("DTSTART:20240101T090000Z", "DTEND:20240101T100000Z", rule))
    parsed, found = read(good)
    assert found == [
        span("2024-01-01 09:00", "2024-01-01 10:00"),
        span("2024-01-02 09:00", "2024-01-02 10:00"),
    ]
    assert only_warning(parsed).line == 9
    bad = calendar(vevent("DTSTART:20240101T090000Z", "SUMMARY:x", rule, "DTEND:20231231T000000Z"))
    with pytest.raises(CalendarError) as caught:
        read(bad)
    assert (caught.value.code, caught.value.line) == ("ics.invalid_range", 11)


@pytest.mark.parametrize("line", ["X-APPLE-RADIUS=49.91307046514149", "X", "SUMMARY=testevent"])
def test_a_line_without_colon_inside_an_event_is_ignored(line: str) -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", line, "DTEND:20240105T110000Z", uid="ap"))
    parsed, found = read(text)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "ap", 8)
    assert repr(line) in warning.message


@pytest.mark.parametrize("line", ["DTEND", "RRULE=FREQ=DAILY", "this is prose"])
def test_a_line_without_colon_that_may_matter_is_refused_with_the_hint(line: str) -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", line, uid="no"))
    with pytest.raises(CalendarError) as caught:
        read(text)
    error = caught.value
    assert (error.code, error.uid, error.line) == ("ics.syntax", "no", 8)
    assert "--skip-invalid-events" in str(error)


def test_an_x_property_after_the_calendar_is_ignored() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z"))
    text += "X-COMMENT:Cached from 2022-02-20\r\n"  # icalendar issue 350; line 11
    parsed, found = read(text)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", None, 11)


def test_latin_1_text_is_refused_with_how_to_convert_it() -> None:
    # "Café" in Latin-1: the byte 0xE9 on line 8 (the SUMMARY) is no UTF-8 sequence.
    text = calendar(vevent("DTSTART:20240105T100000Z", "SUMMARY:Caf\u00e9", uid="latin"))
    with pytest.raises(CalendarError) as caught:
        parse_calendar(text.encode("latin-1"), source="latin.ics")
    assert (caught.value.code, caught.value.line) == ("ics.syntax", 8)
    message = str(caught.value)
    assert "not valid UTF-8 (byte 0xE9)" in message
    assert "RFC 5545 section 3.1.4" in message
    assert "iconv -f latin1 -t utf-8" in message


def test_another_property_after_the_calendar_stays_refused() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z")) + "SUMMARY:late\r\n"
    with pytest.raises(CalendarError) as caught:
        read(text)
    assert (caught.value.code, caught.value.line) == ("ics.syntax", 10)


@pytest.mark.parametrize(("duration", "how"), [("PT1H", "agree"), ("PT0S", "disagree")])
def test_dtend_and_duration_together_read_dtend_when_it_ends_later(duration: str, how: str) -> None:
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "DTEND:20240105T110000Z",
            f"DURATION:{duration}",
            uid="both",
        )
    )
    parsed, found = read(text)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "both", 9)
    assert f"they {how}" in warning.message
    assert "DTEND 2024-01-05T11:00:00+00:00" in warning.message
    assert f"DURATION {duration}" in warning.message
    assert "DTEND is read" in warning.message


def test_a_longer_duration_than_dtend_keeps_the_later_end_busy() -> None:
    # DTEND says 10:00-11:00, DURATION says 10:00-12:30: 11:00-12:30 is not known to be
    # free, so the event is busy until 12:30 (the later end).
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "DTEND:20240105T110000Z",
            "DURATION:PT2H30M",
            uid="longer",
        )
    )
    parsed, found = read(text)
    assert found == [span("2024-01-05 10:00", "2024-01-05 12:30")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "longer", 9)
    assert "DTEND 2024-01-05T11:00:00+00:00 and DURATION PT2H30M" in warning.message
    assert "they disagree" in warning.message
    assert "DURATION is read, DTEND ignored" in warning.message


def test_a_recurring_master_with_a_longer_duration_is_busy_until_the_later_end_each_time() -> None:
    text = calendar(
        vevent(
            "DTSTART:20240105T100000Z",
            "DTEND:20240105T103000Z",
            "DURATION:PT1H",
            "RRULE:FREQ=DAILY;COUNT=3",
            uid="series",
        )
    )
    _, found = read(text)
    assert found == [
        span("2024-01-05 10:00", "2024-01-05 11:00"),
        span("2024-01-06 10:00", "2024-01-06 11:00"),
        span("2024-01-07 10:00", "2024-01-07 11:00"),
    ]


def test_an_all_day_event_with_a_longer_duration_covers_the_later_end_day() -> None:
    text = calendar(
        vevent(
            "DTSTART;VALUE=DATE:20240105",
            "DTEND;VALUE=DATE:20240106",
            "DURATION:P2D",
            uid="days",
        )
    )
    parsed, found = read(text)
    assert found == [span("2024-01-05 00:00", "2024-01-07 00:00")]
    assert "DURATION is read" in only_warning(parsed).message


def test_a_clean_calendar_has_no_warnings() -> None:
    parsed, _ = read(calendar(vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z")))
    assert calendar_warnings(parsed) == ()
    assert calendar_incomplete(parsed) is False


# --------------------------------------------------------------------------- skipping

GOOD = vevent("DTSTART:20240105T100000Z", "DTEND:20240105T110000Z", uid="good")


def test_an_unreadable_event_refuses_by_default_with_uid_line_and_hint() -> None:
    # GOOD holds lines 4-9; the bad event's BEGIN is line 10, its DTSTART line 13.
    text = calendar(GOOD, vevent("DTSTART:INVALID-DATE", uid="bad"))
    with pytest.raises(CalendarError) as caught:
        read(text)
    error = caught.value
    assert (error.code, error.uid, error.line, error.source) == ("ics.syntax", "bad", 13, "odd.ics")
    assert "--skip-invalid-events" in str(error)
    assert "skip_invalid_events=True" in str(error)


def test_skip_leaves_the_unreadable_event_out_and_keeps_the_rest() -> None:
    text = calendar(GOOD, vevent("DTSTART:INVALID-DATE", uid="bad"))
    parsed, found = read(text, skip=True)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line, warning.source) == (
        "ics.skipped_event",
        "bad",
        13,
        "odd.ics",
    )
    assert warning.message.startswith("ics.syntax: DTSTART could not be read")
    assert calendar_incomplete(parsed) is True


def test_skip_leaves_out_an_event_the_scanner_cannot_read() -> None:
    # Line 14 is prose inside the second event (BEGIN line 10, DTSTART line 13).
    text = calendar(GOOD, vevent("DTSTART:20240106T100000Z", "this is prose", uid="prose"))
    parsed, found = read(text, skip=True)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    warning = only_warning(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.skipped_event", "prose", 14)
    assert calendar_incomplete(parsed) is True


def test_skip_leaves_out_each_of_several_bad_events_and_only_those() -> None:
    text = calendar(
        vevent("DTSTART:20240105T100000Z", "RRULE:FREQ=SOMETIMES", uid="r"),
        GOOD,
        vevent("DTSTART:20240105T100000Z", "DTEND:20240105T090000Z", uid="back"),
        vevent("DTSTART;TZID=Nowhere/Land:20240105T100000", uid="tz"),
    )
    parsed, found = read(text, skip=True)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    assert [(w.code, w.uid, w.message.split(":")[0]) for w in calendar_warnings(parsed)] == [
        ("ics.skipped_event", "r", "ics.invalid_rrule"),
        ("ics.skipped_event", "back", "ics.invalid_range"),
        ("ics.skipped_event", "tz", "ics.unknown_timezone"),
    ]


def test_skip_keeps_an_equal_copy_it_did_not_fail_on() -> None:
    # Removal is by identity: the good event stays even if another shares its text.
    text = calendar(GOOD, GOOD, vevent("DTSTART:INVALID-DATE", uid="bad"))
    parsed, found = read(text, skip=True)
    assert found == [span("2024-01-05 10:00", "2024-01-05 11:00")]
    assert len(parsed.walk("VEVENT")) == 2


def test_skip_does_not_hide_errors_outside_events() -> None:
    text = calendar(GOOD, header="CALSCALE:CHINESE")
    with pytest.raises(CalendarError) as caught:
        read(text, skip=True)
    assert caught.value.code == "ics.unsupported"
    assert "--skip-invalid-events" not in str(caught.value)


# --------------------------------------------------------------------------- unsupported


@pytest.mark.parametrize(
    "rule",
    [
        "RSCALE=CHINESE;FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=1",
        "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=BACKWARD",
        "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=FORWARD",
    ],
)
def test_rfc_7529_rules_are_unsupported_not_invalid(rule: str) -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", f"RRULE:{rule}", uid="rs"))
    with pytest.raises(CalendarError) as caught:
        read(text)
    assert (caught.value.code, caught.value.uid, caught.value.line) == ("ics.unsupported", "rs", 8)


@pytest.mark.parametrize(
    "rule",
    [
        "RSCALE=GREGORIAN;FREQ=MONTHLY;COUNT=4",
        "RSCALE=gregorian;FREQ=MONTHLY;COUNT=4;SKIP=OMIT",
        "FREQ=MONTHLY;SKIP=OMIT;RSCALE=Gregorian;COUNT=4",
        "rscale=gregorian;freq=monthly;count=4;skip=omit",
    ],
)
def test_a_gregorian_rscale_is_a_plain_rule(rule: str) -> None:
    # RFC 7529 section 3.1: SKIP defaults to OMIT, which is RFC 5545's behaviour; the 31st
    # each month from 31 January: February and April have no 31st and are left out.
    text = calendar(
        vevent("DTSTART:20240131T100000Z", "DTEND:20240131T110000Z", f"RRULE:{rule}", uid="g")
    )
    parsed, found = read(text, window=(utc("2024-01-01 00:00"), utc("2024-12-01 00:00")))
    assert found == [
        span("2024-01-31 10:00", "2024-01-31 11:00"),
        span("2024-03-31 10:00", "2024-03-31 11:00"),
        span("2024-05-31 10:00", "2024-05-31 11:00"),
        span("2024-07-31 10:00", "2024-07-31 11:00"),
    ]
    assert calendar_warnings(parsed) == ()


def test_a_broken_rrule_stays_invalid_rrule() -> None:
    text = calendar(vevent("DTSTART:20240105T100000Z", "RRULE:FREQ=DAILY;INTERVAL=0", uid="rr"))
    with pytest.raises(CalendarError) as caught:
        read(text)
    assert (caught.value.code, caught.value.uid, caught.value.line) == (
        "ics.invalid_rrule",
        "rr",
        8,
    )


# --------------------------------------------------------------------------- argument types

BAD_VALUES = [None, 3, [1], {"a": 1}]
PARSED = parse_calendar(calendar(GOOD))
PERIODS = busy_periods(PARSED, *WINDOW)


def _calls() -> list[tuple[str, object]]:
    start, end = WINDOW
    return [
        ("parse_calendar", parse_calendar),
        ("parse_calendar", lambda v: parse_calendar("", source=v)),
        ("busy_periods", lambda v: busy_periods(v, start, end)),
        ("busy_periods", lambda v: busy_periods(PARSED, v, end)),
        ("busy_periods", lambda v: busy_periods(PARSED, start, end, floating_zone=v)),
        ("working_periods", lambda v: working_periods(v, start, end)),
        ("working_periods", lambda v: working_periods(PARSED, start, v)),
        (
            "context_objects",
            lambda v: context_objects(v, calendar_id="c", integration_id="ics", zone="UTC"),
        ),
        (
            "context_objects",
            lambda v: context_objects(PERIODS, calendar_id=v, integration_id="ics", zone="UTC"),
        ),
        ("object_id", object_id),
        ("calendar_warnings", calendar_warnings),
        ("calendar_incomplete", calendar_incomplete),
        ("warnings_of", warnings_of),
        ("add_warning", lambda v: add_warning(v, CalendarWarning("ics.lenient", "m"))),
    ]


@pytest.mark.parametrize("value", BAD_VALUES, ids=repr)
@pytest.mark.parametrize(("index", "name"), list(enumerate(name for name, _ in _calls())))
def test_bad_argument_types_are_typed_errors(index: int, name: str, value: object) -> None:
    call = _calls()[index][1]
    with pytest.raises(CalendarArgumentError) as caught:
        call(value)  # type: ignore[operator]
    error = caught.value
    assert isinstance(error, TypeError)
    assert isinstance(error, CerebriError)
    assert error.code == "ics.invalid_argument"
    assert f"{name}()" in error.message
    # The value's type, or for a list the type of the item that is wrong (int).
    assert error.message.endswith((f"got {type(value).__name__}", "got int"))
