"""Calendar scalars: ``LocalDate`` and ``LocalTime`` (cpir-0.2.md section 1.6).

The proleptic Gregorian calendar is delegated to :mod:`datetime`: a year outside 1..9999 is
moved by a whole number of 400-year cycles (each exactly 146 097 days long) into the span
that ``datetime.date`` understands, converted there, and the cycles are added back.

The supported year range is chrono's: -262143 to +262142 inclusive.

Text forms follow chrono: a year in 0000..9999 is written with four digits; any other year is
written with an explicit sign and at least four digits (``-0001``, ``+10000``, ``+262142``).
On input a signed year may have 4 to 6 digits, so ``-000001`` is read as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import total_ordering
from typing import Any, Final, TypeVar

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from cerebri.temporal.errors import invalid_argument

__all__ = ["MAX_YEAR", "MIN_YEAR", "LocalDate", "LocalTime"]

MIN_YEAR: Final = -262143
MAX_YEAR: Final = 262142

NS_PER_SECOND: Final = 1_000_000_000
NS_PER_MINUTE: Final = 60 * NS_PER_SECOND
NS_PER_HOUR: Final = 60 * NS_PER_MINUTE
NS_PER_DAY: Final = 24 * NS_PER_HOUR

_CYCLE_YEARS: Final = 400
_CYCLE_DAYS: Final = 146_097
_BASE_YEAR: Final = 2000  # years are folded into 2000..2399 before calling datetime
_BASE_ORDINAL: Final = date(_BASE_YEAR, 1, 1).toordinal()

YEAR_PATTERN: Final = r"(?:[+-]\d{4,6}|\d{4})"
FRACTION_PATTERN: Final = r"(?:\.(\d+))?"
_DATE_RE: Final = re.compile(rf"({YEAR_PATTERN})-(\d{{2}})-(\d{{2}})", re.ASCII)
# Seconds are mandatory: ``HH:MM`` is rejected. chrono may accept it, but every upstream
# fixture writes seconds and the spec lists the short form as unresolved (cpir-0.2.md 1.6).
_TIME_RE: Final = re.compile(rf"(\d{{2}}):(\d{{2}}):(\d{{2}}){FRACTION_PATTERN}", re.ASCII)

_T = TypeVar("_T")


# --------------------------------------------------------------------------- helpers


def days_in_month(year: int, month: int) -> int:
    """Number of days in ``month`` (1..12) of proleptic Gregorian ``year``."""
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def check_date(year: int, month: int, day: int) -> None:
    """Raise ``ValueError`` naming the offending field unless the date is valid and in range."""
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ValueError(f"year {year} is outside the supported range {MIN_YEAR}..{MAX_YEAR}")
    if not 1 <= month <= 12:
        raise ValueError(f"month {month} is outside 1..12")
    last = days_in_month(year, month)
    if not 1 <= day <= last:
        raise ValueError(f"day {day} is outside 1..{last} for {format_year(year)}-{month:02d}")


def ordinal_of(year: int, month: int, day: int) -> int:
    """Day number of a valid date, counting 0001-01-01 as 1 (like ``date.toordinal``)."""
    cycles, folded = divmod(year - _BASE_YEAR, _CYCLE_YEARS)
    return date(_BASE_YEAR + folded, month, day).toordinal() + cycles * _CYCLE_DAYS


def civil_of(ordinal: int) -> tuple[int, int, int]:
    """Inverse of :func:`ordinal_of`: ``(year, month, day)`` for any integer day number."""
    cycles, rest = divmod(ordinal - _BASE_ORDINAL, _CYCLE_DAYS)
    folded = date.fromordinal(_BASE_ORDINAL + rest)
    return folded.year + cycles * _CYCLE_YEARS, folded.month, folded.day


def format_year(year: int) -> str:
    """chrono's year rule: four digits for 0..9999, otherwise sign plus at least four digits."""
    return f"{year:04d}" if 0 <= year <= 9999 else f"{year:+05d}"


def parse_fraction(digits: str | None) -> int:
    """Nanoseconds of a fraction given by 1 to 9 digits (``None`` → 0); more raise ValueError."""
    if digits is None:
        return 0
    if len(digits) > 9:
        raise ValueError(f"fraction has {len(digits)} digits; at most 9 (nanoseconds) allowed")
    return int(digits.ljust(9, "0"))


def format_fraction(nanos: int) -> str:
    """``""`` for 0, else ``.`` plus the shortest exact 3, 6 or 9 digit form of ``nanos``."""
    if nanos == 0:
        return ""
    if nanos % 1_000_000 == 0:
        return f".{nanos // 1_000_000:03d}"
    if nanos % 1_000 == 0:
        return f".{nanos // 1_000:06d}"
    return f".{nanos:09d}"


def check_clock(hour: int, minute: int, second: int, *, allow_leap: bool) -> None:
    """Raise ``ValueError`` unless hour 0..23, minute 0..59, second 0..59 (or 60 if allowed)."""
    if hour > 23:
        raise ValueError(f"hour {hour} is outside 0..23")
    if minute > 59:
        raise ValueError(f"minute {minute} is outside 0..59")
    if second == 60 and not allow_leap:
        raise ValueError("second 60 (leap second) is not supported for instants")
    if second > 60:
        raise ValueError(f"second {second} is outside 0..59")


def string_scalar_schema(
    cls: type[_T], parse: Callable[[str], _T], fmt: Callable[[_T], str]
) -> CoreSchema:
    """Pydantic core schema for a scalar carried as a JSON string.

    Input: a string (JSON or Python mode, also under ``strict=True``) is passed to ``parse``,
    whose ``ValueError`` becomes a validation error; an existing ``cls`` instance is accepted
    in Python mode. Output: always ``fmt(value)``, so ``model_dump()`` is JSON-ready too.
    """
    from_text = core_schema.chain_schema(
        [core_schema.str_schema(), core_schema.no_info_plain_validator_function(parse)]
    )
    return core_schema.json_or_python_schema(
        json_schema=from_text,
        python_schema=core_schema.union_schema([core_schema.is_instance_schema(cls), from_text]),
        serialization=core_schema.plain_serializer_function_ser_schema(fmt, when_used="always"),
    )


# --------------------------------------------------------------------------- LocalDate


@dataclass(frozen=True, slots=True, order=True)
class LocalDate:
    """A proleptic Gregorian calendar date without zone, years -262143..+262142.

    Immutable, hashable and ordered chronologically. The constructor raises ``ValueError`` for
    an invalid date (month 13, 30 February, year out of range).
    """

    year: int
    month: int
    day: int

    def __post_init__(self) -> None:
        if not type(self.year) is type(self.month) is type(self.day) is int:
            raise invalid_argument(
                f"LocalDate needs int year, month and day, got {type(self.year).__name__}, "
                f"{type(self.month).__name__}, {type(self.day).__name__}"
            )
        check_date(self.year, self.month, self.day)

    @classmethod
    def parse(cls, text: str) -> LocalDate:
        """Read ``YYYY-MM-DD`` (or ``±YYYYYY-MM-DD``); raises ``ValueError`` on bad text."""
        match = _DATE_RE.fullmatch(text)
        if match is None:
            raise ValueError(f"invalid local date {text!r}: expected YYYY-MM-DD")
        year, month, day = (int(group) for group in match.groups())
        try:
            return cls(year, month, day)
        except ValueError as exc:
            raise ValueError(f"invalid local date {text!r}: {exc}") from None

    @classmethod
    def from_ordinal(cls, ordinal: int) -> LocalDate:
        """Date of day number ``ordinal`` (0001-01-01 is 1); ``OverflowError`` if out of range."""
        year, month, day = civil_of(ordinal)
        if not MIN_YEAR <= year <= MAX_YEAR:
            raise OverflowError(f"day number {ordinal} is outside the supported date range")
        return cls(year, month, day)

    def ordinal(self) -> int:
        """Day number of this date, 0001-01-01 being 1 (earlier dates give 0 or negatives)."""
        return ordinal_of(self.year, self.month, self.day)

    def weekday(self) -> int:
        """Day of the week, Monday = 0 … Sunday = 6."""
        return (self.ordinal() - 1) % 7

    def plus_days(self, days: int) -> LocalDate | None:
        """The date ``days`` days later (negative: earlier), or ``None`` if out of range."""
        try:
            return LocalDate.from_ordinal(self.ordinal() + days)
        except OverflowError:
            return None

    def format(self) -> str:
        """``YYYY-MM-DD``, extended years signed (``+262142-12-31``, ``-0001-01-01``)."""
        return f"{format_year(self.year)}-{self.month:02d}-{self.day:02d}"

    def __str__(self) -> str:
        return self.format()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return string_scalar_schema(cls, cls.parse, LocalDate.format)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "date"}


# --------------------------------------------------------------------------- LocalTime


@total_ordering
@dataclass(frozen=True, slots=True)
class LocalTime:
    """A wall-clock time of day with nanosecond precision.

    ``ns`` is nanoseconds since midnight computed from the written fields, so it lies in
    ``0 .. 86_400 * 10**9 - 1`` for ordinary times. A leap second (``HH:MM:60[.f]``, accepted
    at any minute as chrono does) has ``is_leap_second`` set and ``ns`` computed with second 60,
    i.e. numerically equal to the next minute's ``:00[.f]``; it sorts just before that time.
    The constructor raises ``ValueError`` for values that no text form could produce.
    """

    ns: int
    is_leap_second: bool = field(default=False, kw_only=True)

    def __post_init__(self) -> None:
        ns = self.ns
        if type(ns) is not int or type(self.is_leap_second) is not bool:
            raise invalid_argument(
                f"LocalTime needs int ns and bool is_leap_second, got {type(ns).__name__}"
            )
        if self.is_leap_second:
            base = ns - NS_PER_SECOND  # the same instant written with second 59
            if not 0 <= base < NS_PER_DAY or base // NS_PER_SECOND % 60 != 59:
                raise ValueError(f"{ns} ns is not a leap-second time of day (HH:MM:60[.f])")
        elif not 0 <= ns < NS_PER_DAY:
            raise ValueError(f"time of day {ns} ns is outside 0..{NS_PER_DAY - 1}")

    @classmethod
    def of(cls, hour: int, minute: int, second: int = 0, nanosecond: int = 0) -> LocalTime:
        """Build from fields; second 60 makes a leap second; raises ``ValueError`` if invalid."""
        if min(hour, minute, second, nanosecond) < 0 or nanosecond >= NS_PER_SECOND:
            raise ValueError("time fields must be non-negative and nanosecond < 10**9")
        check_clock(hour, minute, second, allow_leap=True)
        ns = hour * NS_PER_HOUR + minute * NS_PER_MINUTE + second * NS_PER_SECOND + nanosecond
        return cls(ns, is_leap_second=second == 60)

    @classmethod
    def parse(cls, text: str) -> LocalTime:
        """Read ``HH:MM:SS`` with an optional 1-9 digit fraction; ``ValueError`` on bad text."""
        match = _TIME_RE.fullmatch(text)
        if match is None:
            raise ValueError(f"invalid local time {text!r}: expected HH:MM:SS[.fraction]")
        hour, minute, second = (int(group) for group in match.groups()[:3])
        try:
            return cls.of(hour, minute, second, parse_fraction(match.group(4)))
        except ValueError as exc:
            raise ValueError(f"invalid local time {text!r}: {exc}") from None

    @property
    def hour(self) -> int:
        """Hour field, 0..23."""
        return self._fields()[0]

    @property
    def minute(self) -> int:
        """Minute field, 0..59."""
        return self._fields()[1]

    @property
    def second(self) -> int:
        """Second field, 0..59, or 60 for a leap second."""
        return self._fields()[2]

    @property
    def nanosecond(self) -> int:
        """Fraction of the second in nanoseconds, 0..999_999_999."""
        return self.ns % NS_PER_SECOND

    def _fields(self) -> tuple[int, int, int]:
        ns = self.ns - NS_PER_SECOND if self.is_leap_second else self.ns
        seconds = ns // NS_PER_SECOND
        extra = 1 if self.is_leap_second else 0
        return seconds // 3600, seconds // 60 % 60, seconds % 60 + extra

    def format(self) -> str:
        """``HH:MM:SS`` plus a 3, 6 or 9 digit fraction when the fraction is non-zero."""
        hour, minute, second = self._fields()
        return f"{hour:02d}:{minute:02d}:{second:02d}{format_fraction(self.nanosecond)}"

    def __str__(self) -> str:
        return self.format()

    def _key(self) -> tuple[int, bool]:
        return (self.ns, not self.is_leap_second)

    def __lt__(self, other: LocalTime) -> bool:
        return self._key() < other._key()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return string_scalar_schema(cls, cls.parse, LocalTime.format)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "pattern": r"^\d{2}:\d{2}:\d{2}(\.\d{1,9})?$"}
