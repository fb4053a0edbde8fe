"""Hypothesis strategies for random, *valid* single-target CPIR 0.2 requests (dict form).

Shape: a 1-3 hour horizon on a fixed day (several UTC start hours, so local dates differ
between zones), 0-6 busy EVENT/TASK objects, some AVAILABILITY/DEADLINE/RESOURCE objects,
one EVENT target (prospective or existing, with the grants that make validation pass),
0-4 constraints of all fourteen kinds, 0-2 DEADLINE/EXTERNAL_LOCK facts (plus harmless
consistent SCHEDULED_TIME facts), 0-3 preferences at arbitrary (also sub-second) offsets.
No ``context.temporal`` is ever generated. Instants are whole seconds (preferences may add
milliseconds); some are written with a non-UTC offset instead of ``Z``. Some requests carry
near-twin constraints (equal up to evidence or lock reason) or exact duplicates, so the
compact-JSON ordering and the "sorted, not deduplicated" rule of planner.md 6.6 matter.

Validity rules kept here (cpir-0.2.md sections 6, 7, 9, 11; planner.md 2.3):
* existing objects use a fact-source provenance; non-target Event/Task/Availability
  objects have a KNOWN time; a prospective target's time is RESOLVED/MISSING;
* the target is selected by every scope filter; mutating requests carry a matching
  capability grant and a policy that permits the derived kind;
* DEPENDENCY_ORDER edges follow a random total order of the object ids (no cycles,
  no missing references);
* fact and object ids are unique; SCHEDULED_TIME facts repeat the object's known time.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

__all__ = ["TARGET", "instant", "requests", "shuffled"]

TARGET = "t"
DAY = datetime(2026, 10, 24, tzinfo=UTC)  # Berlin/London change clocks on 2026-10-25
ZONES = (
    "UTC",
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "Asia/Kolkata",
    "Pacific/Kiritimati",
    "Pacific/Pago_Pago",
    "Australia/Lord_Howe",
)
CALENDARS = ("work", "home")
INTEGRATIONS = ("mock", "ics")
RESOURCES = ("room-a", "room-b", "person-a")
FACT_SOURCES = ("USER_EXPLICIT", "INTEGRATION_FACT", "SYSTEM_FACT")
PROVENANCES = (*FACT_SOURCES, "PERSONAL_LEARNED", "GLOBAL_LEARNED", "MODEL_INFERENCE", "DEFAULT")
PREFERENCE_SOURCES = (
    "ExplicitCurrentRequest",
    "SessionContext",
    "PersonalLearned",
    "GlobalLearned",
    "Default",
)
MODES = ("Local", "Test", "Shadow", "Suggestion", "Confirmation", "LimitedAutomation")
MUTATING_MODES = ("Local", "Test", "Confirmation", "LimitedAutomation")
EVIDENCE_IDS = ("e1", "e2", "e3", "f-a", "f-b", "z")
# Reasons that sort differently as raw text and as JSON text (quote/backslash escapes,
# non-ASCII written raw, a control character), so constraint order is exercised.
LOCK_REASONS = ("locked", "source fact", "say #1", 'say "1"', "say ü", "say z", "tab\tx", "")
OFFSETS = (
    *(None, None, None),
    *(timezone(timedelta(hours=2)), timezone(timedelta(hours=-5))),
    *(timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=14))),
)
INSTANT_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")
CONSTRAINT_KINDS = (
    "NO_OVERLAP",
    "EXPLICIT_TIME",
    "EXPLICIT_DATE",
    "EARLIEST_START",
    "LATEST_END",
    "DEADLINE",
    "MIN_DURATION",
    "FIXED_DURATION",
    "AVAILABILITY_WINDOW",
    "DEPENDENCY_ORDER",
    "REQUIRED_BUFFER",
    "RECURRENCE_RULE",
    "TIMEZONE_INTEGRITY",
    "EXTERNAL_LOCK",
)
# Kinds that rarely reject every position are drawn more often, so candidates survive.
WEIGHTED_KINDS = (
    *CONSTRAINT_KINDS,
    *("NO_OVERLAP", "EARLIEST_START", "LATEST_END", "DEADLINE", "MIN_DURATION"),
    *("AVAILABILITY_WINDOW", "DEPENDENCY_ORDER", "REQUIRED_BUFFER", "EXPLICIT_DATE"),
)


def instant(moment: datetime) -> str:
    """UTC ``Z`` text; the fraction (milliseconds only) is written when non-zero."""
    text = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond // 1000:03d}"
    return text + "Z"


def time_range(start: datetime, end: datetime) -> dict[str, str]:
    return {"start": instant(start), "end": instant(end)}


def evidence_field(value: dict[str, Any], provenance: str, evidence: list[str]) -> dict[str, Any]:
    return {"value": value, "provenance": provenance, "confidence": None, "evidence": evidence}


def known(data: Any) -> dict[str, Any]:
    return {"processing": "RESOLVED", "knowledge": {"state": "KNOWN", "data": data}}


MISSING = {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}}
UNKNOWN = {"processing": "RESOLVED", "knowledge": {"state": "UNKNOWN"}}
UNRESOLVED = {"processing": "UNRESOLVED"}

evidence_lists = st.lists(st.sampled_from(EVIDENCE_IDS), max_size=3)


def one_in(draw: st.DrawFn, n: int) -> bool:
    """True with probability about 1/n (the rare branch is the non-simplest value)."""
    return draw(st.sampled_from([False] * (n - 1) + [True]))


@st.composite
def _range_near(
    draw: st.DrawFn, start: datetime, end: datetime, lengths: st.SearchStrategy[int]
) -> tuple[datetime, datetime]:
    """A range starting up to 30 min around the horizon, on minute or second offsets."""
    span = int((end - start).total_seconds())
    minute = draw(st.booleans())
    if minute:
        offset = 60 * draw(st.integers(-30, span // 60 + 30))
    else:
        offset = draw(st.integers(-1800, span + 1800))
    length = draw(lengths)
    begin = start + timedelta(seconds=offset)
    return begin, begin + timedelta(seconds=length)


def _make_object(
    object_id: str,
    kind: dict[str, Any],
    *,
    revision: int | None,
    time: dict[str, Any],
    provenance: str,
    calendar: str,
    integration: str,
    resources: list[str],
    zone: str,
    evidence: list[str],
) -> dict[str, Any]:
    return {
        "id": object_id,
        "revision": revision,
        "kind": kind,
        "calendar_id": calendar,
        "integration_id": integration,
        "resource_ids": resources,
        "time": evidence_field(time, provenance, evidence),
        "timezone": zone,
        "semantics": None,
    }


@st.composite
def _context_object(
    draw: st.DrawFn, object_id: str, kind_name: str, start: datetime, end: datetime
) -> dict[str, Any]:
    existing = draw(st.booleans())
    revision = draw(st.integers(1, 9)) if existing else None
    provenance = draw(st.sampled_from(FACT_SOURCES if existing else PROVENANCES))
    if kind_name == "TASK":
        kind: dict[str, Any] = {
            "kind": "TASK",
            "details": {
                "splittable": draw(st.booleans()),
                "interruptible": draw(st.booleans()),
                "minimum_chunk": None,
                "preferred_chunk": None,
                "maximum_chunk_count": None,
            },
        }
    elif kind_name == "DEADLINE":
        moment = start + timedelta(minutes=draw(st.integers(0, 240)))
        kind = {"kind": "DEADLINE", "details": instant(moment)}
    else:
        kind = {"kind": kind_name}
    if kind_name in ("DEADLINE", "RESOURCE") and draw(st.booleans()):
        time = draw(st.sampled_from([MISSING, UNKNOWN, UNRESOLVED]))
    else:
        lengths = st.sampled_from([60, 300, 600, 900, 1234, 1800, 2700])
        begin, finish = draw(_range_near(start, end, lengths))
        time = known(time_range(begin, finish))
    return _make_object(
        object_id,
        kind,
        revision=revision,
        time=time,
        provenance=provenance,
        calendar=draw(st.sampled_from(CALENDARS)),
        integration=draw(st.sampled_from(INTEGRATIONS)),
        resources=draw(st.lists(st.sampled_from(RESOURCES), max_size=2, unique=True)),
        zone=draw(st.sampled_from(ZONES)),
        evidence=draw(evidence_lists),
    )


def _time_value(draw: st.DrawFn, kind: str, moment: Callable[[], datetime], **known: Any) -> Any:
    """The value of a rule about the placed time (``EXPLICIT_*``, bounds, window); ``known``
    holds ``zone``, ``duration`` and ``granularity``."""
    duration, granularity = known["duration"], known["granularity"]
    if kind == "EXPLICIT_TIME":
        begin = moment()
        length = draw(st.integers(60, 3600)) if one_in(draw, 4) else duration
        return time_range(begin, begin + timedelta(seconds=length))
    if kind == "EXPLICIT_DATE":
        if draw(st.booleans()):  # the local date of some grid position: often satisfiable
            return moment().astimezone(ZoneInfo(known["zone"])).date().isoformat()
        return (DAY.date() + timedelta(days=draw(st.integers(-1, 2)))).isoformat()
    if kind in ("EARLIEST_START", "LATEST_END", "DEADLINE"):
        return instant(moment())
    # AVAILABILITY_WINDOW
    begin = moment()
    if draw(st.booleans()):  # grid-aligned: some positions end exactly at the window end
        length = duration + granularity * draw(st.integers(0, 4))
    else:
        length = draw(st.integers(600, 10800))
    return time_range(begin, begin + timedelta(seconds=length))


def _other_value(
    draw: st.DrawFn, kind: str, *, zone: str, duration: int, predecessors: list[str]
) -> Any:
    """The value of a rule that is not about the placed time."""
    if kind in ("MIN_DURATION", "FIXED_DURATION"):
        return draw(st.sampled_from([duration, duration, duration + 60, duration - 60, 1800]))
    if kind == "DEPENDENCY_ORDER":
        return draw(st.sampled_from(predecessors))
    if kind == "REQUIRED_BUFFER":
        return draw(st.sampled_from([60, 300, 600, 900, 1800]))
    if kind == "TIMEZONE_INTEGRITY":
        return zone if draw(st.booleans()) else draw(st.sampled_from(ZONES))
    # EXTERNAL_LOCK
    return {
        "provenance": draw(st.sampled_from(PROVENANCES)),
        "reason": draw(st.sampled_from(LOCK_REASONS)),
    }


_TIME_KINDS = frozenset(
    {
        "EXPLICIT_TIME",
        "EXPLICIT_DATE",
        "EARLIEST_START",
        "LATEST_END",
        "DEADLINE",
        "AVAILABILITY_WINDOW",
    }
)


@st.composite
def _constraint(
    draw: st.DrawFn,
    zones: dict[str, str],
    dag_order: list[str],
    *,
    start: datetime,
    end: datetime,
    duration: int,
    granularity: int,
) -> dict[str, Any]:
    ids = list(zones)
    others = [oid for oid in ids if oid != TARGET]
    on_target = not others or not one_in(draw, 8)
    object_id = TARGET if on_target else draw(st.sampled_from(others))
    kind = draw(st.sampled_from(WEIGHTED_KINDS))
    predecessors = dag_order[: dag_order.index(object_id)]
    if kind == "DEPENDENCY_ORDER" and not predecessors:
        kind = "NO_OVERLAP"
    span = int((end - start).total_seconds())
    positions = max(0, (span - duration) // granularity)

    def moment() -> datetime:
        if draw(st.booleans()):
            return start + timedelta(seconds=granularity * draw(st.integers(-1, positions + 1)))
        return start + timedelta(seconds=draw(st.integers(-900, span + 900)))

    value: Any
    if kind in ("NO_OVERLAP", "RECURRENCE_RULE"):
        return {"object_id": object_id, "rule": {"kind": kind}, "evidence": draw(evidence_lists)}
    zone = zones[object_id]
    if kind in _TIME_KINDS:
        value = _time_value(
            draw, kind, moment, zone=zone, duration=duration, granularity=granularity
        )
    else:
        value = _other_value(draw, kind, zone=zone, duration=duration, predecessors=predecessors)
    return {
        "object_id": object_id,
        "rule": {"kind": kind, "value": value},
        "evidence": draw(evidence_lists),
    }


def _context_objects(draw: st.DrawFn, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Busy events and tasks ``b<n>``, then other objects ``x<n>``."""
    objects: list[dict[str, Any]] = []
    for index in range(draw(st.sampled_from([0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6]))):
        kind_name = draw(st.sampled_from(["EVENT", "EVENT", "TASK"]))
        objects.append(draw(_context_object(f"b{index}", kind_name, start, end)))
    extra_kinds = draw(
        st.lists(st.sampled_from(["AVAILABILITY", "DEADLINE", "RESOURCE"]), max_size=3)
    )
    for index, kind_name in enumerate(extra_kinds):
        objects.append(draw(_context_object(f"x{index}", kind_name, start, end)))
    return objects


def _target(
    draw: st.DrawFn, existing: bool, *, start: datetime, end: datetime, duration: int
) -> dict[str, Any]:
    """The target event: existing (known time, a revision) or new (time missing)."""
    calendar = draw(st.sampled_from(CALENDARS))
    integration = draw(st.sampled_from(INTEGRATIONS))
    target_resources = draw(st.lists(st.sampled_from(RESOURCES), max_size=2, unique=True))
    zone = draw(st.sampled_from(ZONES))
    if existing:
        length = duration + 300 if one_in(draw, 8) else duration
        begin, finish = draw(_range_near(start, end, st.just(length)))
        target_time = known(time_range(begin, finish))
        target_provenance = draw(st.sampled_from(FACT_SOURCES))
    else:
        target_time = MISSING
        target_provenance = draw(st.sampled_from(PROVENANCES))
    return _make_object(
        TARGET,
        {"kind": "EVENT"},
        revision=draw(st.integers(1, 9)) if existing else None,
        time=target_time,
        provenance=target_provenance,
        calendar=calendar,
        integration=integration,
        resources=target_resources,
        zone=zone,
        evidence=draw(evidence_lists),
    )


def _scope(
    draw: st.DrawFn,
    target: dict[str, Any],
    ids: list[str],
    *,
    start: datetime,
    end: datetime,
    max_mutations: int,
) -> dict[str, Any]:
    """A scope around the target: optional filters that always admit it."""
    target_resources = target["resource_ids"]

    def optional_filter(member: str, pool: tuple[str, ...]) -> list[str] | None:
        if not one_in(draw, 4):
            return None
        return sorted({member, *draw(st.lists(st.sampled_from(pool), max_size=2))})

    if target_resources and one_in(draw, 4):
        resource_filter: list[str] | None = sorted(
            {*target_resources, *draw(st.lists(st.sampled_from(RESOURCES), max_size=1))}
        )
    else:
        resource_filter = None
    movable_choice = draw(st.integers(0, 5))
    movable: list[str] | None
    if movable_choice <= 3:
        movable = None
    elif movable_choice == 4:
        movable = [TARGET, *draw(st.lists(st.sampled_from(ids), max_size=1))]
    else:
        others = [oid for oid in ids if oid != TARGET]
        movable = draw(st.lists(st.sampled_from(others), max_size=1)) if others else []
    return {
        "time_range": time_range(start, end),
        "calendar_ids": optional_filter(target["calendar_id"], CALENDARS),
        "object_ids": optional_filter(TARGET, tuple(ids)),
        "resource_ids": resource_filter,
        "integration_ids": optional_filter(target["integration_id"], INTEGRATIONS),
        "movable_object_ids": movable,
        "max_mutations": max_mutations,
    }


def _policy_and_grants(
    draw: st.DrawFn, target: dict[str, Any], ids: list[str], *, kind: str, analysis_only: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A policy and capability grants; a mutating request may do ``kind`` on the target."""
    allowed = draw(
        st.lists(
            st.sampled_from(["CREATE_EVENT", "MOVE_EVENT", "UPDATE_EVENT", "DELETE_EVENT"]),
            max_size=3,
            unique=True,
        )
    )
    grants: list[dict[str, Any]] = []
    if not analysis_only:
        mode = draw(st.sampled_from(MUTATING_MODES))
        if kind not in allowed:
            allowed.append(kind)
        grants.append(
            {
                "object_id": TARGET,
                "calendar_id": target["calendar_id"],
                "integration_id": target["integration_id"],
                "kind": kind,
            }
        )
    else:
        mode = draw(st.sampled_from(MODES))
    for other in draw(st.lists(st.sampled_from(ids), max_size=2)):
        grants.append(
            {
                "object_id": other,
                "calendar_id": draw(st.sampled_from(CALENDARS)),
                "integration_id": draw(st.sampled_from(INTEGRATIONS)),
                "kind": draw(st.sampled_from(["CREATE_EVENT", "MOVE_EVENT"])),
            }
        )
    policy = {
        "policy_set_id": "prop-policy",
        "policy_version": 1,
        "snapshot": {
            "allow_uncertain_duration": draw(st.booleans()),
            "confirmation": {"all_mutations": draw(st.booleans()), "deletion": True},
            "mutation": {
                "max_mutations": draw(st.sampled_from([1, 1, 1, 1, 2, 2, 5, 0])),
                "allowed_actions": allowed,
            },
            "mode": mode,
        },
    }
    return policy, grants


def _duration_value(draw: st.DrawFn, duration: int, *, uncertain_allowed: bool) -> Any:
    """The duration, now and then uncertain when the request may take that."""
    if uncertain_allowed and one_in(draw, 3):
        confidence = draw(st.sampled_from([0.0, 0.5, 1.0]))
        return {
            "processing": "RESOLVED",
            "knowledge": {
                "state": "UNCERTAIN",
                "data": {"value": duration, "confidence": confidence},
            },
        }
    return known(duration)


def _constraints(
    draw: st.DrawFn,
    objects: list[dict[str, Any]],
    ids: list[str],
    **grid: Any,
) -> list[dict[str, Any]]:
    """Up to four constraints, now and then a near twin and two locks that differ only in
    their reason; ``grid`` holds ``start``, ``end``, ``duration`` and ``granularity``."""
    zones = {obj["id"]: obj["timezone"] for obj in objects}
    dag_order = draw(st.permutations(ids))
    constraints = draw(st.lists(_constraint(zones, list(dag_order), **grid), max_size=4))
    if constraints and one_in(draw, 3):
        # A near twin: equal up to the lock reason or the evidence, so that the order of
        # the checks rests on the compact-JSON text of those parts (or an exact duplicate).
        twin = _deep_copy(draw(st.sampled_from(constraints)))
        if twin["rule"]["kind"] == "EXTERNAL_LOCK":
            twin["rule"]["value"]["reason"] = draw(st.sampled_from(LOCK_REASONS))
        else:
            twin["evidence"] = draw(evidence_lists)
        constraints.append(twin)
    if one_in(draw, 12):  # two locks on the target that differ only in their reason
        provenance = draw(st.sampled_from(PROVENANCES))
        for reason in draw(st.lists(st.sampled_from(LOCK_REASONS), min_size=2, max_size=2)):
            rule = {"kind": "EXTERNAL_LOCK", "value": {"provenance": provenance, "reason": reason}}
            constraints.append({"object_id": TARGET, "rule": rule, "evidence": []})
    return constraints


def _facts(
    draw: st.DrawFn,
    objects: list[dict[str, Any]],
    ids: list[str],
    *,
    start: datetime,
    duration: int,
) -> list[dict[str, Any]]:
    """Deadline and lock facts, then facts that restate some known object times."""
    facts: list[dict[str, Any]] = []
    for index in range(draw(st.integers(0, 2))):
        provenance = draw(st.sampled_from(FACT_SOURCES))
        value: dict[str, Any]
        if not one_in(draw, 4):  # DEADLINE, mostly on the target, usually satisfiable
            object_id = draw(st.sampled_from(ids)) if one_in(draw, 6) else TARGET
            offset = duration + draw(st.integers(-900, 3 * 3600))
            value = {"kind": "DEADLINE", "value": instant(start + timedelta(seconds=offset))}
        else:  # EXTERNAL_LOCK: on an unchanged object it holds, on the target rarely
            object_id = TARGET if one_in(draw, 4) else draw(st.sampled_from(ids))
            value = {"kind": "EXTERNAL_LOCK"}
        facts.append(
            {
                "id": f"fact-{index}",
                "object_id": object_id,
                "value": value,
                "provenance": provenance,
            }
        )
    for obj in objects:
        knowledge = obj["time"]["value"].get("knowledge", {})
        if knowledge.get("state") == "KNOWN" and one_in(draw, 6):
            facts.append(
                {
                    "id": f"seen-{obj['id']}",
                    "object_id": obj["id"],
                    "value": {
                        "kind": draw(st.sampled_from(["SCHEDULED_TIME", "AVAILABILITY"])),
                        "value": dict(knowledge["data"]),
                    },
                    "provenance": draw(st.sampled_from(FACT_SOURCES)),
                }
            )
    return facts


def _preferences(draw: st.DrawFn, start: datetime) -> list[dict[str, Any]]:
    """Up to three preferred starts near ``start``, some with milliseconds."""
    preferences = []
    for _ in range(draw(st.integers(0, 3))):
        seconds = draw(st.integers(-3600, 4 * 3600))
        millis = draw(st.sampled_from([0, 0, 0, 1, 499, 500, 999]))
        moment = start + timedelta(seconds=seconds, milliseconds=millis)
        preferences.append(
            {
                "source": draw(st.sampled_from(PREFERENCE_SOURCES)),
                "preferred_start": instant(moment),
                "evidence": draw(evidence_lists),
            }
        )
    return preferences


def _max_candidates(draw: st.DrawFn, positions: int) -> int:
    """Mostly an ample budget; sometimes exactly the grid, less, or zero."""
    budget_choice = draw(st.sampled_from(["ample"] * 6 + ["exact", "below", "below", "zero"]))
    if budget_choice == "zero":
        return 0
    if budget_choice == "below":
        return draw(st.integers(1, max(1, positions - 1)))
    if budget_choice == "exact":
        return positions
    return draw(st.sampled_from([256, 512]))


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """A random valid single-target request without temporal input."""
    start = DAY + timedelta(
        hours=draw(st.sampled_from([0, 9, 10, 21, 22, 23])),
        minutes=draw(st.sampled_from([0, 5, 30, 45])),
        seconds=draw(st.sampled_from([0, 0, 0, 17])),
    )
    end = start + timedelta(minutes=draw(st.integers(60, 180)))
    granularity = draw(st.sampled_from([60, 300, 600, 900]))
    duration = draw(st.sampled_from([300, 600, 900, 1200, 1800, 2700, 3600, 420]))
    objects = _context_objects(draw, start, end)

    # ---- target and operation -------------------------------------------------------
    operation = draw(st.sampled_from(["CREATE", "MOVE", "FIND_SLOT", "ANALYZE", "PLAN"]))
    existing = operation == "MOVE" or (operation != "CREATE" and draw(st.booleans()))
    max_mutations = draw(st.integers(0, 3))
    analysis_only = max_mutations == 0 or operation in ("FIND_SLOT", "ANALYZE")
    target = _target(draw, existing, start=start, end=end, duration=duration)
    objects.insert(draw(st.integers(0, len(objects))), target)
    ids = [obj["id"] for obj in objects]
    kind = "MOVE_EVENT" if existing else "CREATE_EVENT"

    scope = _scope(draw, target, ids, start=start, end=end, max_mutations=max_mutations)
    policy, grants = _policy_and_grants(draw, target, ids, kind=kind, analysis_only=analysis_only)
    uncertain = analysis_only and policy["snapshot"]["allow_uncertain_duration"]
    duration_value = _duration_value(draw, duration, uncertain_allowed=uncertain)
    constraints = _constraints(
        draw, objects, ids, start=start, end=end, duration=duration, granularity=granularity
    )
    facts = _facts(draw, objects, ids, start=start, duration=duration)
    preferences = _preferences(draw, start)
    positions = (int((end - start).total_seconds()) - duration) // granularity + 1
    max_candidates = _max_candidates(draw, positions)

    request = {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": "prop-request",
        "trace_id": "prop-trace",
        "principal_id": "prop-user",
        "operation": operation,
        "scope": scope,
        "context": {
            "revision": 7,
            "captured_at": instant(DAY),
            "objects": objects,
            "facts": facts,
        },
        "target_ids": [TARGET],
        "duration": evidence_field(duration_value, "USER_EXPLICIT", draw(evidence_lists)),
        "constraints": constraints,
        "preferences": {"preferences": preferences},
        "policy": policy,
        "planning_capability": {"read": True, "plan": True, "mutations": grants},
        "granularity": granularity,
        "budget": {
            "max_candidates": max_candidates,
            "max_repairs": 0,
            "max_moved_objects": draw(st.sampled_from([1, 1, 1, 2, 0])),
            "max_depth": 0,
        },
    }
    return _with_offsets(draw, request)


def _with_offsets(draw: st.DrawFn, value: Any) -> Any:
    """Rewrite some ``Z`` instants with another UTC offset (same instant, other text)."""
    if isinstance(value, dict):
        return {key: _with_offsets(draw, item) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_offsets(draw, item) for item in value]
    if isinstance(value, str) and INSTANT_TEXT.match(value):
        offset = draw(st.sampled_from(OFFSETS))
        if offset is not None:
            moment = datetime.fromisoformat(value).astimezone(offset)
            return moment.isoformat(timespec="milliseconds" if moment.microsecond else "seconds")
    return value


def shuffled(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A deep copy of ``request`` with every order-irrelevant list shuffled.

    Shuffles objects, facts, constraints, preferences, capability grants, allowed actions,
    resource lists, the scope lists and every evidence list (objects, duration, constraints,
    preferences). ``target_ids`` is left alone (one element).
    """

    def mixed(items: list[Any]) -> list[Any]:
        items = list(items)
        rng.shuffle(items)
        return items

    copy: dict[str, Any] = _deep_copy(request)
    context = copy["context"]
    context["objects"] = mixed(context["objects"])
    for obj in context["objects"]:
        obj["resource_ids"] = mixed(obj["resource_ids"])
        obj["time"]["evidence"] = mixed(obj["time"]["evidence"])
    context["facts"] = mixed(context["facts"])
    copy["constraints"] = mixed(copy["constraints"])
    for constraint in copy["constraints"]:
        constraint["evidence"] = mixed(constraint["evidence"])
    copy["preferences"]["preferences"] = mixed(copy["preferences"]["preferences"])
    for preference in copy["preferences"]["preferences"]:
        preference["evidence"] = mixed(preference["evidence"])
    copy["duration"]["evidence"] = mixed(copy["duration"]["evidence"])
    capability = copy["planning_capability"]
    capability["mutations"] = mixed(capability["mutations"])
    mutation = copy["policy"]["snapshot"]["mutation"]
    mutation["allowed_actions"] = mixed(mutation["allowed_actions"])
    scope = copy["scope"]
    for key in ("calendar_ids", "object_ids", "resource_ids", "integration_ids"):
        if scope[key] is not None:
            scope[key] = mixed(scope[key])
    if scope["movable_object_ids"] is not None:
        scope["movable_object_ids"] = mixed(scope["movable_object_ids"])
    return copy


def _deep_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _deep_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_deep_copy(item) for item in value]
    return value
