"""Working hours from ``VAVAILABILITY`` (RFC 7953): :func:`working_periods`.

Reading, kept deliberately simple:

* A ``VAVAILABILITY`` covers ``[DTSTART, DTEND)`` (or ``DTSTART + DURATION``); a missing
  ``DTSTART`` or end leaves that side unbounded (RFC 7953 section 3.1). Inside that range the
  user is *not* working except during its ``AVAILABLE`` instances (``AVAILABLE`` components
  may recur with ``RRULE``/``RDATE``/``EXDATE``/``RECURRENCE-ID``; they are expanded like
  events and cut to their ``VAVAILABILITY``'s range).
* ``BUSYTYPE`` (``BUSY-UNAVAILABLE`` by default) only says *how* busy the rest of the range
  is; for working hours every value means "not working", so it is not consulted.
* ``PRIORITY``: 1 is the highest, 9 the lowest, and 0 or no ``PRIORITY`` ranks below 9
  (RFC 5545 section 3.8.1.9: 0 is "undefined"). Where ranges overlap, the highest-ranked
  components decide alone; components of equal rank are combined (their ``AVAILABLE``
  times are joined).
* Time not covered by any ``VAVAILABILITY`` is not reported as working: there is no
  availability information for it.

The result is the merged working time inside the window, as sorted, disjoint, non-touching
``(start, end)`` pairs cut to the window.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import tzinfo
from typing import Final

from icalendar import Component

from cerebri.ics.busy import DEFAULT_MAX_OCCURRENCES, calendars_of, check_query
from cerebri.ics.errors import CalendarError
from cerebri.ics.expand import Budget, expand
from cerebri.ics.source import calendar_source, component_line, component_uid
from cerebri.ics.times import add_duration, to_instant
from cerebri.ics.validate import check_for_query, component_duration, single
from cerebri.ics.zones import floating_tz
from cerebri.temporal.instant import Instant
from cerebri.temporal.interval import Interval, complement, merge

__all__ = ["UNRANKED", "working_periods"]

UNRANKED: Final = 10
"""Rank given to ``PRIORITY:0`` and to a missing ``PRIORITY`` (below 9, the lowest)."""


def _rank(component: Component) -> int:
    value = component.get("PRIORITY")
    try:
        priority = int(value) if value is not None else 0
    except (TypeError, ValueError):
        priority = 0
    return priority if 1 <= priority <= 9 else UNRANKED


def _range(
    component: Component, window: Interval, floating: tzinfo, source: str
) -> Interval | None:
    """The part of the window the ``VAVAILABILITY`` covers, or ``None``."""
    start_value = single(component, "DTSTART")
    end_value = single(component, "DTEND")
    duration = component_duration(component)
    try:
        start = window.start if start_value is None else to_instant(start_value.dt, floating).ns
        if end_value is not None:
            end = to_instant(end_value.dt, floating).ns
        elif duration is not None and start_value is not None:
            end = add_duration(start_value.dt, duration, floating).ns
        else:
            end = window.end
    except (OverflowError, ValueError) as exc:
        raise CalendarError(
            "ics.invalid_range",
            f"VAVAILABILITY range cannot be placed: {exc}",
            uid=component_uid(component),
            line=component_line(component),
            source=source,
        ) from None
    low, high = max(start, window.start), min(end, window.end)
    return Interval(low, high) if low < high else None


def working_periods(
    calendars: Iterable[Component] | Component,
    window_start: Instant,
    window_end: Instant,
    *,
    floating_zone: str = "UTC",
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
) -> tuple[tuple[Instant, Instant], ...]:
    """Working time (RFC 7953 availability) inside ``[window_start, window_end)``.

    See the module doc for how ``PRIORITY`` and ``BUSYTYPE`` are read. ``AVAILABLE``
    expansion shares the counted limit ``max_occurrences`` (``ics.expansion_limit``).

    Raises:
        CalendarError: a malformed component or the counted limit.
        ValueError: an empty or reversed window, a negative limit, an unknown floating zone.
    """
    check_query(window_start, window_end, max_occurrences, "working_periods")
    floating = floating_tz(floating_zone)
    budget = Budget(max_occurrences)
    window = Interval(window_start.ns, window_end.ns)
    covered: dict[int, list[Interval]] = {}
    available: dict[int, list[Interval]] = {}
    for calendar in calendars_of(calendars, "working_periods"):
        source = calendar_source(calendar)
        check_for_query(calendar, floating_zone, floating)
        blocks = sorted(calendar.walk("VAVAILABILITY"), key=component_uid)
        for block in blocks:
            span = _range(block, window, floating, source)
            if span is None:
                continue
            rank = _rank(block)
            covered.setdefault(rank, []).append(span)
            for instance in expand(
                block,
                "AVAILABLE",
                Instant(span.start),
                Instant(span.end),
                floating=floating,
                budget=budget,
                source=source,
            ):
                if not instance.start < instance.end:
                    continue  # a zero-length AVAILABLE adds no working time
                piece = span.intersection(Interval(instance.start.ns, instance.end.ns))
                if piece is not None:
                    available.setdefault(rank, []).append(piece)
    working: tuple[Interval, ...] = ()
    for rank in sorted(covered, reverse=True):  # lowest rank first; higher ranks override
        kept = [gap for part in working for gap in complement(part, covered[rank])]
        working = merge([*kept, *available.get(rank, [])])
    return tuple((Instant(part.start), Instant(part.end)) for part in working)
