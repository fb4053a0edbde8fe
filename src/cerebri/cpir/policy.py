"""Policy and planning capability: planning inputs, never credentials (cpir-0.2.md 11)."""

from __future__ import annotations

from cerebri.cpir._base import WireModel
from cerebri.cpir.enums import DeploymentMode, MutationKind
from cerebri.cpir.scalars import U32, Identifier, Revision

__all__ = [
    "ConfirmationRequirements",
    "MutationGrant",
    "MutationPolicy",
    "PlanningCapability",
    "PolicyContext",
    "PolicySnapshot",
]

_NO_MUTATION_MODES = frozenset({DeploymentMode.SHADOW, DeploymentMode.SUGGESTION})


class ConfirmationRequirements(WireModel):
    """Which mutations need a human confirmation."""

    all_mutations: bool
    deletion: bool


class MutationPolicy(WireModel):
    """Per-proposal cap on placements and the mutation kinds allowed at all."""

    max_mutations: U32
    allowed_actions: tuple[MutationKind, ...]


class PolicySnapshot(WireModel):
    """The policy values in force for this request."""

    allow_uncertain_duration: bool
    confirmation: ConfirmationRequirements
    mutation: MutationPolicy
    mode: DeploymentMode


class PolicyContext(WireModel):
    """A versioned policy set."""

    policy_set_id: Identifier
    policy_version: Revision
    snapshot: PolicySnapshot

    def permits(self, kind: MutationKind) -> bool:
        """True iff the mode allows mutations and ``kind`` is an allowed action."""
        mode = self.snapshot.mode
        return mode not in _NO_MUTATION_MODES and kind in self.snapshot.mutation.allowed_actions

    def requires_confirmation(self, kind: MutationKind) -> bool:
        """True iff a human must confirm a mutation of ``kind`` (cpir-0.2.md 11.1)."""
        confirmation = self.snapshot.confirmation
        return (
            confirmation.all_mutations
            or self.snapshot.mode is DeploymentMode.CONFIRMATION
            or (kind is MutationKind.DELETE_EVENT and confirmation.deletion)
        )


class MutationGrant(WireModel):
    """Permission to apply one mutation kind to one object in one calendar/integration."""

    object_id: Identifier
    calendar_id: Identifier
    integration_id: Identifier
    kind: MutationKind


class PlanningCapability(WireModel):
    """What the caller may read, plan and mutate."""

    read: bool
    plan: bool
    mutations: tuple[MutationGrant, ...]

    def permits(
        self, kind: MutationKind, *, object_id: str, calendar_id: str, integration_id: str
    ) -> bool:
        """True iff read and plan are granted and some grant matches the object and kind."""
        if not (self.read and self.plan):
            return False
        return any(
            grant.kind is kind
            and grant.object_id == object_id
            and grant.calendar_id == calendar_id
            and grant.integration_id == integration_id
            for grant in self.mutations
        )
