"""Timefold's meeting-scheduling data sets, read and converted to a cerebri ``BatchProblem``.

The files (``<n>meetings-<g>timegrains-5rooms.json`` from TimefoldAI/timefold-solver-benchmarks,
copies in ``$CEREBRI_OPTIMIZE_DIR/timefold-meetingscheduling/``) are Jackson dumps with object
identity: an object carries ``"@id": "Person#7"`` where it first appears and is named by that
string everywhere after. :func:`read_set` resolves those names into :class:`TimefoldSet`, a
plain view that the bench's scorer and every peer read; :func:`to_batch_problem` maps it to
the solver model of decision 0069 with Timefold's constraint weights (decision 0071):

* grains: ``timeGrainList`` (``index`` = ``grainIndex``, ``day`` = ``dayOfYear``), starts in
  UTC seconds in the reference year :data:`REFERENCE_YEAR_START` (the data name no year);
* rooms with their capacity; every meeting ``needs_room`` with ``capacity_needed`` = required
  + preferred attendances (Timefold's ``getRequiredCapacity``); required and preferred
  attendees become ``required``/``optional`` persons;
* hard rules of Timefold (room conflict, required attendance conflict, room capacity, start
  and end on the same day, no overtime past the last grain) are cerebri's hard constraints;
  medium (required/preferred and preferred/preferred overlaps) is cerebri's medium level;
  soft weights: ``early`` 1, ``back_to_back_any`` 100, ``overlap_any`` 10,
  ``larger_rooms_first`` 1, ``room_stability`` 1, everything else 0.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cerebri.optimize import (
    BatchProblem,
    Grain,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Weights,
)

__all__ = [
    "REFERENCE_YEAR_START",
    "SETS",
    "TfGrain",
    "TfMeeting",
    "TfRoom",
    "TimefoldSet",
    "data_dir",
    "meeting_key",
    "read_set",
    "room_key",
    "timefold_weights",
    "to_batch_problem",
]

# 2025-01-01T00:00:00Z in POSIX seconds: day-of-year 1 starts here (the data name no year).
REFERENCE_YEAR_START = 1_735_689_600
GRAIN_SECONDS = 15 * 60

# Set name (the file's stem) by meeting count.
SETS: dict[int, str] = {
    50: "50meetings-160timegrains-5rooms",
    100: "100meetings-320timegrains-5rooms",
    200: "200meetings-640timegrains-5rooms",
    400: "400meetings-1280timegrains-5rooms",
    800: "800meetings-2560timegrains-5rooms",
}


def data_dir() -> Path:
    """``$CEREBRI_OPTIMIZE_DIR/timefold-meetingscheduling`` (default ``../shared/optimize``
    beside the repository)."""
    configured = os.environ.get("CEREBRI_OPTIMIZE_DIR")
    root = (
        Path(configured)
        if configured
        else Path(__file__).resolve().parent.parent.parent / "shared" / "optimize"
    )
    return root / "timefold-meetingscheduling"


@dataclass(frozen=True, slots=True)
class TfGrain:
    """A time grain: ``index`` (Timefold's ``grainIndex``), ``day`` (``dayOfYear``) and
    ``minute`` (``startingMinuteOfDay``)."""

    index: int
    day: int
    minute: int


@dataclass(frozen=True, slots=True)
class TfRoom:
    """A room: Timefold's numeric ``id`` and ``capacity`` (people)."""

    id: int
    capacity: int


@dataclass(frozen=True, slots=True)
class TfMeeting:
    """A meeting: numeric ``id``, ``duration`` in grains, required and preferred person ids
    (one entry per attendance, in file order)."""

    id: int
    duration: int
    required: tuple[int, ...]
    preferred: tuple[int, ...]

    @property
    def required_capacity(self) -> int:
        """Timefold's ``getRequiredCapacity``: required + preferred attendances."""
        return len(self.required) + len(self.preferred)


@dataclass(frozen=True, slots=True)
class TimefoldSet:
    """One data set, names resolved: grains (sorted by index), rooms, meetings, person ids and
    the number of attendances (``attendanceList``)."""

    name: str
    grains: tuple[TfGrain, ...]
    rooms: tuple[TfRoom, ...]
    meetings: tuple[TfMeeting, ...]
    people: tuple[int, ...]
    attendances: int


def _index(node: Any, table: dict[str, dict[str, Any]]) -> None:
    if isinstance(node, dict):
        ref = node.get("@id")
        if isinstance(ref, str):
            table[ref] = node
        for value in node.values():
            _index(value, table)
    elif isinstance(node, list):
        for value in node:
            _index(value, table)


def _resolve(value: Any, table: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if isinstance(value, str):
        return table[value]
    if isinstance(value, dict):
        return value
    raise ValueError(f"expected an object or an @id reference, got {value!r}")


def _person_id(value: Any, table: dict[str, dict[str, Any]]) -> int:
    return int(_resolve(value, table)["id"])


def read_set(path: Path) -> TimefoldSet:
    """Read one Timefold meeting-scheduling JSON file (``@id`` references resolved).

    Raises ``KeyError``/``ValueError`` for a file that is not in that shape.
    """
    raw = json.loads(path.read_text(encoding="utf-8"))
    table: dict[str, dict[str, Any]] = {}
    _index(raw, table)
    grains = tuple(
        sorted(
            (
                TfGrain(
                    int(g["grainIndex"]),
                    int(_resolve(g["day"], table)["dayOfYear"]),
                    int(g["startingMinuteOfDay"]),
                )
                for g in (_resolve(item, table) for item in raw["timeGrainList"])
            ),
            key=lambda g: g.index,
        )
    )
    rooms = tuple(
        TfRoom(int(r["id"]), int(r["capacity"]))
        for r in (_resolve(item, table) for item in raw["roomList"])
    )
    meetings = tuple(
        TfMeeting(
            int(m["id"]),
            int(m["durationInGrains"]),
            tuple(_person_id(a["person"], table) for a in m["requiredAttendanceList"]),
            tuple(_person_id(a["person"], table) for a in m["preferredAttendanceList"]),
        )
        for m in (_resolve(item, table) for item in raw["meetingList"])
    )
    people = tuple(int(_resolve(p, table)["id"]) for p in raw["personList"])
    return TimefoldSet(path.stem, grains, rooms, meetings, people, len(raw["attendanceList"]))


def meeting_key(meeting_id: int) -> str:
    """cerebri's id of Timefold meeting ``meeting_id`` (zero-padded, so id order = number
    order)."""
    return f"meeting-{meeting_id:04d}"


def room_key(room_id: int) -> str:
    """cerebri's id of Timefold room ``room_id``."""
    return f"room-{room_id}"


def _person_key(person_id: int) -> str:
    return f"person-{person_id:04d}"


def timefold_weights() -> Weights:
    """The soft weights of Timefold's ``MeetingSchedulingConstraintProvider`` in cerebri's
    terms (decision 0071)."""
    return Weights(
        early=1,
        preference=0,
        back_to_back=0,
        back_to_back_any=100,
        overlap_any=10,
        move=0,
        room_stability=1,
        larger_rooms_first=1,
    )


def to_batch_problem(data: TimefoldSet, budget: SolverBudget | None = None) -> BatchProblem:
    """The set as a cerebri :class:`~cerebri.optimize.BatchProblem` with Timefold's weights.

    ``budget`` defaults to ``SolverBudget()``. Grain starts: ``REFERENCE_YEAR_START +
    (dayOfYear - 1) days + startingMinuteOfDay minutes`` (UTC seconds); the day key is
    ``"day-<dayOfYear>"``.
    """
    grains = tuple(
        Grain(
            g.index,
            REFERENCE_YEAR_START + (g.day - 1) * 86_400 + g.minute * 60,
            f"day-{g.day:03d}",
        )
        for g in data.grains
    )
    meetings = tuple(
        Meeting(
            id=meeting_key(m.id),
            duration=m.duration,
            required=tuple(_person_key(p) for p in m.required),
            optional=tuple(_person_key(p) for p in m.preferred),
            needs_room=True,
            capacity_needed=m.required_capacity,
        )
        for m in data.meetings
    )
    return BatchProblem(
        grain_seconds=GRAIN_SECONDS,
        grains=grains,
        meetings=meetings,
        people=tuple(Person(_person_key(p)) for p in sorted(data.people)),
        rooms=tuple(Room(room_key(r.id), r.capacity) for r in data.rooms),
        weights=timefold_weights(),
        budget=budget if budget is not None else SolverBudget(),
    )
