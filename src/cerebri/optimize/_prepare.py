"""Checking a :class:`BatchProblem` and the plain facts every later step reads (decision 0069).

:func:`prepare` raises :class:`OptimizeError` for a problem the optimiser cannot take and
returns a :class:`Prepared`: meetings, people and rooms in sorted id order (so the request's
list order never reaches the solver), each grain's day number, which grains continue the
previous one in time, and per meeting the starts that fit (its ``duration`` consecutive
grains lie in one day and follow each other in time).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cerebri.optimize._errors import OptimizeError
from cerebri.optimize.model import BatchProblem, Meeting, Person, Room

__all__ = ["Prepared", "prepare"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """The checked problem in sorted order, with derived per-grain and per-meeting facts.

    ``day``: day number per grain (0-based, in order of first appearance). ``continues``:
    grain indices ``g`` whose start is exactly one grain after grain ``g - 1``'s start (time
    runs on without a gap). ``fits``: per meeting, sorted starts whose grains stay in one day
    and continue each other. ``attendees``: per meeting, required + optional person ids.
    ``candidate_rooms``: per meeting, the rooms it may take (``room_ids`` or all), sorted.
    ``need``: per meeting, the capacity needed. ``travel``: grains between two locations,
    both orders (a pair listed twice keeps the longer time). ``away``: per person, the
    grains they cannot attend: busy, or outside their ``open_grains`` (an optional
    attendee's lost grains).
    """

    problem: BatchProblem
    meetings: tuple[Meeting, ...]
    position: dict[str, int]
    people: dict[str, Person]
    rooms: dict[str, Room]
    room_ids: tuple[str, ...]
    n_grains: int
    day: tuple[int, ...]
    continues: frozenset[int]
    fits: tuple[tuple[int, ...], ...]
    attendees: tuple[frozenset[str], ...]
    candidate_rooms: tuple[tuple[str, ...], ...]
    need: tuple[int, ...]
    travel: dict[tuple[str, str], int]
    away: dict[str, frozenset[int]]

    def travel_grains(self, i: int, j: int) -> int:
        """Travel grains between meetings ``i`` and ``j``'s locations (0 if either has none
        or the pair is not listed)."""
        a, b = self.meetings[i].location, self.meetings[j].location
        if a is None or b is None or a == b:
            return 0
        return self.travel.get((a, b), 0)

    def existing(self, i: int) -> bool:
        """Whether meeting ``i`` is an existing one (it has a current start)."""
        return self.meetings[i].current_start is not None


def _fail(message: str, code: str, path: str) -> OptimizeError:
    return OptimizeError(message, code=code, path=path)


def _unique(ids: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for item in ids:
        if item in seen:
            raise _fail(
                f"two {what} have the id {item!r}", "optimize.duplicate_id", f"/{what}/{item}"
            )
        seen.add(item)


def _non_negative(value: int, path: str) -> None:
    if value < 0:
        raise _fail(f"{path} is negative ({value})", "optimize.invalid_problem", path)


def _grain_set(indices: Iterable[int], n: int, path: str) -> None:
    for g in indices:
        if not 0 <= g < n:
            raise _fail(f"grain index {g} is outside 0..{n - 1}", "optimize.invalid_problem", path)


def _check_grid(problem: BatchProblem) -> None:
    if problem.grain_seconds < 1:
        raise _fail(
            "grain_seconds must be at least 1", "optimize.invalid_problem", "/grain_seconds"
        )
    previous: int | None = None
    for position, grain in enumerate(problem.grains):
        if grain.index != position:
            raise _fail(
                f"grain {position} has index {grain.index}", "optimize.invalid_problem", "/grains"
            )
        if previous is not None and grain.start < previous + problem.grain_seconds:
            raise _fail(
                f"grain {position} starts before the previous one ends",
                "optimize.invalid_problem",
                "/grains",
            )
        previous = grain.start


def _check_resources(problem: BatchProblem, n: int) -> None:
    _unique((p.id for p in problem.people), "people")
    _unique((r.id for r in problem.rooms), "rooms")
    for person in problem.people:
        _grain_set(person.open_grains or (), n, f"/people/{person.id}/open_grains")
        _grain_set(person.busy_grains, n, f"/people/{person.id}/busy_grains")
    for room in problem.rooms:
        _non_negative(room.capacity, f"/rooms/{room.id}/capacity")
        _grain_set(room.open_grains or (), n, f"/rooms/{room.id}/open_grains")
        _grain_set(room.busy_grains, n, f"/rooms/{room.id}/busy_grains")
    for travel in problem.travel:
        _non_negative(travel.grains, f"/travel/{travel.a}/{travel.b}")
    for name in type(problem.weights).__dataclass_fields__:
        _non_negative(getattr(problem.weights, name), f"/weights/{name}")
    budget = problem.budget
    if not budget.deterministic_time > 0:
        raise _fail(
            "deterministic_time must be positive",
            "optimize.invalid_problem",
            "/budget/deterministic_time",
        )
    if budget.workers < 1:
        raise _fail("workers must be at least 1", "optimize.invalid_problem", "/budget/workers")
    _non_negative(budget.seed, "/budget/seed")
    _non_negative(budget.max_repairs, "/budget/max_repairs")
    _non_negative(budget.max_depth, "/budget/max_depth")


def _check_meeting(
    meeting: Meeting, n: int, people: set[str], rooms: set[str], meetings: set[str]
) -> None:
    at = f"/meetings/{meeting.id}"
    if meeting.duration < 1:
        raise _fail(
            "duration must be at least 1 grain", "optimize.invalid_problem", f"{at}/duration"
        )
    for person in (*meeting.required, *meeting.optional):
        if person not in people:
            raise _fail(f"unknown person {person!r}", "optimize.unknown_id", f"{at}/attendees")
    both = set(meeting.required) & set(meeting.optional)
    if both or len(set(meeting.required)) != len(meeting.required):
        raise _fail("a person is named twice", "optimize.invalid_problem", f"{at}/attendees")
    if len(set(meeting.optional)) != len(meeting.optional):
        raise _fail("a person is named twice", "optimize.invalid_problem", f"{at}/attendees")
    for room in (*(meeting.room_ids or ()), *filter(None, [meeting.current_room])):
        if room not in rooms:
            raise _fail(f"unknown room {room!r}", "optimize.unknown_id", f"{at}/rooms")
    for other in (*(a.meeting_id for a in meeting.after), *meeting.not_same_day_as):
        if other not in meetings:
            raise _fail(f"unknown meeting {other!r}", "optimize.unknown_id", f"{at}/after")
    for after in meeting.after:
        _non_negative(after.gap, f"{at}/after/{after.meeting_id}/gap")
    if meeting.capacity_needed is not None:
        _non_negative(meeting.capacity_needed, f"{at}/capacity_needed")
    _non_negative(meeting.move_cost, f"{at}/move_cost")
    _grain_set(meeting.allowed_starts or (), n, f"{at}/allowed_starts")
    for name in ("preferred_start", "current_start"):
        value = getattr(meeting, name)
        _grain_set(() if value is None else (value,), n, f"{at}/{name}")


def prepare(problem: BatchProblem) -> Prepared:
    """Check ``problem`` and derive the facts the model, the scorer and the conflict search
    share. Raises :class:`OptimizeError` (``optimize.duplicate_id``, ``optimize.unknown_id``,
    ``optimize.invalid_problem``)."""
    n = len(problem.grains)
    _check_grid(problem)
    _check_resources(problem, n)
    _unique((m.id for m in problem.meetings), "meetings")
    people = {p.id: p for p in problem.people}
    rooms = {r.id: r for r in problem.rooms}
    ids = {m.id for m in problem.meetings}
    for meeting in problem.meetings:
        _check_meeting(meeting, n, set(people), set(rooms), ids)
    meetings = tuple(sorted(problem.meetings, key=lambda m: m.id))
    day_numbers: dict[str, int] = {}
    day = tuple(day_numbers.setdefault(g.day, len(day_numbers)) for g in problem.grains)
    continues = frozenset(
        g
        for g in range(1, n)
        if day[g] == day[g - 1]
        and problem.grains[g].start == problem.grains[g - 1].start + problem.grain_seconds
    )
    # run[g]: how many grains from g on continue each other within one day.
    run = [0] * (n + 1)
    for g in range(n - 1, -1, -1):
        run[g] = 1 + (run[g + 1] if g + 1 in continues else 0)
    all_rooms = tuple(sorted(rooms))
    travel: dict[tuple[str, str], int] = {}
    for t in problem.travel:  # a pair listed twice keeps its longer time (order-free)
        grains = max(t.grains, travel.get((t.a, t.b), 0))
        travel[(t.a, t.b)] = travel[(t.b, t.a)] = grains
    return Prepared(
        problem=problem,
        meetings=meetings,
        position={m.id: i for i, m in enumerate(meetings)},
        people=people,
        rooms=rooms,
        room_ids=all_rooms,
        n_grains=n,
        day=day,
        continues=continues,
        fits=tuple(tuple(g for g in range(n) if run[g] >= m.duration) for m in meetings),
        attendees=tuple(frozenset((*m.required, *m.optional)) for m in meetings),
        candidate_rooms=tuple(
            (tuple(sorted(set(m.room_ids))) if m.room_ids is not None else all_rooms)
            if m.needs_room
            else ()
            for m in meetings
        ),
        need=tuple(
            m.capacity_needed
            if m.capacity_needed is not None
            else len(m.required) + len(m.optional)
            for m in meetings
        ),
        travel=travel,
        away={
            p.id: p.busy_grains
            if p.open_grains is None
            else p.busy_grains | frozenset(range(n)) - p.open_grains
            for p in people.values()
        },
    )


def occupied(start: int, duration: int) -> range:
    """The grain indices a meeting starting at ``start`` takes."""
    return range(start, start + duration)


def open_starts(
    fits: Iterable[int], duration: int, open_grains: frozenset[int] | None
) -> frozenset[int]:
    """Starts whose grains all lie in ``open_grains`` (all of ``fits`` when ``None``)."""
    if open_grains is None:
        return frozenset(fits)
    return frozenset(s for s in fits if all(g in open_grains for g in occupied(s, duration)))


def free_starts(fits: Iterable[int], duration: int, busy: frozenset[int]) -> frozenset[int]:
    """Starts whose grains touch none of ``busy``."""
    return frozenset(s for s in fits if not any(g in busy for g in occupied(s, duration)))
