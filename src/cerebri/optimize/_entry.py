"""``solve``: a batch problem in, an explained answer out (issue #24, decision 0069)."""

from __future__ import annotations

from cerebri.optimize._decompose import decomposable, solve_decomposed
from cerebri.optimize._prepare import prepare
from cerebri.optimize._solve import solve_monolithic
from cerebri.optimize.model import BatchProblem
from cerebri.optimize.solution import BatchSolution

__all__ = ["solve"]


def solve(problem: BatchProblem) -> BatchSolution:
    """Place every meeting of ``problem`` with CP-SAT and explain the answer.

    Hard rules are constraints; the objective is ``(medium, soft)`` folded as
    ``medium * M + soft`` (decision 0069). The run is deterministic: CP-SAT gets
    ``budget.seed``, ``budget.workers`` (interleaved on one thread) and
    ``budget.deterministic_time`` as its only limit, and meetings enter in id order. For an
    infeasible batch the answer names a minimal conflicting set of rules (the search for it
    may spend up to ``budget.deterministic_time`` more).

    A batch of more than :data:`~cerebri.optimize._decompose.DECOMPOSE_ABOVE` meetings over
    more than one day (and no existing meeting) is placed greedily and improved by large
    neighbourhood search (:mod:`cerebri.optimize._decompose`, decision 0078): its answer is
    ``FEASIBLE`` at best, never ``OPTIMAL``, with ``bound`` ``None``; ``INFEASIBLE`` is still a
    proof.

    Raises :class:`~cerebri.optimize.OptimizeError`: ``optimize.duplicate_id``,
    ``optimize.unknown_id``, ``optimize.invalid_problem`` for a problem it cannot take;
    ``optimize.internal`` when the recomputed score differs from the solver's objective (a
    bug).
    """
    prep = prepare(problem)
    if decomposable(prep):
        return solve_decomposed(prep)
    return solve_monolithic(prep)
