"""The plain CP-SAT peer of ``bench/optimize.py``: Timefold's meeting scheduling written
straight into one CP-SAT model, without cerebri's preparation, explanation or extras.

Per meeting: a start variable over the starts whose grains stay on one day, one literal per
room with enough capacity (exactly one), optional intervals per room (``NoOverlap``) and one
interval per required attendee (``NoOverlap``), so Timefold's hard rules are constraints.
The objective is ``medium * M + soft`` with Timefold's terms, each penalty variable bounded
from below by what it should count (the usual formulation for a minimisation; the bench
scores the placement afterwards with its own scorer, so an overstated intermediate
objective changes nothing). Budget: CP-SAT's deterministic time, fixed seed and workers.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

from ortools.sat.python import cp_model

from _optimize_score import Placement
from _timefold_data import TimefoldSet

__all__ = ["PlainResult", "solve_plain"]


@dataclass(frozen=True, slots=True)
class PlainResult:
    """The best placement found (``None``: none), CP-SAT's status name, wall seconds to the
    first solution (``None``: none) and in all, and the deterministic time used."""

    placement: Placement | None
    status: str
    first_seconds: float | None
    wall_seconds: float
    deterministic_time: float


class _FirstSolution(cp_model.CpSolverSolutionCallback):
    def __init__(self, started: float) -> None:
        super().__init__()
        self.started = started
        self.first: float | None = None

    def on_solution_callback(self) -> None:
        if self.first is None:
            self.first = time.perf_counter() - self.started


def _fitting_starts(data: TimefoldSet, duration: int) -> list[int]:
    day = [g.day for g in data.grains]
    return [s for s in range(len(day) - duration + 1) if day[s] == day[s + duration - 1]]


@dataclass
class _Plain:
    data: TimefoldSet
    model: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    start: dict[int, cp_model.IntVar] = field(default_factory=dict)
    end: dict[int, cp_model.IntVar] = field(default_factory=dict)
    room: dict[int, dict[int, cp_model.IntVar]] = field(default_factory=dict)
    overlap: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)
    soft: list[cp_model.LinearExprT] = field(default_factory=list)
    medium: list[cp_model.LinearExprT] = field(default_factory=list)
    soft_bound: int = 0


def _meetings(plain: _Plain) -> None:
    """Start, end, room literals, the hard rules; as soon as possible, larger rooms first."""
    data, model = plain.data, plain.model
    caps = {r.id: r.capacity for r in data.rooms}
    by_room: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    by_person: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    for m in data.meetings:
        starts = _fitting_starts(data, m.duration)
        s = model.new_int_var_from_domain(cp_model.Domain.from_values(starts), f"s{m.id}")
        e = model.new_int_var(0, len(data.grains), f"e{m.id}")
        plain.start[m.id], plain.end[m.id] = s, e
        interval = model.new_interval_var(s, m.duration, e, f"i{m.id}")
        plain.room[m.id] = {}
        for r in data.rooms:
            if r.capacity < m.required_capacity:
                continue
            x = model.new_bool_var(f"x{m.id}_{r.id}")
            plain.room[m.id][r.id] = x
            by_room[r.id].append(
                model.new_optional_interval_var(s, m.duration, e, x, f"o{m.id}_{r.id}")
            )
            larger = sum(c - r.capacity for c in caps.values() if c > r.capacity)
            if larger:
                plain.soft.append(larger * x)
        model.add_exactly_one(plain.room[m.id].values())
        for p in set(m.required):
            by_person[p].append(interval)
        plain.soft.append(e - 1)
        plain.soft_bound += len(data.grains) + max(caps.values()) * len(caps)
    for intervals in (*by_room.values(), *by_person.values()):
        model.add_no_overlap(intervals)


def _pairs(plain: _Plain) -> None:
    """Every pair: overlap (10 x grains) and back to back by index (100, each order)."""
    model, start, end = plain.model, plain.start, plain.end
    top_index = len(plain.data.grains)
    for a, b in combinations(plain.data.meetings, 2):
        top = min(a.duration, b.duration)
        o = model.new_int_var(0, top, f"ov{a.id}_{b.id}")
        lo = model.new_int_var(0, top_index, "")
        hi = model.new_int_var(0, top_index, "")
        model.add_min_equality(lo, [end[a.id], end[b.id]])
        model.add_max_equality(hi, [start[a.id], start[b.id]])
        model.add(o >= lo - hi)
        plain.overlap[a.id, b.id] = o
        plain.soft.append(10 * o)
        plain.soft_bound += 10 * top
        for x, y in ((a, b), (b, a)):
            follows = model.new_bool_var("")
            model.add(start[y.id] != end[x.id]).only_enforce_if(follows.Not())
            plain.soft.append(100 * follows)
            plain.soft_bound += 100


def _people(plain: _Plain) -> None:
    """Per person: medium overlaps and room stability, weighted by how often a pair repeats."""
    model = plain.model
    medium_weight: dict[tuple[int, int], int] = defaultdict(int)
    near_weight: dict[tuple[int, int], int] = defaultdict(int)
    by_id = {m.id: m for m in plain.data.meetings}
    attends: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for m in plain.data.meetings:
        for p in m.required:
            attends[p].append((m.id, True))
        for p in m.preferred:
            attends[p].append((m.id, False))
    for entries in attends.values():
        for (x, rx), (y, ry) in combinations(entries, 2):
            if x == y:
                continue
            key = (min(x, y), max(x, y))
            if not (rx and ry):
                medium_weight[key] += 1
            near_weight[key] += 1
    for key, weight in medium_weight.items():
        plain.medium.append(weight * plain.overlap[key])
    for (x, y), weight in near_weight.items():
        # near: y starts 1..dur(x)+2 grains after x, or x 1..dur(y)+2 grains after y.
        near = model.new_bool_var("")
        apart = cp_model.Domain.from_intervals(
            [[-(by_id[y].duration + 2), -1], [1, by_id[x].duration + 2]]
        ).complement()
        model.add_linear_expression_in_domain(
            plain.start[y] - plain.start[x], apart
        ).only_enforce_if(near.Not())
        same = []
        for r in set(plain.room[x]) & set(plain.room[y]):
            both = model.new_bool_var("")
            model.add_implication(both, plain.room[x][r])
            model.add_implication(both, plain.room[y][r])
            same.append(both)
        unstable = model.new_int_var(0, 1, "")
        model.add(unstable >= near - sum(same))
        plain.soft.append(weight * unstable)
        plain.soft_bound += weight


def solve_plain(
    data: TimefoldSet, deterministic_time: float, workers: int = 1, seed: int = 0
) -> PlainResult:
    """Build and solve the plain model within ``deterministic_time`` units (wall times count
    from the start of the build)."""
    started = time.perf_counter()
    plain = _Plain(data)
    _meetings(plain)
    _pairs(plain)
    _people(plain)
    plain.model.minimize((plain.soft_bound + 1) * sum(plain.medium) + sum(plain.soft))
    solver = cp_model.CpSolver()
    solver.parameters.max_deterministic_time = deterministic_time
    solver.parameters.num_workers = workers
    solver.parameters.interleave_search = workers > 1
    solver.parameters.random_seed = seed
    callback = _FirstSolution(started)
    code = solver.solve(plain.model, callback)
    wall = time.perf_counter() - started
    placement: Placement | None = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        placement = {
            m.id: (
                int(solver.value(plain.start[m.id])),
                next(r for r, x in plain.room[m.id].items() if solver.boolean_value(x)),
            )
            for m in data.meetings
        }
    return PlainResult(
        placement, solver.status_name(code), callback.first, wall, solver.deterministic_time
    )
