"""One line per rule of an infeasible batch's conflicting set, for ``cerebri optimize``
(decisions 0077, 0084).

The wire form (``batch.conflict``, decision 0070) is ``{"kind", "ids"}`` with the ids
sorted as text (``after``: the meeting, then the one it follows), so a meeting and a person
come in whatever order their names sort. :func:`conflict_text` reads the request to tell
them apart and always writes ``KIND: MEETING[, MEETING][; person P | people P, Q | room
R]``, then, for the rules that name no meeting or only one, what they mean:

* ``after: B, A (B starts after A ends)``;
* ``day: M (lasts D, longer than the whole horizon: scope.time_range is H)`` or
  ``day: M (lasts D; the longest day of the horizon in ZONE has H: a meeting never runs
  over midnight)``;
* ``rooms: M (needs a room; no room is both allowed and large enough)``;
* ``max_repairs: at most N existing meetings may move (budget.max_repairs R,
  budget.max_moved_objects O[, max_mutations C less T new]); existing meetings in this
  conflict: A, B``;
* ``max_depth: a chain of moves may hold at most N moved meetings (budget.max_depth N)``.

The wire order is not changed. A rule whose ids cannot be split this way (an id that is
both a meeting and a person, an unknown kind) is written as on the wire: ``KIND: ID, ID``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from cerebri.cpir import PlanningRequest, RequiredFieldError, require
from cerebri.temporal.zones import zone

__all__ = ["conflict_text"]

_ONE_MEETING = frozenset({"window", "hours", "busy", "capacity", "day", "rooms"})
_TWO_MEETINGS = frozenset({"attendee_overlap", "room_overlap", "after", "not_same_day", "travel"})
NS = 1_000_000_000


@dataclass(frozen=True, slots=True)
class _Names:
    meetings: frozenset[str]
    existing: frozenset[str]
    people: frozenset[str]
    rooms: frozenset[str]

    @classmethod
    def of(cls, request: PlanningRequest) -> _Names:
        batch = request.batch
        if batch is None:
            return cls(frozenset(), frozenset(), frozenset(), frozenset())
        meetings = frozenset(m.object_id for m in batch.meetings)
        return cls(
            meetings,
            meetings - set(request.target_ids),
            frozenset(p.id for p in batch.people),
            frozenset(r.id for r in batch.rooms),
        )


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _length(seconds: int) -> str:
    """``26 h``, ``1 h 30 min``, ``45 min``, ``90 s``."""
    if seconds % 60:
        return f"{seconds} s"
    hours, minutes = divmod(seconds // 60, 60)
    if not hours:
        return f"{minutes} min"
    return f"{hours} h" if not minutes else f"{hours} h {minutes} min"


def _who(ids: Sequence[str], names: _Names) -> str:
    people = [i for i in ids if i in names.people]
    rooms = [i for i in ids if i in names.rooms and i not in names.people]
    other = [i for i in ids if i not in names.people and i not in names.rooms]
    parts = []
    if people:
        parts.append(("person " if len(people) == 1 else "people ") + ", ".join(people))
    if rooms:
        parts.append(("room " if len(rooms) == 1 else "rooms ") + ", ".join(rooms))
    parts.extend(other)
    return "; ".join(parts)


def _duration(request: PlanningRequest, meeting_id: str) -> int | None:
    batch = request.batch
    for meeting in () if batch is None else batch.meetings:
        if meeting.object_id == meeting_id and meeting.duration is not None:
            return int(meeting.duration)
    required = require(request.duration, allow_uncertain=True)
    return None if isinstance(required, RequiredFieldError) else int(required[0])


def _zone_name(request: PlanningRequest) -> str:
    objects = {obj.id: obj for obj in request.context.objects}
    for target in sorted(set(request.target_ids)):
        if target in objects:
            return str(objects[target].timezone)
    return "UTC"


def _day_text(request: PlanningRequest, meeting_id: str) -> str:
    """Why ``day`` holds: the meeting's length against the horizon and its longest day."""
    length = _duration(request, meeting_id)
    horizon = request.scope.time_range
    span = (horizon.end.ns - horizon.start.ns) // NS
    if length is None:
        return "longer than every day of the horizon"
    if length > span:
        return (
            f"lasts {_length(length)}, longer than the whole horizon: scope.time_range "
            f"is {_length(span)}"
        )
    step = request.granularity
    tz = zone(_zone_name(request))
    per_day: dict[str, int] = {}
    start = horizon.start.ns // NS
    for index in range(span // step):
        day = datetime.fromtimestamp(start + index * step, UTC).astimezone(tz).date()
        per_day[day.isoformat()] = per_day.get(day.isoformat(), 0) + step
    longest = max(per_day.values(), default=0)
    return (
        f"lasts {_length(length)}; the longest day of the horizon in {tz.key} has "
        f"{_length(longest)}: a meeting never runs over midnight"
    )


def _repairs_text(request: PlanningRequest, names: _Names, named: set[str]) -> str:
    budget = request.budget
    limit = min(budget.max_repairs, budget.max_moved_objects)
    fields = (
        f"budget.max_repairs {budget.max_repairs}, "
        f"budget.max_moved_objects {budget.max_moved_objects}"
    )
    if not request.analysis_only:
        caps = min(request.scope.max_mutations, request.policy.snapshot.mutation.max_mutations)
        new = len(set(request.target_ids))
        if caps - new < limit:
            limit = max(0, caps - new)
            fields += f", max_mutations {caps} less {new} new"
    text = f"at most {_plural(limit, 'existing meeting', 'existing meetings')} may move ({fields})"
    involved = sorted(named & names.existing)
    if involved:
        text += f"; existing meetings in this conflict: {', '.join(involved)}"
    return text


def conflict_text(
    request: PlanningRequest,
    kind: str,
    ids: Sequence[str],
    rules: Sequence[tuple[str, Sequence[str]]],
) -> str:
    """The line (without indent) of the rule ``kind``/``ids`` of the conflicting set
    ``rules`` (every ``(kind, ids)`` of ``batch.conflict``) of an answer to ``request``;
    the module docstring gives the layout."""
    names = _Names.of(request)
    if kind == "max_repairs":
        named = {i for _, other in rules for i in other}
        return f"max_repairs: {_repairs_text(request, names, named)}"
    if kind == "max_depth":
        depth = request.budget.max_depth
        return (
            f"max_depth: a chain of moves may hold at most "
            f"{_plural(depth, 'moved meeting', 'moved meetings')} (budget.max_depth {depth})"
        )
    expected = 1 if kind in _ONE_MEETING else 2 if kind in _TWO_MEETINGS else 0
    meetings = [i for i in ids if i in names.meetings]
    others = [i for i in ids if i not in names.meetings]
    if not expected or len(meetings) != expected:
        return f"{kind}: {', '.join(ids)}"
    line = f"{kind}: {', '.join(meetings)}"
    who = _who(others, names)
    if who:
        line += f"; {who}"
    if kind == "after":
        line += f" ({meetings[0]} starts after {meetings[1]} ends)"
    elif kind == "day":
        line += f" ({_day_text(request, meetings[0])})"
    elif kind == "rooms":
        line += " (needs a room; no room is both allowed and large enough)"
    return line
