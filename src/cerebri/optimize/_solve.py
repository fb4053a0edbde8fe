"""The exact (monolithic) model of a batch solved by CP-SAT, and the explained answer (issue #24,
decision 0069)."""

from __future__ import annotations

import math

from ortools.sat.python import cp_model

from cerebri.optimize._conflict import Work, find_conflict, solver_for
from cerebri.optimize._cp_model import Built, build
from cerebri.optimize._errors import OptimizeError
from cerebri.optimize._explain import Placement, moved, score_placement
from cerebri.optimize._hint import add_hint
from cerebri.optimize._objective import add_objective
from cerebri.optimize._prepare import Prepared
from cerebri.optimize.solution import (
    Assignment,
    BatchSolution,
    SolverStats,
    SolveStatus,
)

__all__ = ["answer", "infeasible", "search", "solve_monolithic", "stats"]

_STATUS = {
    cp_model.OPTIMAL: SolveStatus.OPTIMAL,
    cp_model.FEASIBLE: SolveStatus.FEASIBLE,
    cp_model.INFEASIBLE: SolveStatus.INFEASIBLE,
    cp_model.UNKNOWN: SolveStatus.UNKNOWN,
}


def stats(work: Work) -> SolverStats:
    """The answer's counted work."""
    # Rounded so that float noise in CP-SAT's accounting never reaches the answer's bytes.
    return SolverStats(round(work.deterministic_time, 6), work.branches, work.conflicts)


def _placement(prep: Prepared, built: Built, solver: cp_model.CpSolver) -> Placement:
    placement: dict[str, tuple[int, str | None]] = {}
    for i, meeting in enumerate(prep.meetings):
        room = next((r for r, x in built.room[i].items() if solver.boolean_value(x)), None)
        placement[meeting.id] = (int(solver.value(built.start[i])), room)
    return placement


def answer(
    prep: Prepared, placement: Placement, status: SolveStatus, bound: int | None, work: Work
) -> BatchSolution:
    """The explained answer for ``placement`` (the score recomputed from it)."""
    score, terms = score_placement(prep, placement)
    assignments = tuple(
        Assignment(m.id, placement[m.id][0], placement[m.id][1], moved(m, *placement[m.id]))
        for m in prep.meetings
    )
    return BatchSolution(status, assignments, score, terms, bound, (), stats(work))


def search(
    prep: Prepared, limit: float, work: Work, hint: Placement | None = None
) -> tuple[SolveStatus, Placement | None, int | None]:
    """One CP-SAT run of the exact model of ``prep`` with at most ``limit`` deterministic time
    (no conflict search): the status, the best placement (``None`` for ``UNKNOWN`` and
    ``INFEASIBLE``) and the bound on the folded objective. ``hint`` (a placement, possibly of
    some meetings only) replaces the greedy hint. ``work`` is added to. Raises
    :class:`OptimizeError` ``optimize.internal`` when CP-SAT rejects the model or the
    recomputed score differs from its objective."""
    built = build(prep, explain=False)
    if built.empty:
        return SolveStatus.INFEASIBLE, None, None
    objective = add_objective(prep, built)
    if hint is None:
        add_hint(prep, built)
    else:
        for i, meeting in enumerate(prep.meetings):
            if meeting.id not in hint:
                continue
            start, room = hint[meeting.id]
            built.model.add_hint(built.start[i], start)
            for room_id, literal in built.room[i].items():
                built.model.add_hint(literal, room_id == room)
    solver = solver_for(prep, limit, prep.problem.budget.workers)
    code = solver.solve(built.model)
    work.add(solver)
    if code == cp_model.MODEL_INVALID:
        raise OptimizeError(
            f"CP-SAT rejected the model: {built.model.validate()}", code="optimize.internal"
        )
    status = _STATUS[code]
    if status in (SolveStatus.UNKNOWN, SolveStatus.INFEASIBLE):
        return status, None, None
    # The solution's own value of the objective: CP-SAT's ``objective_value`` was seen to
    # differ from it after a limit-stopped search with a hint (decision 0069).
    found = int(solver.value(objective.expression))
    placement = _placement(prep, built, solver)
    score, _ = score_placement(prep, placement)
    if score.medium * objective.fold + score.soft != found:
        raise OptimizeError(
            f"recomputed score {score} differs from the solver's objective {found}",
            code="optimize.internal",
        )
    bound = found if status is SolveStatus.OPTIMAL else _bound(solver)
    return status, placement, bound


def solve_monolithic(prep: Prepared) -> BatchSolution:
    """The exact model of the whole batch in one CP-SAT run (see
    :func:`cerebri.optimize.solve`)."""
    work = Work()
    status, placement, bound = search(prep, prep.problem.budget.deterministic_time, work)
    if status is SolveStatus.UNKNOWN:
        return BatchSolution(status, (), None, (), None, (), stats(work))
    if placement is not None:
        return answer(prep, placement, status, bound, work)
    return infeasible(prep, work)


def infeasible(prep: Prepared, work: Work) -> BatchSolution:
    """The ``INFEASIBLE`` answer with a minimal conflicting set (searched with the budget)."""
    conflict = find_conflict(prep, work)
    return BatchSolution(SolveStatus.INFEASIBLE, (), None, (), None, conflict, stats(work))


def _bound(solver: cp_model.CpSolver) -> int:
    return math.ceil(solver.best_objective_bound - 1e-6)
