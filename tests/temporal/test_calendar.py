"""LocalDate and LocalTime: parsing, formatting, calendar arithmetic and pydantic support."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from cerebri.temporal import LocalDate, LocalTime
from tests.strategies import calendar_dates as dates

SECOND = 10**9


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_length(year: int, month: int) -> int:
    lengths = [31, 29 if is_leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return lengths[month - 1]


def oracle_ordinal(year: int, month: int, day: int) -> int:
    """Closed-form day count (0001-01-01 = 1) from leap-year counting, no datetime involved."""
    before = year - 1
    jan1 = 365 * before + before // 4 - before // 100 + before // 400 + 1
    return jan1 + sum(month_length(year, m) for m in range(1, month)) + day - 1


class Model(BaseModel):
    model_config = ConfigDict(strict=True)
    day: LocalDate
    at: LocalTime


# ----------------------------------------------------------------------------- LocalDate


@pytest.mark.parametrize(
    ("text", "fields", "ordinal"),
    [
        ("0001-01-01", (1, 1, 1), 1),
        ("1970-01-01", (1970, 1, 1), 719163),
        ("2026-03-29", (2026, 3, 29), 739704),
        ("0000-12-31", (0, 12, 31), 0),
        ("0000-01-01", (0, 1, 1), -365),
        ("-0001-12-31", (-1, 12, 31), -366),
    ],
)
def test_date_known_values(text: str, fields: tuple[int, int, int], ordinal: int) -> None:
    parsed = LocalDate.parse(text)
    assert (parsed.year, parsed.month, parsed.day) == fields
    assert parsed.ordinal() == ordinal
    assert parsed.format() == text
    assert LocalDate.from_ordinal(ordinal) == parsed


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("+262142-12-31", "+262142-12-31"),
        ("-262143-01-01", "-262143-01-01"),
        ("-000001-06-15", "-0001-06-15"),
        ("+0001-02-03", "0001-02-03"),
        ("+010000-01-01", "+10000-01-01"),
        ("-0000-01-01", "0000-01-01"),
    ],
)
def test_date_extended_years(text: str, canonical: str) -> None:
    assert LocalDate.parse(text).format() == canonical


def test_weekday_monday_is_zero() -> None:
    assert LocalDate(2026, 3, 29).weekday() == 6  # a Sunday (date -u -d 2026-03-29 +%A)
    assert LocalDate(2026, 10, 1).weekday() == 3  # a Thursday
    assert LocalDate(1970, 1, 1).weekday() == 3
    assert LocalDate(2026, 3, 30).weekday() == 0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2026-13-01", "month 13"),
        ("2026-00-10", "month 0"),
        ("2026-02-29", "day 29"),
        ("2024-02-30", "day 30"),
        ("2026-04-31", "day 31"),
        ("+262143-01-01", "year 262143"),
        ("-262144-12-31", "year -262144"),
        ("26-01-01", "expected YYYY-MM-DD"),
        ("2026-1-01", "expected YYYY-MM-DD"),
        ("20260101", "expected YYYY-MM-DD"),
        ("2026-01-01 ", "expected YYYY-MM-DD"),
        ("+1234567-01-01", "expected YYYY-MM-DD"),
        ("２０２６-01-01", "expected YYYY-MM-DD"),
    ],
)
def test_date_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        LocalDate.parse(text)


def test_date_ordering_leap_years_and_bounds() -> None:
    assert LocalDate(-1, 12, 31) < LocalDate(0, 1, 1) < LocalDate(2026, 1, 1)
    assert LocalDate.parse("2000-02-29") == LocalDate(2000, 2, 29)
    assert LocalDate(2026, 12, 31).plus_days(1) == LocalDate(2027, 1, 1)
    assert LocalDate(262142, 12, 31).plus_days(1) is None
    assert LocalDate(-262143, 1, 1).plus_days(-1) is None
    with pytest.raises(OverflowError):
        LocalDate.from_ordinal(LocalDate(262142, 12, 31).ordinal() + 1)
    with pytest.raises(ValueError, match="day 29"):
        LocalDate(1900, 2, 29)  # 1900 is not a leap year


@given(dates())
def test_date_matches_closed_form_oracle(fields: tuple[int, int, int]) -> None:
    value = LocalDate(*fields)
    assert value.ordinal() == oracle_ordinal(*fields)
    assert LocalDate.from_ordinal(value.ordinal()) == value
    assert LocalDate.parse(value.format()) == value
    assert value.weekday() == (oracle_ordinal(*fields) - 1) % 7


@given(dates(), dates())
def test_date_order_agrees_with_ordinal(a: tuple[int, int, int], b: tuple[int, int, int]) -> None:
    assert (LocalDate(*a) < LocalDate(*b)) == (oracle_ordinal(*a) < oracle_ordinal(*b))


# ----------------------------------------------------------------------------- LocalTime


@pytest.mark.parametrize(
    ("text", "ns", "canonical"),
    [
        ("00:00:00", 0, "00:00:00"),
        ("10:30:00", (10 * 3600 + 30 * 60) * SECOND, "10:30:00"),
        ("23:59:59.999999999", 86400 * SECOND - 1, "23:59:59.999999999"),
        ("12:00:00.5", 43200 * SECOND + 500_000_000, "12:00:00.500"),
        ("12:00:00.0005", 43200 * SECOND + 500_000, "12:00:00.000500"),
        ("12:00:00.000000001", 43200 * SECOND + 1, "12:00:00.000000001"),
        ("12:00:00.000", 43200 * SECOND, "12:00:00"),
        ("12:00:00.1234", 43200 * SECOND + 123_400_000, "12:00:00.123400"),
    ],
)
def test_time_known_values(text: str, ns: int, canonical: str) -> None:
    value = LocalTime.parse(text)
    assert value.ns == ns
    assert not value.is_leap_second
    assert value.format() == canonical
    assert LocalTime.parse(canonical) == value


def test_time_leap_second_is_flagged() -> None:
    leap = LocalTime.parse("23:59:60.25")
    assert leap.is_leap_second
    assert (leap.hour, leap.minute, leap.second, leap.nanosecond) == (23, 59, 60, 250_000_000)
    assert leap.format() == "23:59:60.250"
    assert LocalTime.parse("23:59:59.9") < leap
    mid = LocalTime.parse("10:30:60")
    assert LocalTime.parse("10:30:59.999") < mid < LocalTime.parse("10:31:00")
    assert mid != LocalTime.parse("10:31:00")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("24:00:00", "hour 24"),
        ("10:60:00", "minute 60"),
        ("10:00:61", "second 61"),
        ("10:00", "expected HH:MM:SS"),  # HH:MM without seconds is refused on purpose
        ("10:00:00.", "expected HH:MM:SS"),
        ("10:00:00.1234567890", "at most 9"),
        ("1:00:00", "expected HH:MM:SS"),
        ("10:00:00Z", "expected HH:MM:SS"),
    ],
)
def test_time_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        LocalTime.parse(text)


def test_time_constructor_checks() -> None:
    assert LocalTime.of(9, 5, 7, 42).format() == "09:05:07.000000042"
    with pytest.raises(ValueError):
        LocalTime(86400 * SECOND)
    with pytest.raises(ValueError):
        LocalTime(-1)
    with pytest.raises(ValueError):
        LocalTime(30 * SECOND, is_leap_second=True)
    with pytest.raises(ValueError):
        LocalTime.of(1, 2, 3, SECOND)


@given(st.integers(0, 86400 * SECOND - 1))
def test_time_round_trip(ns: int) -> None:
    value = LocalTime(ns)
    assert LocalTime.parse(value.format()) == value
    expected = f"{ns // SECOND // 3600:02d}:{ns // SECOND // 60 % 60:02d}:{ns // SECOND % 60:02d}"
    assert value.format()[:8] == expected


# ----------------------------------------------------------------------------- pydantic


def test_pydantic_strict_json_round_trip() -> None:
    model = Model.model_validate_json('{"day": "+262142-12-31", "at": "08:15:00.5"}')
    assert model.day == LocalDate(262142, 12, 31)
    assert model.at == LocalTime.of(8, 15, 0, 500_000_000)
    assert model.model_dump_json() == '{"day":"+262142-12-31","at":"08:15:00.500"}'
    assert model.model_dump() == {"day": "+262142-12-31", "at": "08:15:00.500"}
    assert Model.model_validate(model.model_dump()) == model
    assert Model(day=model.day, at=model.at) == model


@pytest.mark.parametrize(
    "payload",
    [
        '{"day": "2026-02-30", "at": "08:15:00"}',
        '{"day": "2026-02-10", "at": "08:15"}',
        '{"day": 20260210, "at": "08:15:00"}',
        '{"day": "2026-02-10", "at": 29700}',
    ],
)
def test_pydantic_rejects(payload: str) -> None:
    with pytest.raises(ValidationError):
        Model.model_validate_json(payload)


def test_json_schema() -> None:
    props = Model.model_json_schema()["properties"]
    assert props["day"]["type"] == "string"
    assert props["day"]["format"] == "date"
    assert props["at"]["type"] == "string"
