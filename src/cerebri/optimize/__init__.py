"""Many meetings at once: the batch optimiser behind CPIR ``OPTIMIZE`` (issue #24, decision 0069).

The problem model (:mod:`.model`), the answer (:mod:`.solution`) and :func:`solve`, the
CP-SAT solver with its explanation (named terms, a minimal conflicting set) and its typed
error :class:`OptimizeError`; the mapping from CPIR requests follows.
"""

from cerebri.optimize._entry import solve
from cerebri.optimize._errors import OptimizeError
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
    "OptimizeError",
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
    "solve",
]
