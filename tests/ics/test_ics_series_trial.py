"""Findings of a new-user trial: repeated overrides, the ends of years 1 and 9999, the
counted limit and plain events, and value types that do not match the series.
Expected values are worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cerebri.calendars.options import parse_window
from cerebri.calendars.query import SlotQuery
from cerebri.cli import app
from cerebri.ics import CalendarError, busy_periods, calendar_warnings, parse_calendar
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


# --- the counted limit counts recurrence instances near the window ----------------------


def old_plain_events(count: int) -> str:
    """``count`` one-hour events in 2015 (distinct days and hours), then one on
    2026-10-05 09:00-10:00 UTC."""
    events = []
    for i in range(count):
        day = f"2015{1 + i // 2000 % 12:02d}{1 + i // 80 % 25:02d}"
        start = f"{day}T{i % 20:02d}{i % 60:02d}00Z"
        events.append(vevent(f"DTSTART:{start}", "DURATION:PT1H", uid=f"old-{i:05d}"))
    events.append(vevent("DTSTART:20261005T090000Z", "DURATION:PT1H", uid="now"))
    return calendar(*events)


def test_plain_events_far_from_the_window_cost_nothing() -> None:
    parsed = parse_calendar(old_plain_events(2_000))
    window = span("2026-10-05 08:00", "2026-10-05 18:00")
    (period,) = busy_periods(parsed, *window, max_occurrences=10)
    assert (period.uid, period.start) == ("now", utc("2026-10-05 09:00"))


def test_max_occurrences_zero_allows_plain_events_and_refuses_recurrence() -> None:
    plain = parse_calendar(
        calendar(
            vevent("DTSTART:20150105T090000Z", "DURATION:PT1H", uid="far"),
            vevent("DTSTART:20261005T090000Z", "DURATION:PT1H", uid="in"),
        )
    )
    window = span("2026-10-05 08:00", "2026-10-05 18:00")
    assert [p.uid for p in busy_periods(plain, *window, max_occurrences=0)] == ["in"]
    daily = parse_calendar(
        calendar(vevent("DTSTART:20261005T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", uid="d"))
    )
    with pytest.raises(CalendarError) as caught:
        busy_periods(daily, *window, max_occurrences=0)
    assert (caught.value.code, caught.value.uid) == ("ics.expansion_limit", "d")
    assert "recurrence instances" in caught.value.message


def test_rdate_values_and_overrides_far_from_the_window_are_not_counted() -> None:
    old_dates = ",".join(f"201501{day:02d}T090000Z" for day in range(1, 21))
    text = calendar(
        vevent(
            "DTSTART:20150101T090000Z",
            "DURATION:PT1H",
            f"RDATE:{old_dates}",
            "RDATE:20261005T090000Z",
            uid="r",
        ),
        vevent(
            "RECURRENCE-ID:20150102T090000Z",
            "DTSTART:20150102T120000Z",
            "DURATION:PT1H",
            uid="r",
        ),
    )
    window = span("2026-10-05 08:00", "2026-10-05 18:00")
    # only the 2026 RDATE is near the window: a limit of one is enough
    (period,) = busy_periods(parse_calendar(text), *window, max_occurrences=1)
    assert (period.start, period.recurrence_id) == (utc("2026-10-05 09:00"), "20261005T090000Z")
    with pytest.raises(CalendarError):
        busy_periods(parse_calendar(text), *window, max_occurrences=0)


def test_cli_freebusy_skips_old_plain_events(tmp_path: Path) -> None:
    path = tmp_path / "old.ics"
    path.write_text(old_plain_events(20_000), encoding="utf-8")
    common = ["--ics", str(path), "--between", "2026-10-05T08:00Z/2026-10-05T18:00Z"]
    result = CliRunner().invoke(app, ["freebusy", *common, "--json", "--max-occurrences", "10"])
    assert result.exit_code == 0, result.output
    busy = json.loads(result.stdout)["busy"]
    assert len(busy) == 1


# --- DATE values on a DATE-TIME series ---------------------------------------------------


def test_a_date_until_on_a_date_time_series_keeps_that_local_day() -> None:
    parsed = parse_calendar(
        calendar(
            vevent(
                "DTSTART;TZID=Europe/Berlin:20261005T090000",
                "DURATION:PT1H",
                "RRULE:FREQ=DAILY;UNTIL=20261007",
                uid="u",
            )
        )
    )
    busy = busy_periods(parsed, *span("2026-10-01 00:00", "2026-10-12 00:00"))
    # 09:00 CEST is 07:00 UTC; the instance of the 7th is kept, none after
    assert [p.start for p in busy] == [
        utc("2026-10-05 07:00"),
        utc("2026-10-06 07:00"),
        utc("2026-10-07 07:00"),
    ]
    # header 3 lines, BEGIN 4, UID 5, DTSTAMP 6, DTSTART 7, DURATION 8, RRULE 9
    (warning,) = calendar_warnings(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "u", 9)
    assert "UNTIL 2026-10-07" in warning.message


def test_a_date_until_is_the_local_day_not_the_utc_day() -> None:
    # 22:00 EDT is 02:00 UTC the next day: the instance of the 7th (local) starts on the
    # 8th in UTC and is kept; the 8th's (local) is not.
    text = calendar(
        vevent(
            "DTSTART;TZID=America/New_York:20261005T220000",
            "DURATION:PT1H",
            "RRULE:FREQ=DAILY;UNTIL=20261007",
            uid="ny",
        )
    )
    busy = busy_periods(parse_calendar(text), *span("2026-10-01 00:00", "2026-10-12 00:00"))
    assert [p.start for p in busy] == [
        utc("2026-10-06 02:00"),
        utc("2026-10-07 02:00"),
        utc("2026-10-08 02:00"),
    ]


def test_a_date_until_on_a_floating_series_is_read_in_the_floating_zone() -> None:
    text = calendar(
        vevent(
            "DTSTART:20261005T230000", "DURATION:PT30M", "RRULE:FREQ=DAILY;UNTIL=20261006", uid="f"
        )
    )
    busy = busy_periods(
        parse_calendar(text),
        *span("2026-10-01 00:00", "2026-10-12 00:00"),
        floating_zone="Asia/Tokyo",
    )
    # 23:00 in Tokyo (UTC+9) is 14:00 UTC
    assert [p.start for p in busy] == [utc("2026-10-05 14:00"), utc("2026-10-06 14:00")]


def test_a_date_rdate_on_a_date_time_series_is_the_whole_local_day() -> None:
    parsed = parse_calendar(
        calendar(
            vevent(
                "DTSTART;TZID=Europe/Berlin:20261005T090000",
                "DURATION:PT1H",
                "RDATE;VALUE=DATE:20261009",
                uid="u",
            )
        )
    )
    busy = busy_periods(parsed, *span("2026-10-01 00:00", "2026-10-12 00:00"))
    # 2026-10-09 in Berlin (CEST, UTC+2) runs from 10-08 22:00 to 10-09 22:00 UTC
    assert spans(busy) == [
        span("2026-10-05 07:00", "2026-10-05 08:00"),
        span("2026-10-08 22:00", "2026-10-09 22:00"),
    ]
    (warning,) = calendar_warnings(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "u", 9)
    assert "RDATE 2026-10-09" in warning.message


def test_a_date_recurrence_id_on_a_date_time_series_is_reported() -> None:
    parsed = parse_calendar(
        calendar(
            vevent(
                "DTSTART;TZID=Europe/Berlin:20261005T090000",
                "DURATION:PT1H",
                "RRULE:FREQ=DAILY;COUNT=5",
                uid="u",
            ),
            vevent(
                "RECURRENCE-ID;VALUE=DATE:20261007",
                "DTSTART;TZID=Europe/Berlin:20261007T150000",
                "DURATION:PT1H",
                uid="u",
            ),
        )
    )
    busy = busy_periods(parsed, *span("2026-10-07 00:00", "2026-10-08 00:00"))
    assert spans(busy) == [span("2026-10-07 13:00", "2026-10-07 14:00")]
    # master lines 4-10; the override: BEGIN 11, UID 12, DTSTAMP 13, RECURRENCE-ID 14
    (warning,) = calendar_warnings(parsed)
    assert (warning.code, warning.uid, warning.line) == ("ics.lenient", "u", 14)
    assert "RECURRENCE-ID 2026-10-07" in warning.message


# --- the ends of years 1 and 9999 ------------------------------------------------------

YEAR_1 = span("0001-01-01 00:00", "0001-01-01 03:00")


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        ("DTSTART:00010101T000000Z", span("0001-01-01 00:00", "0001-01-01 01:00")),
        ("DTSTART:00010101T000001Z", (utc("0001-01-01T00:00:01Z"), utc("0001-01-01T01:00:01Z"))),
        ("DTSTART:00010101T000100Z", span("0001-01-01 00:01", "0001-01-01 01:01")),
    ],
)
def test_an_event_at_the_first_instant_of_year_1_is_busy(
    start: str, expected: tuple[object, object]
) -> None:
    text = calendar(vevent(start, "DURATION:PT1H", uid="e"))
    assert spans(busy_periods(parse_calendar(text), *YEAR_1)) == [expected]


def test_an_all_day_event_on_the_first_day_is_busy() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:00010101", uid="e"))
    busy = busy_periods(parse_calendar(text), *YEAR_1)
    assert spans(busy) == [span("0001-01-01 00:00", "0001-01-02 00:00")]


def test_a_series_from_the_first_instant_has_each_instance_once() -> None:
    text = calendar(
        vevent("DTSTART:00010101T000000Z", "DURATION:PT1H", "RRULE:FREQ=HOURLY;COUNT=3", uid="h"),
        vevent("DTSTART:00010105T000000Z", "DURATION:PT1H", "RDATE:00010101T000000Z", uid="r"),
    )
    busy = busy_periods(parse_calendar(text), *YEAR_1)
    assert [(p.uid, p.start) for p in busy] == [
        ("h", utc("0001-01-01 00:00")),
        ("r", utc("0001-01-01 00:00")),
        ("h", utc("0001-01-01 01:00")),
        ("h", utc("0001-01-01 02:00")),
    ]


def test_a_zoned_event_that_starts_before_year_1_in_utc_is_busy() -> None:
    # Asia/Tokyo in year 1 is local mean time, UTC+09:18:59: 05:00 there is
    # 0000-12-31T19:41:01Z, and five hours later 0001-01-01T00:41:01Z.
    text = calendar(vevent("DTSTART;TZID=Asia/Tokyo:00010101T050000", "DURATION:PT5H", uid="t"))
    (period,) = busy_periods(parse_calendar(text), *YEAR_1)
    assert period.end == utc("0001-01-01T00:41:01Z")
    assert period.end - period.start == 5 * 3600 * 10**9


def test_events_in_the_last_hours_of_9999_are_busy() -> None:
    text = calendar(
        # 15:00 PST is 23:00 UTC; it ends at the first instant of year 10000
        vevent("DTSTART;TZID=America/Los_Angeles:99991231T150000", "DURATION:PT1H", uid="la"),
        vevent("DTSTART:99991229T223000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY", uid="d"),
    )
    busy = busy_periods(parse_calendar(text), *span("9999-12-31 20:00", "9999-12-31 23:59"))
    assert [(p.uid, p.start, p.end.format()) for p in busy] == [
        ("d", utc("9999-12-31 22:30"), "9999-12-31T23:30:00Z"),
        ("la", utc("9999-12-31 23:00"), "+10000-01-01T00:00:00Z"),
    ]


def test_cli_find_slot_does_not_offer_the_busy_first_hour(tmp_path: Path) -> None:
    path = tmp_path / "first.ics"
    path.write_text(
        calendar(vevent("DTSTART:00010101T000000Z", "DURATION:PT1H", uid="e")), encoding="utf-8"
    )
    between = "0001-01-01T00:00Z/0001-01-01T02:00Z"
    result = CliRunner().invoke(
        app, ["find-slot", "--ics", str(path), "--duration", "30m", "--between", between, "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["candidates"][0]["start"] == "0001-01-01T01:00:00Z"


# --- windows outside years 1-9999 in UTC are refused ------------------------------------

OUTSIDE = [
    # 00:00 in Tokyo (LMT, UTC+09:18:59) on 0001-01-01 is still year 0 in UTC
    ("0001-01-01T00:00/0001-01-01T03:00", "Asia/Tokyo"),
    # 19:00 PST on 9999-12-31 is 10000-01-01T03:00Z
    ("9999-12-31T19:00/9999-12-31T23:59", "America/Los_Angeles"),
]


@pytest.mark.parametrize(("window", "zone"), OUTSIDE)
def test_parse_window_refuses_a_window_outside_the_supported_range(window: str, zone: str) -> None:
    with pytest.raises(ValueError, match=r"0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z"):
        parse_window(window, zone)


def test_windows_at_the_edges_in_utc_are_accepted() -> None:
    assert parse_window("0001-01-01T00:00Z/9999-12-31T23:59:59Z", "UTC") == (
        utc("0001-01-01 00:00"),
        utc("9999-12-31T23:59:59Z"),
    )


@pytest.mark.parametrize("command", ["freebusy", "find-slot"])
@pytest.mark.parametrize(("window", "zone"), OUTSIDE)
def test_cli_refuses_a_window_outside_the_supported_range(
    tmp_path: Path, command: str, window: str, zone: str
) -> None:
    path = tmp_path / "empty.ics"
    path.write_text(calendar(), encoding="utf-8")
    extra = ["--duration", "30m"] if command == "find-slot" else []
    args = [command, "--ics", str(path), "--between", window, "--tz", zone, *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    assert "input.invalid_option" in result.stderr
    assert "years 1-9999 in UTC" in result.stderr


def test_the_api_refuses_a_window_outside_the_supported_range() -> None:
    late = utc("9999-12-31 23:00")
    beyond = late.plus_seconds(4 * 3600)
    assert beyond is not None
    with pytest.raises(ValueError, match="years 1-9999 in UTC"):
        busy_periods(parse_calendar(calendar()), late, beyond)
    with pytest.raises(ValueError, match="years 1-9999 in UTC"):
        SlotQuery(late, beyond, 1800)


def test_events_ending_after_year_9999_are_busy() -> None:
    text = calendar(
        vevent("DTSTART:99991231T233000Z", "DURATION:PT1H", uid="a"),
        vevent("DTSTART;VALUE=DATE:99991231", uid="b"),
        vevent("DTSTART:99991231T220000Z", "DURATION:PT1H", "RRULE:FREQ=HOURLY", uid="c"),
    )
    busy = busy_periods(parse_calendar(text), *span("9999-12-31 20:00", "9999-12-31 23:59"))
    assert [(p.uid, p.start.format(), p.end.format()) for p in busy] == [
        ("b", "9999-12-31T00:00:00Z", "+10000-01-01T00:00:00Z"),
        ("c", "9999-12-31T22:00:00Z", "9999-12-31T23:00:00Z"),
        ("c", "9999-12-31T23:00:00Z", "+10000-01-01T00:00:00Z"),
        ("a", "9999-12-31T23:30:00Z", "+10000-01-01T00:30:00Z"),
    ]


def test_an_all_day_event_on_the_last_day_is_read_in_the_floating_zone() -> None:
    text = calendar(vevent("DTSTART;VALUE=DATE:99991231", uid="b"))
    window = span("9999-12-31 20:00", "9999-12-31 23:59")
    (period,) = busy_periods(parse_calendar(text), *window, floating_zone="America/Los_Angeles")
    # midnight PST (UTC-8) to the next midnight, 24 hours later
    assert (period.start.format(), period.end.format()) == (
        "9999-12-31T08:00:00Z",
        "+10000-01-01T08:00:00Z",
    )


def test_an_event_ending_after_year_9999_does_not_break_other_windows() -> None:
    text = calendar(
        vevent("DTSTART;TZID=America/Los_Angeles:99991231T235900", "DURATION:PT1M", uid="far"),
        vevent("DTSTART:20261005T090000Z", "DURATION:PT1H", uid="now"),
    )
    busy = busy_periods(parse_calendar(text), *span("2026-10-05 00:00", "2026-10-06 00:00"))
    assert [p.uid for p in busy] == ["now"]
