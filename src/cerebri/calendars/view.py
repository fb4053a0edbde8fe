"""Busy, free and unobserved time of a window over several calendars."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from icalendar import Component

from cerebri._guard import arguments
from cerebri.calendars.arguments import calendar_items, invalid_argument
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.ics import (
    DEFAULT_MAX_OCCURRENCES,
    BusyPeriod,
    CalendarWarning,
    busy_periods,
    calendar_incomplete,
    warnings_of,
)
from cerebri.temporal import Instant, Interval, complement, merge

__all__ = ["FreeBusyView", "freebusy"]


@dataclass(frozen=True, slots=True)
class FreeBusyView:
    """Busy periods, free, unavailable and unobserved time of a window (UTC nanosecond
    intervals for the last three). Together they cover the window; free time overlaps none
    of the others.

    ``warnings`` lists what reading the calendars noticed (sorted
    :class:`~cerebri.ics.CalendarWarning`); ``complete`` is ``False`` when events were left
    out (``skip_invalid_events``): the view then may show as free time an event that could
    not be read.
    """

    window: Interval
    busy: tuple[BusyPeriod, ...]
    free: tuple[Interval, ...]
    unknown: tuple[Interval, ...]
    unavailable: tuple[Interval, ...] = ()
    warnings: tuple[CalendarWarning, ...] = ()
    complete: bool = True


@arguments(
    invalid_argument,
    window_start=Instant,
    window_end=Instant,
    floating_zone=str,
    max_occurrences=int,
)
def freebusy(
    calendars: Sequence[Component],
    window_start: Instant,
    window_end: Instant,
    *,
    floating_zone: str = "UTC",
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> FreeBusyView:
    """Busy, free and unknown time of ``calendars`` in ``[window_start, window_end)``.

    Free time is only time every calendar describes, none marks busy and no attendee's
    availability (RFC 7953) excludes.

    ``max_occurrences`` bounds the generated recurrence instances of one query (see
    :func:`cerebri.ics.busy_periods`).

    Raises:
        CalendarError: a malformed calendar (see :mod:`cerebri.ics`), or
            ``ics.expansion_limit`` past ``max_occurrences``.
        InvalidArgumentError: ``calendars.invalid_argument`` (a ``TypeError`` and a
            ``ValueError``) for an argument of the wrong Python type, before anything is
            expanded.
    """
    calendars = calendar_items(calendars, "freebusy() calendars")
    window = Interval(window_start.ns, window_end.ns)
    busy = busy_periods(
        calendars,
        window_start,
        window_end,
        floating_zone=floating_zone,
        max_occurrences=max_occurrences,
    )
    unknown = unobserved_ranges(calendars, window)
    closed = unavailable_ranges(
        calendars,
        window_start,
        window_end,
        floating_zone=floating_zone,
        max_occurrences=max_occurrences,
    )
    taken = [
        piece
        for p in busy
        if p.start < p.end
        and (piece := Interval(p.start.ns, p.end.ns).intersection(window)) is not None
    ]
    free = complement(window, merge([*taken, *unknown, *closed]))
    return FreeBusyView(
        window,
        busy,
        free,
        unknown,
        closed,
        warnings=warnings_of(calendars),
        complete=not any(calendar_incomplete(calendar) for calendar in calendars),
    )
