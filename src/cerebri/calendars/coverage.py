"""Which part of a window the supplied calendars actually describe.

A calendar with events describes its whole window: an hour without events is free. A
calendar that only carries ``VFREEBUSY`` components describes only their
``[DTSTART, DTEND)`` ranges (RFC 5545 section 3.6.4); outside them nothing was observed, and
such time is *unknown*, never free. Several calendars (attendees) must all describe a moment
for it to be known.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from icalendar import Component

from cerebri._guard import arguments
from cerebri.calendars.arguments import calendar_items, invalid_argument
from cerebri.temporal import Instant, Interval, complement, merge

__all__ = ["observed_ranges", "unobserved_ranges"]


def _instant(value: date) -> Instant | None:
    if isinstance(value, datetime) and value.tzinfo is not None:
        return Instant.from_datetime(value)
    return None  # RFC 5545 requires UTC here; a floating VFREEBUSY bound observes nothing


@arguments(invalid_argument, calendar=Component, window=Interval)
def observed_ranges(calendar: Component, window: Interval) -> tuple[Interval, ...]:
    """Sub-ranges of ``window`` (nanoseconds) that ``calendar`` describes, merged.
    Raises ``calendars.invalid_argument`` unless ``calendar`` is an icalendar ``Component``
    and ``window`` an :class:`~cerebri.temporal.Interval`."""
    freebusy = list(calendar.walk("VFREEBUSY"))
    if calendar.walk("VEVENT") or not freebusy:
        return (window,)
    pieces: list[Interval] = []
    for component in freebusy:
        start = component.get("DTSTART")
        end = component.get("DTEND")
        if start is None or end is None:
            continue
        first, last = _instant(start.dt), _instant(end.dt)
        if first is None or last is None or not first < last:
            continue
        piece = Interval(first.ns, last.ns).intersection(window)
        if piece is not None:
            pieces.append(piece)
    return merge(pieces)


@arguments(invalid_argument, window=Interval)
def unobserved_ranges(calendars: Sequence[Component], window: Interval) -> tuple[Interval, ...]:
    """Parts of ``window`` that at least one calendar does not describe, merged.
    Raises ``calendars.invalid_argument`` for a wrong-typed argument."""
    gaps: list[Interval] = []
    for calendar in calendar_items(calendars, "unobserved_ranges() calendars"):
        gaps.extend(complement(window, observed_ranges(calendar, window)))
    return merge(gaps)
