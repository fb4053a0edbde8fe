"""Many meetings at once: the batch optimiser behind CPIR ``OPTIMIZE`` (issue #24, decision 0069).

The facade grows as the pieces land: the problem model (:mod:`.model`) and the answer
(:mod:`.solution`) first; the CP-SAT solver and the mapping from CPIR requests follow.
"""

from cerebri.optimize.model import (
    After,
    BatchProblem,
    Grain,
    Meeting,
    Person,
    Room,
    SolverBudget,
    Travel,
    Weights,
)
from cerebri.optimize.solution import (
    Assignment,
    BatchSolution,
    RuleRef,
    Score,
    SolverStats,
    SolveStatus,
    Term,
)

__all__ = [
    "After",
    "Assignment",
    "BatchProblem",
    "BatchSolution",
    "Grain",
    "Meeting",
    "Person",
    "Room",
    "RuleRef",
    "Score",
    "SolveStatus",
    "SolverBudget",
    "SolverStats",
    "Term",
    "Travel",
    "Weights",
]
