"""A relaxation by days that can prove a large batch infeasible (decisions 0069 and 0078).

One literal per meeting and day where it has a start (window, required attendees' hours and
busy grains, a room of enough capacity open and free there). Rules, each implied by the
batch's hard rules, so an infeasible relaxation proves the batch infeasible:

* each meeting on exactly one such day;
* per required person and day, their meetings' grains fit in their free grains of the day;
* per set of meetings that pairwise share a required person (one set grown greedily from
  each meeting, longest first, then id order), their grains fit in the day's grains;
* per room capacity level ``c`` and day, the meetings that can only use rooms of capacity
  at least ``c`` fit in those rooms' free grains;
* ``not_same_day_as`` on different days; ``after`` never on an earlier day.

It has no objective: :func:`proven_infeasible` asks CP-SAT whether any assignment exists.
"""

from __future__ import annotations

from collections import defaultdict

from ortools.sat.python import cp_model

from cerebri.optimize._conflict import Work, solver_for
from cerebri.optimize._construct import starts_of
from cerebri.optimize._prepare import Prepared, free_starts, open_starts

__all__ = ["proven_infeasible", "usable_days"]


def usable_days(prep: Prepared) -> list[set[int]]:
    """Per meeting, the days where it has a start and (when it needs one) a room."""
    out: list[set[int]] = []
    for i, meeting in enumerate(prep.meetings):
        domain = starts_of(prep, i)
        if meeting.needs_room:
            usable: set[int] = set()
            for room_id in prep.candidate_rooms[i]:
                room = prep.rooms[room_id]
                if room.capacity < prep.need[i]:
                    continue
                usable |= open_starts(domain, meeting.duration, room.open_grains) & free_starts(
                    domain, meeting.duration, room.busy_grains
                )
            domain = tuple(s for s in domain if s in usable)
        out.append({prep.day[s] for s in domain})
    return out


def _free(grains: list[int], open_grains: frozenset[int] | None, busy: frozenset[int]) -> int:
    return sum(1 for g in grains if (open_grains is None or g in open_grains) and g not in busy)


def _cliques(prep: Prepared) -> list[list[int]]:
    n = len(prep.meetings)
    required = [frozenset(m.required) for m in prep.meetings]
    order = sorted(range(n), key=lambda i: (-prep.meetings[i].duration, i))
    seen: set[tuple[int, ...]] = set()
    out: list[list[int]] = []
    for i in range(n):
        clique = [i]
        for j in order:
            if j != i and all(required[j] & required[k] for k in clique):
                clique.append(j)
        key = tuple(sorted(clique))
        if len(key) > 1 and key not in seen:
            seen.add(key)
            out.append(list(key))
    return out


class _Relaxation:
    def __init__(self, prep: Prepared, days: list[set[int]]) -> None:
        self.prep = prep
        self.model = cp_model.CpModel()
        self.x = [{d: self.model.new_bool_var("") for d in sorted(ds)} for ds in days]
        for literals in self.x:
            self.model.add_exactly_one(list(literals.values()))
        self.grains: dict[int, list[int]] = defaultdict(list)
        for g, d in enumerate(prep.day):
            self.grains[d].append(g)

    def cap(self, members: list[int], d: int, grains: int) -> None:
        parts = [(self.x[i][d], self.prep.meetings[i].duration) for i in members if d in self.x[i]]
        if sum(p[1] for p in parts) > grains:
            load = cp_model.LinearExpr.weighted_sum([p[0] for p in parts], [p[1] for p in parts])
            self.model.add(load <= grains)

    def rules(self) -> None:
        prep, grains = self.prep, self.grains
        required: dict[str, list[int]] = defaultdict(list)
        for i, meeting in enumerate(prep.meetings):
            for person in meeting.required:
                required[person].append(i)
        for person_id in sorted(required):
            attendee = prep.people[person_id]
            for d in sorted(grains):
                free = _free(grains[d], attendee.open_grains, attendee.busy_grains)
                self.cap(required[person_id], d, free)
        for level in sorted({room.capacity for room in prep.rooms.values()}):
            big = [r for r in prep.room_ids if prep.rooms[r].capacity >= level]
            members = [
                i
                for i, meeting in enumerate(prep.meetings)
                if meeting.needs_room
                and all(
                    r in big
                    for r in prep.candidate_rooms[i]
                    if prep.rooms[r].capacity >= prep.need[i]
                )
            ]
            for d in sorted(grains):
                free = sum(
                    _free(grains[d], prep.rooms[r].open_grains, prep.rooms[r].busy_grains)
                    for r in big
                )
                self.cap(members, d, free)
        for clique in _cliques(prep):
            for d in sorted(grains):
                self.cap(clique, d, len(grains[d]))
        self.order_rules()

    def order_rules(self) -> None:
        prep, model = self.prep, self.model
        for i, meeting in enumerate(prep.meetings):
            for other in sorted(set(meeting.not_same_day_as)):
                j = prep.position[other]
                for d in sorted(self.x[i].keys() & self.x[j].keys()):
                    model.add_at_most_one([self.x[i][d], self.x[j][d]])
            for after in meeting.after:
                j = prep.position[after.meeting_id]
                model.add(self.day(i) >= self.day(j))

    def day(self, i: int) -> cp_model.LinearExprT:
        return cp_model.LinearExpr.weighted_sum(list(self.x[i].values()), list(self.x[i]))


def proven_infeasible(prep: Prepared, limit: float, work: Work) -> bool:
    """Whether the relaxation (module docstring) is proven infeasible within ``limit``
    deterministic time (``work`` is added to): then so is the batch. A meeting with no
    usable day proves it without search."""
    days = usable_days(prep)
    if any(not d for d in days):
        return True
    relaxation = _Relaxation(prep, days)
    relaxation.rules()
    solver = solver_for(prep, max(limit, 0.01), prep.problem.budget.workers)
    code = solver.solve(relaxation.model)
    work.add(solver)
    return bool(code == cp_model.INFEASIBLE)
