"""Time an attendee's published availability (RFC 7953 ``VAVAILABILITY``) excludes.

Inside a ``VAVAILABILITY``'s own ``[DTSTART, DTEND)`` range (unbounded where absent), only
its ``AVAILABLE`` blocks are open (:func:`cerebri.ics.working_periods` reads them, with
``PRIORITY``); the rest of that range is unavailable. Outside every range the calendar says
nothing about availability, and only its events count.

:func:`availability_zone` names the zone an attendee's availability is written in (the
``TZID`` of its ``DTSTART``, RFC 5545 3.2.19), which the answer uses to show slots in that
attendee's local time (docs/decisions/0053).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time

from icalendar import Component

from cerebri.ics import DEFAULT_MAX_OCCURRENCES, working_periods
from cerebri.temporal import Instant, Interval, complement, merge, zone
from cerebri.temporal.zones import check_zone_name

__all__ = ["availability_zone", "unavailable_ranges"]


def _zone_name(component: Component) -> str | None:
    """The IANA zone of ``component``'s ``DTSTART`` (its ``TZID`` parameter, else the key of
    the zone icalendar resolved it to), or None (UTC, floating, a date, a non-IANA TZID)."""
    prop = component.get("DTSTART")
    if prop is None or not isinstance(getattr(prop, "dt", None), datetime):
        return None
    candidates = (str(prop.params.get("TZID", "")), str(getattr(prop.dt.tzinfo, "key", "")))
    for name in candidates:
        if not name or name == "UTC":
            continue
        try:
            return check_zone_name(name)
        except ValueError:
            continue
    return None


def availability_zone(calendars: Sequence[Component]) -> str | None:
    """The IANA zone the first ``VAVAILABILITY`` (then the first ``AVAILABLE``) with a
    zoned ``DTSTART`` is written in, across ``calendars`` in order; None when none has one
    (no availability, or only UTC, floating or date values)."""
    for kind in ("VAVAILABILITY", "AVAILABLE"):
        for calendar in calendars:
            for component in calendar.walk(kind):
                if (name := _zone_name(component)) is not None:
                    return name
    return None


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
