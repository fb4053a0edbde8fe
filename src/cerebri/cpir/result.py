"""Result-side records: the ValidationReport and the PlanningResult (planner.md 2.1, 8.1).

Result records are frozen dataclasses with an explicit ``to_wire()`` rather than pydantic
models: cerebri only writes them, the byte layout (key order, externally tagged variants) is
the contract, and a search may build hundreds of thousands of rejections
(docs/decisions/0003-result-records.md).

Externally tagged values (issues, rejection reasons, plan reasons) are :class:`Tagged`:
a unit variant is written as a bare string (``"InputLimit"``), a payload variant as a
one-key object (``{"ScopeViolation": "new-event"}``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Protocol

from cerebri._json import JSONValue, compact
from cerebri.cpir.arguments import invalid_argument
from cerebri.cpir.enums import PreferenceSource
from cerebri.cpir.scalars import Revision, TimeRange
from cerebri.temporal.instant import Instant

__all__ = [
    "IN_PLACE_OBJECTIVE",
    "OBJECTIVE",
    "RESCHEDULE_OBJECTIVE",
    "Assessment",
    "ConstraintViolation",
    "Outcome",
    "Placement",
    "PlanningResult",
    "ProposedPlan",
    "RankedCandidate",
    "RankingFeatures",
    "Rejection",
    "ScoreComponent",
    "SearchSpace",
    "Tagged",
    "ValidationReport",
    "ValidationState",
    "ViolationReason",
    "range_wire",
]

OBJECTIVE = "preferred-start-distance-seconds; mutations; shift-seconds; start; object-id"
"""The fixed objective literal of ``search_space`` (planner.md 5)."""

RESCHEDULE_OBJECTIVE = "disruption-class; shift-seconds; " + OBJECTIVE
"""The objective of a ``RESCHEDULE`` search: least disruption first (decision 0049)."""

IN_PLACE_OBJECTIVE = "current-start"
"""The objective of ``CANCEL`` and ``UPDATE``: no search, the one position at the event's
current start is evaluated (decision 0049)."""


def range_wire(start: Instant, end: Instant) -> dict[str, JSONValue]:
    """``{"start": …, "end": …}`` with UTC ``Z`` instants.

    Raises :class:`~cerebri.errors.InvalidArgumentError` (``cpir.invalid_argument``) unless
    both are :class:`~cerebri.temporal.Instant` (two ``isinstance`` checks)."""
    if not isinstance(start, Instant) or not isinstance(end, Instant):
        raise invalid_argument(
            f"range_wire() needs two Instants, got {type(start).__name__} and {type(end).__name__}"
        )
    return {"start": start.format(), "end": end.format()}


class WireValue(Protocol):
    """A record that writes itself as JSON (``to_wire``)."""

    def to_wire(self) -> JSONValue: ...


@dataclass(frozen=True, slots=True)
class Tagged:
    """An externally tagged variant: ``name`` alone, or ``{name: payload}``.

    ``payload`` is a JSON value, or a record with ``to_wire()`` that is encoded only when the
    variant is written (a search may build hundreds of thousands of rejections).
    """

    name: str
    payload: JSONValue | WireValue = None

    def to_wire(self) -> JSONValue:
        """The bare name for a unit variant, else a one-key object."""
        payload = self.payload
        if payload is None:
            return self.name
        if hasattr(payload, "to_wire"):
            return {self.name: payload.to_wire()}
        return {self.name: payload}

    @property
    def sort_text(self) -> str:
        """Compact JSON text; issues are sorted and de-duplicated by it (planner.md 2.3)."""
        return compact(self.to_wire())


class ValidationState(StrEnum):
    """Overall verdict of validation."""

    VALID = "Valid"
    VALID_WITH_UNCERTAINTY = "ValidWithUncertainty"
    INSUFFICIENT_INFORMATION = "InsufficientInformation"


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """What is known, missing or uncertain. ``issues`` is sorted and free of duplicates."""

    state: ValidationState
    issues: tuple[Tagged, ...]

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"state": …, "issues": [...]}``."""
        return {"state": self.state.value, "issues": [i.to_wire() for i in self.issues]}


class Outcome(StrEnum):
    """What the search found (planner.md 8)."""

    SOLUTION = "Solution"
    NO_SOLUTION = "NoSolution"
    NEEDS_RELAXATION = "NeedsRelaxation"
    INSUFFICIENT_INFORMATION = "InsufficientInformation"


class Assessment(StrEnum):
    """How much the search can claim about what it found (planner.md 8)."""

    PROVEN_OPTIMAL = "ProvenOptimal"
    COMPLETE = "Complete"
    BEST_FOUND = "BestFound"


class ViolationReason(StrEnum):
    """Why a hard constraint failed."""

    OVERLAP = "Overlap"
    OUTSIDE_BOUNDS = "OutsideBounds"
    WRONG_DURATION = "WrongDuration"
    DEPENDENCY_MISSING = "DependencyMissing"
    DEPENDENCY_ORDER = "DependencyOrder"
    INSUFFICIENT_BUFFER = "InsufficientBuffer"
    TIMEZONE_MISMATCH = "TimezoneMismatch"
    LOCKED = "Locked"
    UNSUPPORTED_RECURRENCE = "UnsupportedRecurrence"


@dataclass(frozen=True, slots=True)
class ConstraintViolation:
    """One failed hard constraint; ``constraint`` is the rule as written in the request."""

    constraint: JSONValue
    object_id: str
    reason: ViolationReason
    facts: tuple[str, ...] = ()
    blocking_objects: tuple[str, ...] = ()
    blocking_occurrences: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, JSONValue]:
        """The ``ConstraintViolation`` wire object (planner.md 6)."""
        return {
            "constraint": self.constraint,
            "object_id": self.object_id,
            "reason": self.reason.value,
            "evidence": {
                "facts": list(self.facts),
                "blocking_objects": list(self.blocking_objects),
                "blocking_occurrences": list(self.blocking_occurrences),
            },
        }

    def as_reason(self) -> Tagged:
        """This violation as the rejection reason ``{"HardConstraint": …}``."""
        return Tagged("HardConstraint", self)


@dataclass(frozen=True, slots=True)
class Rejection:
    """A rejected grid start and every reason, in check order (never empty)."""

    start: Instant
    reasons: tuple[Tagged, ...]

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"start": …, "reasons": [...]}``."""
        return {"start": self.start.format(), "reasons": [r.to_wire() for r in self.reasons]}


@dataclass(frozen=True, slots=True)
class Placement:
    """Object ``object_id`` placed at the half-open UTC ``range``."""

    object_id: str
    range: TimeRange

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"object_id": …, "range": {"start": …, "end": …}}``."""
        return {"object_id": self.object_id, "range": range_wire(self.range.start, self.range.end)}


@dataclass(frozen=True)
class ProposedPlan:
    """A proposal: placements against context revision ``source_revision``.

    ``id`` is ``"p-"`` + the SHA-256 digest of the canonical request and placements
    (planner.md 9.1); it is computed on first access.
    """

    source_revision: Revision
    placements: tuple[Placement, ...]
    _digest: Callable[[tuple[Placement, ...]], str] = field(repr=False, compare=False)

    @cached_property
    def id(self) -> str:
        """The content-addressed plan id, ``p-`` followed by 64 lowercase hex digits."""
        return self._digest(self.placements)

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"id": …, "source_revision": …, "placements": [...]}``."""
        return {
            "id": self.id,
            "source_revision": self.source_revision,
            "placements": [p.to_wire() for p in self.placements],
        }


@dataclass(frozen=True, slots=True)
class ScoreComponent:
    """One line of a candidate's explanation: a reason and its cost in seconds."""

    reason: Tagged
    cost: int

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"reason": …, "cost": n}``."""
        return {"reason": self.reason.to_wire(), "cost": self.cost}


@dataclass(frozen=True, slots=True)
class RankingFeatures:
    """Ranking features, schema 0.1; the two nullable values are both set or both None."""

    preferred_start_distance_seconds: int | None
    preferred_start_source: PreferenceSource | None
    mutation_count: int
    shift_seconds: int

    def to_wire(self) -> dict[str, JSONValue]:
        """The five-key feature object (planner.md 7)."""
        source = self.preferred_start_source
        return {
            "schema_version": {"major": 0, "minor": 1},
            "preferred_start_distance_seconds": self.preferred_start_distance_seconds,
            "preferred_start_source": None if source is None else source.value,
            "mutation_count": self.mutation_count,
            "shift_seconds": self.shift_seconds,
        }


@dataclass(frozen=True)
class RankedCandidate:
    """A feasible placement with its cost, explanation and ranking key.

    Candidates are ordered by ``ordering_key``: ``(cost, mutation_count, shifted_seconds,
    start, object_id)`` ascending, with ``cost`` the preference distance in whole seconds.
    """

    proposed: ProposedPlan
    cost: int
    mutation_count: int
    shifted_seconds: int
    start: Instant
    object_id: str
    explanation: tuple[ScoreComponent, ...]
    ranking_features: RankingFeatures

    @property
    def ordering_key(self) -> tuple[int, int, int, Instant, str]:
        """The total order of candidates (planner.md 7)."""
        return (self.cost, self.mutation_count, self.shifted_seconds, self.start, self.object_id)

    def to_wire(self) -> dict[str, JSONValue]:
        """The ``RankedCandidate`` wire object (planner.md 7)."""
        start = self.start.format()
        return {
            "proposed": self.proposed.to_wire(),
            "cost": self.cost,
            "mutation_count": self.mutation_count,
            "shifted_seconds": self.shifted_seconds,
            "start": start,
            "object_id": self.object_id,
            "explanation": [c.to_wire() for c in self.explanation],
            "ordering_key": {
                "preference_distance_seconds": self.cost,
                "mutation_count": self.mutation_count,
                "shifted_seconds": self.shifted_seconds,
                "start": start,
                "object_id": self.object_id,
            },
            "ranking_features": self.ranking_features.to_wire(),
        }


@dataclass(frozen=True, slots=True)
class SearchSpace:
    """The declared grid and how much of it was evaluated."""

    horizon: TimeRange
    granularity: int
    evaluated: int
    exhausted: bool
    objective: str = OBJECTIVE

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"horizon", "granularity", "objective", "evaluated", "exhausted"}``."""
        return {
            "horizon": range_wire(self.horizon.start, self.horizon.end),
            "granularity": self.granularity,
            "objective": self.objective,
            "evaluated": self.evaluated,
            "exhausted": self.exhausted,
        }


@dataclass(frozen=True, slots=True)
class PlanningResult:
    """The planner's answer (planner.md 8.1). A refusal is an answer too.

    ``compilation`` is the compiled CPIR 0.2 snapshot in wire form, or None.
    ``dependency_graph`` is the graph's wire form. ``batch`` is the batch optimiser's
    report for an ``OPTIMIZE`` (decision 0070), or None: then the key is left out, so every
    other answer keeps its bytes.
    """

    outcome: Outcome
    assessment: Assessment
    validation: ValidationReport
    candidates: tuple[RankedCandidate, ...]
    rejections: tuple[Rejection, ...]
    search_space: SearchSpace
    compilation: JSONValue
    dependency_graph: JSONValue
    batch: JSONValue = None

    def to_wire(self) -> dict[str, JSONValue]:
        """The ``PlanningResult`` JSON object, keys in the reference's order (then
        ``batch`` when present)."""
        wire: dict[str, JSONValue] = {
            "outcome": self.outcome.value,
            "assessment": self.assessment.value,
            "validation": self.validation.to_wire(),
            "candidates": [c.to_wire() for c in self.candidates],
            "conflicts": {"rejections": [r.to_wire() for r in self.rejections]},
            "search_space": self.search_space.to_wire(),
            "compilation": self.compilation,
            "dependency_graph": self.dependency_graph,
        }
        if self.batch is not None:
            wire["batch"] = self.batch
        return wire
