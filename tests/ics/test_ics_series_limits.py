"""Valid input at the edges: leap seconds, years 1 and 9999, long-running series, and the
``--max-occurrences`` option. Expected values are worked out by hand."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cerebri.cli import app
from cerebri.ics import (
    DEFAULT_MAX_OCCURRENCES,
    CalendarError,
    busy_periods,
    calendar_warnings,
    parse_calendar,
)
from cerebri.ics.budget import WALK_FACTOR
from cerebri.temporal.instant import Instant
from tests.ics.helpers import calendar, span, spans, utc, vevent

# --- leap seconds ----------------------------------------------------------------------


def test_leap_second_is_read_as_second_59_in_every_date_time_property() -> None:
    text = calendar(
        vevent(
            "DTSTART:20261005T235960Z",
            "DTEND:20261006T010000Z",
            "RRULE:FREQ=DAILY;UNTIL=20261007T235960Z",
            "EXDATE:20261006T235960Z",
            uid="leap",
        ),
        vevent(
            "RECURRENCE-ID:20261007T235960Z",
            "DTSTART:20261007T120000Z",
            "DTEND:20261007T130000Z",
            uid="leap",
        ),
        vevent("DTSTART:20261009T100000Z", "RDATE:20261009T115960Z", uid="r"),
    )
    parsed = parse_calendar(text)
    busy = busy_periods(parsed, *span("2026-10-01 00:00", "2026-10-12 00:00"))
    assert [(p.uid, p.start) for p in busy] == [
        ("leap", utc("2026-10-05T23:59:59Z")),  # the 6th is excluded, the 7th overridden
        ("leap", utc("2026-10-07 12:00")),
        ("r", utc("2026-10-09 10:00")),
        ("r", utc("2026-10-09T11:59:59Z")),
    ]
    assert busy[0].end == utc("2026-10-06 01:00")
    # lines: 7 DTSTART, 9 RRULE, 10 EXDATE, 15 RECURRENCE-ID, 23 RDATE
    assert [(w.code, w.uid, w.line) for w in calendar_warnings(parsed)] == [
        ("ics.leap_second", "leap", 7),
        ("ics.leap_second", "leap", 9),
        ("ics.leap_second", "leap", 10),
        ("ics.leap_second", "leap", 15),
        ("ics.leap_second", "r", 23),
    ]


def test_second_60_elsewhere_is_left_alone() -> None:
    text = calendar(vevent("DTSTART:20261005T100000Z", "SUMMARY:20261005T235960", uid="s"))
    parsed = parse_calendar(text)
    assert calendar_warnings(parsed) == ()
    (period,) = busy_periods(parsed, *span("2026-10-05 00:00", "2026-10-06 00:00"))
    assert period.summary == "20261005T235960"


# --- years 1 and 9999 ------------------------------------------------------------------

EARLY = calendar(vevent("DTSTART:00010101T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", uid="e"))
LATE = calendar(vevent("DTSTART:99991215T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", uid="l"))


def daily_nine(first: datetime, days: int) -> list[tuple[Instant, Instant]]:
    return [
        (
            Instant.from_datetime(first + timedelta(days=n)),
            Instant.from_datetime(first + timedelta(days=n, hours=1)),
        )
        for n in range(days)
    ]


def test_daily_series_in_the_first_week_of_year_1() -> None:
    busy = busy_periods(parse_calendar(EARLY), *span("0001-01-01 00:00", "0001-01-08 00:00"))
    assert spans(busy) == daily_nine(datetime(1, 1, 1, 9, tzinfo=UTC), 7)


def test_daily_series_at_the_end_of_year_9999() -> None:
    busy = busy_periods(parse_calendar(LATE), *span("9999-12-20 00:00", "9999-12-31 00:00"))
    assert spans(busy) == daily_nine(datetime(9999, 12, 20, 9, tzinfo=UTC), 11)


@pytest.mark.parametrize(
    ("text", "window", "first", "days"),
    [
        (EARLY, "0001-01-01T00:00Z/0001-01-08T00:00Z", datetime(1, 1, 1, 9, tzinfo=UTC), 7),
        (LATE, "9999-12-20T00:00Z/9999-12-31T00:00Z", datetime(9999, 12, 20, 9, tzinfo=UTC), 11),
    ],
)
def test_cli_freebusy_at_the_ends_of_the_calendar(
    tmp_path: Path, text: str, window: str, first: datetime, days: int
) -> None:
    path = tmp_path / "edge.ics"
    path.write_text(text, encoding="utf-8")
    out = CliRunner().invoke(app, ["freebusy", "--ics", str(path), "--between", window, "--json"])
    assert out.exit_code == 0, out.output
    starts = [b["start"] for b in json.loads(out.stdout)["busy"]]
    assert starts == [start.format() for start, _ in daily_nine(first, days)]


# --- the counted limit counts what the window needs --------------------------------------

HOURLY_SINCE_2015 = calendar(
    vevent("DTSTART:20150101T000000Z", "DURATION:PT30M", "RRULE:FREQ=HOURLY", uid="h")
)


def test_hourly_series_since_2015_answers_a_five_hour_window() -> None:
    # ~103 000 instances precede the window; the window needs 5 (plus the padding).
    busy = busy_periods(
        parse_calendar(HOURLY_SINCE_2015), *span("2026-10-05 08:00", "2026-10-05 13:00")
    )
    assert [p.start for p in busy] == [utc(f"2026-10-05 {h:02d}:00") for h in range(8, 13)]


def test_the_limit_still_bounds_a_window_that_needs_too_much() -> None:
    # A five-day window of an hourly series needs 120 instances (and 2 x 48 of padding).
    with pytest.raises(CalendarError) as caught:
        busy_periods(
            parse_calendar(HOURLY_SINCE_2015),
            *span("2026-10-05 00:00", "2026-10-10 00:00"),
            max_occurrences=100,
        )
    assert (caught.value.code, caught.value.uid) == ("ics.expansion_limit", "h")
    assert "--max-occurrences" in caught.value.message


def test_cli_max_occurrences_option(tmp_path: Path) -> None:
    path = tmp_path / "hourly.ics"
    path.write_text(HOURLY_SINCE_2015, encoding="utf-8")
    common = ["--ics", str(path), "--between", "2026-10-05T08:00Z/2026-10-05T13:00Z"]
    runner = CliRunner()
    low = runner.invoke(app, ["freebusy", *common, "--max-occurrences", "50"])
    assert low.exit_code != 0
    assert "ics.expansion_limit" in low.stderr
    assert "--max-occurrences" in low.stderr
    fine = runner.invoke(app, ["freebusy", *common, "--json"])
    assert fine.exit_code == 0, fine.output
    assert len(json.loads(fine.stdout)["busy"]) == 5
    slot = runner.invoke(
        app, ["find-slot", *common, "--duration", "15m", "--max-occurrences", "50"]
    )
    assert slot.exit_code != 0
    assert "ics.expansion_limit" in slot.stderr
    # Stepping over the ~103 000 earlier instances needs a limit of at least 103 000 / 20.
    found = runner.invoke(
        app,
        ["find-slot", *common, "--duration", "15m", "--json", "--max-occurrences", "6000"],
    )
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)


def test_the_walk_before_the_window_is_bounded_by_the_limit() -> None:
    # Charged from 2026-10-02T07:30: the window start less two days of padding, the
    # series' 30 minutes and a day of slack. Before that: 2015-01-01T00:00 up to
    # 2026-10-02T07:00 is 4 292 days and 7 hours, 4292 * 24 + 8 = 103 016 instances.
    walked = 4292 * 24 + 8
    window = span("2026-10-05 08:00", "2026-10-05 13:00")
    parsed = parse_calendar(HOURLY_SINCE_2015)
    limit = -(-walked // WALK_FACTOR)  # the least limit whose walk allowance suffices
    with pytest.raises(CalendarError) as caught:
        busy_periods(parsed, *window, max_occurrences=limit - 1)
    assert caught.value.code == "ics.expansion_limit"
    assert len(busy_periods(parsed, *window, max_occurrences=limit)) == 5
    assert walked < DEFAULT_MAX_OCCURRENCES * WALK_FACTOR


# --- a narrow late window gives exactly what the full expansion gives there ----------------

RULES = [
    # COUNT counts from DTSTART, whatever the window
    ("DTSTART;TZID=Europe/Berlin:20260101T090000", "RRULE:FREQ=DAILY;COUNT=300"),
    # the last weekday of each month (BYSETPOS), limited by COUNT
    (
        "DTSTART;TZID=America/New_York:20260130T170000",
        "RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=12",
    ),
    # INTERVAL anchored at DTSTART, across both DST changes of 2026
    ("DTSTART;TZID=Europe/Berlin:20260101T000000", "RRULE:FREQ=HOURLY;INTERVAL=7"),
    ("DTSTART;TZID=America/New_York:20260105T083000", "RRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,TH"),
    ("DTSTART:20260101T000000Z", "RRULE:FREQ=MINUTELY;INTERVAL=97;UNTIL=20261231T000000Z"),
]
NARROW = [
    span("2026-03-28 00:00", "2026-03-30 12:00"),  # Berlin springs forward
    span("2026-10-24 00:00", "2026-11-02 12:00"),  # both fall back
    span("2026-10-27 18:00", "2026-10-28 03:00"),
]


@pytest.mark.parametrize("rule", RULES)
def test_a_narrow_window_gives_what_the_whole_year_gives_there(rule: tuple[str, str]) -> None:
    parsed = parse_calendar(calendar(vevent(*rule, "DURATION:PT45M", uid="r")))
    year = busy_periods(parsed, *span("2025-12-25 00:00", "2027-01-05 00:00"))
    assert len(year) > 10
    for start, end in NARROW:
        narrow = busy_periods(parsed, start, end)
        assert narrow == tuple(p for p in year if p.start < end and p.end > start)


def test_a_value_too_far_to_check_is_not_walked_to() -> None:
    # A minutely series and an EXDATE seven thousand years later: checking whether the value
    # names an instance would step over 3.6 * 10^9 instances; the check is skipped after
    # WALK_FACTOR * max_occurrences steps, and the window is answered.
    text = calendar(
        vevent(
            "DTSTART:20260101T000000Z",
            "DURATION:PT1M",
            "RRULE:FREQ=MINUTELY",
            "EXDATE:90001231T000000Z",
            uid="f",
        )
    )
    parsed = parse_calendar(text)
    window = span("2026-01-05 00:00", "2026-01-05 01:00")
    assert len(busy_periods(parsed, *window, max_occurrences=10_000)) == 60
    assert calendar_warnings(parsed) == ()
