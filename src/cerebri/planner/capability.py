"""Whether a mutating request may change a target (cpir-0.2.md 11; decision 0049)."""

from __future__ import annotations

from cerebri.cpir import MutationKind, Operation, PlanningObject, PlanningRequest

__all__ = ["mutation_kind", "target_permissions"]

_KIND_BY_OPERATION = {
    Operation.RESCHEDULE: MutationKind.MOVE_EVENT,
    Operation.CANCEL: MutationKind.DELETE_EVENT,
    Operation.UPDATE: MutationKind.UPDATE_EVENT,
}


def mutation_kind(obj: PlanningObject, operation: Operation | None = None) -> MutationKind:
    """The mutation a target gets: ``MOVE_EVENT`` for ``RESCHEDULE``, ``DELETE_EVENT`` for
    ``CANCEL``, ``UPDATE_EVENT`` for ``UPDATE`` (decision 0049); for any other operation
    (or none given) ``MOVE_EVENT`` for an existing object and ``CREATE_EVENT`` for a
    prospective one (cpir-0.2.md 5.2)."""
    kind = _KIND_BY_OPERATION.get(operation) if operation is not None else None
    if kind is not None:
        return kind
    return MutationKind.MOVE_EVENT if obj.is_existing else MutationKind.CREATE_EVENT


def target_permissions(request: PlanningRequest, obj: PlanningObject) -> tuple[bool, bool]:
    """``(capability permits, policy permits)`` for the mutation kind ``obj`` gets under the
    request's operation (:func:`mutation_kind`)."""
    kind = mutation_kind(obj, request.operation)
    capability = request.planning_capability.permits(
        kind, object_id=obj.id, calendar_id=obj.calendar_id, integration_id=obj.integration_id
    )
    return capability, request.policy.permits(kind)
