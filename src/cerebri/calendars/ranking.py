"""Daily preferences: how far a start is from what the user prefers on its own day.

CPIR 0.2 carries one preferred instant, but people mean a time of day on *every* day of the
window (docs/decisions/0026-daily-preferences-and-optional-attendees.md). The distance is
computed here, from the :class:`~cerebri.calendars.SlotQuery` and a start instant, in whole
seconds (truncated toward zero, as the planner truncates, planner.md 7):

* ``prefer`` ``T``: the distance to the nearest local ``T`` of any day (the day before the
  window to the day after it, so a start late in the evening may be nearest to the next
  morning's ``T``);
* ``prefer_between`` ``(A, B)``: 0 when the start lies in ``[A, B]`` (both ends included)
  of some local day, else the distance to the nearest ``A`` or ``B``;
* ``prefer_earliest``: the start's local wall-clock time of day, seconds after midnight
  (09:00 → 32 400), so mornings come first, whichever the day;
* ``prefer_latest``: ``86 399`` minus that, so evenings come first;
* none of them: no distance (``None``).

Local times follow the zone's rules through :mod:`zoneinfo` (``fold=0``: a time of day the
clocks skip is read with the offset before the change, an ambiguous one as its first
occurrence). Pure: no clock, no I/O.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from cerebri.calendars.query import SlotQuery
from cerebri.temporal import Instant, zone

__all__ = ["has_daily_preference", "preference_distance"]

NS = 1_000_000_000
LAST_SECOND_OF_DAY = 86_399


def has_daily_preference(query: SlotQuery) -> bool:
    """Whether ``query`` asks for any daily preference."""
    return (
        query.prefer is not None
        or query.prefer_between is not None
        or query.prefer_earliest
        or query.prefer_latest
    )


def _daily(query: SlotQuery, moment: time) -> list[int]:
    """``moment`` on every local day from the day before the window to the day after, ns."""
    tz = zone(query.zone)
    first = query.window_start.to_datetime()
    last = query.window_end.to_datetime()
    if first is None or last is None:  # pragma: no cover - SlotQuery checks the range
        raise ValueError("the window must lie within the years 1-9999")
    day = first.astimezone(tz).date() - timedelta(days=1)
    end_day = last.astimezone(tz).date() + timedelta(days=1)
    out: list[int] = []
    while day <= end_day:
        out.append(Instant.from_datetime(datetime.combine(day, moment, tz)).ns)
        day += timedelta(days=1)
    return out


def _seconds(ns: int) -> int:
    return abs(ns) // NS


def preference_distance(query: SlotQuery, start: Instant) -> int | None:
    """The daily-preference distance of ``start`` (a UTC instant) in seconds, or ``None``
    when ``query`` has no daily preference. See the module doc for each kind."""
    if query.prefer is not None:
        return min(_seconds(start.ns - p) for p in _daily(query, query.prefer))
    if query.prefer_between is not None:
        opens = _daily(query, query.prefer_between[0])
        closes = _daily(query, query.prefer_between[1])
        best: int | None = None
        for low, high in zip(opens, closes, strict=True):
            gap = (
                0
                if low <= start.ns <= high
                else min(_seconds(start.ns - low), _seconds(start.ns - high))
            )
            best = gap if best is None else min(best, gap)
        return best
    if query.prefer_earliest or query.prefer_latest:
        moment = start.to_datetime()
        if moment is None:  # pragma: no cover - SlotQuery checks the range
            raise ValueError("the start must lie within the years 1-9999")
        local = moment.astimezone(zone(query.zone))
        of_day = local.hour * 3600 + local.minute * 60 + local.second
        return of_day if query.prefer_earliest else LAST_SECOND_OF_DAY - of_day
    return None
