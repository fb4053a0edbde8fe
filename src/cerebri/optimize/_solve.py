"""``solve``: a batch problem in, an explained answer out (issue #24, decision 0069)."""

from __future__ import annotations

import math

from ortools.sat.python import cp_model

from cerebri.optimize._conflict import Work, find_conflict, solver_for
from cerebri.optimize._cp_model import Built, build
from cerebri.optimize._errors import OptimizeError
from cerebri.optimize._explain import Placement, moved, score_placement
from cerebri.optimize._objective import add_objective
from cerebri.optimize._prepare import Prepared, prepare
from cerebri.optimize.model import BatchProblem
from cerebri.optimize.solution import (
    Assignment,
    BatchSolution,
    SolverStats,
    SolveStatus,
)

__all__ = ["solve"]

_STATUS = {
    cp_model.OPTIMAL: SolveStatus.OPTIMAL,
    cp_model.FEASIBLE: SolveStatus.FEASIBLE,
    cp_model.INFEASIBLE: SolveStatus.INFEASIBLE,
    cp_model.UNKNOWN: SolveStatus.UNKNOWN,
}


def _stats(work: Work) -> SolverStats:
    # Rounded so that float noise in CP-SAT's accounting never reaches the answer's bytes.
    return SolverStats(round(work.deterministic_time, 6), work.branches, work.conflicts)


def _placement(prep: Prepared, built: Built, solver: cp_model.CpSolver) -> Placement:
    placement: dict[str, tuple[int, str | None]] = {}
    for i, meeting in enumerate(prep.meetings):
        room = next((r for r, x in built.room[i].items() if solver.boolean_value(x)), None)
        placement[meeting.id] = (int(solver.value(built.start[i])), room)
    return placement


def _answer(
    prep: Prepared, placement: Placement, status: SolveStatus, bound: int, work: Work
) -> BatchSolution:
    score, terms = score_placement(prep, placement)
    assignments = tuple(
        Assignment(m.id, placement[m.id][0], placement[m.id][1], moved(m, *placement[m.id]))
        for m in prep.meetings
    )
    return BatchSolution(status, assignments, score, terms, bound, (), _stats(work))


def solve(problem: BatchProblem) -> BatchSolution:
    """Place every meeting of ``problem`` with CP-SAT and explain the answer.

    Hard rules are constraints; the objective is ``(medium, soft)`` folded as
    ``medium * M + soft`` (decision 0069). The run is deterministic: CP-SAT gets
    ``budget.seed``, ``budget.workers`` (interleaved on one thread) and
    ``budget.deterministic_time`` as its only limit, and meetings enter in id order. For an
    infeasible batch the answer names a minimal conflicting set of rules (the search for it
    may spend up to ``budget.deterministic_time`` more).

    Raises :class:`~cerebri.optimize.OptimizeError`: ``optimize.duplicate_id``,
    ``optimize.unknown_id``, ``optimize.invalid_problem`` for a problem it cannot take;
    ``optimize.internal`` when the recomputed score differs from the solver's objective (a
    bug).
    """
    prep = prepare(problem)
    work = Work()
    built = build(prep, explain=False)
    if not built.empty:
        objective = add_objective(prep, built)
        budget = problem.budget
        solver = solver_for(prep, budget.deterministic_time, budget.workers)
        code = solver.solve(built.model)
        work.add(solver)
        if code == cp_model.MODEL_INVALID:
            raise OptimizeError(
                f"CP-SAT rejected the model: {built.model.validate()}", code="optimize.internal"
            )
        status = _STATUS[code]
        if status is SolveStatus.UNKNOWN:
            return BatchSolution(status, (), None, (), None, (), _stats(work))
        if status is not SolveStatus.INFEASIBLE:
            found = round(solver.objective_value)
            bound = found if status is SolveStatus.OPTIMAL else _bound(solver)
            answer = _answer(prep, _placement(prep, built, solver), status, bound, work)
            score = answer.score
            if score is None or score.medium * objective.fold + score.soft != found:
                raise OptimizeError(
                    f"recomputed score {score} differs from the solver's objective {found}",
                    code="optimize.internal",
                )
            return answer
    conflict = find_conflict(prep, work)
    return BatchSolution(SolveStatus.INFEASIBLE, (), None, (), None, conflict, _stats(work))


def _bound(solver: cp_model.CpSolver) -> int:
    return math.ceil(solver.best_objective_bound - 1e-6)
