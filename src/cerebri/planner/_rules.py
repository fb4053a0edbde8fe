"""The constraints of a request, and the checks of rules that look at one span only
(planner.md 6, step 7). Used by :class:`cerebri.planner.checks.PlacementChecker`.

All instants are integer nanoseconds since the Unix epoch; ranges are half-open.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import Any

from cerebri._json import JSONValue, compact
from cerebri.cpir import (
    AvailabilityWindow,
    Deadline,
    EarliestStart,
    ExplicitDate,
    ExplicitTime,
    ExternalLock,
    FactDeadline,
    FactExternalLock,
    FixedDuration,
    LatestEnd,
    MinDuration,
    PlanningObject,
    PlanningRequest,
    RecurrenceRule,
    TimezoneIntegrity,
    ViolationReason,
)
from cerebri.temporal import Instant, local_date_of

__all__ = ["Constraint", "Span", "constraint_set", "simple_test"]

NS = 1_000_000_000
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Constraint:
    object_id: str
    rule_wire: JSONValue
    rule: object
    facts: tuple[str, ...]


def constraint_set(request: PlanningRequest) -> list[Constraint]:
    """Request constraints plus fact-derived ones, sorted by compact JSON (step 6)."""
    entries: list[tuple[str, Constraint]] = []

    def add(object_id: str, rule: object, rule_wire: JSONValue, evidence: Sequence[str]) -> None:
        facts = tuple(sorted(set(evidence)))
        text = compact({"object_id": object_id, "rule": rule_wire, "evidence": list(facts)})
        entries.append((text, Constraint(object_id, rule_wire, rule, facts)))

    for spec in request.constraints:
        add(spec.object_id, spec.rule, spec.rule.model_dump(mode="json"), spec.evidence)
    for fact in request.context.facts:
        if isinstance(fact.value, FactDeadline):
            rule_wire: JSONValue = {"kind": "DEADLINE", "value": fact.value.value.format()}
            add(
                fact.object_id,
                Deadline(kind="DEADLINE", value=fact.value.value),
                rule_wire,
                [fact.id],
            )
        elif isinstance(fact.value, FactExternalLock):
            details: dict[str, JSONValue] = {
                "provenance": fact.provenance.value,
                "reason": "source fact",
            }
            lock = ExternalLock.model_validate_json(
                compact({"kind": "EXTERNAL_LOCK", "value": details})
            )
            add(fact.object_id, lock, {"kind": "EXTERNAL_LOCK", "value": details}, [fact.id])
    entries.sort(key=lambda entry: entry[0])
    return [constraint for _, constraint in entries]


SpanTest = Callable[[Span], ViolationReason | None]
_BOUNDS = ViolationReason.OUTSIDE_BOUNDS


def _explicit_time(rule: ExplicitTime, obj: PlanningObject) -> SpanTest:
    want = (rule.value.start.ns, rule.value.end.ns)
    return lambda span: None if span == want else _BOUNDS


def _explicit_date(rule: ExplicitDate, obj: PlanningObject) -> SpanTest:
    date, zone_name = rule.value, obj.timezone

    def on_date(span: Span) -> ViolationReason | None:
        local = local_date_of(Instant(span[0]), zone_name)
        return None if local is not None and local == date else _BOUNDS

    return on_date


def _earliest_start(rule: EarliestStart, obj: PlanningObject) -> SpanTest:
    earliest = rule.value.ns
    return lambda span: _BOUNDS if span[0] < earliest else None


def _latest_end(rule: LatestEnd | Deadline, obj: PlanningObject) -> SpanTest:
    latest = rule.value.ns
    return lambda span: _BOUNDS if span[1] > latest else None


def _min_duration(rule: MinDuration, obj: PlanningObject) -> SpanTest:
    minimum = rule.value * NS
    return lambda span: ViolationReason.WRONG_DURATION if span[1] - span[0] < minimum else None


def _fixed_duration(rule: FixedDuration, obj: PlanningObject) -> SpanTest:
    exact = rule.value * NS
    return lambda span: ViolationReason.WRONG_DURATION if span[1] - span[0] != exact else None


def _availability_window(rule: AvailabilityWindow, obj: PlanningObject) -> SpanTest:
    w0, w1 = rule.value.start.ns, rule.value.end.ns
    return lambda span: None if w0 <= span[0] and span[1] <= w1 else _BOUNDS


def _recurrence(rule: RecurrenceRule, obj: PlanningObject) -> SpanTest:
    return lambda span: ViolationReason.UNSUPPORTED_RECURRENCE


def _timezone_integrity(rule: TimezoneIntegrity, obj: PlanningObject) -> SpanTest:
    verdict = None if obj.timezone == rule.value else ViolationReason.TIMEZONE_MISMATCH
    return lambda span: verdict


def _external_lock(rule: ExternalLock, obj: PlanningObject) -> SpanTest:
    original = obj.known_time
    kept = None if original is None else (original.start.ns, original.end.ns)
    return lambda span: None if kept is not None and span == kept else (ViolationReason.LOCKED)


_SIMPLE_TESTS: tuple[tuple[type | UnionType, Callable[[Any, PlanningObject], SpanTest]], ...] = (
    (ExplicitTime, _explicit_time),
    (ExplicitDate, _explicit_date),
    (EarliestStart, _earliest_start),
    (LatestEnd | Deadline, _latest_end),
    (MinDuration, _min_duration),
    (FixedDuration, _fixed_duration),
    (AvailabilityWindow, _availability_window),
    (RecurrenceRule, _recurrence),
    (TimezoneIntegrity, _timezone_integrity),
    (ExternalLock, _external_lock),
)
"""Each rule kind that looks at the placed span alone, with the builder of its test (the
first ``isinstance`` match wins)."""


def simple_test(rule: object, obj: PlanningObject) -> SpanTest:
    """The verdict of one rule that looks at the placed span alone (planner.md 6, step 7):
    ``None`` when the span satisfies it, else the violation reason."""
    for kind, build in _SIMPLE_TESTS:
        if isinstance(rule, kind):
            return build(rule, obj)
    raise TypeError(f"unhandled constraint {rule!r}")  # pragma: no cover - exhaustive
