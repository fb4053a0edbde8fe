"""Lower bounds on Timefold's medium level for the meeting-scheduling sets (issue #24).

```
.venv/bin/python bench/optimize_bounds.py                      # the 50-meeting set, 2 workers
.venv/bin/python bench/optimize_bounds.py --sets 50,100 --seconds 1800 --workers 2
```

The medium level (as ``_optimize_score`` computes it) is, per person, the overlap in grains of
every pair of their attendances that are not both required. Once the hard level is 0 no person
is in two required meetings at one grain, so with ``k`` the number of a person's meetings
(required or preferred) running at grain ``t`` the medium level is exactly
``sum over persons and grains of k * (k - 1) / 2``. That sum is what is minimised here,
over the placements with no hard penalty, in a time-indexed CP-SAT model:

* one literal per meeting and start whose grains stay on one day within the horizon (exactly
  one per meeting); per meeting and grain an "active" literal (the sum of the starts that
  cover it);
* rooms: an optional interval per meeting and room with enough capacity (exactly one room,
  ``NoOverlap`` per room), plus per grain the count of meetings that need more than the
  ``j + 1``-th largest room held to ``j`` (redundant, it strengthens the linear relaxation);
* required attendees: ``NoOverlap`` of their meetings and at most one active per grain;
* per person and grain an integer ``k`` and a cost ``z >= j * k - j * (j + 1) / 2`` for
  ``j = 1 ..`` (the chords of ``k * (k - 1) / 2``, exact at integers).

Two bounds are printed per set:

``cores``
    the number of disjoint groups of persons (cores) that cannot all have conflict-free
    calendars at once, every hard rule among their meetings kept (``core_bound``): each core
    costs at least one grain of medium among its own persons. A core is found by deletion
    from the persons not yet in a core; a check is CP-SAT on the interval model (no
    objective).
``exact``
    CP-SAT's ``BestObjectiveBound()`` on the whole model after ``--seconds`` of wall time,
    and its best placement, re-scored by the bench's judge (``_optimize_score``).

The reported lower bound is the larger of the two; "best" is the lowest medium of a
placement with no hard penalty that this run found (the judge's number). CP-SAT runs with a
fixed ``--seed``; with more than one worker its search is not deterministic, and the wall
limit makes every run depend on the machine's load, so the numbers a run prints (bound and
best) are proven/verified facts, not repeatable ones. ``--deterministic`` switches the wall
limit to CP-SAT's deterministic time (``--seconds`` then counts deterministic units) with
one worker, which repeats exactly.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from _machine import load_average, source_revision
from _optimize_score import Placement, score
from _timefold_data import SETS, TfMeeting, TimefoldSet, data_dir, read_set

__all__ = ["Bound", "core_bound", "exact_bound", "main"]


@dataclass(frozen=True, slots=True)
class Bound:
    """A proven lower bound on the medium penalty (non-negative, as the judge counts it), the
    best placement with no hard penalty found (``None``: none) and its medium, CP-SAT's status
    and the wall seconds spent."""

    lower: int
    best: Placement | None
    best_medium: int | None
    status: str
    seconds: float


@dataclass
class _Model:
    data: TimefoldSet
    meetings: tuple[TfMeeting, ...]
    model: cp_model.CpModel = field(default_factory=cp_model.CpModel)
    at: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)
    active: dict[tuple[int, int], cp_model.IntVar] = field(default_factory=dict)
    room: dict[int, dict[int, cp_model.IntVar]] = field(default_factory=dict)
    cost: list[cp_model.IntVar] = field(default_factory=list)


def _starts(data: TimefoldSet, duration: int) -> list[int]:
    day = [g.day for g in data.grains]
    return [s for s in range(len(day) - duration + 1) if day[s] == day[s + duration - 1]]


def _place(built: _Model) -> None:
    """Start literals, active literals per grain, rooms, required attendees."""
    data, model = built.data, built.model
    grains = len(data.grains)
    by_room: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    by_person: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    running: dict[int, list[cp_model.IntVar]] = defaultdict(list)  # grain -> active literals
    for m in built.meetings:
        starts = _starts(data, m.duration)
        literals = {s: model.new_bool_var(f"x{m.id}_{s}") for s in starts}
        model.add_exactly_one(literals.values())
        start = model.new_int_var_from_domain(cp_model.Domain.from_values(starts), f"s{m.id}")
        model.add(start == sum(s * x for s, x in literals.items()))
        for s, x in literals.items():
            built.at[m.id, s] = x
        for t in range(grains):
            covering = [literals[s] for s in range(t - m.duration + 1, t + 1) if s in literals]
            if not covering:
                continue
            a = model.new_bool_var(f"a{m.id}_{t}")
            model.add(a == sum(covering))
            built.active[m.id, t] = a
            running[t].append(a)
        interval = model.new_fixed_size_interval_var(start, m.duration, f"i{m.id}")
        built.room[m.id] = {}
        for r in data.rooms:
            if r.capacity >= m.required_capacity:
                x = model.new_bool_var(f"r{m.id}_{r.id}")
                built.room[m.id][r.id] = x
                by_room[r.id].append(
                    model.new_optional_fixed_size_interval_var(start, m.duration, x, "")
                )
        model.add_exactly_one(built.room[m.id].values())
        for p in m.required:
            by_person[p].append(interval)
    for intervals in (*by_room.values(), *by_person.values()):
        model.add_no_overlap(intervals)
    _room_counts(built)
    for p, _ in by_person.items():
        mine = [m for m in built.meetings if p in m.required]
        for t in range(grains):
            here = [built.active[m.id, t] for m in mine if (m.id, t) in built.active]
            if len(here) > 1:
                model.add_at_most_one(here)


def _room_counts(built: _Model) -> None:
    """Per grain: meetings needing more than the (j+1)-th largest room use the j largest."""
    caps = sorted((r.capacity for r in built.data.rooms), reverse=True)
    for j in range(1, len(caps)):
        big = [m for m in built.meetings if m.required_capacity > caps[j]]
        if len(big) <= j:
            continue
        for t in range(len(built.data.grains)):
            here = [built.active[m.id, t] for m in big if (m.id, t) in built.active]
            if len(here) > j:
                built.model.add(sum(here) <= j)


def _costs(built: _Model, people: Iterable[int]) -> None:
    """Per person and grain: ``z >= C(k, 2)`` through its chords."""
    model = built.model
    for p in people:
        mine = [m for m in built.meetings if p in m.required or p in m.preferred]
        for t in range(len(built.data.grains)):
            here = [built.active[m.id, t] for m in mine if (m.id, t) in built.active]
            top = len(here)
            if top < 2:
                continue
            k = model.new_int_var(0, top, f"k{p}_{t}")
            model.add(k == sum(here))
            z = model.new_int_var(0, top * (top - 1) // 2, f"z{p}_{t}")
            for j in range(1, top):
                model.add(z >= j * k - j * (j + 1) // 2)
            built.cost.append(z)


def _build(data: TimefoldSet, meetings: tuple[TfMeeting, ...], people: Iterable[int]) -> _Model:
    built = _Model(data, meetings)
    _place(built)
    _costs(built, people)
    built.model.minimize(sum(built.cost))
    return built


def _solver(seconds: float, workers: int, seed: int, deterministic: bool) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    if deterministic:
        solver.parameters.max_deterministic_time = seconds
        solver.parameters.num_workers = 1
    else:
        solver.parameters.max_time_in_seconds = seconds
        solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    return solver


def _placement(built: _Model, solver: cp_model.CpSolver) -> Placement:
    placement: Placement = {}
    for m in built.meetings:
        start = next(
            s for (mid, s), x in built.at.items() if mid == m.id and solver.boolean_value(x)
        )
        room = next(r for r, x in built.room[m.id].items() if solver.boolean_value(x))
        placement[m.id] = (start, room)
    return placement


def exact_bound(
    data: TimefoldSet,
    seconds: float,
    *,
    workers: int = 2,
    seed: int = 0,
    deterministic: bool = False,
) -> Bound:
    """CP-SAT on the whole time-indexed model (medium only): its proven bound and best."""
    started = time.perf_counter()
    built = _build(data, data.meetings, data.people)
    solver = _solver(seconds, workers, seed, deterministic)
    code = solver.solve(built.model)
    best: Placement | None = None
    medium: int | None = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        best = _placement(built, solver)
        judged = score(data, best)
        if judged.hard != 0 or judged.medium > round(solver.objective_value):
            raise AssertionError(f"model and judge disagree: {judged} vs {solver.objective_value}")
        medium = judged.medium
    lower = 0 if best is None else int(-(-solver.best_objective_bound // 1))
    return Bound(lower, best, medium, solver.status_name(code), time.perf_counter() - started)


def _conflict_free(data: TimefoldSet, people: frozenset[int], seconds: float, seed: int) -> str:
    """CP-SAT's status for: every hard rule among the meetings of ``people``, and no two
    meetings of one of ``people`` overlapping (their medium 0)."""
    model = cp_model.CpModel()
    by_room: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    by_person: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    for m in data.meetings:
        if not people & (set(m.required) | set(m.preferred)):
            continue
        starts = _starts(data, m.duration)
        start = model.new_int_var_from_domain(cp_model.Domain.from_values(starts), "")
        interval = model.new_fixed_size_interval_var(start, m.duration, "")
        rooms = []
        for r in data.rooms:
            if r.capacity >= m.required_capacity:
                x = model.new_bool_var("")
                rooms.append(x)
                by_room[r.id].append(
                    model.new_optional_fixed_size_interval_var(start, m.duration, x, "")
                )
        model.add_exactly_one(rooms)
        for p in set(m.required) | (set(m.preferred) & people):
            by_person[p].append(interval)
    for intervals in (*by_room.values(), *by_person.values()):
        model.add_no_overlap(intervals)
    solver = _solver(seconds, 1, seed, deterministic=False)
    return solver.status_name(solver.solve(model))


def core_bound(
    data: TimefoldSet, check_seconds: float, seed: int = 0, verbose: bool = False
) -> tuple[int, list[list[int]]]:
    """Disjoint groups of persons that cannot all be free of medium conflicts at once.

    Repeatedly: if the remaining persons cannot all be conflict-free (``_conflict_free`` is
    ``INFEASIBLE``), shrink them by deletion to a minimal such group (a core), count it and
    remove it. Each core costs at least one grain of medium among its own persons, and the
    cores share no person, so their number is a lower bound. A check that is not decided in
    ``check_seconds`` counts as feasible (the bound stays valid, only weaker).
    """
    left = set(data.people)
    cores: list[list[int]] = []
    while _conflict_free(data, frozenset(left), check_seconds, seed) == "INFEASIBLE":
        core = set(left)
        for p in sorted(left):
            core.discard(p)
            if _conflict_free(data, frozenset(core), check_seconds, seed) != "INFEASIBLE":
                core.add(p)
        cores.append(sorted(core))
        if verbose:
            print(f"  core {len(cores)}: persons {sorted(core)}", flush=True)
        left -= core
    return len(cores), cores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="50", help="meeting counts, from 50,100,200,400,800")
    parser.add_argument("--seconds", type=float, default=600.0, help="exact model, wall s")
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT workers (exact model)")
    parser.add_argument("--seed", type=int, default=0, help="CP-SAT random seed")
    parser.add_argument(
        "--check-seconds", type=float, default=60.0, help="limit per conflict-free check"
    )
    parser.add_argument(
        "--deterministic",
        action="store_true",
        help="one worker, --seconds as CP-SAT deterministic time (repeatable)",
    )
    parser.add_argument("--no-exact", action="store_true", help="only the core bound")
    parser.add_argument("--verbose", action="store_true", help="print each core")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sets.split(",")]
    if any(s not in SETS for s in sizes):
        parser.error(f"unknown sets: {sizes}")
    print(f"- source {source_revision()}, load average {load_average()}", flush=True)
    for size in sizes:
        data = read_set(data_dir() / f"{SETS[size]}.json")
        started = time.perf_counter()
        count, _ = core_bound(data, args.check_seconds, args.seed, args.verbose)
        print(
            f"{data.name} cores: bound {count} ({time.perf_counter() - started:.1f} s)",
            flush=True,
        )
        lower = count
        best = "-"
        if not args.no_exact:
            whole = exact_bound(
                data,
                args.seconds,
                workers=args.workers,
                seed=args.seed,
                deterministic=args.deterministic,
            )
            print(
                f"{data.name} exact: bound {whole.lower}, best {whole.best_medium} "
                f"({whole.status}, {whole.seconds:.1f} s)",
                flush=True,
            )
            lower = max(lower, whole.lower)
            best = "-" if whole.best_medium is None else str(whole.best_medium)
        print(f"{data.name}: medium >= {lower}, best found {best}", flush=True)
    print(f"- load average at the end {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
