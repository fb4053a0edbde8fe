"""A greedy first placement, given to CP-SAT as a solution hint (decision 0069).

Existing meetings first (at their current place when their domain allows), then the others
in id order: each takes the earliest start, and the first room in id order, that no earlier
placed meeting of a required attendee or of that room overlaps, preferring a start that
costs its optional attendees the fewest grains (overlaps with earlier placed meetings they
attend and with their busy grains). ``after``, travel and
``not_same_day`` are not looked at: a hint need not be feasible, CP-SAT repairs or drops it.
It only helps the search to a first solution; it changes nothing proven.
"""

from __future__ import annotations

from collections import defaultdict

from cerebri.optimize._cp_model import Built
from cerebri.optimize._prepare import Prepared, occupied

__all__ = ["add_hint"]


def _room_open(prep: Prepared, room_id: str, grains: set[int]) -> bool:
    room = prep.rooms[room_id]
    if room.open_grains is not None and not grains <= room.open_grains:
        return False
    return not grains & room.busy_grains


def add_hint(prep: Prepared, built: Built) -> None:
    """Hint every meeting of ``built`` that the greedy pass can place."""
    taken_by_person: dict[str, set[int]] = defaultdict(set)
    taken_by_room: dict[str, set[int]] = defaultdict(set)
    order = sorted(range(len(prep.meetings)), key=lambda i: (not prep.existing(i), i))
    for i in order:
        meeting = prep.meetings[i]
        starts = list(built.domains[i])
        if meeting.current_start in built.domains[i]:
            starts.insert(0, starts.pop(starts.index(meeting.current_start)))
        rooms = list(built.room[i])
        if meeting.current_room in built.room[i]:
            rooms.insert(0, rooms.pop(rooms.index(meeting.current_room)))
        best: tuple[int, int, str | None] | None = None  # (lost optional grains, start, room)
        for start in starts:
            grains = set(occupied(start, meeting.duration))
            if any(grains & taken_by_person[p] for p in meeting.required):
                continue
            room = next(
                (r for r in rooms if not grains & taken_by_room[r] and _room_open(prep, r, grains)),
                None,
            )
            if rooms and room is None:
                continue
            lost = sum(len(grains & (taken_by_person[p] | prep.away[p])) for p in meeting.optional)
            if best is None or lost < best[0]:
                best = (lost, start, room)
            if lost == 0:
                break
        if best is None:
            continue
        _, start, room = best
        built.model.add_hint(built.start[i], start)
        for room_id, literal in built.room[i].items():
            built.model.add_hint(literal, room_id == room)
        grains = set(occupied(start, meeting.duration))
        for person in (*meeting.required, *meeting.optional):
            taken_by_person[person] |= grains
        if room is not None:
            taken_by_room[room] |= grains
