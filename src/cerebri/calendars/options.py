"""Reading the everyday command-line values: durations, windows and local times.

* durations: the one grammar of :mod:`cerebri.durations` (``90``, ``45s``, ``30m``,
  ``1h30m``, ``2d``, ``PT1H30M``, ``P1W``...), in whole seconds: fractions of a second are
  refused; at most :data:`cerebri.cpir.MAX_DURATION_SECONDS`, the CPIR limit;
* windows: ``START/END`` with ISO 8601 date-times (``datetime.fromisoformat``); a bound
  without an offset is local time in the given zone;
* times of day: ``HH:MM`` or ``HH:MM:SS`` (``time.fromisoformat``).

Every failure is a ``ValueError`` whose message names the value and shows an example.
Every command-line duration option shares the duration grammar (docs/decisions/0039).
"""

from __future__ import annotations

from datetime import datetime, time

from cerebri.durations import read_seconds
from cerebri.errors import CerebriError
from cerebri.ics.times import check_supported_window
from cerebri.temporal import Instant, zone

__all__ = [
    "parse_attendance",
    "parse_buffer",
    "parse_duration",
    "parse_time_of_day",
    "parse_time_range",
    "parse_window",
    "parse_working_days",
    "parse_working_hours",
]

_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_duration(text: str) -> int:
    """Whole seconds from ``90``, ``30m``, ``1h30m``, ``2d``, ``PT1H30M``, ``P1W`` or
    ``P1DT2H`` (see the module doc).

    Raises ``ValueError`` when the text cannot be read, is not longer than zero, uses
    years, months or fractions of a second, or exceeds ``MAX_DURATION_SECONDS``
    (9 223 372 036 854 775 s, the CPIR limit).
    """
    seconds = _duration_seconds(text)
    if seconds <= 0:
        raise ValueError(f"duration {text!r} must be longer than zero")
    return seconds


def parse_buffer(text: str) -> int:
    """A minimum gap in whole seconds: :func:`parse_duration`'s forms, where zero
    (``0``, ``0m``, ``PT0S``) is allowed and means no buffer.

    Raises ``ValueError`` as :func:`parse_duration` does, except for zero.
    """
    return _duration_seconds(text)


def _duration_seconds(text: str) -> int:
    """Whole seconds, at least 0 and at most ``MAX_DURATION_SECONDS``, in the one grammar
    of :mod:`cerebri.durations`; ``ValueError`` for text that cannot be read, is too long
    or is not whole seconds."""
    seconds = read_seconds(text)
    if seconds != seconds.to_integral_value():
        raise ValueError(f"duration {text!r} must be whole seconds")
    return int(seconds)


def _instant(text: str, zone_name: str) -> Instant:
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"cannot read date-time {text!r}; write e.g. 2026-10-05T08:00 or 2026-10-05T08:00Z"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(zone_name))
    return Instant.from_datetime(moment)


def parse_window(text: str, zone_name: str) -> tuple[Instant, Instant]:
    """``START/END`` → two UTC instants; bounds without an offset are local in the zone.

    ``ValueError`` (``input.invalid_option`` on the command line) for an unreadable,
    empty or reversed window, or one whose UTC bounds leave years 1-9999
    (:data:`cerebri.ics.times.SUPPORTED_RANGE`): no calendar can describe that time.
    """
    parts = text.split("/")
    if len(parts) != 2:
        raise ValueError(
            f"cannot read window {text!r}; write START/END, e.g. 2026-10-05T08:00/2026-10-09T18:00"
        )
    start, end = (_instant(part, zone_name) for part in parts)
    if not start < end:
        raise ValueError(f"window {text!r} must start before it ends")
    try:
        check_supported_window(start, end)
    except ValueError as exc:
        reason = exc.message if isinstance(exc, CerebriError) else str(exc)
        raise ValueError(f"window {text!r} in {zone_name}: {reason}") from None
    return start, end


def parse_time_of_day(text: str) -> time:
    """``HH:MM`` or ``HH:MM:SS``."""
    try:
        return time.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"cannot read time of day {text!r}; write e.g. 10:30") from None


def parse_working_hours(text: str, *, overnight: bool = False) -> tuple[time, time]:
    """``HH:MM-HH:MM``: same day, start before end; with ``overnight`` an end at or before
    the start is allowed too (``22:00-06:00``: the hours run past midnight into the next
    local day), but never an end equal to the start."""
    parts = text.split("-")
    if len(parts) != 2:
        raise ValueError(f"cannot read working hours {text!r}; write e.g. 09:00-17:00")
    opens, closes = (parse_time_of_day(part) for part in parts)
    if overnight and opens == closes:
        raise ValueError(f"working hours {text!r} must not end when they start")
    if not overnight and not opens < closes:
        raise ValueError(f"working hours {text!r} must start before they end")
    return opens, closes


def parse_working_days(text: str) -> frozenset[int]:
    """``Mon-Fri``, ``Mon,Wed,Fri`` or ``Sat-Sun`` → weekday numbers (Monday = 0).

    A range runs forward and may wrap (``Fri-Mon``); names are the English three-letter
    abbreviations, in any case.
    """
    days: set[int] = set()
    for part in text.split(","):
        bounds = [b.strip().lower()[:3] for b in part.split("-")]
        if not 1 <= len(bounds) <= 2 or any(b not in _DAYS for b in bounds):
            raise ValueError(f"cannot read working days {text!r}; write e.g. Mon-Fri or Mon,Wed")
        first, last = _DAYS.index(bounds[0]), _DAYS.index(bounds[-1])
        days.update((first + step) % 7 for step in range((last - first) % 7 + 1))
    return frozenset(days)


def parse_time_range(text: str) -> tuple[time, time]:
    """``HH:MM-HH:MM`` (same day, start before end), e.g. ``--prefer-between 10:00-12:00``."""
    parts = text.split("-")
    if len(parts) != 2:
        raise ValueError(f"cannot read time range {text!r}; write e.g. 10:00-12:00")
    first, last = (parse_time_of_day(part) for part in parts)
    if not first < last:
        raise ValueError(f"time range {text!r} must start before it ends (same day)")
    return first, last


def parse_attendance(text: str) -> float:
    """A fraction from 0 to 1 (``0.8`` = 80 % of all attendees), for ``--min-attendance``.

    Percentages (``80``, ``80%``) are refused with a hint rather than guessed: ``1`` would be
    ambiguous between 100 % and 1 %.
    """
    value = text.strip()
    try:
        share = float(value)
    except ValueError:
        raise ValueError(
            f"cannot read attendance {text!r}; write a fraction from 0 to 1, e.g. 0.8 for 80 %"
        ) from None
    if not 0 <= share <= 1:  # also refuses nan
        raise ValueError(
            f"attendance {text!r} is not a fraction from 0 to 1; write e.g. 0.8 for 80 %"
        )
    return share
