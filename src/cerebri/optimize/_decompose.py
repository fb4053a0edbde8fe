"""A large batch: greedy construction, repair, then large neighbourhood search (decision 0078).

Batches of more than :data:`DECOMPOSE_ABOVE` meetings over more than one day (and no
existing meeting: a repair budget ties all days together) do not go to one exact model,
whose pair terms grow with the square of the meetings (decision 0069). Instead:

1. **Construction** (:mod:`._construct`, plain Python, no CP-SAT work): every meeting that
   fits is placed greedily, meeting every hard rule, cheapest first (medium, then a soft
   estimate).
2. **Repair** (:func:`._lns.repair`): a meeting left out is placed by solving it exactly
   together with one day's meetings (CP-SAT, the rest of the batch pinned).
3. **Proof** when a meeting is still left out: the relaxation by days
   (:mod:`._days`) with what is left of the budget; when it is infeasible, so is the batch
   (the answer is ``INFEASIBLE`` with the exact model's conflicting set), otherwise
   ``UNKNOWN`` (no placement).
4. **Improvement** (:func:`._lns.descend`): exact CP-SAT models of one day or two days at a
   time, the rest pinned, each kept when it lowers ``(medium, soft)``.

Work is CP-SAT's deterministic time summed over every call, within
``budget.deterministic_time`` (the last call may overshoot its limit by CP-SAT's own margin);
the Python construction is not counted (it is bounded by the batch's size: meetings x
starts x rooms). The answer is ``FEASIBLE`` with ``bound`` ``None`` (nothing is proven
about optimality), its score recomputed from the whole placement; ``INFEASIBLE`` only when
proven; ``UNKNOWN`` when no complete placement was found. Deterministic: fixed orders, the
batch's seed and workers, counted limits only.
"""

from __future__ import annotations

from cerebri.optimize._construct import construct
from cerebri.optimize._days import proven_infeasible
from cerebri.optimize._lns import FIRST_STEP, Search, descend, repair, untangle
from cerebri.optimize._prepare import Prepared
from cerebri.optimize._solve import answer, infeasible, stats
from cerebri.optimize.solution import BatchSolution, SolveStatus

__all__ = ["DECOMPOSE_ABOVE", "decomposable", "solve_decomposed"]

#: batches of more meetings than this (over more than one day) take this path
DECOMPOSE_ABOVE = 40
#: share of the budget the repair of left-out meetings may take before the proof
REPAIR_SHARE = 0.6
#: share of the budget the search for lost optional attendance alone may take
MEDIUM_SHARE = 0.3


def decomposable(prep: Prepared) -> bool:
    """Whether :func:`cerebri.optimize.solve` takes this path for ``prep``: more than
    :data:`DECOMPOSE_ABOVE` meetings, more than one day, and no existing meeting."""
    return (
        len(prep.meetings) > DECOMPOSE_ABOVE
        and max(prep.day, default=0) > 0
        and not any(prep.existing(i) for i in range(len(prep.meetings)))
    )


def solve_decomposed(prep: Prepared) -> BatchSolution:
    """Solve ``prep`` by construction and neighbourhood search (module docstring):
    ``FEASIBLE`` with ``bound`` ``None``, ``INFEASIBLE`` (proven, with a conflicting set) or
    ``UNKNOWN``."""
    board = construct(prep)
    placement = {prep.meetings[i].id: place for i, place in sorted(board.placed.items())}
    run = Search(prep, placement)
    unplaced = [m.id for m in prep.meetings if m.id not in placement]
    if unplaced:
        step = max(FIRST_STEP, run.total / 20)
        total = run.total
        run.total = total * REPAIR_SHARE
        unplaced = repair(run, unplaced, step)
        run.total = total
    if unplaced:
        if proven_infeasible(prep, run.left(), run.work):
            return infeasible(prep, run.work)
        return BatchSolution(SolveStatus.UNKNOWN, (), None, (), None, (), stats(run.work))
    untangle(run, until=run.total * MEDIUM_SHARE)
    descend(run)
    return answer(prep, dict(sorted(run.placement.items())), SolveStatus.FEASIBLE, None, run.work)
