"""The batch problem the optimiser solves: meetings on a grid of time grains (issue #24).

This is the solver's own, discrete view of an ``OPTIMIZE`` request (decision 0069). Time is a
list of **grains**: equal steps of ``grain_seconds`` (the request's ``granularity``), each
with its UTC start (POSIX seconds) and the **day** it belongs to. A meeting occupies
``duration`` consecutive grains of one day: it starts at grain ``g`` and ends at the end of
grain ``g + duration - 1``, and never runs into the next day (a day's grains need not be
contiguous in time: nights, weekends and closed hours are simply not grains; a meeting's own
grains must follow each other in time, so it never spans such a gap). Gaps between meetings
(``After.gap``, travel, ``near`` below) are counted in grain indices.

Every value is frozen; the solver reads nothing else (no clock, no randomness, no I/O).
Identifiers are strings; every collection is a tuple in the order the request gave it, and
the solver's answer never depends on that order except through the documented tie-breaks.

Rules (decision 0069):

* **Hard** (never traded against anything; a request that cannot meet them is proven
  infeasible, with a conflicting set of named rules): each meeting placed once, on one day,
  on its allowed grains (window, every required attendee's open grains, the room's open
  grains); no required attendee in two meetings that overlap, nor in a meeting overlapping
  their busy grains; no room used by two overlapping meetings; room capacity at least
  ``Meeting.capacity_needed``; ``after`` (start >= the other's end + gap grains);
  ``not_same_day_as``; travel (for a person required in both meetings, on the same day, the
  gap between them is at least the travel grains between their locations, in either order;
  meetings on different days need no travel gap); the repair budget (``max_repairs``,
  ``max_depth``). An optional attendee's hours are not a hard rule (see medium).
* **Medium**: optional attendance lost, counted in grains of overlap between a meeting a
  person is optional in and another meeting they attend (required or optional; once per
  pair of meetings and person) or their busy grains or grains outside their hours
  (``open_grains``): a grain an optional attendee cannot come is a grain lost.
* **Soft**: the weighted terms of :class:`Weights`, each named in the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "After",
    "BatchProblem",
    "Grain",
    "Meeting",
    "Person",
    "Room",
    "SolverBudget",
    "Travel",
    "Weights",
]


@dataclass(frozen=True, slots=True)
class Grain:
    """One step of the grid: ``index`` (0-based, increasing with ``start``), ``start`` (UTC,
    POSIX seconds) and ``day`` (an opaque key; grains of one day share it, e.g. the local date
    ``"2026-12-07"`` in the request's zone)."""

    index: int
    start: int
    day: str


@dataclass(frozen=True, slots=True)
class Person:
    """An attendee. ``open_grains``: grain indices inside their hours (``None`` = every grain).
    ``busy_grains``: grain indices their fixed (unmovable) calendar entries touch."""

    id: str
    open_grains: frozenset[int] | None = None
    busy_grains: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Room:
    """A room (a resource with a capacity, in people). Same grain sets as :class:`Person`."""

    id: str
    capacity: int
    open_grains: frozenset[int] | None = None
    busy_grains: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class After:
    """Hard dependency: this meeting starts at or after ``meeting_id``'s end + ``gap`` grains."""

    meeting_id: str
    gap: int = 0


@dataclass(frozen=True, slots=True)
class Travel:
    """Travel time between two locations, in grains, both directions."""

    a: str
    b: str
    grains: int


@dataclass(frozen=True, slots=True)
class Meeting:
    """A meeting to place (a new one, or an existing one a repair may move).

    ``duration`` in grains (>= 1). ``required``/``optional``: person ids. ``needs_room``: the
    meeting takes one room from ``room_ids`` (``None`` = any room) with capacity >=
    ``capacity_needed`` (default: the number of required + optional attendees).
    ``allowed_starts``: grain indices it may start at (``None`` = any; the window).
    ``current_start``: for an existing meeting, the grain it starts at now (``None`` = new);
    moving it costs ``move_cost`` (soft, x ``Weights.move``) and counts against
    ``SolverBudget.max_repairs``; ``current_room`` likewise for its room. It has *moved* when
    its start differs, or when it takes a room, has a ``current_room`` and gets another one.
    ``preferred_start``: grain index; distance to it (in grains) is a soft cost.
    ``location``: for travel times (``None`` = nowhere in particular: no travel).
    """

    id: str
    duration: int
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    needs_room: bool = False
    room_ids: tuple[str, ...] | None = None
    capacity_needed: int | None = None
    allowed_starts: frozenset[int] | None = None
    after: tuple[After, ...] = ()
    not_same_day_as: tuple[str, ...] = ()
    preferred_start: int | None = None
    location: str | None = None
    current_start: int | None = None
    current_room: str | None = None
    move_cost: int = 1
    title: str = ""


@dataclass(frozen=True, slots=True)
class Weights:
    """Weights of the soft terms (non-negative integers; 0 switches a term off).

    * ``early``: per new meeting (one without ``current_start``), the index of its last
      grain (earlier is better). An existing meeting a repair may move is charged ``move``
      only, so it is never moved just to be earlier.
    * ``preference``: per meeting, ``|start - preferred_start|`` in grains.
    * ``back_to_back``: per pair of meetings sharing an attendee (required or optional) where
      one ends exactly when the other starts (no break grain), 1. "Exactly" is in time: the
      other starts on the grain after the first one's last and that grain follows it in time
      (the last grain of a day and the first of the next are not back to back).
    * ``back_to_back_any``: the same for any pair of meetings, shared person or not.
    * ``overlap_any``: per pair of overlapping meetings (any people), the overlap in grains.
    * ``move``: per moved existing meeting, its ``move_cost``.
    * ``room_stability``: per person attending (required or optional) two meetings in
      different rooms that are *near*: from the end of the one that starts first (its
      ``start + duration``) to the start of the other at most 2 grains (an overlap counts), 1.
    * ``larger_rooms_first``: per meeting with a room and per room of the problem with a
      larger capacity, the capacity difference.
    """

    early: int = 1
    preference: int = 1
    back_to_back: int = 1
    back_to_back_any: int = 0
    overlap_any: int = 0
    move: int = 10
    room_stability: int = 0
    larger_rooms_first: int = 0


@dataclass(frozen=True, slots=True)
class SolverBudget:
    """How much work the solver may do, in counted units, never wall time.

    ``deterministic_time``: CP-SAT's deterministic time limit (its own work units, roughly
    seconds on a reference machine, but counted, so the same on every run); an infeasible
    batch may spend as much again finding its conflicting set. ``workers``: CP-SAT search
    workers (fixed; more than one are interleaved on one thread, CP-SAT's deterministic
    parallel mode). ``seed``: CP-SAT's random seed.
    ``max_repairs``: at most this many existing meetings move (CPIR ``budget.max_repairs``);
    0 pins every existing meeting to its current start and room.
    ``max_depth``: longest chain of displacements (CPIR ``budget.max_depth``). A moved
    meeting *takes the old place* of another moved meeting when its new grains overlap that
    one's current grains and they share a required person or it gets that one's current
    room. Depths: a moved meeting has depth >= 1, and one that takes the old place of
    another has a greater depth than it; every depth must be <= ``max_depth`` (so 0 allows no
    move, and a cycle, two moved meetings taking each other's places, is never allowed).
    The limit is checked only when it can bind, ``max_depth < min(max_repairs, existing
    meetings)``; otherwise any chain (and cycle) within ``max_repairs`` is allowed.
    """

    deterministic_time: float = 10.0
    workers: int = 1
    seed: int = 0
    max_repairs: int = 0
    max_depth: int = 0


@dataclass(frozen=True, slots=True)
class BatchProblem:
    """The whole batch: grains, people, rooms, meetings, travel, weights and budget.

    ``grain_seconds``: length of one grain (seconds). Grains are sorted by ``index`` = position.
    Meetings' ids are unique; every id a meeting names (person, room, meeting) exists.
    """

    grain_seconds: int
    grains: tuple[Grain, ...]
    meetings: tuple[Meeting, ...]
    people: tuple[Person, ...] = ()
    rooms: tuple[Room, ...] = ()
    travel: tuple[Travel, ...] = ()
    weights: Weights = field(default_factory=Weights)
    budget: SolverBudget = field(default_factory=SolverBudget)
