"""Instant: RFC 3339 parsing/formatting, range, arithmetic, datetime and pydantic interop.

Expected epoch values were checked with GNU ``date -u -d … +%s`` where it can express them and
with chrono's published bounds (-8_334_601_228_800 s and 8_210_266_876_799 s) otherwise.
"""

from __future__ import annotations

import copy
import pickle
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from cerebri.temporal import Instant
from tests.strategies import timestamp_fields

SECOND = 10**9
MIN_SECONDS = -8_334_601_228_800  # -262143-01-01T00:00:00Z
MAX_SECONDS = 8_210_266_876_799  # +262142-12-31T23:59:59Z


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def oracle_days_since_epoch(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 by closed-form leap counting, independent of the implementation."""
    lengths = [31, 29 if is_leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    before = year - 1
    ordinal = 365 * before + before // 4 - before // 100 + before // 400 + 1
    ordinal += sum(lengths[: month - 1]) + day - 1
    return ordinal - 719_163


class Event(BaseModel):
    model_config = ConfigDict(strict=True)
    at: Instant


# ----------------------------------------------------------------------------- known values


@pytest.mark.parametrize(
    ("text", "seconds", "canonical"),
    [
        ("1970-01-01T00:00:00Z", 0, "1970-01-01T00:00:00Z"),
        ("2026-10-01T10:00:00Z", 1_790_848_800, "2026-10-01T10:00:00Z"),
        ("2026-10-01T12:00:00+02:00", 1_790_848_800, "2026-10-01T10:00:00Z"),
        ("2026-10-01T05:30:00-04:30", 1_790_848_800, "2026-10-01T10:00:00Z"),
        ("2026-10-01t10:00:00z", 1_790_848_800, "2026-10-01T10:00:00Z"),
        ("2026-10-01 10:00:00Z", 1_790_848_800, "2026-10-01T10:00:00Z"),
        ("2026-10-01T00:00:00+23:59", 1_790_848_800 - 10 * 3600 - 86340, "2026-09-30T00:01:00Z"),
        ("2026-01-01T01:30:00Z", 1_767_231_000, "2026-01-01T01:30:00Z"),
        ("2000-02-29T12:34:56Z", 951_827_696, "2000-02-29T12:34:56Z"),
        ("1969-12-31T23:59:59Z", -1, "1969-12-31T23:59:59Z"),
        ("0001-01-01T00:00:00Z", -62_135_596_800, "0001-01-01T00:00:00Z"),
        ("9999-12-31T23:59:59Z", 253_402_300_799, "9999-12-31T23:59:59Z"),
        ("+10000-01-01T00:00:00Z", 253_402_300_800, "+10000-01-01T00:00:00Z"),
        ("0000-01-01T00:00:00Z", -62_167_219_200, "0000-01-01T00:00:00Z"),
        ("-0001-01-01T00:00:00Z", -62_198_755_200, "-0001-01-01T00:00:00Z"),
        ("-000001-01-01T00:00:00Z", -62_198_755_200, "-0001-01-01T00:00:00Z"),
        ("0001-01-01T00:30:00+01:00", -62_135_598_600, "0000-12-31T23:30:00Z"),
        ("-262143-01-01T00:00:00Z", MIN_SECONDS, "-262143-01-01T00:00:00Z"),
        ("+262142-12-31T23:59:59Z", MAX_SECONDS, "+262142-12-31T23:59:59Z"),
    ],
)
def test_parse_and_format_known_values(text: str, seconds: int, canonical: str) -> None:
    value = Instant.parse(text)
    assert value.ns == seconds * SECOND
    assert value.format() == canonical
    assert str(value) == canonical
    assert Instant.parse(canonical) == value


def test_min_and_max_round_trip() -> None:
    assert Instant.MIN.ns == MIN_SECONDS * SECOND
    assert Instant.MAX.ns == (MAX_SECONDS + 1) * SECOND - 1
    assert Instant.MIN.format() == "-262143-01-01T00:00:00Z"
    assert Instant.MAX.format() == "+262142-12-31T23:59:59.999999999Z"
    assert Instant.parse(Instant.MIN.format()) == Instant.MIN
    assert Instant.parse(Instant.MAX.format()) == Instant.MAX
    assert (
        Instant.parse("+262142-12-31T23:59:59.999999999+00:01").ns == Instant.MAX.ns - 60 * SECOND
    )
    with pytest.raises(OverflowError):
        Instant(Instant.MAX.ns + 1)
    with pytest.raises(OverflowError):
        Instant(Instant.MIN.ns - 1)


@pytest.mark.parametrize(
    ("fraction", "nanos", "written"),
    [
        (".5", 500_000_000, ".500"),
        (".0005", 500_000, ".000500"),
        (".000000007", 7, ".000000007"),
        (".123", 123_000_000, ".123"),
        (".1234", 123_400_000, ".123400"),
        (".1234567", 123_456_700, ".123456700"),
        (".000", 0, ""),
        (".000000000", 0, ""),
    ],
)
def test_fraction_formatting(fraction: str, nanos: int, written: str) -> None:
    value = Instant.parse(f"2026-10-01T10:00:00{fraction}Z")
    assert value.ns == 1_790_848_800 * SECOND + nanos
    assert value.format() == f"2026-10-01T10:00:00{written}Z"


def test_fraction_before_epoch() -> None:
    value = Instant.parse("1969-12-31T23:59:59.75Z")
    assert value.ns == -250_000_000
    assert value.format() == "1969-12-31T23:59:59.750Z"


# ----------------------------------------------------------------------------- rejections


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2026-13-01T00:00:00Z", "month 13"),
        ("2026-02-30T00:00:00Z", "day 30"),
        ("2026-02-29T00:00:00Z", "day 29"),
        ("2026-10-01T24:00:00Z", "hour 24"),
        ("2026-10-01T10:60:00Z", "minute 60"),
        ("2016-12-31T23:59:60Z", "leap second"),
        ("2026-10-01T10:00:61Z", "second 61"),
        ("2026-10-01T10:00:00+24:00", "offset"),
        ("2026-10-01T10:00:00+01:60", "offset"),
        ("2026-10-01T10:00:00.1234567891Z", "at most 9"),
        ("2026-10-01T10:00:00", "expected"),
        ("2026-10-01T10:00Z", "expected"),
        ("2026-10-01T10:00:00.Z", "expected"),
        ("2026-10-01T10:00:00+0200", "expected"),
        ("2026-10-01T10:00:00+02", "expected"),
        ("2026-10-01_10:00:00Z", "expected"),
        ("26-10-01T10:00:00Z", "expected"),
        ("12026-10-01T10:00:00Z", "expected"),
        ("+1234567-10-01T10:00:00Z", "expected"),
        (" 2026-10-01T10:00:00Z", "expected"),
        ("2026-10-01T10:00:00Z\n", "expected"),
        ("", "expected"),
        ("+262143-01-01T00:00:00Z", "year 262143"),
        ("+262142-12-31T23:59:59-00:01", "outside the supported instant range"),
        ("-262143-01-01T00:00:00+00:01", "outside the supported instant range"),
    ],
)
def test_parse_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        Instant.parse(text)


def test_constructor_type_checks_and_immutability() -> None:
    with pytest.raises(TypeError):
        Instant(True)
    with pytest.raises(TypeError):
        Instant(1.5)  # type: ignore[arg-type]
    value = Instant(0)
    with pytest.raises(AttributeError):
        value.ns = 5
    assert not hasattr(value, "__dict__")


def test_pickle_and_copy() -> None:
    value = Instant.parse("2026-10-01T10:00:00.000000001Z")
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) == value
    assert copy.copy(Instant.MAX) == Instant.MAX


# ----------------------------------------------------------------------------- arithmetic


def test_arithmetic_and_ordering() -> None:
    start = Instant.from_seconds(1_790_848_800)
    assert start == Instant.parse("2026-10-01T10:00:00Z")
    later = start.plus_seconds(3600)
    assert later == Instant.parse("2026-10-01T11:00:00Z")
    assert later is not None
    assert later - start == 3600 * SECOND
    assert start - later == -3600 * SECOND
    assert start.plus_ns(-1) == Instant.parse("2026-10-01T09:59:59.999999999Z")
    same = Instant(start.ns)
    assert start < later and later > start and start <= same and start >= same
    assert sorted([later, start]) == [start, later]
    assert len({start, Instant(start.ns), later}) == 2
    assert start != start.ns


def test_plus_never_raises_at_edges() -> None:
    assert Instant.MAX.plus_seconds(1) is None
    assert Instant.MIN.plus_seconds(-1) is None
    assert Instant.MAX.plus_ns(1) is None
    assert Instant.MAX.plus_ns(0) == Instant.MAX
    assert Instant.MIN.plus_seconds(10**30) is None
    assert Instant.MAX.plus_seconds(-1) == Instant.parse("+262142-12-31T23:59:58.999999999Z")
    with pytest.raises(OverflowError):
        Instant.from_seconds(MAX_SECONDS + 1)


def test_utc_date() -> None:
    assert str(Instant.parse("2026-10-01T23:59:59.999Z").utc_date()) == "2026-10-01"
    assert str(Instant.MIN.utc_date()) == "-262143-01-01"
    assert str(Instant.MAX.utc_date()) == "+262142-12-31"


# ----------------------------------------------------------------------------- datetime


def test_to_datetime_truncates_toward_the_past() -> None:
    value = Instant.parse("2026-10-01T10:00:00.123456789Z")
    assert value.to_datetime() == datetime(2026, 10, 1, 10, 0, 0, 123456, tzinfo=UTC)
    before = Instant.parse("1969-12-31T23:59:59.999999999Z")
    assert before.to_datetime() == datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    converted = value.to_datetime()
    assert converted is not None
    assert converted.utcoffset() == timedelta(0)


def test_to_datetime_range() -> None:
    assert Instant.parse("0001-01-01T00:00:00Z").to_datetime() == datetime(1, 1, 1, tzinfo=UTC)
    assert Instant.parse("0000-12-31T23:59:59.999999999Z").to_datetime() is None
    last = Instant.parse("9999-12-31T23:59:59.999999999Z").to_datetime()
    assert last == datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert Instant.parse("+10000-01-01T00:00:00Z").to_datetime() is None
    assert Instant.MIN.to_datetime() is None
    assert Instant.MAX.to_datetime() is None


def test_from_datetime() -> None:
    aware = datetime(2026, 10, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert Instant.from_datetime(aware) == Instant.from_seconds(1_790_848_800)
    with pytest.raises(ValueError, match="naive"):
        Instant.from_datetime(datetime(2026, 10, 1))  # noqa: DTZ001


# ----------------------------------------------------------------------------- properties


@given(st.integers(MIN_SECONDS * SECOND, (MAX_SECONDS + 1) * SECOND - 1))
def test_round_trip_whole_range(ns: int) -> None:
    value = Instant(ns)
    assert Instant.parse(value.format()) == value


@given(timestamp_fields())
def test_parse_matches_oracle(fields: tuple[int, int, int, int, int, int]) -> None:
    year, month, day, sod, nanos, offset_min = fields
    sign = "-" if offset_min < 0 else "+"
    offset = f"{sign}{abs(offset_min) // 60:02d}:{abs(offset_min) % 60:02d}"
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{year:+07d}"
    text = (
        f"{year_text}-{month:02d}-{day:02d}T{sod // 3600:02d}:{sod // 60 % 60:02d}:"
        f"{sod % 60:02d}.{nanos:09d}{offset}"
    )
    expected = (oracle_days_since_epoch(year, month, day) * 86400 + sod) * SECOND + nanos
    expected -= offset_min * 60 * SECOND
    value = Instant.parse(text)
    assert value.ns == expected
    written = value.format()
    assert written.endswith("Z")
    fraction = written[written.find(".", 10) :] if "." in written else ""
    assert len(fraction) in (0, 5, 8, 11)


# ----------------------------------------------------------------------------- pydantic


def test_pydantic_strict_json() -> None:
    event = Event.model_validate_json('{"at": "2026-10-01T12:00:00.5+02:00"}')
    assert event.at == Instant.parse("2026-10-01T10:00:00.500Z")
    assert event.model_dump_json() == '{"at":"2026-10-01T10:00:00.500Z"}'
    assert event.model_dump() == {"at": "2026-10-01T10:00:00.500Z"}
    assert Event.model_validate(event.model_dump()) == event
    assert Event(at=Instant.MAX).model_dump_json() == '{"at":"+262142-12-31T23:59:59.999999999Z"}'
    extreme = Event.model_validate_json('{"at": "-262143-01-01T00:00:00Z"}')
    assert extreme.at == Instant.MIN


@pytest.mark.parametrize(
    "payload",
    [
        '{"at": "2026-13-01T00:00:00Z"}',
        '{"at": 1790848800}',
        '{"at": null}',
        '{"at": "2026-10-01T10:00:00"}',
        '{"at": "2016-12-31T23:59:60Z"}',
    ],
)
def test_pydantic_rejects(payload: str) -> None:
    with pytest.raises(ValidationError):
        Event.model_validate_json(payload)


def test_pydantic_json_schema() -> None:
    schema = Event.model_json_schema()
    assert schema["properties"]["at"] == {"type": "string", "format": "date-time", "title": "At"}
