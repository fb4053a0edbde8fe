"""A minimal conflicting set of rules for an infeasible batch (decision 0069).

The explanation model (:func:`._cp_model.build` with ``explain=True``) puts every rule group
behind a literal. Assuming them all is infeasible; CP-SAT's
``sufficient_assumptions_for_infeasibility`` gives a first core, and deletion shrinks it: each
rule in turn (sorted order) is left out, and when the rest is still proven infeasible the
rule goes (and the core shrinks to CP-SAT's new core). What is left is minimal: leaving out
any one rule makes the rest satisfiable, unless the budget ran out first (a rule whose trial
was undecided stays in; the set is then conflicting, possibly not minimal).

Two conflicts need no search: a meeting longer than every day's run of grains
(``RuleRef("day", (meeting,))``) and a meeting that needs a room when none is a candidate
(``RuleRef("rooms", (meeting,))``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from cerebri.optimize._cp_model import build
from cerebri.optimize._prepare import Prepared
from cerebri.optimize.solution import RuleRef

__all__ = ["Work", "find_conflict", "solver_for"]


@dataclass(slots=True)
class Work:
    """Counted work summed over solver calls."""

    deterministic_time: float = 0.0
    branches: int = 0
    conflicts: int = 0

    def add(self, solver: cp_model.CpSolver) -> None:
        """Count one finished solver call."""
        self.deterministic_time += solver.deterministic_time
        self.branches += solver.num_branches
        self.conflicts += solver.num_conflicts


def solver_for(prep: Prepared, limit: float, workers: int) -> cp_model.CpSolver:
    """A CP-SAT solver with the budget's seed, ``workers`` workers interleaved on one thread
    (the only deterministic parallel mode) and a deterministic time ``limit``; no wall-clock
    limit."""
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.random_seed = prep.problem.budget.seed
    params.num_workers = workers
    params.interleave_search = workers > 1
    params.max_deterministic_time = limit
    params.log_search_progress = False
    return solver


def _structural(prep: Prepared) -> tuple[RuleRef, ...] | None:
    for i, meeting in enumerate(prep.meetings):
        if not prep.fits[i]:
            return (RuleRef("day", (meeting.id,)),)
        if meeting.needs_room and not prep.candidate_rooms[i]:
            return (RuleRef("rooms", (meeting.id,)),)
    return None


def find_conflict(prep: Prepared, work: Work) -> tuple[RuleRef, ...]:
    """A minimal set of rules that cannot hold together, sorted, or ``()`` when the budget
    (``budget.deterministic_time`` more work) proves nothing. ``work`` is added to."""
    structural = _structural(prep)
    if structural is not None:
        return structural
    built = build(prep, explain=True)
    if built.empty:
        return ()
    by_index = {literal.index: ref for ref, literal in built.rules.items()}
    allowance = prep.problem.budget.deterministic_time
    spent = work.deterministic_time

    def infeasible(refs: set[RuleRef]) -> set[RuleRef] | None:
        remaining = allowance - (work.deterministic_time - spent)
        if remaining <= 0:
            return None
        built.model.clear_assumptions()
        built.model.add_assumptions([built.rules[ref] for ref in sorted(refs, key=_key)])
        solver = solver_for(prep, remaining, 1)
        status = solver.solve(built.model)
        work.add(solver)
        if status != cp_model.INFEASIBLE:
            return None
        core = solver.sufficient_assumptions_for_infeasibility()
        return {by_index[index] for index in core if index in by_index} & refs

    core = infeasible(set(built.rules))
    if core is None:
        return ()
    for ref in sorted(core, key=_key):
        if ref not in core:
            continue
        smaller = infeasible(core - {ref})
        if smaller is not None:
            core = smaller
    return tuple(sorted(core, key=_key))


def _key(ref: RuleRef) -> tuple[str, tuple[str, ...]]:
    return (ref.kind, ref.ids)
