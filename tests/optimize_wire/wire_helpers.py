"""OPTIMIZE requests for the wire tests, and a brute-force stand-in for the CP-SAT solver.

The stand-in (:func:`brute_force`) exists because the CP-SAT solver lands on another branch
(decision 0069); it honours the hard rules of ``cerebri.optimize.model`` that these small
problems use and the ``early`` and ``move`` terms only, and refuses any other non-zero
weight, so a test cannot silently depend on a term it does not compute.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from cerebri.optimize import (
    Assignment,
    BatchProblem,
    BatchSolution,
    Meeting,
    Score,
    SolverStats,
    SolveStatus,
    Term,
)
from tests.planner.helpers import example, known_time

MONDAY = "2026-10-05T"  # Berlin CEST = UTC+2, London BST = UTC+1

ONLY_EARLY = {
    "early": 1,
    "preference": 0,
    "back_to_back": 0,
    "back_to_back_any": 0,
    "overlap_any": 0,
    "move": 10,
    "room_stability": 0,
    "larger_rooms_first": 0,
}


def prospective(object_id: str, calendar: str = "ann-cal") -> dict[str, Any]:
    """A new EVENT (time RESOLVED/MISSING) in Europe/Berlin."""
    obj = copy.deepcopy(example()["context"]["objects"][0])
    obj["id"] = object_id
    obj["calendar_id"] = calendar
    return obj


def existing(
    object_id: str, start: str, end: str, *, calendar: str, resources: list[str] | None = None
) -> dict[str, Any]:
    """An existing EVENT with a KNOWN time on ``calendar``."""
    return {
        "id": object_id,
        "revision": 2,
        "kind": {"kind": "EVENT"},
        "calendar_id": calendar,
        "integration_id": "local-ics",
        "resource_ids": resources or [],
        "time": known_time(start, end),
        "timezone": "Europe/Berlin",
        "semantics": None,
    }


def meeting(object_id: str, required: list[str], **extra: Any) -> dict[str, Any]:
    """A ``batch.meetings`` entry."""
    return {"object_id": object_id, "required": required, **extra}


def grant(object_id: str, kind: str, calendar: str = "ann-cal") -> dict[str, Any]:
    """A capability grant for ``object_id``."""
    return {
        "object_id": object_id,
        "calendar_id": calendar,
        "integration_id": "local-ics",
        "kind": kind,
    }


def optimize_request(
    meetings: list[dict[str, Any]],
    *,
    objects: list[dict[str, Any]] | None = None,
    people: list[dict[str, Any]] | None = None,
    rooms: list[dict[str, Any]] | None = None,
    start: str = MONDAY + "06:00:00Z",
    end: str = MONDAY + "16:00:00Z",
    granularity: int = 3600,
) -> dict[str, Any]:
    """An OPTIMIZE request: the meetings whose objects are not given are new targets (on
    ann's calendar), each granted CREATE_EVENT; ``objects`` are added (existing ones are
    granted MOVE_EVENT). Default people: ann (Berlin, Mon 09-17) and bob (London, Mon
    09-12); one room r1 for 4. Duration 3600 s, weights :data:`ONLY_EARLY`."""
    request = example()
    request["operation"] = "OPTIMIZE"
    request["scope"]["time_range"] = {"start": start, "end": end}
    request["granularity"] = granularity
    request["duration"]["value"]["knowledge"]["data"] = 3600
    request["constraints"] = []
    request["preferences"] = {"preferences": []}
    given = {o["id"]: o for o in objects or []}
    targets = [m["object_id"] for m in meetings if m["object_id"] not in given]
    request["target_ids"] = targets
    request["context"]["objects"] = [prospective(t) for t in targets] + list(given.values())
    grants = [grant(t, "CREATE_EVENT") for t in targets]
    grants += [
        grant(o["id"], "MOVE_EVENT", o["calendar_id"])
        for o in given.values()
        if o["revision"] is not None and o["id"] in {m["object_id"] for m in meetings}
    ]
    request["planning_capability"]["mutations"] = grants
    request["policy"]["snapshot"]["mutation"] = {
        "max_mutations": 16,
        "allowed_actions": ["CREATE_EVENT", "MOVE_EVENT"],
    }
    request["scope"]["max_mutations"] = 16
    request["budget"] = {
        "max_candidates": 256,
        "max_repairs": 0,
        "max_moved_objects": 0,
        "max_depth": 0,
    }
    request["batch"] = {
        "meetings": meetings,
        "people": people
        if people is not None
        else [
            {
                "id": "ann",
                "calendar_id": "ann-cal",
                "timezone": "Europe/Berlin",
                "hours": [{"days": ["Mon"], "start": "09:00", "end": "17:00"}],
            },
            {
                "id": "bob",
                "calendar_id": "bob-cal",
                "timezone": "Europe/London",
                "hours": [{"days": ["Mon"], "start": "09:00", "end": "12:00"}],
            },
        ],
        "rooms": rooms
        if rooms is not None
        else [{"id": "r1", "calendar_id": "r1-cal", "capacity": 4}],
        "weights": dict(ONLY_EARLY),
    }
    return request


# --------------------------------------------------------------------------- stand-in solver


def _starts(problem: BatchProblem, m: Meeting) -> list[int]:
    """Starts whose grains are one day, open for every required person, not busy, allowed."""
    people = {p.id: p for p in problem.people}
    grains = problem.grains
    result = []
    for s in range(len(grains) - m.duration + 1):
        span = range(s, s + m.duration)
        if len({grains[g].day for g in span}) != 1:
            continue
        if m.allowed_starts is not None and s not in m.allowed_starts:
            continue
        ok = all(
            (people[p].open_grains is None or g in people[p].open_grains)
            and g not in people[p].busy_grains
            for p in m.required
            for g in span
        )
        if ok:
            result.append(s)
    return result


def _rooms(problem: BatchProblem, m: Meeting, start: int) -> list[str | None]:
    if not m.needs_room:
        return [None]
    need = m.capacity_needed if m.capacity_needed is not None else len(m.required + m.optional)
    span = set(range(start, start + m.duration))
    return [
        r.id
        for r in problem.rooms
        if (m.room_ids is None or r.id in m.room_ids)
        and r.capacity >= need
        and not span & r.busy_grains
    ]


def brute_force(problem: BatchProblem) -> BatchSolution:
    """Every combination of starts and rooms; the least ``early``+``move`` cost wins (ties:
    the first in meeting-id, start, room order; ``early`` charges new meetings only, those
    without ``current_start``). OPTIMAL or INFEASIBLE."""
    weights = problem.weights
    others = {
        name: getattr(weights, name) for name in weights.__slots__ if name not in {"early", "move"}
    }
    assert not any(others.values()), f"the stand-in computes early and move only: {others}"
    meetings = sorted(problem.meetings, key=lambda m: m.id)
    options = []
    for m in meetings:
        starts = _starts(problem, m)
        if problem.budget.max_repairs == 0 and m.current_start is not None:
            starts = [s for s in starts if s == m.current_start]
        options.append([(s, r) for s in starts for r in _rooms(problem, m, s)])
    best: tuple[int, tuple[tuple[int, str | None], ...]] | None = None
    by_id = {m.id: i for i, m in enumerate(meetings)}
    for combo in itertools.product(*options):
        if not _feasible(problem, meetings, by_id, combo):
            continue
        cost = sum(
            _early(weights.early, m, s) + (weights.move * m.move_cost if _moved(m, s, r) else 0)
            for m, (s, r) in zip(meetings, combo, strict=True)
        )
        if best is None or cost < best[0]:
            best = (cost, combo)
    stats = SolverStats(0.0, 0, 0)
    if best is None:
        return BatchSolution(SolveStatus.INFEASIBLE, (), None, (), None, (), stats)
    cost, combo = best
    assignments = tuple(
        Assignment(m.id, s, r, _moved(m, s, r)) for m, (s, r) in zip(meetings, combo, strict=True)
    )
    terms = []
    for m, (s, r) in zip(meetings, combo, strict=True):
        if _early(weights.early, m, s):
            terms.append(Term("early", m.id, None, s + m.duration - 1, _early(weights.early, m, s)))
        if _moved(m, s, r) and weights.move * m.move_cost:
            terms.append(Term("move", m.id, None, m.move_cost, weights.move * m.move_cost))
    terms.sort(key=lambda t: (t.name, t.meeting_id))
    return BatchSolution(
        SolveStatus.OPTIMAL, assignments, Score(0, 0, cost), tuple(terms), cost, (), stats
    )


def _early(weight: int, m: Meeting, start: int) -> int:
    """``early``'s cost of ``m`` at ``start``: its last grain for a new meeting, else 0."""
    return 0 if m.current_start is not None else weight * (start + m.duration - 1)


def _moved(m: Meeting, start: int, room: str | None) -> bool:
    if m.current_start is None:
        return False
    return start != m.current_start or (
        m.current_room is not None and room is not None and room != m.current_room
    )


def _feasible(
    problem: BatchProblem,
    meetings: list[Meeting],
    by_id: dict[str, int],
    combo: tuple[tuple[int, str | None], ...],
) -> bool:
    moved = sum(_moved(m, s, r) for m, (s, r) in zip(meetings, combo, strict=True))
    if moved > problem.budget.max_repairs:
        return False
    for i, m in enumerate(meetings):
        s, _ = combo[i]
        for after in m.after:
            other = meetings[by_id[after.meeting_id]]
            if s < combo[by_id[other.id]][0] + other.duration + after.gap:
                return False
        for other_id in m.not_same_day_as:
            o = by_id[other_id]
            if problem.grains[s].day == problem.grains[combo[o][0]].day:
                return False
    for i, j in itertools.combinations(range(len(meetings)), 2):
        (si, ri), (sj, rj) = combo[i], combo[j]
        a, b = meetings[i], meetings[j]
        overlap = si < sj + b.duration and sj < si + a.duration
        if overlap and (set(a.required) & set(b.required) or (ri is not None and ri == rj)):
            return False
    return True
