"""The calendar planner: validation, dependency graph, grid search, ranking.

Use :func:`plan` and :func:`validate`; both accept JSON text, bytes, decoded JSON values or
a parsed :class:`cerebri.cpir.PlanningRequest`.
"""

from cerebri.planner._collector import collector_paused
from cerebri.planner.actions import (
    Action,
    ActionPlan,
    PlanError,
    ValidatedPlan,
    action_plan_for,
    to_action_plan,
    validate_proposal,
)
from cerebri.planner.graph import DependencyGraph, Edge, build_dependency_graph
from cerebri.planner.limits import DEFAULT_LIMITS, PlannerLimits
from cerebri.planner.notes import ValidationNote, issue_note, validation_warnings
from cerebri.planner.plan import plan, validate

__all__ = [
    "DEFAULT_LIMITS",
    "Action",
    "ActionPlan",
    "DependencyGraph",
    "Edge",
    "PlanError",
    "PlannerLimits",
    "ValidatedPlan",
    "ValidationNote",
    "action_plan_for",
    "build_dependency_graph",
    "collector_paused",
    "issue_note",
    "plan",
    "to_action_plan",
    "validate",
    "validate_proposal",
    "validation_warnings",
]
