"""The corrected end of an instance (RFC 5545 sections 3.3.6, 3.6.1, 3.8.5.3).

``recurring-ical-events`` adds ``DTEND - DTSTART`` (or the ``DURATION``) on the wall
clock; here hours, minutes and seconds are exact and only days and weeks nominal. End
rules are read once per component (:class:`_EndRule`) and applied to each instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from icalendar import Component

from cerebri.ics.times import Duration, add_duration, to_instant
from cerebri.ics.validate import component_duration, time_of
from cerebri.temporal.instant import Instant


@dataclass(frozen=True, slots=True)
class _EndRule:
    """How one component ends its instances (RFC 5545 sections 3.3.6, 3.6.1, 3.8.5.3).

    Read once per component and applied to each of its instances: ``days`` nominal days
    for an all-day component (from ``DTEND``, else ``duration``, else one day); for a
    date-time component ``exact`` nanoseconds (``DTEND``: the same exact duration for every
    instance), else ``duration`` (nominal days, exact time), else a point in time.
    """

    all_day: bool
    days: int | None = None
    exact: int | None = None
    duration: Duration | None = None

    def end(self, start_value: date, start: Instant, floating: tzinfo) -> Instant:
        if self.all_day:  # nominal days
            day = start_value.date() if isinstance(start_value, datetime) else start_value
            if self.duration is not None:
                return add_duration(day, self.duration, floating)
            return add_duration(day, Duration(self.days or 1, 0), floating)
        if self.exact is not None:
            return _plus(start, self.exact)
        if self.duration is not None:
            return add_duration(start_value, self.duration, floating)
        return start  # DATE-TIME without DTEND or DURATION: a point in time


def _end_rule(source: Component, floating: tzinfo) -> _EndRule:
    defined_start = time_of(source, "DTSTART")
    defined_end = time_of(source, "DTEND") if "DTEND" in source else None
    return _end_rule_of(defined_start, defined_end, component_duration(source), floating)


def _end_rule_of(
    defined_start: date, defined_end: date | None, duration: Duration | None, floating: tzinfo
) -> _EndRule:
    """The end rule of a component's ``DTSTART``, ``DTEND`` and ``DURATION`` values
    (``duration`` is not read when there is a ``DTEND``)."""
    if not isinstance(defined_start, datetime):
        if defined_end is not None:
            return _EndRule(True, days=max((defined_end - defined_start).days, 1))
        return _EndRule(True, duration=duration)
    if defined_end is not None:
        exact = to_instant(defined_end, floating) - to_instant(defined_start, floating)
        return _EndRule(False, exact=exact)
    return _EndRule(False, duration=duration)


def _plus(start: Instant, nanoseconds: int) -> Instant:
    moved = start.plus_ns(nanoseconds)
    if moved is None:
        raise OverflowError("instance end is outside the supported range")
    return moved
