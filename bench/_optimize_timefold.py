"""The Timefold peer of ``bench/optimize.py``: Timefold's own solver (PyPI ``timefold``, on
Java 17 through JPype) on a model written here with its Python API.

Planning entity: one assignment per meeting with two planning variables, the starting grain
and the room (as in Timefold's example). The constraint streams give the same penalties as
``MeetingSchedulingConstraintProvider``; attendance pairs are folded into precomputed
*meeting pair* facts (how many required/required, medium and any/any attendance pairs two
meetings share), which gives the same sums as the Java provider's attendance joins with far
fewer tuples. Default solver phases (construction heuristic, then local search), a fixed
wall-clock ``spent_limit``.

Importing this module needs the ``timefold`` package (``pip install -e '.[bench]'``) and a
Java 17 runtime; ``bench/optimize.py`` imports it only when the Timefold peer runs.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Annotated, Any

from timefold.solver import BestSolutionChangedEvent, SolverFactory
from timefold.solver.config import (
    Duration,
    ScoreDirectorFactoryConfig,
    SolverConfig,
    TerminationConfig,
)
from timefold.solver.domain import (
    PlanningEntityCollectionProperty,
    PlanningId,
    PlanningScore,
    PlanningVariable,
    ProblemFactCollectionProperty,
    ValueRangeProvider,
    planning_entity,
    planning_solution,
)
from timefold.solver.score import (
    ConstraintFactory,
    HardMediumSoftScore,
    Joiners,
    constraint_provider,
)

from _optimize_score import Placement
from _timefold_data import TimefoldSet

__all__ = ["TimefoldResult", "solve_timefold"]


@dataclass
class Grain:
    grain_index: Annotated[int, PlanningId]
    day: int


@dataclass
class Room:
    id: Annotated[int, PlanningId]
    capacity: int


@dataclass
class MeetingPair:
    """Two meetings (``left`` < ``right``) and the attendance pairs they share."""

    id: Annotated[int, PlanningId]
    left: int
    right: int
    required_pairs: int
    medium_pairs: int
    any_pairs: int


@planning_entity
@dataclass
class Assignment:
    id: Annotated[int, PlanningId]
    duration: int
    required_capacity: int
    start: Annotated[Grain | None, PlanningVariable] = field(default=None)
    room: Annotated[Room | None, PlanningVariable] = field(default=None)


@planning_solution
@dataclass
class Schedule:
    grains: Annotated[list[Grain], ProblemFactCollectionProperty, ValueRangeProvider]
    rooms: Annotated[list[Room], ProblemFactCollectionProperty, ValueRangeProvider]
    pairs: Annotated[list[MeetingPair], ProblemFactCollectionProperty]
    assignments: Annotated[list[Assignment], PlanningEntityCollectionProperty]
    score: Annotated[HardMediumSoftScore | None, PlanningScore] = field(default=None)


# Inline lambdas only: the Python-to-Java translation handles them; helper calls were an order
# of magnitude slower in a first measurement.
_span = lambda a: a.start.grain_index  # noqa: E731
_end = lambda a: a.start.grain_index + a.duration  # noqa: E731
_last = lambda a: a.start.grain_index + a.duration - 1  # noqa: E731


def _all_constraints(factory: ConstraintFactory) -> list[Any]:
    return [
        # Hard.
        factory.for_each_unique_pair(
            Assignment,
            Joiners.equal(lambda a: a.room),
            Joiners.overlapping(_span, _end),
        )
        .penalize(
            HardMediumSoftScore.ONE_HARD,
            lambda a, b: (
                min(a.start.grain_index + a.duration, b.start.grain_index + b.duration)
                - max(a.start.grain_index, b.start.grain_index)
            ),
        )
        .as_constraint("Room conflict"),
        factory.for_each(Assignment)
        .if_not_exists(Grain, Joiners.equal(_last, lambda g: g.grain_index))
        .penalize(HardMediumSoftScore.ONE_HARD, _last)
        .as_constraint("Don't go in overtime"),
        factory.for_each(MeetingPair)
        .filter(lambda p: p.required_pairs > 0)
        .join(Assignment, Joiners.equal(lambda p: p.left, lambda a: a.id))
        .join(
            Assignment,
            Joiners.equal(lambda p, a: p.right, lambda b: b.id),
            Joiners.overlapping(
                lambda p, a: a.start.grain_index,
                lambda p, a: a.start.grain_index + a.duration,
                lambda b: b.start.grain_index,
                lambda b: b.start.grain_index + b.duration,
            ),
        )
        .penalize(
            HardMediumSoftScore.ONE_HARD,
            lambda p, a, b: (
                p.required_pairs
                * (
                    min(a.start.grain_index + a.duration, b.start.grain_index + b.duration)
                    - max(a.start.grain_index, b.start.grain_index)
                )
            ),
        )
        .as_constraint("Required attendance conflict"),
        factory.for_each(Assignment)
        .filter(lambda a: a.required_capacity > a.room.capacity)
        .penalize(HardMediumSoftScore.ONE_HARD, lambda a: a.required_capacity - a.room.capacity)
        .as_constraint("Required room capacity"),
        factory.for_each(Assignment)
        .join(
            Grain,
            Joiners.equal(_last, lambda g: g.grain_index),
            Joiners.filtering(lambda a, g: a.start.day != g.day),
        )
        .penalize(HardMediumSoftScore.ONE_HARD)
        .as_constraint("Start and end on same day"),
        # Medium.
        factory.for_each(MeetingPair)
        .filter(lambda p: p.medium_pairs > 0)
        .join(Assignment, Joiners.equal(lambda p: p.left, lambda a: a.id))
        .join(
            Assignment,
            Joiners.equal(lambda p, a: p.right, lambda b: b.id),
            Joiners.overlapping(
                lambda p, a: a.start.grain_index,
                lambda p, a: a.start.grain_index + a.duration,
                lambda b: b.start.grain_index,
                lambda b: b.start.grain_index + b.duration,
            ),
        )
        .penalize(
            HardMediumSoftScore.ONE_MEDIUM,
            lambda p, a, b: (
                p.medium_pairs
                * (
                    min(a.start.grain_index + a.duration, b.start.grain_index + b.duration)
                    - max(a.start.grain_index, b.start.grain_index)
                )
            ),
        )
        .as_constraint("Preferred attendance conflicts"),
        # Soft.
        factory.for_each(Assignment)
        .penalize(HardMediumSoftScore.ONE_SOFT, _last)
        .as_constraint("Do all meetings as soon as possible"),
        factory.for_each(Assignment)
        .join(Assignment, Joiners.equal(_end, _span))
        .penalize(HardMediumSoftScore.of_soft(100))
        .as_constraint("One TimeGrain break between two consecutive meetings"),
        factory.for_each_unique_pair(Assignment, Joiners.overlapping(_span, _end))
        .penalize(
            HardMediumSoftScore.of_soft(10),
            lambda a, b: (
                min(a.start.grain_index + a.duration, b.start.grain_index + b.duration)
                - max(a.start.grain_index, b.start.grain_index)
            ),
        )
        .as_constraint("Overlapping meetings"),
        factory.for_each(Assignment)
        .join(Room, Joiners.less_than(lambda a: a.room.capacity, lambda r: r.capacity))
        .penalize(HardMediumSoftScore.ONE_SOFT, lambda a, r: r.capacity - a.room.capacity)
        .as_constraint("Assign larger rooms first"),
        factory.for_each(MeetingPair)
        .filter(lambda p: p.any_pairs > 0)
        .join(Assignment, Joiners.equal(lambda p: p.left, lambda a: a.id))
        .join(
            Assignment,
            Joiners.equal(lambda p, a: p.right, lambda b: b.id),
            Joiners.filtering(lambda p, a, b: a.room != b.room),
        )
        .filter(
            lambda p, a, b: (
                (
                    a.start.grain_index < b.start.grain_index
                    and b.start.grain_index - a.duration - a.start.grain_index <= 2
                )
                or (
                    b.start.grain_index < a.start.grain_index
                    and a.start.grain_index - b.duration - b.start.grain_index <= 2
                )
            )
        )
        .penalize(HardMediumSoftScore.ONE_SOFT, lambda p, a, b: p.any_pairs)
        .as_constraint("Room stability"),
    ]


_constraints = constraint_provider(_all_constraints)


def _pairs(data: TimefoldSet) -> list[MeetingPair]:
    attends: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for m in data.meetings:
        for p in m.required:
            attends[p].append((m.id, True))
        for p in m.preferred:
            attends[p].append((m.id, False))
    counts: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for entries in attends.values():
        for (x, rx), (y, ry) in combinations(entries, 2):
            if x == y:
                continue
            c = counts[min(x, y), max(x, y)]
            if rx and ry:
                c[0] += 1
            else:
                c[1] += 1
            c[2] += 1
    return [
        MeetingPair(i, left, right, *c)
        for i, ((left, right), c) in enumerate(sorted(counts.items()))
    ]


@dataclass(frozen=True, slots=True)
class TimefoldResult:
    """The best placement (``None``: nothing initialised), Timefold's own score text, wall
    seconds to the first feasible best solution (``None``: none) and in all."""

    placement: Placement | None
    score: str
    first_seconds: float | None
    wall_seconds: float


def solve_timefold(data: TimefoldSet, seconds: float) -> TimefoldResult:
    """Solve with Timefold for ``seconds`` of wall time (its ``spent_limit``); the time to the
    first feasible solution counts from the start of ``solve`` (solver factory built before,
    JVM started before)."""
    config = SolverConfig(
        solution_class=Schedule,
        entity_class_list=[Assignment],
        score_director_factory_config=ScoreDirectorFactoryConfig(
            constraint_provider_function=_constraints
        ),
        termination_config=TerminationConfig(
            spent_limit=Duration(milliseconds=round(seconds * 1000))
        ),
    )
    solver = SolverFactory.create(config).build_solver()
    problem = Schedule(
        grains=[Grain(g.index, g.day) for g in data.grains],
        rooms=[Room(r.id, r.capacity) for r in data.rooms],
        pairs=_pairs(data),
        assignments=[Assignment(m.id, m.duration, m.required_capacity) for m in data.meetings],
    )
    first: list[float] = []
    started = time.perf_counter()

    def listen(event: BestSolutionChangedEvent[Schedule]) -> None:
        if (
            not first
            and event.is_new_best_solution_initialized
            and event.new_best_score.is_feasible
        ):
            first.append(time.perf_counter() - started)

    solver.add_event_listener(listen)
    best = solver.solve(problem)
    wall = time.perf_counter() - started
    placement: Placement | None = None
    if all(a.start is not None and a.room is not None for a in best.assignments):
        placement = {
            a.id: (a.start.grain_index, a.room.id)  # type: ignore[union-attr]
            for a in best.assignments
        }
    return TimefoldResult(placement, str(best.score), first[0] if first else None, wall)
