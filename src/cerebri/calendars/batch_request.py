"""A batch file and real calendars in, a CPIR ``OPTIMIZE`` request out:
:func:`batch_request` (issue #24, docs/decisions/0081-batches-from-calendars.md).

What it writes (decision 0070's wire):

* **Busy time.** Every calendar is expanded over the batch's ``window`` by
  :func:`cerebri.ics.busy_periods` (series with ``EXDATE`` and moved instances, all-day
  events, zones, ``TRANSP`` and ``STATUS`` as ``find-slot`` reads them). A person's calendar
  reads floating times and dates on that person's ``timezone``; a room's on the batch's.
  Each busy period is an ``EVENT`` context object on its calendar
  (:func:`~cerebri.calendars.context_objects`), which the optimiser counts as busy time of
  the person or room whose ``calendar_id`` it is.
* **New meetings.** Each ``batch.meetings`` entry is a target: a prospective ``EVENT`` on
  the calendar of its **first required attendee** (the organiser; the plan graph writes it
  there, and in its room's calendar), granted ``CREATE_EVENT``.
* **Movable events.** An event named in ``movable`` (the file's or ``--movable``) or
  carrying ``X-CEREBRI-MOVABLE:TRUE`` becomes an existing meeting a repair may move: CPIR
  object id = its ``UID`` when that is a CPIR identifier (``[A-Za-z0-9._-]{1,128}``), else
  the ``ics-`` digest id of the instance (:func:`cerebri.ics.object_id`), its entry's
  ``uid`` = the ``UID`` (the worker finds the event by it, decision 0083), revision = its
  ``SEQUENCE``, attendees = the people whose calendar holds it, ``move_cost`` = its
  ``X-CEREBRI-MOVE-COST`` or the file's, window = its own local day when
  ``repairs.same_day``; listed in ``scope.movable_object_ids`` and granted ``MOVE_EVENT``.
  Only a single (non-recurring), timed event in one person's calendar, on the grid, inside
  the window and whose ``UID`` has no control characters (1 to 1024 characters) can move;
  any other marked event stays busy time and a warning says why. A ``movable`` UID found
  in no calendar is an error (a typo would otherwise move nothing).
* **Budget.** ``max_repairs`` = ``max_moved_objects`` = ``repairs.max_repairs``,
  ``max_depth`` = ``repairs.max_depth``; ``scope.max_mutations`` and the policy allow the
  targets plus the repairs.

A person whose calendar is not given is free all window long (only their ``hours`` bind),
as a candidate whose calendar nobody holds; the answer's ``warnings`` say so. A calendar
id given that no person or room names is an error. The request id is a digest of the batch
file and the calendars' busy periods, so the same inputs give the same request, byte for
byte. Errors: ``calendars.invalid_argument`` (above); ``ics.*`` from the calendars.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars._batch_wire import (
    MISSING,
    NS,
    batch_holders,
    busy_objects,
    day_window,
    grant,
    known,
    object_wire,
    request_wire,
)
from cerebri.calendars.arguments import invalid_argument, named_calendar_items
from cerebri.calendars.batch_file import CalendarBatch
from cerebri.ics import BusyPeriod, busy_periods, object_id, warnings_of

__all__ = ["MOVABLE_PROPERTY", "MOVE_COST_PROPERTY", "BatchFromCalendars", "batch_request"]

MOVABLE_PROPERTY = "X-CEREBRI-MOVABLE"
"""A ``VEVENT`` property: ``TRUE`` marks the event movable by a batch's repairs."""

MOVE_COST_PROPERTY = "X-CEREBRI-MOVE-COST"
"""A ``VEVENT`` property: the cost of moving the event (a whole number, 0 … 1 000 000)."""

_IDENTIFIER = re.compile(r"[A-Za-z0-9._-]{1,128}", re.ASCII)
"""A UID of this shape is the movable event's CPIR object id as it is."""
_UID_TEXT = re.compile(r"[^\x00-\x1F\x7F]{1,1024}")
"""What ``batch.meetings[].uid`` takes (an iCalendar UID, cerebri.cpir's ``EventUid``)."""


def _object_id(uid: str, period: BusyPeriod) -> str:
    """The CPIR object id of the movable event ``uid``: the UID itself when it is a CPIR id,
    else the ``ics-`` digest id find-slot and reschedule give the same instance
    (:func:`cerebri.ics.object_id`); the meeting names the UID in ``uid`` either way."""
    return uid if _IDENTIFIER.fullmatch(uid) else object_id(period)


_CONTROL = re.compile(r"[\x00-\x1F\x7F]")


@dataclass(frozen=True, slots=True)
class BatchFromCalendars:
    """The request :func:`batch_request` wrote (CPIR JSON values), the UIDs it lets repairs
    move (sorted), and what it noticed (one sentence each, sorted: calendar warnings,
    marked events that cannot move, people without a calendar)."""

    request: dict[str, JSONValue]
    movable: tuple[str, ...]
    warnings: tuple[str, ...]


def _costs(calendar: Component) -> dict[str, int]:
    """UIDs of the calendar's ``VEVENT``\\ s with an ``X-CEREBRI-MOVE-COST`` that is a whole
    number 0 … 1 000 000 -> that cost (other values are ignored)."""
    found: dict[str, int] = {}
    for event in calendar.walk("VEVENT"):
        text = str(event.get(MOVE_COST_PROPERTY, "")).strip()
        if text.isdigit() and int(text) <= 1_000_000:
            found[str(event.get("UID", ""))] = int(text)
    return found


def _why_fixed(
    uid: str,
    periods: list[tuple[str, BusyPeriod]],
    people: dict[str, list[str]],
    spec: CalendarBatch,
) -> str | None:
    """Why the marked event ``uid`` cannot move (None: it can)."""
    if len({calendar for calendar, _ in periods}) > 1:
        return "it is in more than one calendar"
    calendar, period = periods[0]
    origin, step = spec.window.start.ns, spec.granularity * NS
    if len(periods) > 1 or period.recurrence_id is not None:
        return "it is a recurring series (only single events move)"
    if calendar not in people:
        return f"its calendar {calendar} is no person's"
    if _UID_TEXT.fullmatch(uid) is None:
        return "its UID is not 1-1024 characters without control characters"
    if period.start < spec.window.start or period.end > spec.window.end:
        return "it is not inside the window"
    if (period.start.ns - origin) % step or (period.end.ns - period.start.ns) % step:
        return f"it is not on the {spec.granularity} s grid"
    return None


def batch_request(
    spec: CalendarBatch,
    calendars: Sequence[tuple[str, Component]],
    *,
    movable: Sequence[str] = (),
) -> BatchFromCalendars:
    """The ``OPTIMIZE`` request of ``spec`` over ``calendars`` (calendar id, parsed
    calendar; an id may come with several calendars) with the events of UIDs ``movable``
    (added to ``spec.movable``) movable; rules in the module doc.

    Raises:
        InvalidArgumentError: ``calendars.invalid_argument``: a wrong-typed argument, a
            calendar id no person or room names, a movable UID in no calendar, a meeting
            whose first required attendee is not in ``batch.people``.
        CalendarError: a malformed calendar or too many instances (``ics.*``).
    """
    if not isinstance(spec, CalendarBatch):
        raise invalid_argument("batch_request() needs a CalendarBatch")
    calendars = named_calendar_items(calendars, "batch_request() calendars")
    if isinstance(movable, str) or not all(isinstance(uid, str) for uid in movable):
        raise invalid_argument("batch_request() needs movable as a sequence of UIDs")
    zones = _zones(spec, calendars)
    read: list[tuple[str, BusyPeriod]] = []
    costs: dict[str, int] = {}
    for name, calendar in calendars:
        costs.update(_costs(calendar))
        read.extend(
            (name, period)
            for period in busy_periods(
                calendar, spec.window.start, spec.window.end, floating_zone=zones[name]
            )
        )
    notes = [f"{w.code}: {w.message}" for w in warnings_of([c for _, c in calendars])]
    moving = _choose(spec, calendars, read, {*spec.movable, *movable}, notes)
    objects, grants, meetings = _targets(spec)
    ids = {uid: _object_id(uid, period) for uid, (_, period) in moving.items()}
    for uid, (name, period) in sorted(moving.items()):
        ident = ids[uid]
        wire = object_wire(
            ident, name, zones[name], revision=period.sequence, time_value=known(period)
        )
        objects.append(wire)
        grants.append(grant(ident, name, "MOVE_EVENT"))
        meetings.append(
            _movable_meeting(
                spec,
                ident=ident,
                uid=uid,
                name=name,
                period=period,
                cost=costs.get(uid),
                zone_name=zones[name],
            )
        )
    objects.extend(busy_objects(read, set(moving), batch_holders(spec), zones))
    given = {name for name, _ in calendars}
    notes.extend(
        f"no calendar given for {p.id} ({p.calendar_id}): free all window long"
        for p in spec.batch.people
        if p.calendar_id not in given
    )
    request = request_wire(
        spec, objects=objects, grants=grants, meetings=meetings, movable=sorted(ids.values())
    )
    return BatchFromCalendars(request, tuple(sorted(moving)), tuple(sorted(notes)))


def _zones(spec: CalendarBatch, calendars: Sequence[tuple[str, Component]]) -> dict[str, str]:
    """Calendar id -> the zone its floating times and dates are read in: its (first)
    person's, else the batch's for a room; ``calendars.invalid_argument`` for a calendar
    no person or room names."""
    zones = {r.calendar_id: spec.timezone for r in spec.batch.rooms}
    zones.update({p.calendar_id: p.timezone for p in reversed(spec.batch.people)})
    for name, _ in calendars:
        if name not in zones:
            raise invalid_argument(
                f"calendar {name} is no person's or room's calendar_id in the batch file"
            )
    return zones


def _choose(
    spec: CalendarBatch,
    calendars: Sequence[tuple[str, Component]],
    read: list[tuple[str, BusyPeriod]],
    wanted: set[str],
    notes: list[str],
) -> dict[str, tuple[str, BusyPeriod]]:
    """The marked events that can move (UID -> calendar id and period); a note for each
    marked one that cannot; ``calendars.invalid_argument`` for a wanted UID found nowhere."""
    people: dict[str, list[str]] = {}
    for person in spec.batch.people:
        people.setdefault(person.calendar_id, []).append(person.id)
    by_uid: dict[str, list[tuple[str, BusyPeriod]]] = {}
    for name, period in read:
        if period.kind == "event":
            by_uid.setdefault(period.uid, []).append((name, period))
    for uid in sorted(wanted):
        if uid not in by_uid:
            raise invalid_argument(f"movable event {uid!r} is in no calendar over the window")
    moving: dict[str, tuple[str, BusyPeriod]] = {}
    for uid in sorted((wanted | _flag_uids(calendars)) & set(by_uid)):
        why = _why_fixed(uid, by_uid[uid], people, spec)
        if why is None:
            moving[uid] = by_uid[uid][0]
        else:
            notes.append(f"event {uid} stays where it is: {why}")
    return moving


def _targets(spec: CalendarBatch) -> tuple[list[JSONValue], list[JSONValue], list[JSONValue]]:
    """The new meetings' objects (on their organiser's calendar), grants and entries."""
    home = {p.id: p.calendar_id for p in spec.batch.people}
    objects: list[JSONValue] = []
    grants: list[JSONValue] = []
    meetings: list[JSONValue] = []
    for entry in spec.batch.meetings:
        first = entry.required[0] if entry.required else None
        if first not in home:
            raise invalid_argument(
                f"meeting {entry.object_id}: its first required attendee {first!r} (the "
                "organiser, whose calendar it is written to) is not in batch.people"
            )
        objects.append(
            object_wire(
                entry.object_id, home[first], spec.timezone, revision=None, time_value=MISSING
            )
        )
        grants.append(grant(entry.object_id, home[first], "CREATE_EVENT"))
        meetings.append(entry.model_dump(mode="json", exclude_none=True))
    return objects, grants, meetings


def _movable_meeting(
    spec: CalendarBatch,
    *,
    ident: str,
    uid: str,
    name: str,
    period: BusyPeriod,
    cost: int | None,
    zone_name: str,
) -> JSONValue:
    """The ``batch.meetings`` entry of a movable event (module doc): ``ident`` its CPIR
    object id, ``uid`` its iCalendar UID (decision 0083: the move addresses the event by it)."""
    meeting: dict[str, JSONValue] = {
        "object_id": ident,
        "uid": uid,
        "duration": (period.end.ns - period.start.ns) // NS,
        "required": [p.id for p in spec.batch.people if p.calendar_id == name],
        "move_cost": spec.repairs.move_cost if cost is None else cost,
    }
    if period.summary:
        meeting["title"] = _CONTROL.sub(" ", period.summary)[:1024]
    if spec.repairs.same_day and (day := day_window(period, zone_name, spec)) is not None:
        meeting["window"] = day
    return meeting


def _flag_uids(calendars: Sequence[tuple[str, Component]]) -> set[str]:
    """UIDs of every ``VEVENT`` marked ``X-CEREBRI-MOVABLE:TRUE`` in ``calendars``."""
    return {
        str(event.get("UID", ""))
        for _, calendar in calendars
        for event in calendar.walk("VEVENT")
        if str(event.get(MOVABLE_PROPERTY, "")).strip().upper() == "TRUE"
    }
