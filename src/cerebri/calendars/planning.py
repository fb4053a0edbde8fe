"""Slot finding over named calendars with limits fit for a user's own machine."""

from __future__ import annotations

from collections.abc import Sequence

from icalendar import Component

from cerebri._guard import arguments
from cerebri._json import JSONValue
from cerebri.calendars.answer import SlotAnswer, answer_for
from cerebri.calendars.arguments import invalid_argument, named_calendar_items, optional_items
from cerebri.calendars.attendance import read_optional
from cerebri.calendars.attendee_hours import attendee_zones
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.calendars.query import (
    NewEvent,
    SlotQuery,
    build_request,
    event_objects,
    expansion_window,
)
from cerebri.calendars.ranked import plan_ranked
from cerebri.ics import DEFAULT_MAX_OCCURRENCES, busy_periods
from cerebri.planner import PlannerLimits
from cerebri.temporal import Instant, Interval

__all__ = ["FIND_SLOT_LIMITS", "find_slot"]

FIND_SLOT_LIMITS = PlannerLimits(
    max_request_bytes=None,
    max_request_work_bytes=None,
    max_objects=100_000,
    max_facts=1024,
    max_constraints=1024,
    max_candidates=100_000,
    max_work_units=10**12,
)
"""Limits for planning over local calendars: up to 100 000 events and grid positions.

The reference limits (256 objects, 4096 positions) guard a shared service against large
requests; a user's own calendars on their own machine routinely exceed them.
"""


@arguments(
    invalid_argument,
    query=SlotQuery,
    floating_zone=(str, type(None)),
    limits=PlannerLimits,
    max_occurrences=int,
    create=(NewEvent, type(None)),
    optional=Sequence,
)
def find_slot(
    calendars: Sequence[tuple[str, Component]],
    query: SlotQuery,
    *,
    floating_zone: str | None = None,
    limits: PlannerLimits = FIND_SLOT_LIMITS,
    max_occurrences: int = DEFAULT_MAX_OCCURRENCES,
    create: NewEvent | None = None,
    optional: Sequence[tuple[str, Component]] = (),
) -> SlotAnswer:
    """Plan ``query`` over named calendars; returns the CPIR request built and its result.

    ``calendars`` pairs a calendar id (``[A-Za-z0-9._-]``, 1-128 characters) with a parsed
    calendar. Floating times are read in ``floating_zone`` (default: ``query.zone``).
    The answer unpacks as ``(request, result)`` and carries the calendars' ``warnings``
    and whether they are ``complete`` (:class:`~cerebri.calendars.SlotAnswer`); over an
    incomplete calendar the assessment is ``BestFound``.
    ``max_occurrences`` bounds each calendar's recurrence expansion (generated instances
    per query, see :func:`cerebri.ics.busy_periods`).
    ``create`` (a :class:`~cerebri.calendars.NewEvent`) makes the request a ``CREATE`` of
    that event, whose candidates yield action plans (:func:`cerebri.calendars.build_request`).
    One calendar id is one attendee, required or optional: pairs that share an id (the
    objects of one CalDAV collection) are one person's calendar.
    ``optional`` pairs optional attendees' ids (distinct from the required ids) with their
    calendars: they never block a slot; each slot reports who of them is
    free, busy or unknown (``answer.slots``), slots with more of them free rank first, and
    ``query.min_attendance`` leaves out slots with too few attendees free. The query's daily
    preference ranks next; the order and what the request then carries are in
    :mod:`cerebri.calendars.ranked` (docs/decisions/0026).
    ``query.attendee_hours`` name required or optional ids: a required attendee's hours
    block, an optional one's count for attendance, and the answer's ``zones`` list every
    known attendee zone (docs/decisions/0053).

    Raises:
        CalendarError: a malformed calendar, or ``ics.expansion_limit`` past
            ``max_occurrences``.
        InvalidArgumentError: ``calendars.invalid_argument`` (a ``TypeError`` and a
            ``ValueError``) for an argument of the wrong Python type, or for hours of a
            calendar id not given, before anything is expanded.
    """
    calendars = named_calendar_items(calendars, "find_slot() calendars")
    optional = optional_items((n for n, _ in calendars), optional, "find_slot() optional")
    zones = attendee_zones(query.attendee_hours, [*calendars, *optional])
    required = frozenset(name for name, _ in calendars)
    zone_name = floating_zone or query.zone
    window = Interval(query.window_start.ns, query.window_end.ns)
    wide_start, wide_end = expansion_window(query)
    named = [
        (
            name,
            busy_periods(
                calendar,
                wide_start,
                wide_end,
                floating_zone=zone_name,
                max_occurrences=max_occurrences,
            ),
        )
        for name, calendar in calendars
    ]
    parsed = [calendar for _, calendar in calendars]
    unknown = unobserved_ranges(parsed, window)
    closed = unavailable_ranges(
        parsed, wide_start, wide_end, floating_zone=zone_name, max_occurrences=max_occurrences
    )
    events = event_objects(named, query.zone)
    attendees = read_optional(
        optional, query, floating_zone=zone_name, max_occurrences=max_occurrences
    )

    def build(preferred: Instant | None) -> dict[str, JSONValue]:
        return build_request(
            events,
            unknown,
            query,
            unavailable=closed,
            create=create,
            preferred_start=preferred,
            required=required,
        )

    request, result, slots, dropped = plan_ranked(
        build, query, attendees, len({name for name, _ in calendars}), limits
    )
    return answer_for(
        request,
        result,
        [*parsed, *(c for _, c in optional)],
        slots=slots,
        below_min_attendance=dropped,
        zones=zones,
    )
