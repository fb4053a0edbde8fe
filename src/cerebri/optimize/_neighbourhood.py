"""One neighbourhood of a placement as an exact sub-batch (decision 0078).

A neighbourhood is a set of *free* meetings and the days they may take. Its sub-batch holds
the free meetings (starts cut to those days, to the window, to their required attendees'
hours and busy grains, and by every placed meeting outside it: ``after`` both ways and
``not_same_day_as``) and, pinned to their place and room, every other placed meeting a free
one could interact with: all placed meetings on those days (overlaps, people, rooms, back
to back, travel) and those within two grain indices of the free meetings' reach (room
stability counts grain indices across a day boundary). Meetings further away share no term
with a free one, so the exact model of the sub-batch (:func:`._solve.search`) sees every
rule and every cost a move of the free meetings can change, and a sub-batch score that went
down is the whole batch's score going down by as much.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping

from cerebri.optimize._prepare import Prepared, prepare
from cerebri.optimize.model import Meeting, Weights

__all__ = ["Neighbourhood", "sub_batch"]

#: room stability's reach in grain indices (``near``: at most two grains apart)
_REACH = 2
_NO_SOFT = Weights(**{name: 0 for name in Weights.__dataclass_fields__})


@dataclasses.dataclass(frozen=True, slots=True)
class Neighbourhood:
    """The sub-batch (``prep``), the current placement of its meetings (``current``: the
    hint and the score to beat; a free meeting that was unplaced is missing) and the free
    meeting ids."""

    prep: Prepared
    current: dict[str, tuple[int, str | None]]
    free: tuple[str, ...]


def _cut(
    prep: Prepared,
    meeting: Meeting,
    starts: set[int],
    placement: Mapping[str, tuple[int, str | None]],
    free: Collection[str],
) -> set[int]:
    """``starts`` cut by the placed meetings outside ``free`` that ``meeting`` follows, that
    follow it, or must not share its day."""
    for after in meeting.after:
        other = after.meeting_id
        if other not in free and other in placement:
            end = placement[other][0] + prep.meetings[prep.position[other]].duration
            starts = {s for s in starts if s >= end + after.gap}
    for other in meeting.not_same_day_as:
        if other not in free and other in placement:
            starts = {s for s in starts if prep.day[s] != prep.day[placement[other][0]]}
    return starts


def sub_batch(
    prep: Prepared,
    placement: Mapping[str, tuple[int, str | None]],
    free: Collection[str],
    days: Collection[int],
    *,
    starts: Mapping[str, tuple[int, ...]],
    links: Mapping[str, list[tuple[str, int, bool]]],
    limit: float,
    medium_only: bool = False,
) -> Neighbourhood | None:
    """The sub-batch of ``free`` on ``days`` (see the module docstring) with ``limit``
    deterministic time as its budget, or ``None`` when a free meeting has no start left.
    ``starts``: per meeting id, the starts :func:`._construct.starts_of` allows. ``links``:
    per meeting id, the meetings that name it (id, ``after`` gap, ``True`` for ``after``,
    ``False`` for ``not_same_day_as``). ``medium_only``: every soft weight 0 (the sub-batch's
    objective is the optional attendance lost alone)."""
    free_set = set(free)
    meetings: list[Meeting] = []
    spans: dict[int, list[int]] = {}
    for g, d in enumerate(prep.day):
        if d in days:
            spans.setdefault(d, [g, g])[1] = g + 1
    for meeting_id in sorted(free_set):
        meeting = prep.meetings[prep.position[meeting_id]]
        allowed = {s for s in starts[meeting_id] if prep.day[s] in days}
        allowed = _cut(prep, meeting, allowed, placement, free_set)
        for other, gap, is_after in links.get(meeting_id, ()):
            if other in free_set or other not in placement:
                continue
            s_o = placement[other][0]
            if is_after:
                allowed = {s for s in allowed if s + meeting.duration + gap <= s_o}
            else:
                allowed = {s for s in allowed if prep.day[s] != prep.day[s_o]}
        if not allowed:
            return None
        meetings.append(
            dataclasses.replace(
                meeting,
                allowed_starts=frozenset(allowed),
                after=tuple(a for a in meeting.after if a.meeting_id in free_set),
                not_same_day_as=tuple(o for o in meeting.not_same_day_as if o in free_set),
            )
        )
    current: dict[str, tuple[int, str | None]] = {
        m: placement[m] for m in sorted(free_set) if m in placement
    }
    for meeting_id, (start, room) in sorted(placement.items()):
        if meeting_id in free_set:
            continue
        meeting = prep.meetings[prep.position[meeting_id]]
        end = start + meeting.duration
        if prep.day[start] not in days and not any(
            start - high <= _REACH and low - end <= _REACH for low, high in spans.values()
        ):
            continue
        current[meeting_id] = (start, room)
        meetings.append(
            dataclasses.replace(
                meeting,
                allowed_starts=frozenset((start,)),
                room_ids=(room,) if room is not None else meeting.room_ids,
                after=(),
                not_same_day_as=(),
            )
        )
    budget = dataclasses.replace(prep.problem.budget, deterministic_time=max(limit, 0.01))
    problem = dataclasses.replace(prep.problem, meetings=tuple(meetings), budget=budget)
    if medium_only:
        problem = dataclasses.replace(problem, weights=_NO_SOFT)
    return Neighbourhood(prepare(problem), current, tuple(sorted(free_set)))
