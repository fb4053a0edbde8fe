"""The hypothesis strategies of every property test, in one module (as attrs keeps them).

A property test imports its strategies from here; a new feature extends this module instead of
writing its own. Sections:

* CPIR requests: :func:`requests` (random, *valid* single-target CPIR 0.2 requests, dict form,
  described below) and :func:`shuffled`;
* JSON values: :func:`json_scalars` and :func:`json_values`, one builder with the bounds each
  test needs;
* temporal: :func:`intervals`, :func:`interval_lists`, :func:`calendar_dates`,
  :func:`timestamp_fields`, :func:`busy_inputs`, :func:`recurrence_rules`;
* planner: :func:`dependency_graphs`, :func:`busy_spans`;
* plans: :func:`dags`, :func:`messy_steps`;
* proposals: :func:`canonical_json_values`, :func:`envelope_inputs`;
* ics: :data:`ics_specs` (:class:`IcsSpec`), :data:`ics_single_events`, :func:`ics_scenarios`;
* calendars over CalDAV: :func:`caldav_events` (:class:`Single`, :class:`Series`);
* attendee hours: :func:`attendee_hours` (decision 0053).

One strategy stays beside its test: ``cases`` of ``tests/ics/test_ics_series_property.py``
draws each series together with its expected busy time, so it *is* that test's independent
reference expansion, not only a source of inputs.

CPIR requests: random, *valid* single-target CPIR 0.2 requests (dict form).

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
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from datetime import time as time_of_day
from typing import Any, get_args
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

from cerebri._json import JSONValue
from cerebri.cpir.constraints import HardConstraint
from cerebri.cpir.parse import parse_model
from cerebri.cpir.temporal_context import RecurrenceDefinition
from cerebri.planner.graph import Edge
from cerebri.proposals import MAX_VALIDITY_SECONDS, ArtifactType, Classification, ExecutorMode
from cerebri.proposals.digest import MAX_SAFE_INTEGER
from cerebri.temporal import BusyInput, Instant, Interval
from tests.ics.helpers import calendar as ics_calendar
from tests.ics.helpers import vevent
from tests.plans.drafts import wait_step

__all__ = [
    "EVENT_ZONES",
    "GRAPH_GHOSTS",
    "GRAPH_IDS",
    "ICS_BASE",
    "ICS_CUSTOM_ZONE",
    "TARGET",
    "CalendarEvent",
    "IcsSpec",
    "Series",
    "Single",
    "busy_inputs",
    "busy_spans",
    "caldav_events",
    "calendar_dates",
    "canonical_json_values",
    "dags",
    "dependency_graphs",
    "envelope_inputs",
    "ics_scenarios",
    "ics_single_events",
    "ics_specs",
    "ics_stamp",
    "instant",
    "interval_lists",
    "intervals",
    "json_scalars",
    "json_values",
    "local_day",
    "messy_steps",
    "recurrence_rules",
    "requests",
    "shuffled",
    "timestamp_fields",
]

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
# Every hard-constraint kind, read from the models' ``kind`` literals (cerebri.cpir.constraints).
CONSTRAINT_KINDS: tuple[str, ...] = tuple(
    get_args(model.model_fields["kind"].annotation)[0]
    for model in get_args(get_args(HardConstraint)[0])
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


# ------------------------------------------------------------------------------ JSON values


def json_scalars(
    *,
    max_text: int,
    integers: st.SearchStrategy[int] | None = None,
    allow_infinity: bool | None = False,
) -> st.SearchStrategy[JSONValue]:
    """``null``, booleans, integers (any, unless ``integers`` is given), floats without NaN
    (infinities only when ``allow_infinity`` is ``None``, hypothesis's default) and text of
    at most ``max_text`` characters."""
    return (
        st.none()
        | st.booleans()
        | (st.integers() if integers is None else integers)
        | st.floats(allow_nan=False, allow_infinity=allow_infinity)
        | st.text(max_size=max_text)
    )


def json_values(
    scalars: st.SearchStrategy[Any],
    *,
    keys: st.SearchStrategy[str],
    max_items: int,
    max_members: int | None,
    max_leaves: int,
) -> st.SearchStrategy[Any]:
    """JSON documents over ``scalars``: arrays of at most ``max_items`` items and objects of
    at most ``max_members`` members (``None``: unbounded) named by ``keys``, at most
    ``max_leaves`` scalars in all."""
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, max_size=max_items) | st.dictionaries(keys, inner, max_size=max_members)
        ),
        max_leaves=max_leaves,
    )


# ------------------------------------------------------------------------------ temporal


@st.composite
def intervals(draw: st.DrawFn, limit: int) -> Interval:
    """A non-empty half-open interval of integers with bounds in ``0..limit``."""
    start = draw(st.integers(0, limit - 1))
    end = draw(st.integers(start + 1, limit))
    return Interval(start, end)


def interval_lists(limit: int) -> st.SearchStrategy[list[Interval]]:
    """Up to 12 :func:`intervals` (overlapping, touching or apart, in any order)."""
    return st.lists(intervals(limit), max_size=12)


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _month_length(year: int, month: int) -> int:
    lengths = [31, 29 if _is_leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return lengths[month - 1]


@st.composite
def calendar_dates(draw: st.DrawFn) -> tuple[int, int, int]:
    """A valid proleptic Gregorian ``(year, month, day)``, years -262143 to 262142."""
    year = draw(st.integers(-262143, 262142))
    month = draw(st.integers(1, 12))
    day = draw(st.integers(1, _month_length(year, month)))
    return year, month, day


@st.composite
def timestamp_fields(draw: st.DrawFn) -> tuple[int, int, int, int, int, int]:
    """(year, month, day, second of day, nanoseconds, offset minutes) for a valid timestamp."""
    unit = draw(st.sampled_from([0, 1, 1000, 10**6]))
    frac = draw(st.integers(0, 999_999_999))
    return (
        draw(st.integers(-262142, 262141)),
        draw(st.integers(1, 12)),
        draw(st.integers(1, 28)),
        draw(st.integers(0, 86399)),
        0 if unit == 0 else frac // unit * unit,
        draw(st.integers(-(23 * 60 + 59), 23 * 60 + 59)),
    )


@st.composite
def busy_inputs(draw: st.DrawFn) -> BusyInput:
    """A busy interval with bounds in seconds (start -20..70, end up to 80) and buffers
    before, after and for travel of 0-8 seconds each."""
    start = draw(st.integers(-20, 70))
    end = draw(st.integers(start + 1, 80))
    buffers = st.integers(0, 8)
    before, after, travel = draw(buffers), draw(buffers), draw(buffers)
    return BusyInput(Instant.from_seconds(start), Instant.from_seconds(end), before, after, travel)


WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


@st.composite
def recurrence_rules(draw: st.DrawFn) -> RecurrenceDefinition:
    """A DAILY or WEEKLY rule starting in late March 2026 (across the European and American
    DST changes), every 1-3 periods, with or without a count, in UTC, Berlin or New York."""
    pattern: dict[str, Any] = {"frequency": "DAILY", "every": draw(st.integers(1, 3))}
    if draw(st.booleans()):
        pattern["frequency"] = "WEEKLY"
        pattern["weekdays"] = draw(st.lists(st.sampled_from(WEEKDAYS), min_size=1, unique=True))
    document = {
        "start_date": f"2026-03-{draw(st.integers(20, 31)):02d}",
        "local_time": draw(st.sampled_from(["00:00:00", "02:30:00", "09:15:00", "23:45:00"])),
        "timezone": draw(st.sampled_from(["UTC", "Europe/Berlin", "America/New_York"])),
        "duration": draw(st.integers(60, 3 * 86_400)),
        "pattern": pattern,
        "count": draw(st.none() | st.integers(1, 20)),
        "gap_policy": "Skip",
        "fold_policy": draw(st.sampled_from(["Earlier", "Later"])),
    }
    return parse_model(RecurrenceDefinition, document)


# ------------------------------------------------------------------------------ planner

# Ids chosen so that plain string order matters ("B" < "a" < "a1" < "ab" < "b" < "c").
GRAPH_IDS = ["a", "b", "c", "B", "ab", "a1"]
GRAPH_GHOSTS = ["x", "zz"]  # never object ids, so any edge touching one is a missing reference
_node_ids = st.lists(st.sampled_from(GRAPH_IDS), max_size=10)


@st.composite
def dependency_graphs(
    draw: st.DrawFn, *, with_missing: bool = True
) -> tuple[list[str], list[Edge]]:
    """Object ids (from :data:`GRAPH_IDS`, repeats allowed) and up to 12 edges between them
    (self-loops and cycles included); with ``with_missing``, sometimes one more edge to or from
    a ghost id (:data:`GRAPH_GHOSTS`)."""
    ids = draw(_node_ids)
    endpoint = st.sampled_from(sorted(set(ids)) or GRAPH_GHOSTS)
    edges = draw(st.lists(st.builds(Edge, endpoint, endpoint), max_size=12)) if ids else []
    if with_missing and draw(st.booleans()):
        ghost = draw(st.sampled_from(GRAPH_GHOSTS))
        real = draw(endpoint)
        edges.append(Edge(ghost, real) if draw(st.booleans()) else Edge(real, ghost))
    return ids, edges


def busy_spans() -> st.SearchStrategy[list[tuple[int, int]]]:
    """Up to 12 busy ``(start, end)`` minute offsets, starts 0-530, lengths 1-120."""
    return st.lists(
        st.tuples(st.integers(0, 530), st.integers(1, 120)).map(lambda p: (p[0], p[0] + p[1])),
        max_size=12,
    )


# ------------------------------------------------------------------------------ plans

_DAG_KEYS = st.lists(
    st.text("abcdefg", min_size=1, max_size=2), min_size=1, max_size=9, unique=True
)


@st.composite
def dags(draw: st.DrawFn, min_steps: int = 1) -> list[dict[str, Any]]:
    """At least ``min_steps`` wait steps with distinct random keys, each depending on some
    earlier steps."""
    keys = draw(_DAG_KEYS.filter(lambda k: len(k) >= min_steps))
    steps = []
    for i, key in enumerate(keys):
        deps = draw(st.lists(st.sampled_from(keys[:i]), unique=True)) if i else []
        steps.append(wait_step(key, depends_on=deps))
    return steps


_MESSY_KEYS = st.lists(st.sampled_from("abcde"), min_size=0, max_size=7)


@st.composite
def messy_steps(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Wait steps with possibly repeated keys, any dependencies (unknown, self, cycles) and
    attempts that may be invalid."""
    keys = draw(_MESSY_KEYS)
    targets = st.sampled_from([*keys, "zz"]) if keys else st.just("zz")
    return [
        wait_step(
            key,
            depends_on=draw(st.lists(targets, max_size=3)),
            max_attempts=draw(st.integers(-1, 2)),
        )
        for key in keys
    ]


# ------------------------------------------------------------------------------ proposals

_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_IDS = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=12)


def canonical_json_values() -> st.SearchStrategy[Any]:
    """JSON documents canonical JSON (RFC 8785) can write: integers within
    ±(2^53 - 1), no integral float beyond that, text without lone surrogates."""
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
        | st.floats(allow_nan=False, allow_infinity=False).filter(
            # integral floats JCS writes as integers beyond 2^53 - 1 are refused (digest.py)
            lambda f: not (f.is_integer() and MAX_SAFE_INTEGER < abs(f) < 1e21)
        )
        | _TEXT
    )
    return json_values(scalars, keys=_TEXT, max_items=4, max_members=4, max_leaves=20)


def envelope_inputs() -> st.SearchStrategy[dict[str, Any]]:
    """What a proposal envelope is made of: artifact bytes and type, mode, classification,
    principal kind, six ids (author, node, query, room, turn, idempotency), the proposal
    time in seconds, a validity within ``MAX_VALIDITY_SECONDS`` and a clock offset."""
    return st.fixed_dictionaries(
        {
            "artifact": st.binary(max_size=64),
            "artifact_type": st.sampled_from([ArtifactType.ACTION_PLAN, ArtifactType.PLAN_GRAPH]),
            "mode": st.sampled_from([ExecutorMode.PLAN_EXECUTOR, ExecutorMode.MANUAL]),
            "class_key": st.sampled_from(list(Classification)),
            "kind": st.sampled_from(["principal", "service"]),
            "ids": st.lists(_IDS, min_size=6, max_size=6),
            "proposed": st.integers(0, 4_000_000_000),
            "duration": st.integers(1, MAX_VALIDITY_SECONDS),  # propose refuses longer
            "offset": st.integers(0, 10**9),
        }
    )


# ------------------------------------------------------------------------------ ics

ICS_BASE = datetime(2024, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class IcsSpec:
    """One VEVENT of a small random calendar, all times whole minutes after ``ICS_BASE``."""

    uid: str
    start: int  # minutes after ICS_BASE
    minutes: int  # duration; 0 gives a zero-length event
    rule: str | None
    transparent: bool
    status: str | None
    sequence: int
    recurrence: int | None  # minutes after ICS_BASE of the instance an override replaces
    this_and_future: bool

    def text(self) -> str:
        lines = ["BEGIN:VEVENT", f"UID:{self.uid}", "DTSTAMP:20240101T000000Z"]
        lines.append(f"DTSTART:{ics_stamp(self.start)}")
        if self.minutes:
            lines.append(f"DURATION:PT{self.minutes}M")
        if self.rule:
            lines.append(f"RRULE:{self.rule}")
        if self.recurrence is not None:
            range_ = ";RANGE=THISANDFUTURE" if self.this_and_future else ""
            lines.append(f"RECURRENCE-ID{range_}:{ics_stamp(self.recurrence)}")
        if self.transparent:
            lines.append("TRANSP:TRANSPARENT")
        if self.status:
            lines.append(f"STATUS:{self.status}")
        lines.append(f"SEQUENCE:{self.sequence}")
        lines.append("END:VEVENT")
        return "\n".join(lines)


def ics_stamp(minutes: int) -> str:
    """``minutes`` after :data:`ICS_BASE` as an iCalendar UTC date-time."""
    return (ICS_BASE + timedelta(minutes=minutes)).strftime("%Y%m%dT%H%M%SZ")


_ICS_HOURS = st.integers(min_value=0, max_value=20 * 24).map(lambda hours: hours * 60)

ics_specs = st.builds(
    IcsSpec,
    uid=st.sampled_from(["a", "b", "c"]),
    start=_ICS_HOURS,
    minutes=st.sampled_from([0, 30, 60, 90, 24 * 60]),
    rule=st.one_of(
        st.none(),
        st.integers(1, 6).map(lambda n: f"FREQ=DAILY;COUNT={n}"),
        st.integers(1, 3).map(lambda n: f"FREQ=WEEKLY;COUNT={n}"),
        st.just("FREQ=HOURLY;INTERVAL=7"),
    ),
    transparent=st.booleans(),
    status=st.sampled_from([None, "CONFIRMED", "TENTATIVE", "CANCELLED"]),
    sequence=st.integers(0, 2),
    recurrence=st.one_of(st.none(), _ICS_HOURS),
    this_and_future=st.booleans(),
)
"""Masters, overrides (also ``THISANDFUTURE``), zero-length, transparent and cancelled
events sharing three UIDs (:class:`IcsSpec`)."""

ics_single_events = st.lists(
    st.tuples(_ICS_HOURS, st.sampled_from([0, 15, 60, 600]), st.booleans(), st.booleans()),
    min_size=0,
    max_size=8,
)
"""Up to 8 ``(start minutes, length minutes, flag, flag)`` single UTC events."""

# A calendar near a DST change for the shortcuts of cerebri.ics (ics_scenarios): single events
# zoned, UTC, floating, all-day or in a custom VTIMEZONE, with DTEND, DURATION or neither.
_SHORTCUT_ZONES = ("Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Kiritimati")
ICS_CUSTOM_ZONE = "\n".join(
    [
        "BEGIN:VTIMEZONE",
        "TZID:Custom/Zone",
        "BEGIN:STANDARD",
        "DTSTART:19701025T030000",
        "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
        "TZOFFSETFROM:+0300",
        "TZOFFSETTO:+0200",
        "END:STANDARD",
        "BEGIN:DAYLIGHT",
        "DTSTART:19700329T020000",
        "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
        "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0300",
        "END:DAYLIGHT",
        "END:VTIMEZONE",
    ]
)
# moments near the 2024 DST changes of Berlin (03-31, 10-27), New York (03-10, 11-03) and
# Lord Howe (04-07: 30 minutes back), and ordinary ones
_CENTERS = st.sampled_from(
    [
        datetime(2024, 3, 31, 2, 30),  # noqa: DTZ001 - does not exist in Berlin
        datetime(2024, 10, 27, 2, 30),  # noqa: DTZ001 - occurs twice in Berlin
        datetime(2024, 3, 10, 2, 30),  # noqa: DTZ001 - does not exist in New York
        datetime(2024, 11, 3, 1, 30),  # noqa: DTZ001 - occurs twice in New York
        datetime(2024, 4, 7, 1, 45),  # noqa: DTZ001 - occurs twice on Lord Howe
        datetime(2024, 6, 12, 9, 0),  # noqa: DTZ001
        datetime(2024, 1, 1, 0, 0),  # noqa: DTZ001
    ]
)
_NEAR = st.integers(-3 * 24 * 4, 3 * 24 * 4).map(lambda quarters: timedelta(minutes=15 * quarters))
_ENDS = st.one_of(
    st.tuples(st.just("DTEND"), st.integers(0, 4 * 24 * 4).map(lambda q: q * 15)),
    st.tuples(
        st.just("DURATION"),
        st.sampled_from(["PT0S", "PT15M", "PT1H", "PT24H", "P1D", "P1DT2H", "P2W", "PT90M"]),
    ),
    st.tuples(st.just("none"), st.just(0)),
)
_EXTRAS = st.lists(
    st.sampled_from(
        [
            "TRANSP:TRANSPARENT",
            "TRANSP:OPAQUE",
            "STATUS:CANCELLED",
            "STATUS:TENTATIVE",
            "SEQUENCE:3",
            "SUMMARY:Meeting",
            "RRULE:",  # an empty rule: no rule for cerebri, a property for the library
            "EXDATE:20240401T100000Z",
        ]
    ),
    max_size=3,
    unique=True,
)


def _wall(moment: datetime) -> str:
    return moment.strftime("%Y%m%dT%H%M%S")


def _property_stamp(kind: str, moment: datetime, prop: str) -> str:
    if kind == "utc":
        return f"{prop}:{_wall(moment)}Z"
    if kind == "floating":
        return f"{prop}:{_wall(moment)}"
    if kind == "date":
        return f"{prop};VALUE=DATE:{moment:%Y%m%d}"
    return f"{prop};TZID={kind}:{_wall(moment)}"


@st.composite
def _shortcut_event(draw: st.DrawFn, index: int, center: datetime) -> str:
    kind = draw(st.sampled_from(["utc", "floating", "date", "Custom/Zone", *_SHORTCUT_ZONES]))
    start = center + draw(st.sampled_from([timedelta(0), timedelta(hours=1)]) | _NEAR)
    how, amount = draw(_ENDS)
    lines = [_property_stamp(kind, start, "DTSTART")]
    if how == "DTEND":
        end_kind = kind
        if kind != "date" and draw(st.booleans()):
            end_kind = draw(st.sampled_from(["utc", *_SHORTCUT_ZONES]))  # another zone for the end
        step = timedelta(days=amount // (24 * 60)) if kind == "date" else timedelta(0)
        moment = start + (step if kind == "date" else timedelta(minutes=amount))
        lines.append(_property_stamp(end_kind, moment, "DTEND"))
    elif how == "DURATION":
        lines.append(f"DURATION:{amount}")
    lines += draw(_EXTRAS)
    return vevent(*lines, uid=f"event-{index}")


@st.composite
def ics_scenarios(draw: st.DrawFn) -> tuple[str, tuple[Instant, Instant]]:
    """A calendar of a few single events and a window, all near one moment."""
    center = draw(_CENTERS)
    count = draw(st.integers(1, 4))
    events = [draw(_shortcut_event(index, center)) for index in range(count)]
    if draw(st.booleans()):
        events.append(events[0].replace("UID:event-0", "UID:event-0-copy"))
    begin = (center + draw(_NEAR)).replace(tzinfo=UTC)
    hours = draw(st.sampled_from([1, 5, 24, 49, 24 * 7, 24 * 40]))
    window = Instant.from_datetime(begin), Instant.from_datetime(begin + timedelta(hours=hours))
    return ics_calendar(ICS_CUSTOM_ZONE, *events), window


# ------------------------------------------------------------------- calendars over CalDAV

EVENT_ZONES = ("UTC", "Europe/Berlin", "America/New_York")


@dataclass(frozen=True)
class Single:
    """A single VEVENT at a naive local wall time in ``zone`` (find-slot over CalDAV)."""

    uid: str
    zone: str
    start: datetime  # naive local wall time in ``zone``
    minutes: int
    status: str | None  # None, "CANCELLED"
    transparent: bool


@dataclass(frozen=True)
class Series:
    """A DAILY or WEEKLY series with ``COUNT``/``UNTIL``, ``EXDATE``s and overrides
    (moved, cancelled, ``THISANDFUTURE``), at naive local wall times in ``zone``."""

    uid: str
    zone: str
    start: datetime  # naive local wall time of the first instance
    minutes: int
    step_days: int  # 1 = DAILY, 7 = WEEKLY
    count: int | None
    until_index: int | None  # UNTIL = the start of this instance (inclusive), in UTC
    exdates: frozenset[int]
    moved: tuple[tuple[int, datetime | None], ...]  # (instance index, new local start or cancel)
    # RANGE=THISANDFUTURE at this index, shifting it and every later instance by this much
    # wall-clock time; then EXDATE and single overrides are drawn only before that index.
    future: tuple[int, timedelta] | None = None
    # The zone EXDATE and RECURRENCE-ID values are written in: the same instant, another
    # zone's wall clock (RFC 5545 compares them as instants); None = the series' zone.
    value_zone: str | None = None


CalendarEvent = Single | Series


_LOCAL_HOURS = st.sampled_from([0, 1, 4, 6, 8, 9, 10, 12, 14, 16, 18, 20, 22, 23])
_MINUTES = st.sampled_from([0, 10, 15, 30, 45])
_LENGTHS = st.sampled_from([15, 30, 45, 60, 90, 120, 240])


def local_day(offset: int, hour: int, minute: int) -> datetime:
    """A naive local wall time ``offset`` days after 2026-10-24 at ``hour:minute``.

    October has no DST gap; a time in the 2026-10-25 fold is its first occurrence
    (fold=0), as RFC 5545 section 3.3.5 reads an ambiguous local time."""
    midnight = datetime(2026, 10, 24)  # noqa: DTZ001 - a naive local wall time
    return midnight + timedelta(days=offset, hours=hour, minutes=minute)


@st.composite
def _single(draw: st.DrawFn, uid: str) -> Single:
    start = local_day(draw(st.integers(-1, 3)), draw(_LOCAL_HOURS), draw(_MINUTES))
    status = draw(st.sampled_from([None, None, None, "CANCELLED"]))
    return Single(
        uid, draw(st.sampled_from(EVENT_ZONES)), start, draw(_LENGTHS), status, draw(st.booleans())
    )


@st.composite
def _series(draw: st.DrawFn, uid: str) -> Series:
    step = draw(st.sampled_from([1, 7]))
    start = local_day(-draw(st.integers(0, 60)), draw(_LOCAL_HOURS), draw(_MINUTES))
    bound = draw(st.sampled_from(["none", "count", "until"]))
    count = draw(st.integers(1, 70)) if bound == "count" else None
    until = draw(st.integers(0, 70)) if bound == "until" else None
    indices = st.integers(0, 70)
    exdates = frozenset(draw(st.lists(indices, max_size=3)))
    far = st.builds(local_day, st.integers(-90, 30), _LOCAL_HOURS, _MINUTES)
    near = st.builds(local_day, st.integers(-1, 3), _LOCAL_HOURS, _MINUTES)
    new_start = st.one_of(st.none(), near, far)
    pairs = st.lists(st.tuples(indices, new_start), max_size=3, unique_by=lambda p: p[0])
    moved_pairs = draw(pairs)
    future: tuple[int, timedelta] | None = None
    if draw(st.booleans()):
        days = draw(st.sampled_from([-5, -3, -1, 0, 1, 3, 5]))
        hours = draw(st.sampled_from([-3, 0, 2]))
        future = (draw(indices), timedelta(days=days, hours=hours))
        exdates = frozenset(index for index in exdates if index < future[0])
        moved_pairs = [pair for pair in moved_pairs if pair[0] < future[0]]
    return Series(
        uid,
        draw(st.sampled_from(EVENT_ZONES)),
        start,
        draw(_LENGTHS),
        step,
        count,
        until,
        exdates,
        tuple(sorted(moved_pairs, key=lambda pair: pair[0])),
        future,
        draw(st.sampled_from([None, *EVENT_ZONES])),
    )


@st.composite
def caldav_events(draw: st.DrawFn) -> list[CalendarEvent]:
    """1-5 events (singles and series) with UIDs ``e<n>@prop``, near the window of
    2026-10-24 to 2026-10-27 (Berlin's clocks fall back on the 25th)."""
    events: list[CalendarEvent] = []
    for number in range(draw(st.integers(1, 5))):
        uid = f"e{number}@prop"
        kind = draw(st.sampled_from(["single", "series", "series"]))
        events.append(draw(_single(uid) if kind == "single" else _series(uid)))
    return events


HOURS_ZONES = (
    "America/New_York",
    "Europe/Berlin",
    "Asia/Tokyo",
    "Asia/Kolkata",
    "America/St_Johns",
    "Australia/Lord_Howe",
    "Pacific/Chatham",
)
"""Zones with DST on both hemispheres, no DST, and offsets of 30 and 45 minutes."""


@st.composite
def attendee_hours(
    draw: st.DrawFn,
) -> tuple[str, time_of_day | None, time_of_day | None, frozenset[int] | None]:
    """``(zone, start, end, days)`` of one attendee: a zone of :data:`HOURS_ZONES`, local
    hours on a 15-minute grid with ``start < end`` (or both None: all day) and working
    weekdays (a non-empty set, or None)."""
    zone = draw(st.sampled_from(HOURS_ZONES))
    quarters = draw(st.lists(st.integers(0, 95), min_size=2, max_size=2, unique=True))
    low, high = sorted(quarters)
    hours = draw(st.booleans())
    start = time_of_day(low // 4, low % 4 * 15) if hours else None
    end = time_of_day(high // 4, high % 4 * 15) if hours else None
    days = draw(st.none() | st.frozensets(st.integers(0, 6), min_size=1))
    return zone, start, end, days
