"""``Instant``: an exact UTC point in time with nanosecond precision (cpir-0.2.md section 1.6).

An instant is an integer count of nanoseconds since 1970-01-01T00:00:00Z, so it covers chrono's
whole range (-262143-01-01T00:00:00Z to +262142-12-31T23:59:59.999999999Z), far beyond what
:class:`datetime.datetime` can hold. Leap seconds do not exist on this time line.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Final

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from cerebri.temporal.calendar import (
    FRACTION_PATTERN,
    MAX_YEAR,
    MIN_YEAR,
    NS_PER_DAY,
    NS_PER_HOUR,
    NS_PER_MINUTE,
    NS_PER_SECOND,
    YEAR_PATTERN,
    LocalDate,
    check_clock,
    check_date,
    civil_of,
    format_fraction,
    format_year,
    ordinal_of,
    parse_fraction,
    string_scalar_schema,
)
from cerebri.temporal.errors import invalid_argument

__all__ = ["MAX_NS", "MIN_NS", "Instant"]

_EPOCH_ORDINAL: Final = ordinal_of(1970, 1, 1)
MIN_NS: Final = (ordinal_of(MIN_YEAR, 1, 1) - _EPOCH_ORDINAL) * NS_PER_DAY
MAX_NS: Final = (ordinal_of(MAX_YEAR, 12, 31) + 1 - _EPOCH_ORDINAL) * NS_PER_DAY - 1

_NS_PER_MICROSECOND: Final = 1_000
_DATETIME_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_DATETIME_MIN_NS: Final = (ordinal_of(1, 1, 1) - _EPOCH_ORDINAL) * NS_PER_DAY
_DATETIME_MAX_NS: Final = (ordinal_of(9999, 12, 31) + 1 - _EPOCH_ORDINAL) * NS_PER_DAY - 1
_NAIVE_EPOCH: Final = datetime(1970, 1, 1)  # noqa: DTZ001 - only used to format UTC fields

_RFC3339_RE: Final = re.compile(
    rf"({YEAR_PATTERN})-(\d{{2}})-(\d{{2}})[Tt ](\d{{2}}):(\d{{2}}):(\d{{2}}){FRACTION_PATTERN}"
    r"([Zz]|[+-]\d{2}:\d{2})",
    re.ASCII,
)
_PLAIN_UTC_RE: Final = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)
"""The common spelling ``YYYY-MM-DDTHH:MM:SSZ``, read by the C ``fromisoformat``."""


class Instant:
    """An exact UTC instant: ``ns`` nanoseconds since 1970-01-01T00:00:00Z.

    Immutable, hashable and totally ordered by ``ns``. ``Instant(ns)`` raises
    :class:`~cerebri.errors.InvalidArgumentError` (``temporal.invalid_argument``, also a
    ``TypeError``) unless ``ns`` is an ``int`` (``bool`` is refused) and ``OverflowError`` unless
    ``MIN.ns <= ns <= MAX.ns``. ``a - b`` is the signed distance in nanoseconds.

    Text form (``format``/``str``): UTC with ``Z``; the fraction is left out when zero and
    otherwise written with the shortest exact choice of 3, 6 or 9 digits. Years outside
    0000..9999 follow chrono's serialiser: an explicit sign and the year zero-padded to at
    least four digits (``-0001``, ``+10000``, ``+262142``). Sign plus six digits (``-000001``)
    was considered and not chosen, so output matches the reference byte for byte; ``parse``
    accepts both spellings.
    """

    __slots__ = ("ns",)

    ns: int
    MIN: ClassVar[Instant]
    MAX: ClassVar[Instant]

    def __init__(self, ns: int) -> None:
        if type(ns) is not int:
            raise invalid_argument(
                f"Instant needs an int count of nanoseconds, not {type(ns).__name__}"
            )
        if not MIN_NS <= ns <= MAX_NS:
            raise OverflowError(f"{ns} ns since the epoch is outside the supported instant range")
        object.__setattr__(self, "ns", ns)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Instant is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Instant is immutable; cannot delete {name!r}")

    def __reduce__(self) -> tuple[type[Instant], tuple[int]]:
        return (Instant, (self.ns,))

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_seconds(cls, seconds: int) -> Instant:
        """Instant ``seconds`` whole seconds after the epoch; ``OverflowError`` if out of range."""
        return cls(seconds * NS_PER_SECOND)

    @classmethod
    def from_datetime(cls, value: datetime) -> Instant:
        """Instant of an aware ``datetime`` (exact, microsecond precision).

        Raises ``ValueError`` for a naive ``datetime``.
        """
        if value.utcoffset() is None:
            raise ValueError("a naive datetime has no defined instant; attach a tzinfo")
        return cls((value - _DATETIME_EPOCH) // timedelta(microseconds=1) * _NS_PER_MICROSECOND)

    @classmethod
    def parse(cls, text: str) -> Instant:
        """Read an RFC 3339 timestamp with any offset and convert it to UTC.

        Accepted: ``YYYY-MM-DD`` (or a signed 4-6 digit year such as ``+262142`` or
        ``-000001``), separator ``T``/``t``/space, ``HH:MM:SS``, an optional ``.`` plus 1-9
        fraction digits, and ``Z``/``z``/``+hh:mm``/``-hh:mm`` (hh 00..23, mm 00..59).

        Raises ``ValueError`` for malformed text, impossible fields (month 13, 30 February,
        hour 24, minute 60), a leap second (second 60), more than 9 fraction digits, an
        offset out of range, or a result outside the supported instant range.
        """
        if _PLAIN_UTC_RE.fullmatch(text) is not None:
            # Fast path (about 5x): years 0001-9999 whole-second UTC. Anything fromisoformat
            # refuses (year 0000, 30 February, hour 24, second 60) takes the full path below,
            # which words the error.
            try:
                local = datetime.fromisoformat(text[:19])
            except ValueError:
                pass
            else:
                days = local.toordinal() - _EPOCH_ORDINAL
                return cls(
                    (days * 86_400 + local.hour * 3_600 + local.minute * 60 + local.second)
                    * NS_PER_SECOND
                )
        match = _RFC3339_RE.fullmatch(text)
        if match is None:
            raise ValueError(
                f"invalid RFC 3339 timestamp {text!r}: expected "
                "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm|-hh:mm)"
            )
        year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
        offset = match.group(8)
        try:
            check_date(year, month, day)
            check_clock(hour, minute, second, allow_leap=False)
            nanos = parse_fraction(match.group(7))
            offset_ns = 0
            if offset not in ("Z", "z"):
                off_hours, off_minutes = int(offset[1:3]), int(offset[4:6])
                if off_hours > 23 or off_minutes > 59:
                    raise ValueError(f"UTC offset {offset} is outside -23:59..+23:59")
                offset_ns = off_hours * NS_PER_HOUR + off_minutes * NS_PER_MINUTE
                if offset[0] == "-":
                    offset_ns = -offset_ns
        except ValueError as exc:
            raise ValueError(f"invalid RFC 3339 timestamp {text!r}: {exc}") from None
        days = ordinal_of(year, month, day) - _EPOCH_ORDINAL
        local_ns = (
            days * NS_PER_DAY
            + hour * NS_PER_HOUR
            + minute * NS_PER_MINUTE
            + second * NS_PER_SECOND
            + nanos
        )
        ns = local_ns - offset_ns
        if not MIN_NS <= ns <= MAX_NS:
            raise ValueError(f"timestamp {text!r} is outside the supported instant range")
        return cls(ns)

    # ----------------------------------------------------------------- arithmetic

    def plus_ns(self, nanoseconds: int) -> Instant | None:
        """The instant ``nanoseconds`` later (negative: earlier), or ``None`` if out of range."""
        ns = self.ns + nanoseconds
        return Instant(ns) if MIN_NS <= ns <= MAX_NS else None

    def plus_seconds(self, seconds: int) -> Instant | None:
        """The instant ``seconds`` (whole seconds) later, or ``None`` if out of range; no raise."""
        return self.plus_ns(seconds * NS_PER_SECOND)

    def __sub__(self, other: Instant) -> int:
        """Signed distance ``self - other`` in nanoseconds."""
        if not isinstance(other, Instant):
            return NotImplemented
        return self.ns - other.ns

    # ----------------------------------------------------------------- views

    def utc_date(self) -> LocalDate:
        """The calendar date of this instant in UTC."""
        return LocalDate(*civil_of(self.ns // NS_PER_DAY + _EPOCH_ORDINAL))

    def to_datetime(self) -> datetime | None:
        """Aware UTC ``datetime``, or ``None`` outside years 1..9999.

        ``datetime`` holds microseconds only: the sub-microsecond part is dropped by rounding
        toward the past (floor), also before the epoch, so the result is never later than
        the instant.
        """
        if not _DATETIME_MIN_NS <= self.ns <= _DATETIME_MAX_NS:
            return None
        return _DATETIME_EPOCH + timedelta(microseconds=self.ns // _NS_PER_MICROSECOND)

    def format(self) -> str:
        """RFC 3339 text in UTC with ``Z``, e.g. ``2026-10-01T10:00:00.500Z`` (see class doc)."""
        if _DATETIME_MIN_NS <= self.ns <= _DATETIME_MAX_NS:
            # Years 1-9999: the C implementation of isoformat is several times faster.
            seconds, nanos = divmod(self.ns, NS_PER_SECOND)
            fields = (_NAIVE_EPOCH + timedelta(seconds=seconds)).isoformat()
            return f"{fields}{format_fraction(nanos)}Z"
        days, day_ns = divmod(self.ns, NS_PER_DAY)
        year, month, day = civil_of(days + _EPOCH_ORDINAL)
        seconds, nanos = divmod(day_ns, NS_PER_SECOND)
        return (
            f"{format_year(year)}-{month:02d}-{day:02d}T"
            f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            f"{format_fraction(nanos)}Z"
        )

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"Instant.parse({self.format()!r})"

    # ----------------------------------------------------------------- comparison

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Instant) and self.ns == other.ns

    def __hash__(self) -> int:
        return hash(self.ns)

    def __lt__(self, other: Instant) -> bool:
        return self.ns < other.ns

    def __le__(self, other: Instant) -> bool:
        return self.ns <= other.ns

    def __gt__(self, other: Instant) -> bool:
        return self.ns > other.ns

    def __ge__(self, other: Instant) -> bool:
        return self.ns >= other.ns

    # ----------------------------------------------------------------- pydantic

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return string_scalar_schema(cls, cls.parse, Instant.format)

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"type": "string", "format": "date-time"}


Instant.MIN = Instant(MIN_NS)
Instant.MAX = Instant(MAX_NS)
