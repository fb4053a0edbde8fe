"""The top-level CPIR planning request (cpir-0.2.md sections 3, 6, 7, 10, 12)."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from pydantic import Field, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from cerebri.cpir._base import WireModel
from cerebri.cpir.batch import Batch
from cerebri.cpir.change import Change
from cerebri.cpir.constraints import ConstraintSpec, Fact
from cerebri.cpir.enums import ANALYSIS_OPERATIONS, Operation, PreferenceSource
from cerebri.cpir.knowledge import EvidenceField
from cerebri.cpir.objects import PlanningObject
from cerebri.cpir.policy import PlanningCapability, PolicyContext
from cerebri.cpir.scalars import (
    U32,
    DurationSeconds,
    Identifier,
    Revision,
    SchemaVersion,
    TimeRange,
)
from cerebri.cpir.temporal_context import TemporalContext
from cerebri.temporal.instant import Instant

__all__ = [
    "ContextSnapshot",
    "PlanningRequest",
    "PlanningScope",
    "PreferenceEvidence",
    "PreferenceProfile",
    "SearchBudget",
]


class PlanningScope(WireModel):
    """Where and what may be planned (cpir-0.2.md 6).

    The five id lists distinguish "absent" (omitted or ``null`` → no restriction) from
    ``[]`` (selects nothing). ``time_range`` is also the search horizon.
    """

    time_range: TimeRange
    calendar_ids: tuple[Identifier, ...] | None = None
    object_ids: tuple[Identifier, ...] | None = None
    resource_ids: tuple[Identifier, ...] | None = None
    integration_ids: tuple[Identifier, ...] | None = None
    movable_object_ids: tuple[Identifier, ...] | None = None
    max_mutations: U32

    def selects(self, obj: PlanningObject) -> bool:
        """True iff all four filters pass (resource filter: ALL containment, 6.1)."""
        if self.calendar_ids is not None and obj.calendar_id not in self.calendar_ids:
            return False
        if self.object_ids is not None and obj.id not in self.object_ids:
            return False
        if self.integration_ids is not None and obj.integration_id not in self.integration_ids:
            return False
        if self.resource_ids is not None:
            allowed = self.resource_ids
            if not allowed or not obj.resource_ids:
                return False
            if any(resource not in allowed for resource in obj.resource_ids):
                return False
        return True

    def may_move(self, obj: PlanningObject) -> bool:
        """True unless ``obj`` is existing and not listed in ``movable_object_ids``."""
        if not obj.is_existing or self.movable_object_ids is None:
            return True
        return obj.id in self.movable_object_ids


class ContextSnapshot(WireModel):
    """The closed world the caller supplies. ``temporal`` is CPIR 0.2 only.

    ``captured_at`` is informational: the planner reads no clock.
    """

    revision: Revision
    captured_at: Instant
    objects: tuple[PlanningObject, ...]
    facts: tuple[Fact, ...]
    temporal: TemporalContext | None = None

    @model_serializer(mode="wrap")
    def _omit_absent_temporal(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        # The reference writes every absent optional as null except `temporal`, which it
        # omits (cpir-0.2.md 1.3); the admission byte count depends on it.
        data = handler(self)
        if isinstance(data, dict) and data.get("temporal") is None:
            data.pop("temporal", None)
        return data


class PreferenceEvidence(WireModel):
    """A preferred start from one source."""

    source: PreferenceSource
    preferred_start: Instant
    evidence: tuple[Identifier, ...]


class PreferenceProfile(WireModel):
    """Soft ranking input; may be empty (cpir-0.2.md 10)."""

    preferences: tuple[PreferenceEvidence, ...]

    def effective(self) -> PreferenceEvidence | None:
        """The entry with the smallest ``(source rank, preferred_start)``, or None."""
        if not self.preferences:
            return None
        return min(self.preferences, key=lambda p: (p.source.rank, p.preferred_start))


class SearchBudget(WireModel):
    """Counted search bounds; every key is required on the wire (cpir-0.2.md 12).

    ``max_candidates`` counts evaluated grid positions, feasible or not.
    """

    max_candidates: U32
    max_repairs: U32
    max_moved_objects: U32
    max_depth: U32


def _is_none(value: object) -> bool:
    return value is None


class PlanningRequest(WireModel):
    """A CPIR 0.1/0.2 planning request. Keys of nullable fields may be omitted or null;
    every other key is required, arrays included. Build one with
    :func:`cerebri.cpir.parse_request`.

    ``change`` (a cerebri extension, decision 0049) is the changed event's iCalendar
    identity for ``RESCHEDULE``/``CANCEL``/``UPDATE`` (and the invitation data of a
    ``CREATE``); absent, it is left out of the request's serialisation, so a request without
    it keeps its byte size and plan ids. ``batch`` (decision 0070) is the same kind of
    extension for ``OPTIMIZE``: absent, it is left out as well.
    """

    schema_version: SchemaVersion
    request_id: Identifier
    trace_id: Identifier
    principal_id: Identifier
    operation: Operation
    scope: PlanningScope
    context: ContextSnapshot
    target_ids: tuple[Identifier, ...]
    duration: EvidenceField[DurationSeconds]
    constraints: tuple[ConstraintSpec, ...]
    preferences: PreferenceProfile
    policy: PolicyContext
    planning_capability: PlanningCapability
    granularity: DurationSeconds
    budget: SearchBudget
    change: Change | None = Field(
        default=None,
        exclude_if=_is_none,
        description=(
            "cerebri extension (decision 0049): the changed event's iCalendar identity "
            "(UID, scope, RECURRENCE-ID, ETag, SEQUENCE) and an UPDATE's new values; "
            "allowed with CREATE, RESCHEDULE, CANCEL and UPDATE. Omitted or null: absent."
        ),
    )
    batch: Batch | None = Field(
        default=None,
        exclude_if=_is_none,
        description=(
            "cerebri extension (decision 0070): the meetings an OPTIMIZE places at once and "
            "the existing events it may move, with people, rooms, travel, weights and the "
            "solver's counted work limit; required with OPTIMIZE, refused otherwise. "
            "Omitted or null: absent."
        ),
    )

    @cached_property
    def canonical_size(self) -> int:
        """Bytes of the compact canonical re-serialisation (cpir-0.2.md 12); computed once."""
        return len(self.model_dump_json().encode("utf-8"))

    def with_change(self, change: Change | None) -> PlanningRequest:
        """This request with ``change`` set (None: removed), validated again from its JSON
        form. Prefer it to ``model_copy(update=...)``, which would keep the cached
        :attr:`canonical_size` of the original.

        Raises:
            pydantic.ValidationError: ``change`` is not a valid :class:`Change` (only
                possible for one built with ``model_construct``).
        """
        data = self.model_dump(mode="json")
        data.pop("change", None)
        if change is not None:
            data["change"] = change.model_dump(mode="json")
        return type(self).model_validate_json(json.dumps(data, ensure_ascii=False))

    @property
    def analysis_only(self) -> bool:
        """True when ``scope.max_mutations == 0`` or the operation is FIND_SLOT/ANALYZE."""
        return self.scope.max_mutations == 0 or self.operation in ANALYSIS_OPERATIONS

    def object(self, object_id: str) -> PlanningObject | None:
        """The first context object with this id, or None."""
        for obj in self.context.objects:
            if obj.id == object_id:
                return obj
        return None
