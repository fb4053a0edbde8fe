"""Many meetings at once: the batch optimiser behind CPIR ``OPTIMIZE`` (issue #24, decision 0069).

The problem model (:mod:`.model`), the answer (:mod:`.solution`), :func:`solve` (the CP-SAT
solver with its explanation: named terms, a minimal conflicting set; its typed error
:class:`OptimizeError`), the mapping from a CPIR ``OPTIMIZE`` request (:mod:`.mapping`), the
CPIR answer and action plan (:mod:`.answer`), and the router every CPIR request goes through
(:mod:`.route`: ``OPTIMIZE`` here, the rest to the reference planner; decision 0070).

:func:`solve` is loaded on first use: OR-Tools takes about a second to import, and no request
but ``OPTIMIZE`` needs it (decision 0045, what loads when).
"""

from typing import TYPE_CHECKING

from cerebri.optimize._errors import OptimizeError
from cerebri.optimize.answer import (
    BATCH_OBJECTIVE,
    Solver,
    batch_action_plan,
    default_solver,
    plan_batch,
)
from cerebri.optimize.mapping import (
    MAX_GRAINS,
    MAX_MEETINGS,
    OPTIMIZE_LIMITS,
    BatchMapping,
    map_request,
)
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
from cerebri.optimize.route import plan, validate
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
    "BATCH_OBJECTIVE",
    "MAX_GRAINS",
    "MAX_MEETINGS",
    "OPTIMIZE_LIMITS",
    "After",
    "Assignment",
    "BatchMapping",
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
    "Solver",
    "SolverBudget",
    "SolverStats",
    "Term",
    "Travel",
    "Weights",
    "batch_action_plan",
    "default_solver",
    "map_request",
    "plan",
    "plan_batch",
    "solve",
    "validate",
]

if TYPE_CHECKING:
    from cerebri.optimize._entry import solve


def __getattr__(name: str) -> object:
    """``solve`` on first use (it imports OR-Tools); any other unknown name is an error."""
    if name == "solve":
        from cerebri.optimize._entry import solve  # noqa: PLC0415 - OR-Tools on first use

        return solve
    raise AttributeError(f"module 'cerebri.optimize' has no attribute {name!r}")
