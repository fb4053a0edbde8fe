"""Facts and hard constraints (cpir-0.2.md sections 7.5 and 9).

Both are adjacently tagged on ``kind`` with the payload in ``value``::

    {"kind": "NO_OVERLAP"}
    {"kind": "EXPLICIT_TIME", "value": {"start": …, "end": …}}
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cerebri.cpir._base import WireModel
from cerebri.cpir.enums import Provenance
from cerebri.cpir.scalars import DurationSeconds, Identifier, TimeRange
from cerebri.temporal.calendar import LocalDate
from cerebri.temporal.instant import Instant
from cerebri.temporal.zones import TimeZoneId

__all__ = [
    "AvailabilityWindow",
    "ConstraintSpec",
    "Deadline",
    "DependencyOrder",
    "EarliestStart",
    "ExplicitDate",
    "ExplicitTime",
    "ExternalLock",
    "ExternalLockDetails",
    "Fact",
    "FactAvailability",
    "FactDeadline",
    "FactExternalLock",
    "FactScheduledTime",
    "FactValue",
    "FixedDuration",
    "HardConstraint",
    "LatestEnd",
    "MinDuration",
    "NoOverlap",
    "RecurrenceRule",
    "RequiredBuffer",
    "TimezoneIntegrity",
]


# --- facts -------------------------------------------------------------------------------


class FactScheduledTime(WireModel):
    """The object is scheduled at exactly this range (a consistency check)."""

    kind: Literal["SCHEDULED_TIME"]
    value: TimeRange


class FactDeadline(WireModel):
    """The object must end by this instant (becomes a hard ``DEADLINE``)."""

    kind: Literal["DEADLINE"]
    value: Instant


class FactExternalLock(WireModel):
    """The object may not move (becomes a hard ``EXTERNAL_LOCK``)."""

    kind: Literal["EXTERNAL_LOCK"]


class FactAvailability(WireModel):
    """The object's known time is exactly this range (a consistency check)."""

    kind: Literal["AVAILABILITY"]
    value: TimeRange


FactValue = Annotated[
    FactScheduledTime | FactDeadline | FactExternalLock | FactAvailability,
    Field(discriminator="kind"),
]


class Fact(WireModel):
    """A statement about an object from a fact source."""

    id: Identifier
    object_id: Identifier
    value: FactValue
    provenance: Provenance


# --- hard constraints ----------------------------------------------------------------------


class NoOverlap(WireModel):
    """No other blocking item may overlap the object."""

    kind: Literal["NO_OVERLAP"]


class ExplicitTime(WireModel):
    """The object's range must equal ``value``."""

    kind: Literal["EXPLICIT_TIME"]
    value: TimeRange


class ExplicitDate(WireModel):
    """The object must start on this local date in its own zone."""

    kind: Literal["EXPLICIT_DATE"]
    value: LocalDate


class EarliestStart(WireModel):
    """The object may not start before ``value``."""

    kind: Literal["EARLIEST_START"]
    value: Instant


class LatestEnd(WireModel):
    """The object may not end after ``value``."""

    kind: Literal["LATEST_END"]
    value: Instant


class Deadline(WireModel):
    """The object may not end after ``value``."""

    kind: Literal["DEADLINE"]
    value: Instant


class MinDuration(WireModel):
    """The object lasts at least ``value`` seconds."""

    kind: Literal["MIN_DURATION"]
    value: DurationSeconds


class FixedDuration(WireModel):
    """The object lasts exactly ``value`` seconds."""

    kind: Literal["FIXED_DURATION"]
    value: DurationSeconds


class AvailabilityWindow(WireModel):
    """The object must lie inside ``value``."""

    kind: Literal["AVAILABILITY_WINDOW"]
    value: TimeRange


class DependencyOrder(WireModel):
    """The object ``value`` must end at or before this object starts."""

    kind: Literal["DEPENDENCY_ORDER"]
    value: Identifier


class RequiredBuffer(WireModel):
    """At least ``value`` seconds between this object and every other blocking item."""

    kind: Literal["REQUIRED_BUFFER"]
    value: DurationSeconds


class RecurrenceRule(WireModel):
    """Reserved; always fails (fails closed)."""

    kind: Literal["RECURRENCE_RULE"]


class TimezoneIntegrity(WireModel):
    """The object's zone must be ``value``."""

    kind: Literal["TIMEZONE_INTEGRITY"]
    value: TimeZoneId


class ExternalLockDetails(WireModel):
    """Who locked the object and why."""

    provenance: Provenance
    reason: str


class ExternalLock(WireModel):
    """The object must keep its supplied known time."""

    kind: Literal["EXTERNAL_LOCK"]
    value: ExternalLockDetails


HardConstraint = Annotated[
    NoOverlap
    | ExplicitTime
    | ExplicitDate
    | EarliestStart
    | LatestEnd
    | Deadline
    | MinDuration
    | FixedDuration
    | AvailabilityWindow
    | DependencyOrder
    | RequiredBuffer
    | RecurrenceRule
    | TimezoneIntegrity
    | ExternalLock,
    Field(discriminator="kind"),
]


class ConstraintSpec(WireModel):
    """A hard rule on one context object, with the fact ids that support it."""

    object_id: Identifier
    rule: HardConstraint
    evidence: tuple[Identifier, ...]
