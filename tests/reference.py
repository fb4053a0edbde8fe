"""An independent, deliberately naive reference planner for property tests.

Written from the specification only (planner.md sections 5-8, cpir-0.2.md sections 6, 9
and 10); it shares no code with ``cerebri`` and works on the plain request dict.

Scope: requests that are valid, have exactly one target and carry no ``context.temporal``.
The reference does not validate; it trusts the caller (the strategies in
``strategies.py`` only build valid requests, and the property tests also assert that the
planner reports them valid).

Every grid position is checked with plain loops over all objects and constraints
(O(positions × (objects + constraints) × objects)); nothing is cached or indexed.
Instants are integer microseconds since the Unix epoch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

__all__ = [
    "ReferenceResult",
    "constraint_set",
    "constraint_sort_text",
    "format_instant",
    "hard_checks",
    "parse_instant",
    "reference_plan",
]

MICROS = 1_000_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

PREFERENCE_RANK = {
    "ExplicitCurrentRequest": 0,
    "SessionContext": 1,
    "PersonalLearned": 2,
    "GlobalLearned": 3,
    "Default": 4,
}
BLOCKING_KINDS = ("EVENT", "TASK")


# --------------------------------------------------------------------------------------
# Scalars
# --------------------------------------------------------------------------------------


def parse_instant(text: str) -> int:
    """RFC 3339 text -> integer microseconds since the epoch (UTC)."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"instant without offset: {text!r}")
    return (moment - EPOCH) // timedelta(microseconds=1)


def format_instant(micros: int) -> str:
    """Microseconds -> the reference's UTC ``Z`` form (fraction only when non-zero)."""
    moment = EPOCH + timedelta(microseconds=micros)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = moment.microsecond
    if fraction:
        digits = f"{fraction:06d}"
        text += "." + (digits[:3] if digits.endswith("000") else digits)
    return text + "Z"


def trunc_seconds_abs(micros: int) -> int:
    """``|trunc_seconds(x)|``: truncation toward zero, then absolute value."""
    return abs(micros) // MICROS


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --------------------------------------------------------------------------------------
# Request helpers (plain dicts)
# --------------------------------------------------------------------------------------


def known_range(field_value: dict[str, Any]) -> tuple[int, int] | None:
    """``required(false)`` of an object's ``time``: the range if RESOLVED/KNOWN."""
    value = field_value["value"]
    if value.get("processing") != "RESOLVED":
        return None
    knowledge = value["knowledge"]
    if knowledge["state"] != "KNOWN":
        return None
    data = knowledge["data"]
    return parse_instant(data["start"]), parse_instant(data["end"])


def required_duration(request: dict[str, Any], analysis_only: bool) -> tuple[int, bool]:
    """(seconds, uncertain) for the request duration; raises on anything else."""
    allow = analysis_only and request["policy"]["snapshot"]["allow_uncertain_duration"]
    value = request["duration"]["value"]
    assert value["processing"] == "RESOLVED", "reference expects a resolved duration"
    knowledge = value["knowledge"]
    if knowledge["state"] == "KNOWN":
        return int(knowledge["data"]), False
    if knowledge["state"] == "UNCERTAIN" and allow:
        return int(knowledge["data"]["value"]), True
    raise AssertionError("reference expects an acceptable duration")


def is_analysis_only(request: dict[str, Any]) -> bool:
    return request["scope"]["max_mutations"] == 0 or request["operation"] in (
        "FIND_SLOT",
        "ANALYZE",
    )


def derived_kind(obj: dict[str, Any]) -> str:
    return "CREATE_EVENT" if obj["revision"] is None else "MOVE_EVENT"


def scope_selects(scope: dict[str, Any], obj: dict[str, Any]) -> bool:
    calendars = scope.get("calendar_ids")
    if calendars is not None and obj["calendar_id"] not in calendars:
        return False
    object_ids = scope.get("object_ids")
    if object_ids is not None and obj["id"] not in object_ids:
        return False
    integrations = scope.get("integration_ids")
    if integrations is not None and obj["integration_id"] not in integrations:
        return False
    resources = scope.get("resource_ids")
    if resources is not None:
        if not resources or not obj["resource_ids"]:
            return False
        for resource in obj["resource_ids"]:
            if resource not in resources:
                return False
    return True


def scope_allows(scope: dict[str, Any], obj: dict[str, Any], start: int, end: int) -> bool:
    if not scope_selects(scope, obj):
        return False
    horizon = scope["time_range"]
    if start < parse_instant(horizon["start"]) or end > parse_instant(horizon["end"]):
        return False
    movable = scope.get("movable_object_ids")
    return not (obj["revision"] is not None and movable is not None and obj["id"] not in movable)


def capability_permits(request: dict[str, Any], obj: dict[str, Any], kind: str) -> bool:
    capability = request["planning_capability"]
    if not (capability["read"] and capability["plan"]):
        return False
    for grant in capability["mutations"]:
        if (
            grant["object_id"] == obj["id"]
            and grant["calendar_id"] == obj["calendar_id"]
            and grant["integration_id"] == obj["integration_id"]
            and grant["kind"] == kind
        ):
            return True
    return False


def policy_permits(request: dict[str, Any], kind: str) -> bool:
    snapshot = request["policy"]["snapshot"]
    if snapshot["mode"] in ("Shadow", "Suggestion"):
        return False
    return kind in snapshot["mutation"]["allowed_actions"]


# --------------------------------------------------------------------------------------
# Constraints
# --------------------------------------------------------------------------------------


def canonical_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """The rule re-serialised as the reference does (declaration key order, Z instants)."""
    kind = rule["kind"]
    if kind in ("NO_OVERLAP", "RECURRENCE_RULE"):
        return {"kind": kind}
    value = rule["value"]
    if kind in ("EXPLICIT_TIME", "AVAILABILITY_WINDOW"):
        value = {
            "start": format_instant(parse_instant(value["start"])),
            "end": format_instant(parse_instant(value["end"])),
        }
    elif kind in ("EARLIEST_START", "LATEST_END", "DEADLINE"):
        value = format_instant(parse_instant(value))
    elif kind == "EXTERNAL_LOCK":
        value = {"provenance": value["provenance"], "reason": value["reason"]}
    return {"kind": kind, "value": value}


def constraint_sort_text(spec: dict[str, Any]) -> str:
    return compact(
        {"object_id": spec["object_id"], "rule": spec["rule"], "evidence": spec["evidence"]}
    )


def constraint_set(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Request constraints plus fact-derived ones, evidence canonical, sorted by text."""
    specs = []
    for constraint in request["constraints"]:
        specs.append(
            {
                "object_id": constraint["object_id"],
                "rule": canonical_rule(constraint["rule"]),
                "evidence": list(constraint["evidence"]),
            }
        )
    for fact in request["context"]["facts"]:
        value = fact["value"]
        if value["kind"] == "DEADLINE":
            rule = {"kind": "DEADLINE", "value": format_instant(parse_instant(value["value"]))}
        elif value["kind"] == "EXTERNAL_LOCK":
            rule = {
                "kind": "EXTERNAL_LOCK",
                "value": {"provenance": fact["provenance"], "reason": "source fact"},
            }
        else:
            continue
        specs.append({"object_id": fact["object_id"], "rule": rule, "evidence": [fact["id"]]})
    for spec in specs:
        spec["evidence"] = sorted(set(spec["evidence"]))
    # Sorted, not deduplicated: identical constraints report identical violations twice.
    specs.sort(key=constraint_sort_text)
    return specs


@dataclass
class Timed:
    id: str
    start: int
    end: int
    timezone: str


def overlaps(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    return a_start < b_end and b_start < a_end


def local_date(micros: int, zone: str) -> str:
    moment = EPOCH + timedelta(microseconds=micros)
    return moment.astimezone(ZoneInfo(zone)).date().isoformat()


def violation(
    rule: dict[str, Any], object_id: str, reason: str, facts: list[str], blockers: list[str]
) -> dict[str, Any]:
    return {
        "HardConstraint": {
            "constraint": rule,
            "object_id": object_id,
            "reason": reason,
            "evidence": {
                "facts": list(facts),
                "blocking_objects": sorted(blockers),
                "blocking_occurrences": [],
            },
        }
    }


Verdict = tuple[str, list[str]] | None
"""A broken rule's reason and blocking object ids; ``None`` when the rule holds."""


def _outside(broken: bool) -> Verdict:
    return ("OutsideBounds", []) if broken else None


def _no_overlap(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    start, end = subject.start, subject.end
    blockers = [
        other.id
        for other in others
        if other.id != subject.id and overlaps(other.start, other.end, start, end)
    ]
    return ("Overlap", blockers) if blockers else None


def _explicit_time(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    want = (parse_instant(rule["value"]["start"]), parse_instant(rule["value"]["end"]))
    return _outside((subject.start, subject.end) != want)


def _explicit_date(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    try:
        return _outside(local_date(subject.start, subject.timezone) != rule["value"])
    except (OverflowError, ValueError):
        return _outside(True)


def _earliest_start(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    return _outside(subject.start < parse_instant(rule["value"]))


def _latest_end(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    return _outside(subject.end > parse_instant(rule["value"]))


def _min_duration(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    short = subject.end - subject.start < rule["value"] * MICROS
    return ("WrongDuration", []) if short else None


def _fixed_duration(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    wrong = subject.end - subject.start != rule["value"] * MICROS
    return ("WrongDuration", []) if wrong else None


def _availability(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    w_start = parse_instant(rule["value"]["start"])
    w_end = parse_instant(rule["value"]["end"])
    return _outside(not (w_start <= subject.start and subject.end <= w_end))


def _dependency(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    predecessor = next((other for other in others if other.id == rule["value"]), None)
    if predecessor is None:
        return ("DependencyMissing", [])
    if predecessor.end > subject.start:
        return ("DependencyOrder", [predecessor.id])
    return None


def _buffer(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    start, end = subject.start, subject.end
    buffer = rule["value"] * MICROS
    blockers: list[str] = []
    for other in others:
        if other.id == subject.id:
            continue
        if overlaps(other.start, other.end, start, end):
            blockers.append(other.id)
            continue
        gap = start - other.end if other.end <= start else other.start - end
        if gap < buffer:
            blockers.append(other.id)
    return ("InsufficientBuffer", blockers) if blockers else None


def _recurrence(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    return ("UnsupportedRecurrence", [])


def _timezone(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    return ("TimezoneMismatch", []) if subject.timezone != rule["value"] else None


def _lock(rule: Any, subject: Timed, original: Any, others: list[Timed]) -> Verdict:
    return ("Locked", []) if original != (subject.start, subject.end) else None


RULE_CHECKS: dict[str, Callable[[Any, Timed, Any, list[Timed]], Verdict]] = {
    "NO_OVERLAP": _no_overlap,
    "EXPLICIT_TIME": _explicit_time,
    "EXPLICIT_DATE": _explicit_date,
    "EARLIEST_START": _earliest_start,
    "LATEST_END": _latest_end,
    "DEADLINE": _latest_end,
    "MIN_DURATION": _min_duration,
    "FIXED_DURATION": _fixed_duration,
    "AVAILABILITY_WINDOW": _availability,
    "DEPENDENCY_ORDER": _dependency,
    "REQUIRED_BUFFER": _buffer,
    "RECURRENCE_RULE": _recurrence,
    "TIMEZONE_INTEGRITY": _timezone,
    "EXTERNAL_LOCK": _lock,
}
"""cpir-0.2.md section 9: each constraint kind's check."""


def check_constraint(
    spec: dict[str, Any],
    subject: Timed,
    original: tuple[int, int] | None,
    others: list[Timed],
) -> dict[str, Any] | None:
    """cpir-0.2.md section 9, one constraint on one object; ``None`` when satisfied."""
    rule = spec["rule"]
    check = RULE_CHECKS.get(rule["kind"])
    if check is None:
        raise AssertionError(f"unknown constraint kind {rule['kind']}")
    verdict = check(rule, subject, original, others)
    if verdict is None:
        return None
    reason, blockers = verdict
    return violation(rule, subject.id, reason, spec["evidence"], blockers)


# --------------------------------------------------------------------------------------
# Hard checks for one placement (planner.md section 6)
# --------------------------------------------------------------------------------------


def _limit_reasons(request: dict[str, Any], target: Any, analysis_only: bool) -> list[Any]:
    """Steps 2 and 3: the mutation and moved-object limits."""
    reasons: list[Any] = []
    if not analysis_only and (
        request["scope"]["max_mutations"] < 1
        or request["policy"]["snapshot"]["mutation"]["max_mutations"] < 1
    ):
        reasons.append("MutationLimit")
    moved = 1 if target is not None and target["revision"] is not None else 0
    if moved > request["budget"]["max_moved_objects"]:
        reasons.append("MovedObjectLimit")
    return reasons


def _resulting_world(
    objects: list[Any], target_id: str, start: int, end: int
) -> tuple[list[Timed], list[Timed]]:
    """Step 4: every timed object of the world with the placement (by id), and the busy ones."""
    final_objects: list[Timed] = []
    for obj in objects:
        if obj["id"] == target_id:
            final_objects.append(Timed(obj["id"], start, end, obj["timezone"]))
            continue
        known = known_range(obj["time"])
        if known is not None:
            final_objects.append(Timed(obj["id"], known[0], known[1], obj["timezone"]))
    final_objects.sort(key=lambda timed: timed.id)
    busy: list[Timed] = []
    for timed in final_objects:
        for obj in objects:
            if obj["id"] == timed.id and obj["kind"]["kind"] in BLOCKING_KINDS:
                busy.append(timed)
    return final_objects, busy


def _placement_reasons(
    request: dict[str, Any],
    target: Any,
    span: tuple[int, int],
    busy: list[Timed],
    analysis_only: bool,
) -> list[Any]:
    """Step 5: scope, duration, capability, policy and the implicit no-overlap."""
    target_id = target["id"]
    start, end = span
    reasons: list[Any] = []
    if not scope_allows(request["scope"], target, start, end):
        reasons.append({"Scope": target_id})
    original = known_range(target["time"])
    if (
        target["revision"] is not None
        and original is not None
        and original[1] - original[0] != end - start
    ):
        reasons.append({"InvalidDuration": target_id})
    seconds, _ = required_duration(request, analysis_only)
    if seconds * MICROS != end - start:
        reasons.append({"InvalidDuration": target_id})
    if not analysis_only:
        kind = derived_kind(target)
        if not capability_permits(request, target, kind):
            reasons.append({"Capability": target_id})
        if not policy_permits(request, kind):
            reasons.append({"Policy": target_id})
    implicit = {"object_id": target_id, "rule": {"kind": "NO_OVERLAP"}, "evidence": []}
    placed = Timed(target_id, start, end, target["timezone"])
    found = check_constraint(implicit, placed, None, busy)
    if found is not None:
        reasons.append(found)
    return reasons


def _constraint_reasons(
    request: dict[str, Any], objects: list[Any], final_objects: list[Timed], busy: list[Timed]
) -> list[Any]:
    """Steps 6 and 7: the constraint set against the resulting world."""
    reasons: list[Any] = []
    for spec in constraint_set(request):
        subject = next((t for t in final_objects if t.id == spec["object_id"]), None)
        if subject is None:
            reasons.append("InvalidTargets")
            continue
        subject_original = None
        for obj in objects:
            if obj["id"] == subject.id:
                subject_original = known_range(obj["time"])
        others = final_objects if spec["rule"]["kind"] == "DEPENDENCY_ORDER" else busy
        found = check_constraint(spec, subject, subject_original, others)
        if found is not None:
            reasons.append(found)
    return reasons


def hard_checks(request: dict[str, Any], target_id: str, start: int, end: int) -> list[Any]:
    objects = request["context"]["objects"]
    analysis_only = is_analysis_only(request)
    # 1. placement ids == target ids
    if sorted([target_id]) != sorted(request["target_ids"]):
        return ["InvalidTargets"]
    target = None
    for obj in objects:
        if obj["id"] == target_id:
            target = obj  # the last one of that id
    reasons = _limit_reasons(request, target, analysis_only)
    final_objects, busy = _resulting_world(objects, target_id, start, end)
    if target is None:
        return ["InvalidTargets"]
    reasons += _placement_reasons(request, target, (start, end), busy, analysis_only)
    return reasons + _constraint_reasons(request, objects, final_objects, busy)


# --------------------------------------------------------------------------------------
# Search, ranking and outcome (planner.md sections 5, 7, 8)
# --------------------------------------------------------------------------------------


@dataclass
class ReferenceResult:
    outcome: str
    assessment: str
    validation_state: str
    candidates: list[dict[str, Any]] = field(default_factory=list)
    rejections: list[dict[str, Any]] = field(default_factory=list)
    evaluated: int = 0
    exhausted: bool = False


def effective_preference(request: dict[str, Any]) -> tuple[str, int] | None:
    best: tuple[int, int, str] | None = None
    for preference in request["preferences"]["preferences"]:
        key = (
            PREFERENCE_RANK[preference["source"]],
            parse_instant(preference["preferred_start"]),
            preference["source"],
        )
        if best is None or key[:2] < best[:2]:
            best = key
    if best is None:
        return None
    return best[2], best[1]


def reference_plan(request: dict[str, Any]) -> ReferenceResult:
    """Brute-force answer for a valid, single-target request without temporal input."""
    assert "temporal" not in request["context"], "reference does not support temporal input"
    assert len(request["target_ids"]) == 1, "reference handles exactly one target"
    target_id = request["target_ids"][0]
    target = None
    for obj in request["context"]["objects"]:
        if obj["id"] == target_id:
            target = obj
    assert target is not None

    analysis_only = is_analysis_only(request)
    seconds, uncertain = required_duration(request, analysis_only)
    duration = seconds * MICROS
    step = request["granularity"] * MICROS
    horizon_start = parse_instant(request["scope"]["time_range"]["start"])
    horizon_end = parse_instant(request["scope"]["time_range"]["end"])
    budget = request["budget"]["max_candidates"]
    preference = effective_preference(request)
    mutation_count = 0 if analysis_only else 1
    original = known_range(target["time"])

    result = ReferenceResult(
        outcome="",
        assessment="",
        validation_state="ValidWithUncertainty" if uncertain else "Valid",
    )
    start = horizon_start
    while True:
        end = start + duration
        if end > horizon_end:
            result.exhausted = True
            break
        if result.evaluated >= budget:
            break
        result.evaluated += 1
        reasons = hard_checks(request, target_id, start, end)
        if reasons:
            result.rejections.append({"start": format_instant(start), "reasons": reasons})
        else:
            result.candidates.append(
                build_candidate(
                    start,
                    end,
                    target_id=target_id,
                    preference=preference,
                    mutation_count=mutation_count,
                    original=original,
                    uncertain=uncertain,
                )
            )
        start += step

    result.candidates.sort(
        key=lambda c: (c["cost"], c["mutation_count"], c["shifted_seconds"], c["_start"])
    )
    if result.candidates:
        result.outcome = "Solution"
        result.assessment = "ProvenOptimal" if result.exhausted else "BestFound"
    elif result.exhausted:
        result.outcome, result.assessment = "NoSolution", "Complete"
    else:
        result.outcome, result.assessment = "NeedsRelaxation", "BestFound"
    for candidate in result.candidates:
        del candidate["_start"]
    return result


def build_candidate(
    start: int,
    end: int,
    *,
    target_id: str,
    preference: tuple[str, int] | None,
    mutation_count: int,
    original: tuple[int, int] | None,
    uncertain: bool,
) -> dict[str, Any]:
    distance = None if preference is None else trunc_seconds_abs(start - preference[1])
    source = None if preference is None else preference[0]
    shift = 0 if original is None else trunc_seconds_abs(original[0] - start)
    cost = distance or 0
    explanation: list[dict[str, Any]] = [{"reason": "FeasibleWithinScope", "cost": 0}]
    if source is None:
        explanation.append({"reason": "EarliestTieBreak", "cost": 0})
    else:
        explanation.append({"reason": {"PreferredStart": source}, "cost": cost})
    if mutation_count == 0:
        explanation.append({"reason": "AnalysisOnly", "cost": 0})
    if uncertain:
        explanation.append({"reason": "DurationUncertain", "cost": 0})
    return {
        "_start": start,
        "start": format_instant(start),
        "end": format_instant(end),
        "object_id": target_id,
        "cost": cost,
        "mutation_count": mutation_count,
        "shifted_seconds": shift,
        "explanation": explanation,
        "ranking_features": {
            "schema_version": {"major": 0, "minor": 1},
            "preferred_start_distance_seconds": distance,
            "preferred_start_source": source,
            "mutation_count": mutation_count,
            "shift_seconds": shift,
        },
    }
