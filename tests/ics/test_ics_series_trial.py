"""Findings of a new-user trial: repeated overrides, the ends of years 1 and 9999, the
counted limit and plain events, and value types that do not match the series.
Expected values are worked out by hand."""

from __future__ import annotations

from cerebri.ics import busy_periods, calendar_warnings, parse_calendar
from tests.ics.helpers import calendar, span, spans, utc, vevent

# --- two overrides of one instance -----------------------------------------------------

MASTER = vevent(
    "DTSTART:20261005T090000Z", "DTEND:20261005T100000Z", "RRULE:FREQ=DAILY;COUNT=3", uid="u"
)


def override(start: str, end: str, *extra: str) -> str:
    return vevent(
        "RECURRENCE-ID:20261006T090000Z", f"DTSTART:{start}", f"DTEND:{end}", *extra, uid="u"
    )


def test_two_overrides_with_equal_sequence_are_both_busy_and_reported() -> None:
    parsed = parse_calendar(
        calendar(
            MASTER,
            override("20261006T180000Z", "20261006T190000Z"),
            override("20261006T200000Z", "20261006T210000Z"),
        )
    )
    busy = busy_periods(parsed, *span("2026-10-05 00:00", "2026-10-08 00:00"))
    assert spans(busy) == [
        span("2026-10-05 09:00", "2026-10-05 10:00"),
        span("2026-10-06 18:00", "2026-10-06 19:00"),
        span("2026-10-06 20:00", "2026-10-06 21:00"),
        span("2026-10-07 09:00", "2026-10-07 10:00"),
    ]
    # header 3 lines, master lines 4-10, first override 11-17, the second begins on 18
    (warning,) = calendar_warnings(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.duplicate_uid", "u", 18)
    assert "RECURRENCE-ID 2026-10-06T09:00:00+00:00" in warning.message


def test_a_higher_sequence_override_replaces_the_other_silently() -> None:
    parsed = parse_calendar(
        calendar(
            MASTER,
            override("20261006T180000Z", "20261006T190000Z", "SEQUENCE:1"),
            override("20261006T200000Z", "20261006T210000Z", "SEQUENCE:2"),
        )
    )
    busy = busy_periods(parsed, *span("2026-10-06 00:00", "2026-10-07 00:00"))
    assert spans(busy) == [span("2026-10-06 20:00", "2026-10-06 21:00")]
    assert calendar_warnings(parsed) == ()


def test_identical_copies_of_an_override_are_one_busy_period() -> None:
    copy = override("20261006T180000Z", "20261006T190000Z")
    parsed = parse_calendar(calendar(MASTER, copy, copy))
    busy = busy_periods(parsed, *span("2026-10-06 00:00", "2026-10-07 00:00"))
    assert spans(busy) == [span("2026-10-06 18:00", "2026-10-06 19:00")]
    assert calendar_warnings(parsed) == ()


def test_repeated_overrides_without_a_master_are_both_busy() -> None:
    parsed = parse_calendar(
        calendar(
            override("20261006T180000Z", "20261006T190000Z"),
            override("20261006T200000Z", "20261006T210000Z"),
        )
    )
    busy = busy_periods(parsed, *span("2026-10-06 00:00", "2026-10-07 00:00"))
    assert [p.start for p in busy] == [utc("2026-10-06 18:00"), utc("2026-10-06 20:00")]
    assert [w.code for w in calendar_warnings(parsed)] == ["ics.duplicate_uid"]
