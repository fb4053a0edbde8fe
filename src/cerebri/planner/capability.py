"""Whether a mutating request may change a target (cpir-0.2.md 11)."""

from __future__ import annotations

from cerebri.cpir import MutationKind, PlanningObject, PlanningRequest

__all__ = ["mutation_kind", "target_permissions"]


def mutation_kind(obj: PlanningObject) -> MutationKind:
    """``MOVE_EVENT`` for an existing object, ``CREATE_EVENT`` for a prospective one."""
    return MutationKind.MOVE_EVENT if obj.is_existing else MutationKind.CREATE_EVENT


def target_permissions(request: PlanningRequest, obj: PlanningObject) -> tuple[bool, bool]:
    """``(capability permits, policy permits)`` for the derived mutation kind of ``obj``."""
    kind = mutation_kind(obj)
    capability = request.planning_capability.permits(
        kind, object_id=obj.id, calendar_id=obj.calendar_id, integration_id=obj.integration_id
    )
    return capability, request.policy.permits(kind)
