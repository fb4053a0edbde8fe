"""The event being changed among the calendars' busy time (docs/decisions/0055).

Helpers of :mod:`cerebri.calendars.event_change`: the calendar object resource of a ``UID``
inside an .ics file (:func:`event_resource`), the busy period and CPIR id of the instance
changed (:func:`target_period`), which busy periods are the event itself per scope
(:class:`Itself`), the optional attendees' time without it (:func:`optional_time`), the
per-candidate details (:func:`slot_details`) and a move's disruption (:func:`disruption`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from icalendar import Calendar, Component

from cerebri.calendars.answer import SlotDetail
from cerebri.calendars.attendance import BUSY, FREE, UNKNOWN, OptionalTime, attendee_calendars
from cerebri.calendars.availability import unavailable_ranges
from cerebri.calendars.changes import ChangeScope, EventView
from cerebri.calendars.coverage import unobserved_ranges
from cerebri.calendars.query import SlotQuery, attendee_closed, expansion_window
from cerebri.cpir import PlanningResult
from cerebri.ics import BusyPeriod, busy_periods, object_id
from cerebri.temporal import Instant, Interval, merge, zone

__all__ = [
    "Itself",
    "disruption",
    "event_resource",
    "optional_time",
    "original_start",
    "recurrence_text",
    "slot_details",
    "target_period",
]

NamedCalendars = list[tuple[str, Component]]


def event_resource(calendar: Component, uid: str) -> Calendar:
    """The calendar object resource of ``uid`` inside ``calendar`` (RFC 4791 section 4.1):
    a ``VCALENDAR`` with ``calendar``'s own properties and every component of it except
    those whose ``UID`` is another one (so ``VTIMEZONE``\\ s stay, other events go). Its
    :func:`~cerebri.calendars.changes.resource_etag` changes when the event changes, not
    when another event of the same .ics file does."""
    resource = Calendar()
    for name, value in calendar.property_items(recursive=False):
        if name not in ("BEGIN", "END"):
            resource.add(name, value, encode=False)
    for component in calendar.subcomponents:
        other = component.get("UID")
        if other is None or str(other) == uid:
            resource.add_component(component)
    return resource


def disruption(before: Instant, after: Instant, zone_name: str) -> tuple[int, int]:
    """``(class, shift_seconds)`` of moving a start from ``before`` to ``after`` (contract
    C1): class 0 on the same local date in ``zone_name``, 1 on another date at the same
    local time of day, 2 otherwise; the shift is ``after - before`` in seconds."""
    tz = zone(zone_name)
    old, new = before.to_datetime(), after.to_datetime()
    assert old is not None and new is not None
    old, new = old.astimezone(tz), new.astimezone(tz)
    level = 0 if old.date() == new.date() else 1 if old.timetz() == new.timetz() else 2
    return level, (after - before) // 1_000_000_000


def original_start(period: BusyPeriod, zone_name: str) -> Instant | None:
    """The UTC original start a period's ``recurrence_id`` text names (``YYYYMMDD`` read as
    local midnight in ``zone_name``), None for a period of no series."""
    text = period.recurrence_id
    if text is None:
        return None
    if len(text) == 8:
        day = datetime.strptime(text, "%Y%m%d").replace(tzinfo=zone(zone_name))
        return Instant.from_datetime(day)
    return Instant.from_datetime(datetime.strptime(text, "%Y%m%dT%H%M%S%z"))


def recurrence_text(view: EventView, zone_name: str) -> str | None:
    """The ``recurrence_id`` text :mod:`cerebri.ics` gives the instance ``view`` (its
    original start; the first start for a series), None for a single event."""
    if not view.recurring:
        return None
    original = view.recurrence_id or view.start
    moment = original.to_datetime()
    assert moment is not None
    if view.all_day:
        return f"{moment.astimezone(zone(zone_name)):%Y%m%d}"
    return f"{moment:%Y%m%dT%H%M%SZ}"


def target_period(resource: Component, view: EventView, zone_name: str) -> BusyPeriod:
    """The busy period of the instance ``view`` (its object id), also when it makes no busy
    time (``TRANSP:TRANSPARENT``): then built as :mod:`cerebri.ics` would."""
    if view.start < view.end:
        for period in busy_periods(resource, view.start, view.end, floating_zone=zone_name):
            if period.uid == view.uid and period.start == view.start:
                return period
    return BusyPeriod(
        start=view.start,
        end=view.end,
        uid=view.uid,
        recurrence_id=recurrence_text(view, zone_name),
        summary=view.title,
        source="",
        kind="event",
        sequence=view.sequence,
    )


class Itself:
    """Whether a busy period is the event being changed (module doc: per scope)."""

    def __init__(self, uid: str, scope: ChangeScope, target: str, at: Instant | None, tz: str):
        self.uid, self.scope, self.target, self.at, self.tz = uid, scope, target, at, tz

    def __call__(self, period: BusyPeriod) -> bool:
        if period.uid != self.uid:
            return False
        if self.scope is ChangeScope.SERIES:
            return True
        if self.scope is ChangeScope.INSTANCE:
            return object_id(period) == self.target
        original = original_start(period, self.tz)
        return original is None or self.at is None or original >= self.at


def optional_time(
    optional: NamedCalendars, query: SlotQuery, itself: Itself, max_occurrences: int
) -> tuple[OptionalTime, ...]:
    """The optional attendees' time (:func:`~cerebri.calendars.attendance.read_optional`),
    the event itself left out; outside an attendee's own hours (``query.attendee_hours``)
    they count as busy, as find-slot counts them (docs/decisions/0053)."""
    start, end = expansion_window(query)
    window = Interval(query.window_start.ns, query.window_end.ns)
    hours = {entry.calendar_id: entry for entry in query.attendee_hours}
    out: list[OptionalTime] = []
    for name, parts in attendee_calendars(optional):
        periods = busy_periods(
            parts, start, end, floating_zone=query.zone, max_occurrences=max_occurrences
        )
        busy = merge(
            Interval(p.start.ns, p.end.ns) for p in periods if p.start < p.end and not itself(p)
        )
        closed = unavailable_ranges(
            parts, start, end, floating_zone=query.zone, max_occurrences=max_occurrences
        )
        if name in hours:  # outside their own hours they do not attend
            closed = merge([*closed, *attendee_closed(query, hours[name])])
        out.append(OptionalTime(name, busy, closed, unobserved_ranges(parts, window)))
    return tuple(out)


def slot_details(
    result: PlanningResult, query: SlotQuery, optional: Sequence[OptionalTime]
) -> tuple[SlotDetail, ...]:
    details: list[SlotDetail] = []
    for candidate in result.candidates:
        placement = candidate.proposed.placements[0].range
        start, end = placement.start, placement.end
        said = [(o.name, o.status(start.ns, end.ns, query.buffer_seconds)) for o in optional]
        details.append(
            SlotDetail(
                start=start,
                end=end,
                preference_distance_seconds=None,
                free=tuple(name for name, state in said if state == FREE),
                busy=tuple(name for name, state in said if state == BUSY),
                unknown=tuple(name for name, state in said if state == UNKNOWN),
            )
        )
    return tuple(details)
