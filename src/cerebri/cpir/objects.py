"""Planning objects: the events, tasks, deadlines, availabilities and resources of the
supplied context (cpir-0.2.md section 7).

``kind`` is an adjacently tagged wrapper whose own tag is also ``kind``::

    "kind": {"kind": "EVENT"}
    "kind": {"kind": "TASK", "details": TaskDetails}
    "kind": {"kind": "DEADLINE", "details": "<instant>"}
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cerebri.cpir._base import WireModel
from cerebri.cpir.knowledge import EvidenceField, Known, Missing, Resolved
from cerebri.cpir.scalars import U32, DurationSeconds, Identifier, Revision, TimeRange
from cerebri.temporal.instant import Instant
from cerebri.temporal.zones import TimeZoneId

__all__ = [
    "AvailabilityKind",
    "DeadlineKind",
    "EventKind",
    "PlanningObject",
    "PlanningObjectKind",
    "ResourceKind",
    "SemanticVector",
    "TaskDetails",
    "TaskKind",
]


class TaskDetails(WireModel):
    """Task splitting hints; parsed and carried, not used by the planner."""

    splittable: bool
    interruptible: bool
    minimum_chunk: DurationSeconds | None = None
    preferred_chunk: DurationSeconds | None = None
    maximum_chunk_count: U32 | None = None


class EventKind(WireModel):
    """A calendar event; the only kind that can be a planning target. Blocks time."""

    kind: Literal["EVENT"]


class TaskKind(WireModel):
    """A task with its splitting hints. Blocks time when its time is known."""

    kind: Literal["TASK"]
    details: TaskDetails


class DeadlineKind(WireModel):
    """A deadline at an instant. Never blocks time."""

    kind: Literal["DEADLINE"]
    details: Instant


class AvailabilityKind(WireModel):
    """A period of availability. Never blocks time."""

    kind: Literal["AVAILABILITY"]


class ResourceKind(WireModel):
    """A resource (room, person, device). Never blocks time."""

    kind: Literal["RESOURCE"]


PlanningObjectKind = Annotated[
    EventKind | TaskKind | DeadlineKind | AvailabilityKind | ResourceKind,
    Field(discriminator="kind"),
]


class SemanticVector(WireModel):
    """Eight scored traits of an object; carried, never used by planning."""

    importance: EvidenceField[float]
    urgency: EvidenceField[float]
    temporal_rigidity: EvidenceField[float]
    external_dependency: EvidenceField[float]
    human_dependency: EvidenceField[float]
    rescheduling_cost: EvidenceField[float]
    consequence_of_delay: EvidenceField[float]
    duration_flexibility: EvidenceField[float]


class PlanningObject(WireModel):
    """One object of the context.

    ``revision`` null means prospective (does not exist yet, can be created); a number means
    existing external state (can be moved). ``time`` is the object's half-open UTC range;
    ``timezone`` its IANA zone (used by ``EXPLICIT_DATE`` and ``TIMEZONE_INTEGRITY``).
    """

    id: Identifier
    revision: Revision | None = None
    kind: PlanningObjectKind
    calendar_id: Identifier
    integration_id: Identifier
    resource_ids: tuple[Identifier, ...]
    time: EvidenceField[TimeRange]
    timezone: TimeZoneId
    semantics: SemanticVector | None = None

    @property
    def is_existing(self) -> bool:
        """True when the object exists externally (``revision`` is not null)."""
        return self.revision is not None

    @property
    def known_time(self) -> TimeRange | None:
        """The ``RESOLVED/KNOWN`` time range, or None for any other state."""
        state = self.time.value
        if isinstance(state, Resolved) and isinstance(state.knowledge, Known):
            data: TimeRange = state.knowledge.data
            return data
        return None

    @property
    def time_missing(self) -> bool:
        """True when the time is exactly ``RESOLVED/MISSING`` (a prospective event's time)."""
        state = self.time.value
        return isinstance(state, Resolved) and isinstance(state.knowledge, Missing)

    @property
    def blocks_time(self) -> bool:
        """True for ``EVENT`` and ``TASK`` objects, the kinds whose known time is busy."""
        return isinstance(self.kind, EventKind | TaskKind)
