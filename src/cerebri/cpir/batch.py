"""The optional ``batch`` member of a planning request: what an ``OPTIMIZE`` places at once
(issue #24, docs/decisions/0070-cpir-optimize-wire.md; a cerebri extension of cpir-0.2.md 3).

``target_ids`` name the new meetings (prospective ``EVENT`` objects); ``batch.meetings``
describes each of them, and each existing event a repair may move (also listed in
``scope.movable_object_ids``), with its attendees, room need, window and soft wishes.
``people`` and ``rooms`` say whose calendar is whose, in which zone their working hours are
read, and what each room holds::

    "batch": {
      "meetings": [{"object_id": "m1", "title": "Interview", "duration": 3600,
                    "required": ["ann", "bob"], "optional": [],
                    "room": {"capacity": 2, "room_ids": null},
                    "window": null, "after": [{"object_id": "m0", "gap_seconds": 900}],
                    "not_same_day_as": [], "preferred_start": null,
                    "location": null, "move_cost": null}],
      "people": [{"id": "ann", "calendar_id": "ann-cal", "timezone": "Europe/Berlin",
                  "hours": [{"days": ["Mon", "Tue"], "start": "09:00", "end": "17:00"}]}],
      "rooms": [{"id": "r1", "calendar_id": "r1-cal", "capacity": 4}],
      "travel": [{"a": "HQ", "b": "Lab", "seconds": 1800}],
      "weights": {"early": 1, "move": 10},
      "solver": {"deterministic_time": 5.0, "workers": 1, "seed": 0}
    }

Like every CPIR record it is strict: unknown keys are ``cpir.unknown_field``, wrong types
and out-of-range values ``cpir.invalid_value``. Nullable keys may be omitted; lists marked
optional default to ``[]``. Rules that span the request (ids that must exist, whole grains,
windows inside the horizon) are validation issues, not parse errors (decision 0070).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from cerebri.cpir._base import WireModel
from cerebri.cpir.change import EventUid, MailtoAddress
from cerebri.cpir.enums import Weekday
from cerebri.cpir.scalars import U32, DurationSeconds, Identifier, TimeRange
from cerebri.temporal.instant import Instant
from cerebri.temporal.zones import TimeZoneId

__all__ = [
    "Batch",
    "BatchAfter",
    "BatchHours",
    "BatchMeeting",
    "BatchPerson",
    "BatchRoom",
    "BatchRoomNeed",
    "BatchSolver",
    "BatchTravel",
    "BatchWeights",
]

_ClockTime = Annotated[str, StringConstraints(pattern=r"^(?:[01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$")]
"""A local wall-clock time ``HH:MM`` (``00:00`` … ``23:59``, and ``24:00`` = the end of the day)."""

_Text = Annotated[str, StringConstraints(pattern=r"^[^\x00-\x1F\x7F]{0,1024}$")]
"""One line of text, at most 1024 characters, no control characters."""

_Location = Annotated[str, StringConstraints(pattern=r"^[^\x00-\x1F\x7F]{1,256}$")]
"""A location name for travel times: 1 to 256 characters, no control characters."""

_NonNegative = Annotated[int, Field(ge=0, le=1_000_000)]
"""A soft weight: a whole number 0 … 1 000 000 (0 switches its term off)."""


class BatchAfter(WireModel):
    """Hard dependency: this meeting starts at or after ``object_id``'s end plus
    ``gap_seconds`` (a whole number of grains, else a validation issue)."""

    object_id: Identifier
    gap_seconds: U32 = 0


class BatchRoomNeed(WireModel):
    """The meeting takes one room: one of ``room_ids`` (null = any room of ``batch.rooms``)
    holding at least ``capacity`` people (null = its required + optional attendees)."""

    capacity: U32 | None = None
    room_ids: tuple[Identifier, ...] | None = None


class BatchMeeting(WireModel):
    """One meeting to place (a target) or an existing event a repair may move.

    ``duration``: seconds, a whole number of grains (null = the request's ``duration``).
    ``required``/``optional``: ids of ``batch.people``. ``room``: null = no room.
    ``window``: the meeting lies inside this range (null = the horizon).
    ``preferred_start``: a soft wish; ``move_cost``: the cost of moving an existing event
    (null = 1; ignored for a new meeting). ``title``: the created event's ``SUMMARY``.
    ``uid`` (an existing event only): its iCalendar ``UID`` (RFC 5545 3.8.4.7), which a
    move addresses; a CPIR id is no UID (``cerebri reschedule --emit-request`` gives
    ``ics-<digest>`` ids), and a batch moving an ``ics-`` object without one is refused
    when it is proposed (decision 0083). Null: the object id is the UID.
    """

    object_id: Identifier
    title: _Text | None = None
    uid: EventUid | None = None
    duration: DurationSeconds | None = None
    required: tuple[Identifier, ...]
    optional: tuple[Identifier, ...] = ()
    room: BatchRoomNeed | None = None
    window: TimeRange | None = None
    after: tuple[BatchAfter, ...] = ()
    not_same_day_as: tuple[Identifier, ...] = ()
    preferred_start: Instant | None = None
    location: _Location | None = None
    move_cost: U32 | None = None


class BatchHours(WireModel):
    """Working hours: on each of ``days`` (``Mon`` … ``Sun``), from ``start`` to ``end``
    local time (``HH:MM``; ``end`` after ``start``, ``24:00`` = midnight at the end)."""

    days: tuple[Weekday, ...] = Field(min_length=1)
    start: _ClockTime
    end: _ClockTime

    @model_validator(mode="after")
    def _ordered(self) -> BatchHours:
        if not self.start < self.end:
            raise ValueError("hours must end after they start (same day, HH:MM)")
        if len(set(self.days)) != len(self.days):
            raise ValueError("a weekday is listed twice")
        return self


class BatchPerson(WireModel):
    """An attendee: ``calendar_id`` is their calendar (its events are their busy time),
    ``timezone`` the IANA zone their ``hours`` are read in. ``hours`` null = always open.
    ``address``: their calendar user address (``mailto:``, RFC 5545 3.3.3), written as the
    ``ORGANIZER``/``ATTENDEE`` of the events a batch creates (null: no such line, decision
    0083)."""

    id: Identifier
    calendar_id: Identifier
    timezone: TimeZoneId
    hours: tuple[BatchHours, ...] | None = None
    address: MailtoAddress | None = None


class BatchRoom(WireModel):
    """A room: ``calendar_id`` is its calendar (or the resource id events name it by),
    ``capacity`` how many people it holds."""

    id: Identifier
    calendar_id: Identifier
    capacity: U32


class BatchTravel(WireModel):
    """Travel time between locations ``a`` and ``b`` (both directions), seconds (a whole
    number of grains, else a validation issue)."""

    a: _Location
    b: _Location
    seconds: U32


class BatchWeights(WireModel):
    """Soft weights (decision 0069's ``Weights``); an omitted key keeps its default:
    early 1, preference 1, back_to_back 1, back_to_back_any 0, overlap_any 0, move 10,
    room_stability 0, larger_rooms_first 0."""

    early: _NonNegative = 1
    preference: _NonNegative = 1
    back_to_back: _NonNegative = 1
    back_to_back_any: _NonNegative = 0
    overlap_any: _NonNegative = 0
    move: _NonNegative = 10
    room_stability: _NonNegative = 0
    larger_rooms_first: _NonNegative = 0


class BatchSolver(WireModel):
    """The solver's counted work limit: CP-SAT ``deterministic_time`` (its work units, never
    wall time; 0 < x <= 600), ``workers`` (1 … 8) and ``seed``. Defaults 10.0, 1, 0."""

    deterministic_time: Annotated[float, Field(gt=0.0, le=600.0, allow_inf_nan=False)] = 10.0
    workers: Annotated[int, Field(ge=1, le=8)] = 1
    seed: Annotated[int, Field(ge=0, le=0x7FFF_FFFF)] = 0


class Batch(WireModel):
    """The ``batch`` member (decision 0070): meetings, people, rooms, travel, weights,
    solver limits. Required with ``OPTIMIZE``, refused with any other operation."""

    meetings: tuple[BatchMeeting, ...] = Field(min_length=1)
    people: tuple[BatchPerson, ...]
    rooms: tuple[BatchRoom, ...] = ()
    travel: tuple[BatchTravel, ...] = ()
    weights: BatchWeights | None = None
    solver: BatchSolver | None = None
