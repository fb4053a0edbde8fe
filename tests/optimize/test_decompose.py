"""The decomposition by day (decision 0069): feasible answers checked by the independent oracle,
the monolithic optimum where the days are fixed by windows, proven infeasibility, determinism."""

from __future__ import annotations

from cerebri.optimize import (
    After,
    BatchProblem,
    Meeting,
    Person,
    Room,
    SolverBudget,
    SolveStatus,
    Weights,
    solve,
)
from cerebri.optimize._decompose import DECOMPOSE_ABOVE, solve_decomposed
from cerebri.optimize._explain import score_placement
from cerebri.optimize._prepare import prepare
from tests.optimize import oracle
from tests.optimize.helpers import grid

TIMEFOLD_LIKE = Weights(
    early=1,
    preference=0,
    back_to_back=0,
    back_to_back_any=100,
    overlap_any=10,
    move=0,
    room_stability=1,
    larger_rooms_first=1,
)


def _mid_size(meetings: int, days: int, per_day: int = 12) -> BatchProblem:
    """``meetings`` meetings over ``days`` days of ``per_day`` grains, 12 people, 3 rooms: each
    meeting needs two required people and one optional (a fixed, spread-out pattern)."""
    people = tuple(Person(f"p{k:02d}") for k in range(12))
    listed = tuple(
        Meeting(
            f"m{k:03d}",
            duration=1 + k % 3,
            required=(people[k % 12].id, people[(k * 5 + 1) % 12].id)
            if k % 12 != (k * 5 + 1) % 12
            else (people[k % 12].id,),
            optional=(people[(k * 7 + 3) % 12].id,)
            if (k * 7 + 3) % 12 not in (k % 12, (k * 5 + 1) % 12)
            else (),
            needs_room=True,
            after=(After(f"m{k - 5:03d}"),) if k % 17 == 5 else (),
            not_same_day_as=(f"m{k - 1:03d}",) if k % 13 == 1 else (),
        )
        for k in range(meetings)
    )
    return BatchProblem(
        grain_seconds=900,
        grains=grid(*([per_day] * days)),
        meetings=listed,
        people=people,
        rooms=(Room("big", 6), Room("mid", 4), Room("small", 3)),
        weights=TIMEFOLD_LIKE,
        budget=SolverBudget(deterministic_time=0.5),
    )


def _placement(answer_assignments: tuple) -> dict[str, tuple[int, str | None]]:  # type: ignore[type-arg]
    return {a.meeting_id: (a.start, a.room_id) for a in answer_assignments}


def test_a_large_batch_is_decomposed_and_its_answer_meets_every_hard_rule() -> None:
    problem = _mid_size(DECOMPOSE_ABOVE + 20, days=10)
    answer = solve(problem)
    assert answer.status is SolveStatus.FEASIBLE
    assert answer.bound is None  # nothing is proven about a decomposed run
    placement = _placement(answer.assignments)
    assert sorted(placement) == sorted(m.id for m in problem.meetings)
    assert oracle.feasible(problem, placement)
    score, terms = score_placement(prepare(problem), placement)
    assert answer.score == score
    assert answer.terms == terms
    assert answer.stats.deterministic_time <= problem.budget.deterministic_time + 0.5


def test_the_decomposed_run_is_deterministic() -> None:
    problem = _mid_size(DECOMPOSE_ABOVE + 10, days=8)
    assert solve(problem) == solve(problem)


def _pinned_days() -> BatchProblem:
    """Two meetings a day on three days of 4 grains, each meeting's window inside its day:
    phase 1 has one choice, and each day's exact model is the whole answer's part."""
    grains = grid(4, 4, 4)
    people = (Person("a"), Person("b"), Person("c"))
    meetings = tuple(
        Meeting(
            f"d{day}m{k}",
            duration=1 + k,
            required=("a",) if k == 0 else ("b",),
            optional=("c",),
            needs_room=True,
            allowed_starts=frozenset(range(4 * day, 4 * day + 4)),
        )
        for day in range(3)
        for k in range(2)
    )
    return BatchProblem(
        grain_seconds=900,
        grains=grains,
        meetings=meetings,
        people=people,
        rooms=(Room("r1", 3), Room("r2", 2)),
        weights=TIMEFOLD_LIKE,
        budget=SolverBudget(deterministic_time=5.0),
    )


def test_with_days_fixed_by_windows_the_decomposition_finds_the_monolithic_optimum() -> None:
    problem = _pinned_days()
    exact = solve(problem)  # 6 meetings: the monolithic model
    assert exact.status is SolveStatus.OPTIMAL
    best = oracle.best(problem)
    assert exact.score is not None and (exact.score.medium, exact.score.soft) == best
    decomposed = solve_decomposed(prepare(problem))
    assert decomposed.status is SolveStatus.FEASIBLE
    assert decomposed.score == exact.score
    assert oracle.feasible(problem, _placement(decomposed.assignments))


def test_an_impossible_day_assignment_proves_the_batch_infeasible() -> None:
    # three meetings of 3 grains for one person over two days of 4 grains: no two fit in a day
    # and not_same_day is not needed; phase 1 (a relaxation) is already infeasible.
    problem = BatchProblem(
        grain_seconds=900,
        grains=grid(4, 4),
        meetings=tuple(Meeting(f"m{k}", duration=3, required=("a",)) for k in range(3)),
        people=(Person("a"),),
    )
    answer = solve_decomposed(prepare(problem))
    assert answer.status is SolveStatus.INFEASIBLE
    assert oracle.best(problem) is None
    assert answer.conflict
