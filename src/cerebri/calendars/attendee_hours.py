"""Each attendee's own working hours and time zone: :class:`AttendeeHours`.

One ``--tz`` and one set of working hours for everyone is not how teams across time zones
work (issue 23, docs/decisions/0053-attendee-hours-and-zones.md). An :class:`AttendeeHours`
gives one attendee (a calendar id) their zone and, optionally, their local working hours
and working days::

    AttendeeHours("alice", "America/New_York", time(9), time(17), frozenset(range(5)))
    parse_hours("alice=Mon-Fri 09:00-17:00@America/New_York", default_zone="UTC")

A :class:`~cerebri.calendars.SlotQuery` carries them as ``attendee_hours``. A required
attendee's hours block like the query's own working hours, but in the attendee's zone and
under the attendee's name (:func:`cerebri.calendars.query.attendee_off_hours`); an optional
attendee outside their hours counts as busy for attendance
(:mod:`cerebri.calendars.attendance`). Zones follow the IANA rules (DST moves local times,
RFC 5545 3.2.19 ``TZID`` names the same zones).

The text form (``--hours``, and ``hours`` in the HTTP and MCP bodies)::

    ID=[DAYS ][HH:MM-HH:MM][@ZONE]

``DAYS`` as ``--working-days`` (``Mon-Fri``, ``Mon,Wed``), hours as ``--working-hours``,
``ZONE`` an exact IANA name (default: the query's ``--tz``). ``ID=@Asia/Tokyo`` only
declares the zone (open all day, shown in local times).

Hours may cross midnight (docs/decisions/0067): ``bob=Mon-Fri 22:00-06:00@Asia/Tokyo``
opens at 22:00 local on each day named and closes at 06:00 local the next day (a Friday's
hours run into Saturday morning). Hours that end when they start are refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import time

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.availability import availability_zone
from cerebri.calendars.options import parse_working_days, parse_working_hours
from cerebri.temporal import Instant, zone
from cerebri.temporal.zones import check_zone_name

__all__ = [
    "AttendeeHours",
    "attendee_zones",
    "check_hours_ids",
    "hours_by_id",
    "local_times",
    "parse_hours",
    "zones_of",
]

_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


@dataclass(frozen=True, slots=True)
class AttendeeHours:
    """One attendee's zone and working hours.

    Attributes:
        calendar_id: the attendee's calendar id (1-128 of ``[A-Za-z0-9._-]``), as find-slot
            names calendars (:func:`cerebri.calendars.sources.source_ids`).
        zone: the attendee's IANA zone (their local times, their hours).
        start, end: local working hours, or both None for the whole day; ``end <= start``
            means overnight hours (from ``start`` on a working day to ``end`` the next
            local day), ``start == end`` is refused.
        days: working weekdays (Monday = 0 … Sunday = 6), the days the hours open on, or
            None for every day.

    Refusals are ``calendars.invalid_argument`` (a ``TypeError`` and a ``ValueError``):
    a field of the wrong type, an id outside the CPIR id form, an unknown zone, only one
    of ``start``/``end``, hours that end when they start, a weekday outside 0-6.
    """

    calendar_id: str
    zone: str
    start: time | None = None
    end: time | None = None
    days: frozenset[int] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.calendar_id, str) or not (
            1 <= len(self.calendar_id) <= 128 and set(self.calendar_id) <= _ID_CHARS
        ):
            raise invalid_argument(
                f"AttendeeHours needs calendar_id as a CPIR id (1-128 of A-Z a-z 0-9 . _ -), "
                f"got {self.calendar_id!r}"
            )
        if not isinstance(self.zone, str):
            raise invalid_argument("AttendeeHours needs zone as str (an IANA name)")
        try:
            check_zone_name(self.zone)
        except ValueError as exc:
            raise invalid_argument(str(exc)) from None
        bounds = (self.start, self.end)
        if any(b is not None and (not isinstance(b, time) or b.tzinfo) for b in bounds):
            raise invalid_argument("AttendeeHours needs start and end as naive datetime.time")
        if (self.start is None) != (self.end is None):
            raise invalid_argument("AttendeeHours needs both start and end, or neither")
        if self.start is not None and self.start == self.end:
            raise invalid_argument("attendee hours must not end when they start")
        if self.days is not None and not (
            isinstance(self.days, frozenset) and self.days <= frozenset(range(7))
        ):
            raise invalid_argument("AttendeeHours needs days as a frozenset of weekdays 0-6")

    @property
    def overnight(self) -> bool:
        """Whether the hours cross midnight (``end`` is on the next local day)."""
        return self.start is not None and self.end is not None and self.end < self.start

    @property
    def hours(self) -> tuple[time, time] | None:
        """``(start, end)`` (``end < start``: overnight), or None for the whole day."""
        if self.start is None or self.end is None:
            return None
        return self.start, self.end


def _split(text: str) -> tuple[str, str, str | None]:
    """``ID``, the hours part and the zone (None when no ``@``)."""
    name, equals, rest = text.partition("=")
    if not equals:
        raise ValueError("write ID=09:00-17:00@Zone, e.g. alice=09:00-17:00@America/New_York")
    body, at, zone_name = rest.rpartition("@")
    if not at:
        return name.strip(), rest.strip(), None
    return name.strip(), body.strip(), zone_name.strip()


def parse_hours(text: str, *, default_zone: str) -> AttendeeHours:
    """``ID=[DAYS ][HH:MM-HH:MM][@ZONE]`` (module doc) as an :class:`AttendeeHours`; the
    zone defaults to ``default_zone``.

    Raises:
        ValueError: a plain ``ValueError`` naming what cannot be read (the callers turn it
            into ``input.invalid_option`` naming the option).
    """
    name, body, zone_name = _split(text)
    if not name or not set(name) <= _ID_CHARS or len(name) > 128:
        raise ValueError(f"{name!r} is not a calendar id (1-128 of A-Z a-z 0-9 . _ -)")
    if not body and zone_name is None:
        raise ValueError(f"{text!r} gives no hours and no zone; write e.g. {name}=09:00-17:00@UTC")
    zone_name = default_zone if zone_name is None else zone_name
    check_zone_name(zone_name)
    hours: tuple[time, time] | None = None
    days: frozenset[int] | None = None
    for part in body.split():
        if any(c.isdigit() for c in part):  # 09:00-17:00; days are names (Mon-Fri)
            if hours is not None:
                raise ValueError(f"{text!r} gives working hours twice")
            hours = parse_working_hours(part, overnight=True)
        else:
            if days is not None:
                raise ValueError(f"{text!r} gives working days twice")
            days = parse_working_days(part)
    start, end = hours if hours is not None else (None, None)
    return AttendeeHours(name, zone_name, start, end, days)


def hours_by_id(hours: Iterable[AttendeeHours]) -> dict[str, AttendeeHours]:
    """The hours keyed by calendar id (ids are unique in a query)."""
    return {entry.calendar_id: entry for entry in hours}


def check_hours_ids(hours: Sequence[AttendeeHours], known: Iterable[str]) -> str | None:
    """The first problem with ``hours`` against the ``known`` calendar ids, or None: an id
    given twice, or an id no calendar has."""
    names = list(dict.fromkeys(known))
    seen: set[str] = set()
    for entry in hours:
        if entry.calendar_id in seen:
            return f"hours for {entry.calendar_id!r} are given twice"
        seen.add(entry.calendar_id)
        if entry.calendar_id not in names:
            return (
                f"hours for {entry.calendar_id!r}: no calendar has that id "
                f"(calendar ids: {', '.join(names) or 'none'})"
            )
    return None


def _local(instant: Instant, zone_name: str) -> str:
    moment = instant.to_datetime()
    assert moment is not None  # the window lies within years 1-9999 (SlotQuery checks it)
    return moment.astimezone(zone(zone_name)).isoformat()


def local_times(
    start: Instant, end: Instant, zones: Sequence[tuple[str, str]]
) -> dict[str, JSONValue]:
    """``{calendar_id: {"start", "end", "zone"}}`` for the slot ``[start, end)``: local
    RFC 3339 date-times with the zone's offset at that instant (DST-aware), in the order of
    ``zones`` (``(calendar id, IANA zone)`` pairs)."""
    return {
        name: {"start": _local(start, zone_name), "end": _local(end, zone_name), "zone": zone_name}
        for name, zone_name in zones
    }


def zones_of(
    hours: Sequence[AttendeeHours],
    ids: Sequence[str],
    published: Mapping[str, str | None],
) -> tuple[tuple[str, str], ...]:
    """Each attendee's zone, in ``ids`` order, when ``hours`` is not empty: the zone of
    their :class:`AttendeeHours`, else the zone their published availability is written
    in (``published``), else none (left out). Empty without ``hours``: the answer then
    shows no per-attendee local times (docs/decisions/0053)."""
    if not hours:
        return ()
    declared = hours_by_id(hours)
    out: list[tuple[str, str]] = []
    for name in dict.fromkeys(ids):
        zone_name = declared[name].zone if name in declared else published.get(name)
        if zone_name is not None:
            out.append((name, zone_name))
    return tuple(out)


def attendee_zones(
    hours: Sequence[AttendeeHours], calendars: Sequence[tuple[str, Component]]
) -> tuple[tuple[str, str], ...]:
    """The ``(calendar id, zone)`` pairs an answer shows local times in (:func:`zones_of`
    over every attendee's calendars, required then optional, as given; a calendar's
    published zone is :func:`~cerebri.calendars.availability.availability_zone`).

    Raises:
        InvalidArgumentError: ``calendars.invalid_argument`` for hours of an id no calendar
            has, or of one id twice (:func:`check_hours_ids`).
    """
    ids = [name for name, _ in calendars]
    problem = check_hours_ids(hours, ids)
    if problem is not None:
        raise invalid_argument(problem)
    if not hours:
        return ()
    grouped: dict[str, list[Component]] = {}
    for name, calendar in calendars:
        grouped.setdefault(name, []).append(calendar)
    published = {name: availability_zone(parts) for name, parts in grouped.items()}
    return zones_of(hours, ids, published)
