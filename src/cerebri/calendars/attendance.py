"""Optional attendees: whose calendar also leaves a candidate slot free.

An optional attendee never blocks a slot (their busy time is not in the CPIR request); each
candidate reports them as ``free``, ``busy`` or ``unknown``, by the rules a required
attendee's time is judged by (docs/decisions/0026):

* ``busy``: one of their busy periods overlaps the slot or lies closer to it than the
  buffer (the ``REQUIRED_BUFFER`` rule, planner.md 6), or their published availability
  (RFC 7953 ``VAVAILABILITY``) or their own hours (``SlotQuery.attendee_hours``, in their
  zone; docs/decisions/0053) exclude part of the slot;
* ``unknown``: otherwise, when part of the slot widened by the buffer is time their calendar
  does not describe (a ``VFREEBUSY`` that covers only part of the window): not free, and
  said so;
* ``free``: neither.

Busy time and availability are read over the window widened by the buffer, unknown time
over the window, exactly as for required attendees. Pure apart from reading the parsed
calendars.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from icalendar import Component

from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.calendars.query import SlotQuery, attendee_closed, expansion_window
from cerebri.ics import busy_periods
from cerebri.temporal import Interval, merge

__all__ = ["FREE", "OptionalTime", "attendee_calendars", "read_optional"]

FREE, BUSY, UNKNOWN = "free", "busy", "unknown"
NS = 1_000_000_000


def _hits(spans: tuple[Interval, ...], ends: tuple[int, ...], start: int, end: int) -> bool:
    """Whether merged, sorted ``spans`` (their ``ends``) overlap ``[start, end)``."""
    index = bisect_right(ends, start)
    return index < len(spans) and spans[index].start < end


@dataclass(frozen=True, slots=True)
class OptionalTime:
    """One optional attendee's time around a query: merged UTC nanosecond intervals.

    Attributes:
        name: the attendee (calendar id).
        busy: busy periods over the window widened by the buffer.
        unavailable: time their availability or their own hours exclude over that
            widened window.
        unknown: time of the window their calendar does not describe.
    """

    name: str
    busy: tuple[Interval, ...]
    unavailable: tuple[Interval, ...]
    unknown: tuple[Interval, ...]
    _ends: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spans = (self.busy, self.unavailable, self.unknown)
        object.__setattr__(self, "_ends", tuple(tuple(s.end for s in group) for group in spans))

    def status(self, start_ns: int, end_ns: int, buffer_seconds: int) -> str:
        """``"free"``, ``"busy"`` or ``"unknown"`` for the slot ``[start_ns, end_ns)``
        (see the module doc)."""
        pad = buffer_seconds * NS
        busy_ends, closed_ends, unknown_ends = self._ends
        if _hits(self.busy, busy_ends, start_ns - pad, end_ns + pad):
            return BUSY
        if _hits(self.unavailable, closed_ends, start_ns, end_ns):
            return BUSY
        if _hits(self.unknown, unknown_ends, start_ns - pad, end_ns + pad):
            return UNKNOWN
        return FREE


def attendee_calendars(
    calendars: Sequence[tuple[str, Component]],
) -> list[tuple[str, list[Component]]]:
    """``(id, calendars)`` pairs grouped by id, in the order each id first appears.

    One calendar id is one attendee: a CalDAV collection arrives as one parsed calendar per
    stored object, all under the collection's id, and is still one person (issue 21).
    """
    grouped: dict[str, list[Component]] = {}
    for name, calendar in calendars:
        grouped.setdefault(name, []).append(calendar)
    return list(grouped.items())


def read_optional(
    calendars: Sequence[tuple[str, Component]],
    query: SlotQuery,
    *,
    floating_zone: str,
    max_occurrences: int,
) -> tuple[OptionalTime, ...]:
    """Each optional attendee's busy, unavailable and unknown time for ``query``: one
    :class:`OptionalTime` per distinct calendar id (pairs sharing an id, such as the
    objects of one CalDAV collection, are one attendee), in the order ids first appear.

    Raises:
        CalendarError: a malformed calendar, or ``ics.expansion_limit`` past
            ``max_occurrences`` (per attendee and window).
    """
    start, end = expansion_window(query)
    window = Interval(query.window_start.ns, query.window_end.ns)
    out: list[OptionalTime] = []
    hours = {entry.calendar_id: entry for entry in query.attendee_hours}
    for name, parts in attendee_calendars(calendars):
        periods = busy_periods(
            parts, start, end, floating_zone=floating_zone, max_occurrences=max_occurrences
        )
        busy = merge(Interval(p.start.ns, p.end.ns) for p in periods if p.start < p.end)
        closed = unavailable_ranges(
            parts, start, end, floating_zone=floating_zone, max_occurrences=max_occurrences
        )
        if name in hours:  # outside their own hours they do not attend
            closed = merge([*closed, *attendee_closed(query, hours[name])])
        out.append(OptionalTime(name, busy, closed, unobserved_ranges(parts, window)))
    return tuple(out)
