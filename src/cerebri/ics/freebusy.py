"""Busy time published as ``VFREEBUSY`` (RFC 5545 sections 3.6.4, 3.8.2.6 and 3.2.9).

Each ``FREEBUSY`` value is a period ``start/end`` or ``start/duration``. Its ``FBTYPE``
parameter decides: ``BUSY`` (the default when absent), ``BUSY-UNAVAILABLE`` and
``BUSY-TENTATIVE`` are busy; ``FREE`` is not. Unknown values are treated as ``BUSY``, as
section 3.2.9 requires for unrecognised ``x-name`` and ``iana-token`` values. Periods are in
UTC by the RFC; a floating value is read in the floating zone like any other. The
``VFREEBUSY``'s own ``DTSTART``/``DTEND`` (the range the publisher covered) are not used.
Every period read is charged to the counted limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta, tzinfo

from icalendar import Component

from cerebri.ics.errors import CalendarError
from cerebri.ics.expand import Budget, overlaps
from cerebri.ics.source import component_uid, property_line
from cerebri.ics.times import Duration, add_duration, to_instant
from cerebri.ics.zones import property_values
from cerebri.temporal.instant import Instant

__all__ = ["FreeBusyPeriod", "freebusy_periods"]


@dataclass(frozen=True, slots=True)
class FreeBusyPeriod:
    """One busy period of a ``VFREEBUSY`` component."""

    start: Instant
    end: Instant
    uid: str
    fbtype: str
    sequence: int


def _bounds(period: tuple[date, object], floating: tzinfo) -> tuple[Instant, Instant]:
    first, second = period
    start = to_instant(first, floating)
    if isinstance(second, timedelta):
        return start, add_duration(first, Duration.from_timedelta(second), floating)
    assert isinstance(second, date)
    return start, to_instant(second, floating)


def _is_busy(fbtype: str) -> bool:
    return fbtype != "FREE"


def freebusy_periods(
    calendar: Component,
    window_start: Instant,
    window_end: Instant,
    *,
    floating: tzinfo,
    budget: Budget,
    source: str,
) -> Iterator[FreeBusyPeriod]:
    """The busy ``FREEBUSY`` periods of ``calendar`` overlapping the window."""
    for component in calendar.walk("VFREEBUSY"):
        uid = component_uid(component)
        line = property_line(component, "FREEBUSY")
        sequence = component.get("SEQUENCE")
        try:
            seq = max(int(sequence), 0) if sequence is not None else 0
        except (TypeError, ValueError):
            seq = 0
        for value in property_values(component, "FREEBUSY"):
            budget.spend(uid=uid, line=line, source=source)
            params = getattr(value, "params", None)
            fbtype = str(params.get("FBTYPE", "BUSY") if params is not None else "BUSY").upper()
            if not _is_busy(fbtype):
                continue
            try:
                start, end = _bounds(value.dt, floating)
            except (OverflowError, ValueError) as exc:
                raise CalendarError(
                    "ics.invalid_range",
                    f"FREEBUSY period cannot be placed: {exc}",
                    uid=uid,
                    line=line,
                    source=source,
                ) from None
            if overlaps(start, end, window_start, window_end):
                yield FreeBusyPeriod(start, end, uid, fbtype, seq)
