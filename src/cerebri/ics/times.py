"""iCalendar time values as instants, and durations (RFC 5545 sections 3.3.4-3.3.6).

* A ``DATE-TIME`` with a zone is converted exactly (``fold=0``: RFC 5545 section 3.3.5).
* A floating ``DATE-TIME`` (no zone) is read as wall time in the caller's floating zone.
* A ``DATE`` means the start of that day in the floating zone.

Durations (section 3.3.6): weeks and days are *nominal* (``P1D`` is "the same wall time the
next day", 23 or 25 hours across a DST change); hours, minutes and seconds are *exact*
elapsed time (``PT1H`` is always 3600 seconds, ``PT24H`` always 86400). A mixed value such
as ``P1DT2H`` adds the nominal part first, then the exact part (the order JSCalendar,
RFC 8984 section 1.4.6, spells out; RFC 5545 leaves it implicit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Final

from cerebri.temporal.calendar import NS_PER_DAY, NS_PER_SECOND
from cerebri.temporal.instant import Instant

__all__ = [
    "Duration",
    "add_duration",
    "check_supported_window",
    "date_text",
    "parse_duration",
    "start_of_day",
    "to_instant",
    "utc_text",
]

_DURATION_RE: Final = re.compile(
    r"([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", re.ASCII
)


@dataclass(frozen=True, slots=True)
class Duration:
    """A duration split as RFC 5545 3.3.6 does: nominal days, exact seconds, a sign."""

    days: int
    seconds: int
    negative: bool = False

    @classmethod
    def from_timedelta(cls, value: timedelta) -> Duration:
        """Best reading of an already-parsed value: whole days nominal, the rest exact.

        ``icalendar`` folds ``PT24H`` into one day, so this reads it as ``P1D``; use
        :func:`parse_duration` on the raw text when it is available.
        """
        negative = value < timedelta(0)
        magnitude = -value if negative else value
        return cls(magnitude.days, magnitude.seconds, negative)

    @property
    def is_zero(self) -> bool:
        return self.days == 0 and self.seconds == 0


def parse_duration(text: str) -> Duration | None:
    """Read a ``dur-value`` such as ``P1W``, ``-PT15M`` or ``P1DT2H``; ``None`` if malformed."""
    cleaned = text.strip().upper()
    match = _DURATION_RE.fullmatch(cleaned)
    if match is None:
        return None
    sign, weeks, days, hours, minutes, seconds = match.groups()
    if weeks is None and days is None and hours is None and minutes is None and seconds is None:
        return None  # "P" or "PT" alone
    if "T" in cleaned and hours is None and minutes is None and seconds is None:
        return None  # "P1DT": a time designator without a time
    return Duration(
        days=int(weeks or 0) * 7 + int(days or 0),
        seconds=int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds or 0),
        negative=sign == "-",
    )


SUPPORTED_RANGE: Final = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z (years 1-9999 in UTC)"
"""The instants a query window may cover: those ``datetime`` (and so iCalendar's four-digit
years, RFC 5545 section 3.3.4) can describe in UTC."""


def check_supported_window(window_start: Instant, window_end: Instant) -> None:
    """Raise ``ValueError`` naming :data:`SUPPORTED_RANGE` when either bound of a window
    lies outside it (a window given in a zone far from UTC may leave years 1-9999 in UTC
    although its local bounds do not); a calendar cannot describe that time."""
    if window_start.to_datetime() is None or window_end.to_datetime() is None:
        raise ValueError(
            f"the window {window_start.format()}/{window_end.format()} leaves the supported "
            f"range {SUPPORTED_RANGE}"
        )


def start_of_day(day: date, floating: tzinfo) -> datetime:
    """Midnight starting ``day`` in the floating zone (``fold=0``)."""
    return datetime(day.year, day.month, day.day, tzinfo=floating)


def _aware(value: date | datetime, floating: tzinfo) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=floating)
    return start_of_day(value, floating)


def to_instant(value: date | datetime, floating: tzinfo) -> Instant:
    """The instant of an iCalendar time value (see the module doc).

    Raises ``OverflowError``/``ValueError`` for values the zone rules cannot place.
    """
    return Instant.from_datetime(_aware(value, floating))


def add_duration(start: date | datetime, duration: Duration, floating: tzinfo) -> Instant:
    """``start`` plus a non-negative duration: nominal days on the wall clock, then exact time.

    Days that would end after year 9999 on the wall clock (which ``datetime`` cannot hold)
    are taken as 24 hours each.

    Raises ``OverflowError`` when the result leaves the supported range.
    """
    local = _aware(start, floating)
    exact = duration.seconds * NS_PER_SECOND
    if duration.days:
        try:
            wall = local.replace(tzinfo=None) + timedelta(days=duration.days)
        except OverflowError:  # after year 9999 there is no wall clock: days of 24 hours
            exact += duration.days * NS_PER_DAY
        else:
            local = wall.replace(tzinfo=local.tzinfo, fold=0)
    moved = Instant.from_datetime(local).plus_ns(exact)
    if moved is None:
        raise OverflowError("end of duration is outside the supported range")
    return moved


def date_text(day: date) -> str:
    """``YYYYMMDD``, the iCalendar form of a date."""
    return f"{day.year:04d}{day.month:02d}{day.day:02d}"


def utc_text(instant: Instant) -> str:
    """``YYYYMMDDTHHMMSSZ`` (fractions dropped), the iCalendar UTC form of an instant."""
    moment = instant.to_datetime()
    if moment is None:  # outside years 1..9999: fall back to the RFC 3339 text
        return instant.format()
    return f"{date_text(moment)}T{moment.hour:02d}{moment.minute:02d}{moment.second:02d}Z"
