"""The score of a placement, recomputed in plain Python from the rules' definitions.

This is the optimiser's explanation (every cost a named :class:`Term`) and its bug guard: it
never looks at the CP-SAT model, so when its total differs from the solver's objective one of
the two is wrong (decision 0069). Definitions, with ``s`` a start grain index, ``d`` a
duration, ``e = s + d`` the first grain after a meeting:

* ``overlap(a, b) = max(0, min(e_a, e_b) - max(s_a, s_b))`` grains;
* ``adjacent(a, b)``: one starts at the other's ``e`` and that grain continues the one before
  it in time (a day boundary or a closed hour between them is a break);
* ``near(a, b)``: ``s_b - e_a <= 2`` and ``s_a - e_b <= 2`` (at most two free grains from the
  end of the first to start to the start of the second).
"""

from __future__ import annotations

from collections.abc import Mapping

from cerebri.optimize._prepare import Prepared, occupied
from cerebri.optimize.model import Meeting
from cerebri.optimize.solution import Score, Term

__all__ = ["OPTIONAL_CONFLICT", "Placement", "moved", "score_placement"]

OPTIONAL_CONFLICT = "optional_conflict"
#: meeting id -> (start grain index, room id or None)
Placement = Mapping[str, tuple[int, str | None]]


def moved(meeting: Meeting, start: int, room: str | None) -> bool:
    """Whether an existing meeting left its place: another start, or (when it takes a room
    and has a current one) another room. A new meeting never counts as moved."""
    if meeting.current_start is None:
        return False
    if start != meeting.current_start:
        return True
    return meeting.needs_room and meeting.current_room is not None and room != meeting.current_room


def _overlap(s_a: int, d_a: int, s_b: int, d_b: int) -> int:
    return max(0, min(s_a + d_a, s_b + d_b) - max(s_a, s_b))


def _adjacent(prep: Prepared, s_a: int, d_a: int, s_b: int, d_b: int) -> bool:
    return (s_b == s_a + d_a and s_b in prep.continues) or (
        s_a == s_b + d_b and s_a in prep.continues
    )


def _near(s_a: int, d_a: int, s_b: int, d_b: int) -> bool:
    return s_b - (s_a + d_a) <= 2 and s_a - (s_b + d_b) <= 2


class _Terms:
    def __init__(self) -> None:
        self.items: list[Term] = []
        self.medium = 0
        self.soft = 0

    def add(
        self,
        name: str,
        weight: int,
        meeting: str,
        amount: int,
        *,
        other: str | None = None,
        person: str | None = None,
    ) -> None:
        cost = weight * amount
        if cost == 0:
            return
        self.items.append(Term(name, meeting, other, amount, cost, person))
        if name == OPTIONAL_CONFLICT:
            self.medium += cost
        else:
            self.soft += cost


def _unary(prep: Prepared, placement: Placement, terms: _Terms) -> None:
    w = prep.problem.weights
    for meeting in prep.meetings:
        start, room = placement[meeting.id]
        if meeting.current_start is None:
            terms.add("early", w.early, meeting.id, start + meeting.duration - 1)
        if meeting.preferred_start is not None:
            terms.add("preference", w.preference, meeting.id, abs(start - meeting.preferred_start))
        if moved(meeting, start, room):
            terms.add("move", w.move, meeting.id, meeting.move_cost)
        if room is not None and w.larger_rooms_first:
            capacity = prep.rooms[room].capacity
            for other in prep.room_ids:
                larger = prep.rooms[other].capacity - capacity
                if larger > 0:
                    terms.add(
                        "larger_rooms_first", w.larger_rooms_first, meeting.id, larger, other=other
                    )
        busy_grains = set(occupied(start, meeting.duration))
        for person in sorted(meeting.optional):
            busy = len(busy_grains & prep.away[person])
            terms.add(OPTIONAL_CONFLICT, 1, meeting.id, busy, person=person)


def _pairs(prep: Prepared, placement: Placement, terms: _Terms) -> None:
    w = prep.problem.weights
    meetings = prep.meetings
    for i, a in enumerate(meetings):
        s_a, room_a = placement[a.id]
        for j in range(i + 1, len(meetings)):
            b = meetings[j]
            s_b, room_b = placement[b.id]
            shared = prep.attendees[i] & prep.attendees[j]
            overlap = _overlap(s_a, a.duration, s_b, b.duration)
            if _adjacent(prep, s_a, a.duration, s_b, b.duration):
                terms.add("back_to_back_any", w.back_to_back_any, a.id, 1, other=b.id)
                if shared:
                    terms.add("back_to_back", w.back_to_back, a.id, 1, other=b.id)
            terms.add("overlap_any", w.overlap_any, a.id, overlap, other=b.id)
            for person in sorted(shared):
                if person in a.optional or person in b.optional:
                    terms.add(OPTIONAL_CONFLICT, 1, a.id, overlap, other=b.id, person=person)
            if (
                room_a is not None
                and room_b is not None
                and room_a != room_b
                and _near(s_a, a.duration, s_b, b.duration)
            ):
                for person in sorted(shared):
                    terms.add(
                        "room_stability", w.room_stability, a.id, 1, other=b.id, person=person
                    )


def score_placement(prep: Prepared, placement: Placement) -> tuple[Score, tuple[Term, ...]]:
    """The ``(hard, medium, soft)`` score of ``placement`` and its named terms, sorted.

    ``placement`` maps every meeting id to ``(start, room)``; hard rules are not checked here
    (``hard`` is 0: the solver only returns placements that meet them)."""
    terms = _Terms()
    _unary(prep, placement, terms)
    _pairs(prep, placement, terms)
    ordered = sorted(
        terms.items, key=lambda t: (t.name, t.meeting_id, t.other or "", t.person or "")
    )
    return Score(hard=0, medium=terms.medium, soft=terms.soft), tuple(ordered)
