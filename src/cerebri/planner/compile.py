"""CPIR 0.2 snapshot compilation: recurring series become occurrences that block time
(planner.md section 3).

Compilation is atomic: the first failure aborts with one :class:`CompilationError` and no
partial output. Expansion budgets are shared across series, which are expanded in id order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cerebri._json import JSONValue, compact
from cerebri.cpir import (
    FACT_SOURCES,
    ContextSnapshot,
    ExistingSeries,
    ExpansionLimits,
    PlanningObject,
    Tagged,
    TemporalContext,
    TemporalSeries,
    TimeRange,
    range_wire,
)
from cerebri.planner.checks import BusyOccurrence
from cerebri.temporal.errors import TemporalError, TemporalRejected
from cerebri.temporal.freebusy import BusyInput, FreeBusyReport, free_busy
from cerebri.temporal.recurrence import Expansion, Occurrence, expand

__all__ = [
    "CompilationError",
    "CompiledSnapshot",
    "MaterializedOccurrence",
    "compile_snapshot",
    "occurrence_id",
]

MAX_SERIES = 32
MAX_OBJECTS = 256
MAX_OCCURRENCES = 1024
MAX_SERIES_EVIDENCE = 1024
MAX_DIAGNOSTIC_OCCURRENCES = 10_000
MAX_DATES = 36_600
MAX_EVIDENCE_BYTES = 1_048_576


class CompilationError(Exception):
    """Compilation stopped; ``variant`` is the wire ``CompilationError`` (planner.md 3.2).

    Internal to the planner: validation turns it into the issue ``{"Compilation": …}``.
    """

    def __init__(self, variant: Tagged) -> None:
        super().__init__(variant.sort_text)
        self.variant = variant


@dataclass(frozen=True, slots=True)
class MaterializedOccurrence:
    """One occurrence with its identity, source revision, provenance and evidence."""

    id: str
    series_id: str
    source_revision: int
    provenance: str
    evidence: tuple[str, ...]
    occurrence: Occurrence

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"id","series_id","source_revision","provenance","evidence","occurrence"}``."""
        return {
            "id": self.id,
            "series_id": self.series_id,
            "source_revision": self.source_revision,
            "provenance": self.provenance,
            "evidence": list(self.evidence),
            "occurrence": self.occurrence.to_wire(),
        }


@dataclass(frozen=True, slots=True)
class CompiledSnapshot:
    """The compiled context: occurrences (sorted by id), per-series expansions (series-id
    order) and the free/busy report of the horizon."""

    source_revision: int
    horizon: TimeRange
    occurrences: tuple[MaterializedOccurrence, ...]
    series: tuple[tuple[TemporalSeries, Expansion], ...]
    availability: FreeBusyReport

    def busy(self) -> tuple[BusyOccurrence, ...]:
        """Occurrences as blocking items for the hard checks (full ranges, nanoseconds)."""
        return tuple(
            BusyOccurrence(o.id, o.occurrence.start.ns, o.occurrence.end.ns, o.evidence)
            for o in self.occurrences
        )

    def to_wire(self) -> dict[str, JSONValue]:
        """The ``CompiledContextSnapshot`` wire object (planner.md 3.4)."""
        return {
            "source_revision": self.source_revision,
            "horizon": range_wire(self.horizon.start, self.horizon.end),
            "occurrences": [o.to_wire() for o in self.occurrences],
            "series": [
                {"series": series.model_dump(mode="json"), "expansion": expansion.to_wire()}
                for series, expansion in self.series
            ],
            "availability": self.availability.to_wire(),
        }


def occurrence_id(series_id: str, date: str, local_time: str, timezone: str) -> str:
    """``occ-`` + hex SHA-256 of the compact JSON ``[series, date, local time, zone]``.

    Independent of horizon, clipping, revision, duration and fold choice (planner.md 3.3).
    """
    key = compact([series_id, date, local_time, timezone])
    return "occ-" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def _fail(name: str, payload: JSONValue = None) -> CompilationError:
    return CompilationError(Tagged(name, payload))


def _check_series(series: list[TemporalSeries], object_ids: set[str]) -> None:
    seen: set[str] = set()
    for entry in series:
        if entry.id in seen:
            raise _fail("DuplicateSeries", entry.id)
        seen.add(entry.id)
        if entry.id in object_ids:
            raise _fail("IdentityCollision", entry.id)
        if not isinstance(entry.state, ExistingSeries):
            raise _fail("ProspectiveSeries", entry.id)
        if entry.provenance not in FACT_SOURCES:
            raise _fail("InvalidProvenance", entry.id)


def _object_inputs(objects: tuple[PlanningObject, ...]) -> list[BusyInput]:
    inputs: list[BusyInput] = []
    for obj in sorted((o for o in objects if o.blocks_time), key=lambda o: o.id):
        time = obj.known_time
        if time is not None:
            inputs.append(BusyInput(time.start, time.end))
            continue
        if obj.is_existing or not obj.time_missing:
            raise _fail("UnknownObjectTime", obj.id)
    return inputs


def compile_snapshot(context: ContextSnapshot, horizon: TimeRange) -> CompiledSnapshot | None:
    """Compile ``context.temporal`` against the planning horizon (planner.md 3.1).

    Returns None when the context has no temporal input.

    Raises:
        CompilationError: with the first failure, e.g. ``"HorizonMismatch"``,
            ``{"DuplicateSeries": id}`` or ``{"Temporal": "OccurrenceLimitExceeded"}``.
    """
    temporal = context.temporal
    if temporal is None:
        return None
    _check_limits(temporal, horizon, len(context.objects))
    ordered = sorted(temporal.series, key=lambda s: s.id)
    object_ids = {o.id for o in context.objects}
    _check_series(ordered, object_ids)
    produced, compiled_series = _expand_series(ordered, horizon, temporal.limits, object_ids)
    occurrences = tuple(produced[k] for k in sorted(produced))
    inputs = _object_inputs(context.objects)
    inputs.extend(BusyInput(o.occurrence.start, o.occurrence.end) for o in occurrences)
    try:
        availability = free_busy(horizon.start, horizon.end, inputs, temporal.coverage)
    except TemporalRejected as rejected:
        raise _fail("Temporal", rejected.error.value) from None
    return CompiledSnapshot(
        context.revision, horizon, occurrences, tuple(compiled_series), availability
    )


def _check_limits(temporal: TemporalContext, horizon: TimeRange, object_count: int) -> None:
    """``HorizonMismatch``, ``InputLimit`` or ``{"Temporal": "InputLimit"}`` when the
    temporal input does not match the horizon or exceeds a limit (checked in that order)."""
    if temporal.horizon.start != horizon.start or temporal.horizon.end != horizon.end:
        raise _fail("HorizonMismatch")
    limits = temporal.limits
    if (
        len(temporal.series) > MAX_SERIES
        or object_count > MAX_OBJECTS
        or limits.max_occurrences > MAX_OCCURRENCES
        or any(len(s.evidence) > MAX_SERIES_EVIDENCE for s in temporal.series)
    ):
        raise _fail("InputLimit")
    if limits.max_occurrences > MAX_DIAGNOSTIC_OCCURRENCES or limits.max_dates > MAX_DATES:
        raise _fail("Temporal", TemporalError.INPUT_LIMIT.value)


def _expand_series(
    ordered: list[TemporalSeries],
    horizon: TimeRange,
    limits: ExpansionLimits,
    object_ids: set[str],
) -> tuple[dict[str, MaterializedOccurrence], list[tuple[TemporalSeries, Expansion]]]:
    """Every occurrence of the series (by occurrence id) and each series with its expansion,
    in id order; the occurrence and date budgets of ``limits`` are shared by all series."""
    remaining_occurrences = limits.max_occurrences
    remaining_dates = limits.max_dates
    evidence_bytes = 0
    produced: dict[str, MaterializedOccurrence] = {}
    compiled_series: list[tuple[TemporalSeries, Expansion]] = []
    for entry in ordered:
        try:
            expansion = expand(
                entry.rule,
                horizon.start,
                horizon.end,
                max_occurrences=remaining_occurrences,
                max_dates=remaining_dates,
            )
        except TemporalRejected as rejected:
            raise _fail("Temporal", rejected.error.value) from None
        remaining_occurrences -= len(expansion.occurrences)
        remaining_dates -= expansion.examined_dates
        evidence = tuple(sorted(set(entry.evidence)))
        evidence_bytes += sum(len(e) + 3 for e in evidence) * len(expansion.occurrences)
        if evidence_bytes > MAX_EVIDENCE_BYTES:
            raise _fail("InputLimit")
        _materialize(entry, expansion, evidence, produced, object_ids)
        compiled_series.append((entry.model_copy(update={"evidence": evidence}), expansion))
    return produced, compiled_series


def _materialize(
    entry: TemporalSeries,
    expansion: Expansion,
    evidence: tuple[str, ...],
    produced: dict[str, MaterializedOccurrence],
    object_ids: set[str],
) -> None:
    """Add the occurrences of ``entry`` to ``produced`` (``IdentityCollision`` when an id is
    already taken by an occurrence or an object)."""
    rule = entry.rule
    assert isinstance(entry.state, ExistingSeries)
    for occurrence in expansion.occurrences:
        oid = occurrence_id(
            entry.id, occurrence.date.format(), occurrence.local_time.format(), rule.timezone
        )
        if oid in produced or oid in object_ids:
            raise _fail("IdentityCollision", oid)
        produced[oid] = MaterializedOccurrence(
            oid, entry.id, entry.state.revision, entry.provenance.value, evidence, occurrence
        )
