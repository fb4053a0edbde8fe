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
  object id = its ``UID``, revision = its ``SEQUENCE``, attendees = the people whose
  calendar holds it, ``move_cost`` = its ``X-CEREBRI-MOVE-COST`` or the file's, window =
  its own local day when ``repairs.same_day``; listed in ``scope.movable_object_ids`` and
  granted ``MOVE_EVENT``. Only a single (non-recurring), timed event in one person's
  calendar, on the grid, inside the window and whose ``UID`` is a CPIR identifier
  (``[A-Za-z0-9._-]{1,128}``: the worker finds it by that ``UID``) can move; any other
  marked event stays busy time and a warning says why. A ``movable`` UID found in no
  calendar is an error (a typo would otherwise move nothing).
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

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars.arguments import invalid_argument, named_calendar_items
from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.objects import context_objects
from cerebri.calendars.query import INTEGRATION_ID
from cerebri.ics import BusyPeriod, busy_periods, object_id, warnings_of
from cerebri.temporal import Instant
from cerebri.temporal.zones import zone

__all__ = ["MOVABLE_PROPERTY", "MOVE_COST_PROPERTY", "BatchFromCalendars", "batch_request"]

MOVABLE_PROPERTY = "X-CEREBRI-MOVABLE"
"""A ``VEVENT`` property: ``TRUE`` marks the event movable by a batch's repairs."""

MOVE_COST_PROPERTY = "X-CEREBRI-MOVE-COST"
"""A ``VEVENT`` property: the cost of moving the event (a whole number, 0 … 1 000 000)."""

_IDENTIFIER = re.compile(r"[A-Za-z0-9._-]{1,128}", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1F\x7F]")
_NS = 1_000_000_000


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


def _day_window(
    period: BusyPeriod, zone_name: str, spec: CalendarBatch
) -> dict[str, JSONValue] | None:
    """The local day of ``period``'s start in ``zone_name``, cut to the batch window and
    snapped inward to its grid (None when that is the whole window)."""
    tz = zone(zone_name)
    moment = period.start.to_datetime()
    assert moment is not None  # busy periods lie in years 1-9999
    day = moment.astimezone(tz).date()
    first = Instant.from_datetime(datetime.combine(day, time(0), tzinfo=tz))
    following = day.toordinal() + 1
    last = Instant.from_datetime(
        datetime.combine(day.fromordinal(following), time(0), tzinfo=tz)
    )
    origin, end, step = spec.window.start.ns, spec.window.end.ns, spec.granularity * _NS
    low = max(first.ns, origin)
    low = origin + -(-(low - origin) // step) * step
    high = min(last.ns, end)
    high = origin + (high - origin) // step * step
    if low == origin and high == end:
        return None
    return {"start": Instant(low).format(), "end": Instant(high).format()}


def _why_fixed(
    uid: str, periods: list[tuple[str, BusyPeriod]], people: dict[str, list[str]], spec: CalendarBatch
) -> str | None:
    """Why the marked event ``uid`` cannot move (None: it can)."""
    if len({calendar for calendar, _ in periods}) > 1:
        return "it is in more than one calendar"
    calendar, period = periods[0]
    origin, step = spec.window.start.ns, spec.granularity * _NS
    if len(periods) > 1 or period.recurrence_id is not None:
        return "it is a recurring series (only single events move)"
    if calendar not in people:
        return f"its calendar {calendar} is no person's"
    if _IDENTIFIER.fullmatch(uid) is None:
        return "its UID is not 1-128 characters of [A-Za-z0-9._-]"
    if period.start < spec.window.start or period.end > spec.window.end:
        return "it is not inside the window"
    if (period.start.ns - origin) % step or (period.end.ns - period.start.ns) % step:
        return f"it is not on the {spec.granularity} s grid"
    return None


def _known(start: Instant, end: Instant) -> dict[str, JSONValue]:
    return {
        "value": {
            "processing": "RESOLVED",
            "knowledge": {"state": "KNOWN", "data": {"start": start.format(), "end": end.format()}},
        },
        "provenance": "INTEGRATION_FACT",
        "confidence": None,
        "evidence": [],
    }


def _object(
    ident: str, calendar: str, zone_name: str, *, revision: int | None, time_value: JSONValue
) -> dict[str, JSONValue]:
    return {
        "id": ident,
        "revision": revision,
        "kind": {"kind": "EVENT"},
        "calendar_id": calendar,
        "integration_id": INTEGRATION_ID,
        "resource_ids": [],
        "time": time_value,
        "timezone": zone_name,
        "semantics": None,
    }


_MISSING: JSONValue = {
    "value": {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}},
    "provenance": "USER_EXPLICIT",
    "confidence": None,
    "evidence": [],
}


def _grant(ident: str, calendar: str, kind: str) -> dict[str, JSONValue]:
    return {"object_id": ident, "calendar_id": calendar, "integration_id": INTEGRATION_ID, "kind": kind}


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
    batch = spec.batch
    people: dict[str, list[str]] = {}
    for person in batch.people:
        people.setdefault(person.calendar_id, []).append(person.id)
    zones = {r.calendar_id: spec.timezone for r in batch.rooms}
    zones.update({p.calendar_id: p.timezone for p in reversed(batch.people)})
    for name, _ in calendars:
        if name not in zones:
            raise invalid_argument(
                f"calendar {name} is no person's or room's calendar_id in the batch file"
            )
    start, end = spec.window.start, spec.window.end
    read: list[tuple[str, BusyPeriod]] = []
    costs: dict[str, int] = {}
    for name, calendar in calendars:
        costs.update(_costs(calendar))
        for period in busy_periods(calendar, start, end, floating_zone=zones[name]):
            read.append((name, period))
    wanted = set(spec.movable) | set(movable)
    by_uid: dict[str, list[tuple[str, BusyPeriod]]] = {}
    for name, period in read:
        if period.kind == "event":
            by_uid.setdefault(period.uid, []).append((name, period))
    for uid in sorted(wanted):
        if uid not in by_uid:
            raise invalid_argument(f"movable event {uid!r} is in no calendar over the window")
    notes = [f"{w.code}: {w.message}" for w in warnings_of([c for _, c in calendars])]
    moving: dict[str, tuple[str, BusyPeriod]] = {}
    for uid in sorted((wanted | _flag_uids(calendars)) & set(by_uid)):
        why = _why_fixed(uid, by_uid[uid], people, spec)
        if why is None:
            moving[uid] = by_uid[uid][0]
        else:
            notes.append(f"event {uid} stays where it is: {why}")
    objects: list[JSONValue] = []
    meetings: list[JSONValue] = []
    grants: list[JSONValue] = []
    targets = [m.object_id for m in batch.meetings]
    home = {p.id: p.calendar_id for p in batch.people}
    for entry in batch.meetings:
        first = entry.required[0] if entry.required else None
        if first not in home:
            raise invalid_argument(
                f"meeting {entry.object_id}: its first required attendee {first!r} (the "
                "organiser, whose calendar it is written to) is not in batch.people"
            )
        objects.append(
            _object(entry.object_id, home[first], spec.timezone, revision=None, time_value=_MISSING)
        )
        grants.append(_grant(entry.object_id, home[first], "CREATE_EVENT"))
        meetings.append(entry.model_dump(mode="json", exclude_none=True))
    for uid, (name, period) in sorted(moving.items()):
        owner_zone = zones[name]
        objects.append(
            _object(uid, name, owner_zone, revision=period.sequence, time_value=_known(period.start, period.end))
        )
        grants.append(_grant(uid, name, "MOVE_EVENT"))
        cost = costs.get(uid)
        meeting: dict[str, JSONValue] = {
            "object_id": uid,
            "duration": (period.end.ns - period.start.ns) // _NS,
            "required": list(people[name]),
            "move_cost": spec.repairs.move_cost if cost is None else cost,
        }
        if period.summary:
            meeting["title"] = _CONTROL.sub(" ", period.summary)[:1024]
        if spec.repairs.same_day and (day := _day_window(period, owner_zone, spec)) is not None:
            meeting["window"] = day
        meetings.append(meeting)
    objects.extend(_busy_objects(read, moving, batch_holders(spec), zones))
    given = {name for name, _ in calendars}
    for person in batch.people:
        if person.calendar_id not in given:
            notes.append(f"no calendar given for {person.id} ({person.calendar_id}): free all window long")
    wire = batch.model_dump(mode="json", exclude_none=True)
    wire["meetings"] = meetings
    repairs = spec.repairs
    mutations = len(targets) + repairs.max_repairs
    body = json.dumps([spec.model_dump(mode="json"), sorted(movable), objects], sort_keys=True)
    fingerprint = hashlib.sha256(body.encode()).hexdigest()[:16]
    request: dict[str, JSONValue] = {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": f"optimize-{fingerprint}",
        "trace_id": f"optimize-{fingerprint}",
        "principal_id": "cli-user",
        "operation": "OPTIMIZE",
        "scope": {
            "time_range": {"start": start.format(), "end": end.format()},
            "calendar_ids": None,
            "object_ids": None,
            "resource_ids": None,
            "integration_ids": None,
            "movable_object_ids": sorted(moving),
            "max_mutations": mutations,
        },
        "context": {"revision": 0, "captured_at": start.format(), "objects": objects, "facts": []},
        "target_ids": targets,
        "duration": {
            "value": {"processing": "RESOLVED", "knowledge": {"state": "KNOWN", "data": spec.duration}},
            "provenance": "USER_EXPLICIT",
            "confidence": None,
            "evidence": [],
        },
        "constraints": [],
        "preferences": {"preferences": []},
        "policy": {
            "policy_set_id": "optimize-calendars",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {
                    "max_mutations": mutations,
                    "allowed_actions": ["CREATE_EVENT", "MOVE_EVENT"],
                },
                "mode": "Confirmation",
            },
        },
        "planning_capability": {"read": True, "plan": True, "mutations": grants},
        "granularity": spec.granularity,
        "budget": {
            "max_candidates": 1,
            "max_repairs": repairs.max_repairs,
            "max_moved_objects": repairs.max_repairs,
            "max_depth": repairs.max_depth,
        },
        "batch": wire,
    }
    return BatchFromCalendars(request, tuple(sorted(moving)), tuple(sorted(notes)))


def batch_holders(spec: CalendarBatch) -> dict[str, list[str]]:
    """Calendar id -> the ids of the people and rooms whose calendar it is (people first,
    in file order): who an event on that calendar blocks."""
    holders: dict[str, list[str]] = {}
    for person in spec.batch.people:
        holders.setdefault(person.calendar_id, []).append(person.id)
    for room in spec.batch.rooms:
        holders.setdefault(room.calendar_id, []).append(room.id)
    return holders


def _busy_objects(
    read: list[tuple[str, BusyPeriod]],
    moving: dict[str, tuple[str, BusyPeriod]],
    holders: dict[str, list[str]],
    zones: dict[str, str],
) -> list[JSONValue]:
    """One ``EVENT`` object per distinct busy period (:func:`cerebri.ics.object_id`): the
    same instance in several calendars (a team stand-up) is one object on the first
    calendar read that names the other calendars' people and rooms in ``resource_ids``,
    so it blocks every one of them; where copies disagree the latest end is kept."""
    chosen: dict[str, tuple[str, BusyPeriod]] = {}
    others: dict[str, set[str]] = {}
    for name, period in read:
        if period.uid in moving or not period.start < period.end:
            continue
        key = object_id(period)
        known = chosen.get(key)
        if known is None:
            chosen[key] = (name, period)
            others[key] = set()
            continue
        if period.end > known[1].end:
            chosen[key] = (known[0], period)
        if name != known[0]:
            others[key].update(holders[name])
    objects: list[JSONValue] = []
    for key, (name, period) in chosen.items():
        (obj,) = context_objects(
            (period,), calendar_id=name, integration_id=INTEGRATION_ID, zone=zones[name]
        )
        wire = obj.model_dump(mode="json")
        wire["resource_ids"] = sorted(others[key] - set(holders[name]))
        objects.append(wire)
    return objects


def _flag_uids(calendars: Sequence[tuple[str, Component]]) -> set[str]:
    """UIDs of every ``VEVENT`` marked ``X-CEREBRI-MOVABLE:TRUE`` in ``calendars``."""
    return {
        str(event.get("UID", ""))
        for _, calendar in calendars
        for event in calendar.walk("VEVENT")
        if str(event.get(MOVABLE_PROPERTY, "")).strip().upper() == "TRUE"
    }
