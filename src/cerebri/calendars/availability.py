"""Time an attendee's published availability (RFC 7953 ``VAVAILABILITY``) excludes.

Inside a ``VAVAILABILITY``'s own ``[DTSTART, DTEND)`` range (unbounded where absent), only
its ``AVAILABLE`` blocks are open (:func:`cerebri.ics.working_periods` reads them, with
``PRIORITY``); the rest of that range is unavailable. Outside every range the calendar says
nothing about availability, and only its events count.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time

from icalendar import Component

from cerebri.ics import DEFAULT_MAX_OCCURRENCES, working_periods
from cerebri.temporal import Instant, Interval, complement, merge, zone

__all__ = ["unavailable_ranges"]


def _instant(value: date, floating_zone: str) -> Instant:
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=zone(floating_zone))
    else:
        moment = datetime.combine(value, time(0), zone(floating_zone))
    return Instant.from_datetime(moment)


def _range(component: Component, window: Interval, floating_zone: str) -> Interval | None:
    start, end = window.start, window.end
    if (dtstart := component.get("DTSTART")) is not None:
        start = max(start, _instant(dtstart.dt, floating_zone).ns)
    if (dtend := component.get("DTEND")) is not None:
        end = min(end, _instant(dtend.dt, floating_zone).ns)
    elif dtstart is not None and (duration := component.get("DURATION")) is not None:
        begin = _instant(dtstart.dt, floating_zone).ns
        end = min(end, begin + int(duration.dt.total_seconds()) * 1_000_000_000)
    return Interval(start, end) if start < end else None


def unavailable_ranges(
    calendars: Sequence[Component],
    window_start: Instant,
    window_end: Instant,
    *,
    floating_zone: str,
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> tuple[Interval, ...]:
    """Merged UTC nanosecond intervals inside the window that some calendar's availability
    excludes. Calendars without ``VAVAILABILITY`` contribute nothing.

    ``max_occurrences`` bounds each calendar's expansion (generated ``AVAILABLE``
    instances per calendar and window; see :data:`cerebri.ics.DEFAULT_MAX_OCCURRENCES`).

    Raises:
        CalendarError: a malformed availability component (see :mod:`cerebri.ics`), or
            ``ics.expansion_limit`` past ``max_occurrences``.
    """
    window = Interval(window_start.ns, window_end.ns)
    closed: list[Interval] = []
    for calendar in calendars:
        components = list(calendar.walk("VAVAILABILITY"))
        if not components:
            continue
        ranges = merge(
            span for c in components if (span := _range(c, window, floating_zone)) is not None
        )
        open_time = merge(
            Interval(a.ns, b.ns)
            for a, b in working_periods(
                calendar,
                window_start,
                window_end,
                floating_zone=floating_zone,
                max_occurrences=max_occurrences,
            )
            if a < b
        )
        for span in ranges:
            closed.extend(complement(span, open_time))
    return merge(closed)
