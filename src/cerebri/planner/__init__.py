"""The calendar planner: validation, dependency graph, grid search, ranking.

Use :func:`plan` and :func:`validate`; both accept JSON text, bytes, decoded JSON values or
a parsed :class:`cerebri.cpir.PlanningRequest`.
"""

from cerebri.planner.graph import DependencyGraph, Edge, build_dependency_graph
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner.plan import plan, validate

__all__ = [
    "DEFAULT_LIMITS",
    "DependencyGraph",
    "Edge",
    "PlannerLimits",
    "build_dependency_graph",
    "plan",
    "validate",
]
