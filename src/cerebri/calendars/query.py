"""From calendars to a CPIR request: the everyday "find me a slot" question.

The request is an ordinary CPIR 0.2 request (no hidden inputs), so every answer can be
replayed with ``cerebri plan``. How the question maps onto CPIR
(docs/decisions/0008-find-slot-mapping.md):

* every busy period of every calendar becomes an existing ``EVENT`` (``INTEGRATION_FACT``);
* the same event in several calendars is one object, the copy that ends latest;
* busy time is read over the window widened by the buffer, so an event just outside the
  window still keeps its distance;
* time no calendar describes becomes a blocking ``unobserved-<n>`` event, so it is never
  offered as free; time an attendee's ``VAVAILABILITY`` excludes becomes ``unavailable-<n>``;
* working hours become blocking ``outside-working-hours-<local close>-<local reopen>``
  events covering the rest of each local day; they are shrunk by the buffer on both sides,
  so that the buffer keeps its distance from real events only while the meeting still has
  to lie inside working hours;
* each required attendee's own hours (:class:`~cerebri.calendars.AttendeeHours`, in
  ``SlotQuery.attendee_hours``) become blockers of the same kind named after them,
  ``outside-working-hours-<id>-<local close>-<local reopen>`` (or ``closed-day-<id>-...``),
  local in the attendee's zone (docs/decisions/0053);
* the buffer is one ``REQUIRED_BUFFER`` constraint on the new event;
* daily preferences and optional attendees are ranked outside CPIR; the request carries
  the start ranked first as its one ``ExplicitCurrentRequest`` preference, so a replay
  offers that start first (docs/decisions/0026).

With a :class:`NewEvent` (``find-slot --create``) the request is a ``CREATE`` of that one
event instead of an analysis-only ``FIND_SLOT`` (docs/decisions/0025-proposing-calendar-slots.md):
the target gets the event's deterministic id, calendar and integration, one ``CREATE_EVENT``
grant, and a ``Confirmation`` policy allowing only ``CREATE_EVENT`` (confirmation required
for every mutation), so its chosen candidate yields an action plan whose effect waits for
approval.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import time

from cerebri._guard import arguments, items_of
from cerebri._json import JSONValue
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.attendee_hours import AttendeeHours
from cerebri.calendars.closed_time import (
    Hours,
    blocker_owner,
    closed_block,
    closed_blocks,
    closed_spans,
)
from cerebri.calendars.objects import context_objects
from cerebri.ics import BusyPeriod, object_id
from cerebri.ics.times import check_supported_window
from cerebri.temporal import Instant, Interval

__all__ = [
    "INTEGRATION_ID",
    "TARGET_ID",
    "AttendeeHours",
    "NewEvent",
    "SlotQuery",
    "attendee_closed",
    "attendee_off_hours",
    "build_request",
    "closed_block",
    "event_objects",
    "expansion_window",
    "off_hours",
]

TARGET_ID = "new-event"
INTEGRATION_ID = "ics"
NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class SlotQuery:
    """What the user asks for.

    Attributes:
        window_start, window_end: the half-open search window (UTC instants, within
            years 1-9999 in UTC; ``ValueError`` otherwise).

    Every refusal is an :class:`~cerebri.errors.InvalidArgumentError` with code
    ``calendars.invalid_argument`` (a ``TypeError`` and a ``ValueError``): a field of the
    wrong Python type, an empty window, a duration or granularity not above 0, a negative
    buffer, a weekday outside 0-6, working hours that do not start before they end. A window
    outside years 1-9999 keeps its ``ValueError`` from :mod:`cerebri.ics.times`.
        duration_seconds: length of the meeting, seconds (> 0).
        granularity_seconds: distance between candidate starts, seconds (> 0).
        zone: IANA zone for working hours, the preferred time and local display.
        working_hours: ``(start, end)`` local times of day, or None for all day.
        working_days: weekdays that are open (Monday = 0 … Sunday = 6), or None for every day.
        buffer_seconds: minimum gap to every other event, seconds (0 = none).
        prefer: preferred local start time, on every day of the window, or None.
        max_candidates: grid positions the planner may evaluate (the default covers a
            month at a one-minute grid, or three years at fifteen minutes).
        prefer_between: ``(start, end)`` local times: starts in that range (ends included)
            of any day cost nothing, others their distance to it; start before end.
        prefer_earliest: rank early local times of day first (whatever the day).
        prefer_latest: rank late local times of day first.
        min_attendance: fraction 0-1 of all attendees (required + optional) who must be
            free for a slot to be offered (like Microsoft Graph's
            ``minimumAttendeePercentage``, but a fraction: ``0.8`` is 80 %), or None.
        attendee_hours: each attendee's own zone and working hours
            (:class:`~cerebri.calendars.AttendeeHours`, at most one per calendar id; any
            sequence is kept as a tuple). A required attendee's hours block; an optional
            attendee's only count for attendance; either way the answer shows each slot in
            every known attendee zone (docs/decisions/0053). Left out of ``repr``, so the
            request id of a query without them is unchanged.

    At most one of ``prefer``, ``prefer_between``, ``prefer_earliest`` and
    ``prefer_latest`` may be given (``calendars.invalid_argument`` otherwise); how they rank
    is :mod:`cerebri.calendars.ranking` (docs/decisions/0026). A ``min_attendance`` outside
    0-1 (or not a finite number) is ``calendars.invalid_argument`` too.
    """

    window_start: Instant
    window_end: Instant
    duration_seconds: int
    granularity_seconds: int = 900
    zone: str = "UTC"
    working_hours: tuple[time, time] | None = None
    working_days: frozenset[int] | None = None
    buffer_seconds: int = 0
    prefer: time | None = None
    max_candidates: int = 100_000
    prefer_between: tuple[time, time] | None = None
    prefer_earliest: bool = False
    prefer_latest: bool = False
    min_attendance: float | None = None
    attendee_hours: tuple[AttendeeHours, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        _check_types(self)
        _check_preferences(self)
        _check_attendee_hours(self)
        if not self.window_start < self.window_end:
            raise invalid_argument("the window must start before it ends")
        check_supported_window(self.window_start, self.window_end)
        if self.duration_seconds <= 0 or self.granularity_seconds <= 0:
            raise invalid_argument("duration and granularity must be positive numbers of seconds")
        if self.buffer_seconds < 0:
            raise invalid_argument("the buffer must not be negative")
        if self.working_days is not None and not self.working_days <= frozenset(range(7)):
            raise invalid_argument("working days are weekday numbers 0 (Monday) to 6 (Sunday)")
        if self.working_hours is not None and not self.working_hours[0] < self.working_hours[1]:
            raise invalid_argument("working hours must start before they end (same day)")


_INT_FIELDS = ("duration_seconds", "granularity_seconds", "buffer_seconds", "max_candidates")


_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
MAX_TITLE_LENGTH = 1024
"""Longest event title, in characters (the ``calendar.event.create`` params schema)."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """The event ``find-slot --create`` asks to create in the slot found.

    Attributes:
        title: the event's title, 1-1024 characters (carried to the plan graph's
            ``calendar.event.create`` step as ``title``; CPIR 0.2 itself has no title field).
        calendar_id: the calendar that gets the event (a CPIR id: 1-128 of
            ``[A-Za-z0-9._-]``).
        integration_id: how that calendar is reached (``ics`` for a file, ``caldav`` for a
            CalDAV collection; a CPIR id).

    Refusals are ``calendars.invalid_argument`` (a ``TypeError`` and a ``ValueError``):
    a field that is not text, an empty or too long title, an id outside the CPIR id form.
    """

    title: str
    calendar_id: str
    integration_id: str = INTEGRATION_ID

    def __post_init__(self) -> None:
        for name in ("title", "calendar_id", "integration_id"):
            if not isinstance(getattr(self, name), str):
                raise invalid_argument(f"NewEvent needs {name} as str")
        if not self.title.strip():
            raise invalid_argument("the event title must not be empty")
        if len(self.title) > MAX_TITLE_LENGTH:
            raise invalid_argument(f"the event title is longer than {MAX_TITLE_LENGTH} characters")
        for name in ("calendar_id", "integration_id"):
            if _ID.fullmatch(getattr(self, name)) is None:
                raise invalid_argument(
                    f"NewEvent {name} {getattr(self, name)!r} is not a CPIR id "
                    "(1-128 of A-Z a-z 0-9 . _ -)"
                )

    def object_id(self, query: SlotQuery) -> str:
        """The new event's CPIR object id: ``event-`` and 32 hex digits of the SHA-256 of
        the title, calendar, integration and the query's window (the same options give the
        same id, so a repeated proposal names the same event)."""
        seed = "\n".join(
            (
                self.title,
                self.calendar_id,
                self.integration_id,
                query.window_start.format(),
                query.window_end.format(),
            )
        )
        return "event-" + hashlib.sha256(seed.encode("utf-8")).hexdigest()[:32]


def _check_types(query: SlotQuery) -> None:
    """``calendars.invalid_argument`` for a field of the wrong Python type."""
    for name in ("window_start", "window_end"):
        if not isinstance(getattr(query, name), Instant):
            raise invalid_argument(f"SlotQuery needs {name} as Instant")
    for name in _INT_FIELDS:
        if type(getattr(query, name)) is not int:
            raise invalid_argument(f"SlotQuery needs {name} as int (seconds)")
    if not isinstance(query.zone, str):
        raise invalid_argument("SlotQuery needs zone as str (an IANA name)")


def _check_attendee_hours(query: SlotQuery) -> None:
    """``calendars.invalid_argument`` unless ``attendee_hours`` is a sequence of
    :class:`AttendeeHours` with distinct calendar ids; stored as a tuple."""
    given = query.attendee_hours
    if isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
        raise invalid_argument("SlotQuery needs attendee_hours as a sequence of AttendeeHours")
    if not all(isinstance(entry, AttendeeHours) for entry in given):
        raise invalid_argument("SlotQuery needs attendee_hours as a sequence of AttendeeHours")
    ids = [entry.calendar_id for entry in given]
    if len(set(ids)) != len(ids):
        twice = next(name for name in ids if ids.count(name) > 1)
        raise invalid_argument(f"attendee_hours gives hours for {twice!r} twice")
    object.__setattr__(query, "attendee_hours", tuple(given))


def _check_preferences(query: SlotQuery) -> None:
    """``calendars.invalid_argument`` for ill-typed or conflicting preferences."""
    if query.prefer is not None and not isinstance(query.prefer, time):
        raise invalid_argument("SlotQuery needs prefer as datetime.time or None")
    between = query.prefer_between
    if between is not None and not (
        isinstance(between, tuple)
        and len(between) == 2
        and all(isinstance(t, time) for t in between)
    ):
        raise invalid_argument("SlotQuery needs prefer_between as a (time, time) pair or None")
    if between is not None and not between[0] < between[1]:
        raise invalid_argument("prefer_between must start before it ends (same day)")
    for name in ("prefer_earliest", "prefer_latest"):
        if not isinstance(getattr(query, name), bool):
            raise invalid_argument(f"SlotQuery needs {name} as bool")
    given = [
        name
        for name, value in (
            ("prefer", query.prefer is not None),
            ("prefer_between", between is not None),
            ("prefer_earliest", query.prefer_earliest),
            ("prefer_latest", query.prefer_latest),
        )
        if value
    ]
    if len(given) > 1:
        raise invalid_argument(f"give at most one daily preference, not {' and '.join(given)}")
    share = query.min_attendance
    if share is not None and (
        isinstance(share, bool)
        or not isinstance(share, (int, float))
        or not math.isfinite(share)
        or not 0 <= share <= 1
    ):
        raise invalid_argument(
            f"min_attendance must be a fraction from 0 to 1 (0.8 for 80 %), got {share!r}"
        )


def _known(start: Instant, end: Instant, provenance: str) -> dict[str, JSONValue]:
    return {
        "value": {
            "processing": "RESOLVED",
            "knowledge": {"state": "KNOWN", "data": {"start": start.format(), "end": end.format()}},
        },
        "provenance": provenance,
        "confidence": None,
        "evidence": [],
    }


def _blocker(object_id: str, span: Interval, zone_name: str) -> dict[str, JSONValue]:
    return {
        "id": object_id,
        "revision": 0,
        "kind": {"kind": "EVENT"},
        "calendar_id": "cerebri",
        "integration_id": "find-slot",
        "resource_ids": [],
        "time": _known(Instant(span.start), Instant(span.end), "USER_EXPLICIT"),
        "timezone": zone_name,
        "semantics": None,
    }


def expansion_window(query: SlotQuery) -> tuple[Instant, Instant]:
    """The window widened by the buffer on both sides: events that close to the window still
    constrain a meeting inside it."""
    pad = query.buffer_seconds * NS
    return Instant(query.window_start.ns - pad), Instant(query.window_end.ns + pad)


def _window(query: SlotQuery) -> Interval:
    return Interval(query.window_start.ns, query.window_end.ns)


def _attendee(entry: AttendeeHours) -> Hours:
    return Hours(entry.zone, entry.hours, entry.days)


def off_hours(query: SlotQuery) -> list[tuple[str, Interval]]:
    """Blockers for time outside working hours and on days off (see :func:`closed_block`).

    Consecutive closed stretches (an evening, a weekend, the next morning) form one
    blocker, named by its local bounds: ``closed-day-START-END`` when the part of it inside
    the window touches days off only (no working day), else
    ``outside-working-hours-START-END``. Local times follow the zone's rules (DST
    moves them).
    """
    rule = Hours(query.zone, query.working_hours, query.working_days)
    return closed_blocks(_window(query), query.buffer_seconds * NS, rule)


def attendee_off_hours(
    query: SlotQuery, required: Collection[str] | None = None
) -> list[tuple[str, Interval, str]]:
    """Blockers for the time outside each required attendee's own hours
    (``query.attendee_hours``; ``required`` limits them to those calendar ids, None: all),
    as :func:`off_hours` makes them but local in the attendee's zone and named
    ``outside-working-hours-<id>-<local close>-<local reopen>`` or
    ``closed-day-<id>-...`` (a long id is shortened with a digest,
    :func:`~cerebri.calendars.closed_time.blocker_owner`), each with the attendee's zone:
    ``(id, span, zone)``. Attendees in calendar id order; an entry that only declares a
    zone blocks nothing."""
    blocks: list[tuple[str, Interval, str]] = []
    window, pad = _window(query), query.buffer_seconds * NS
    for entry in sorted(query.attendee_hours, key=lambda e: e.calendar_id):
        if required is None or entry.calendar_id in required:
            owner = blocker_owner(entry.calendar_id)
            found = closed_blocks(window, pad, _attendee(entry), owner)
            blocks.extend((name, span, entry.zone) for name, span in found)
    return blocks


def attendee_closed(query: SlotQuery, entry: AttendeeHours) -> list[Interval]:
    """The time outside ``entry``'s hours around the query's window, as UTC nanosecond
    intervals (neither shrunk by the buffer nor clipped): what makes an optional attendee
    busy for attendance (:mod:`cerebri.calendars.attendance`)."""
    return closed_spans(_window(query), _attendee(entry))


def _render(calendar_id: str, period: BusyPeriod, zone_name: str) -> JSONValue:
    (obj,) = context_objects(
        (period,), calendar_id=calendar_id, integration_id=INTEGRATION_ID, zone=zone_name
    )
    return obj.model_dump(mode="json")


def event_objects(
    calendars: Sequence[tuple[str, Sequence[BusyPeriod]]],
    zone_name: str,
    *,
    render: Callable[[str, BusyPeriod, str], JSONValue] = _render,
) -> list[JSONValue]:
    """One CPIR ``EVENT`` per distinct busy period across all calendars.

    The same event in several calendars (same UID, recurrence id and start: one object id)
    becomes one object; where the copies disagree, the one that ends latest is kept, so the
    blocked time is the union of what the calendars say, whatever their order. Zero-length
    periods make no object. Objects come in first-seen order.
    """
    chosen: dict[str, tuple[str, BusyPeriod]] = {}
    for calendar_id, periods in calendars:
        for period in periods:
            if not period.start < period.end:
                continue
            key = object_id(period)
            known = chosen.get(key)
            if known is None or period.end > known[1].end:
                chosen[key] = (calendar_id, period)
    return [render(calendar_id, period, zone_name) for calendar_id, period in chosen.values()]


@arguments(
    invalid_argument,
    events=Sequence,
    unobserved=Sequence,
    query=SlotQuery,
    unavailable=Sequence,
    create=(NewEvent, type(None)),
    preferred_start=(Instant, type(None)),
    required=(Collection, type(None)),
)
def build_request(
    events: Sequence[JSONValue],
    unobserved: Sequence[Interval],
    query: SlotQuery,
    *,
    unavailable: Sequence[Interval] = (),
    create: NewEvent | None = None,
    preferred_start: Instant | None = None,
    required: Collection[str] | None = None,
) -> dict[str, JSONValue]:
    """The CPIR 0.2 request (JSON values) for ``query``.

    ``events`` are the busy ``EVENT`` objects (:func:`event_objects`); ``unobserved`` the
    time no calendar describes; ``unavailable`` the time an attendee's availability
    (RFC 7953) excludes. Both kinds block like closed time (:func:`closed_block`).
    Without ``create`` the request is an analysis-only ``FIND_SLOT`` of target
    :data:`TARGET_ID`; with a :class:`NewEvent` it is a ``CREATE`` of that event (target id
    :meth:`NewEvent.object_id`, see the module doc), whose candidates yield action plans.
    Raises ``calendars.invalid_argument`` unless ``query`` is a :class:`SlotQuery`,
    ``create`` a :class:`NewEvent` or None, and ``unobserved``/``unavailable`` hold
    :class:`~cerebri.temporal.Interval` values.

    ``preferred_start`` (a UTC instant) becomes the request's one ``ExplicitCurrentRequest``
    preference; the query's daily preferences are not written here (CPIR has one preferred
    instant): :func:`~cerebri.calendars.find_slot` passes the start it ranks first
    (docs/decisions/0026).

    ``query.attendee_hours`` of the calendar ids in ``required`` (all when None) become
    blockers named per attendee (:func:`attendee_off_hours`); the others are optional
    attendees, whose hours count only for attendance.
    """
    unobserved = items_of(unobserved, Interval, invalid_argument, "build_request() unobserved")
    unavailable = items_of(unavailable, Interval, invalid_argument, "build_request() unavailable")
    target = TARGET_ID if create is None else create.object_id(query)
    objects: list[JSONValue] = [
        {
            "id": target,
            "revision": None,
            "kind": {"kind": "EVENT"},
            "calendar_id": "cerebri" if create is None else create.calendar_id,
            "integration_id": "find-slot" if create is None else create.integration_id,
            "resource_ids": [],
            "time": {
                "value": {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}},
                "provenance": "USER_EXPLICIT",
                "confidence": None,
                "evidence": [],
            },
            "timezone": query.zone,
            "semantics": None,
        }
    ]
    objects.extend(events)
    window = Interval(query.window_start.ns, query.window_end.ns)
    for index, span in enumerate(unobserved, start=1):
        objects.append(_blocker(f"unobserved-{index}", span, query.zone))
    pad = query.buffer_seconds * NS
    for index, span in enumerate(unavailable, start=1):
        piece = closed_block(span, pad, window)
        if piece is not None:
            objects.append(_blocker(f"unavailable-{index}", piece, query.zone))
    for name, span in off_hours(query):
        objects.append(_blocker(name, span, query.zone))
    for name, span, zone_name in attendee_off_hours(query, required):
        objects.append(_blocker(name, span, zone_name))
    constraints: list[JSONValue] = []
    if query.buffer_seconds:
        constraints.append(
            {
                "object_id": target,
                "rule": {"kind": "REQUIRED_BUFFER", "value": query.buffer_seconds},
                "evidence": [],
            }
        )
    preferences: list[JSONValue] = []
    if preferred_start is not None:
        preferences.append(
            {
                "source": "ExplicitCurrentRequest",
                "preferred_start": preferred_start.format(),
                "evidence": [],
            }
        )
    seed = repr(query)
    if query.attendee_hours:  # not in repr: ids of queries without them stay unchanged
        seed += "\n" + repr(sorted(query.attendee_hours, key=lambda e: e.calendar_id))
    fingerprint = hashlib.sha256(seed.encode()).hexdigest()[:16]
    if create is not None:  # a different question: a different id (FIND_SLOT ids unchanged)
        fingerprint = hashlib.sha256(f"{seed}\n{target}".encode()).hexdigest()[:16]
    request: dict[str, JSONValue] = {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": f"find-slot-{fingerprint}",
        "trace_id": f"find-slot-{fingerprint}",
        "principal_id": "cli-user",
        "operation": "FIND_SLOT",
        "scope": {
            "time_range": {"start": query.window_start.format(), "end": query.window_end.format()},
            "calendar_ids": None,
            "object_ids": None,
            "resource_ids": None,
            "integration_ids": None,
            "movable_object_ids": None,
            "max_mutations": 0,
        },
        "context": {
            "revision": 0,
            "captured_at": query.window_start.format(),
            "objects": objects,
            "facts": [],
        },
        "target_ids": [target],
        "duration": {
            "value": {
                "processing": "RESOLVED",
                "knowledge": {"state": "KNOWN", "data": query.duration_seconds},
            },
            "provenance": "USER_EXPLICIT",
            "confidence": None,
            "evidence": [],
        },
        "constraints": constraints,
        "preferences": {"preferences": preferences},
        "policy": {
            "policy_set_id": "find-slot",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {"max_mutations": 0, "allowed_actions": []},
                "mode": "Suggestion",
            },
        },
        "planning_capability": {"read": True, "plan": True, "mutations": []},
        "granularity": query.granularity_seconds,
        "budget": {
            "max_candidates": query.max_candidates,
            "max_repairs": 0,
            "max_moved_objects": 0,
            "max_depth": 0,
        },
    }
    if create is not None:
        _as_create(request, target, create)
    return request


def _as_create(request: dict[str, JSONValue], target: str, create: NewEvent) -> None:
    """Turn the FIND_SLOT ``request`` into a CREATE of ``target`` (one mutation, granted,
    allowed by a ``Confirmation`` policy: cpir-0.2.md 5.3, 11.1 and 11.2)."""
    scope = request["scope"]
    assert isinstance(scope, dict)
    scope["max_mutations"] = 1
    request["operation"] = "CREATE"
    request["policy"] = {
        "policy_set_id": "find-slot-create",
        "policy_version": 1,
        "snapshot": {
            "allow_uncertain_duration": False,
            "confirmation": {"all_mutations": True, "deletion": True},
            "mutation": {"max_mutations": 1, "allowed_actions": ["CREATE_EVENT"]},
            "mode": "Confirmation",
        },
    }
    request["planning_capability"] = {
        "read": True,
        "plan": True,
        "mutations": [
            {
                "object_id": target,
                "calendar_id": create.calendar_id,
                "integration_id": create.integration_id,
                "kind": "CREATE_EVENT",
            }
        ],
    }
