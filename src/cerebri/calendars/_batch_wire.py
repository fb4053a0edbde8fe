"""The CPIR JSON pieces of :func:`cerebri.calendars.batch_request.batch_request`: the
request around the batch, its objects and grants, and the busy objects of every calendar
(decision 0081; the wire of decision 0070)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, time

from cerebri._json import JSONValue
from cerebri.calendars.batch_file import CalendarBatch
from cerebri.calendars.objects import context_objects
from cerebri.calendars.query import INTEGRATION_ID
from cerebri.ics import BusyPeriod, object_id
from cerebri.temporal import Instant
from cerebri.temporal.zones import zone

__all__ = [
    "MISSING",
    "NS",
    "batch_holders",
    "busy_objects",
    "day_window",
    "grant",
    "known",
    "object_wire",
    "request_wire",
]

NS = 1_000_000_000
"""Nanoseconds in a second."""


def day_window(
    period: BusyPeriod, zone_name: str, spec: CalendarBatch
) -> dict[str, JSONValue] | None:
    """The local day of ``period``'s start in ``zone_name``, cut to the batch window and
    snapped inward to its grid (None when that is the whole window)."""
    tz = zone(zone_name)
    moment = period.start.to_datetime()
    assert moment is not None  # busy periods lie in years 1-9999
    day = moment.astimezone(tz).date()
    first = Instant.from_datetime(datetime.combine(day, time(0), tzinfo=tz))
    following = day.toordinal() + 1
    last = Instant.from_datetime(datetime.combine(day.fromordinal(following), time(0), tzinfo=tz))
    origin, end, step = spec.window.start.ns, spec.window.end.ns, spec.granularity * NS
    low = max(first.ns, origin)
    low = origin + -(-(low - origin) // step) * step
    high = min(last.ns, end)
    high = origin + (high - origin) // step * step
    if low == origin and high == end:
        return None
    return {"start": Instant(low).format(), "end": Instant(high).format()}


def known(period: BusyPeriod) -> JSONValue:
    """A ``KNOWN`` time of ``period``, an integration fact."""
    return {
        "value": {
            "processing": "RESOLVED",
            "knowledge": {
                "state": "KNOWN",
                "data": {"start": period.start.format(), "end": period.end.format()},
            },
        },
        "provenance": "INTEGRATION_FACT",
        "confidence": None,
        "evidence": [],
    }


def object_wire(
    ident: str, calendar: str, zone_name: str, *, revision: int | None, time_value: JSONValue
) -> dict[str, JSONValue]:
    return {
        "id": ident,
        "revision": revision,
        "kind": {"kind": "EVENT"},
        "calendar_id": calendar,
        "integration_id": INTEGRATION_ID,
        "resource_ids": [],
        "time": time_value,
        "timezone": zone_name,
        "semantics": None,
    }


MISSING: JSONValue = {
    "value": {"processing": "RESOLVED", "knowledge": {"state": "MISSING"}},
    "provenance": "USER_EXPLICIT",
    "confidence": None,
    "evidence": [],
}


def grant(ident: str, calendar: str, kind: str) -> dict[str, JSONValue]:
    return {
        "object_id": ident,
        "calendar_id": calendar,
        "integration_id": INTEGRATION_ID,
        "kind": kind,
    }


def batch_holders(spec: CalendarBatch) -> dict[str, list[str]]:
    """Calendar id -> the ids of the people and rooms whose calendar it is (people first,
    in file order): who an event on that calendar blocks."""
    holders: dict[str, list[str]] = {}
    for person in spec.batch.people:
        holders.setdefault(person.calendar_id, []).append(person.id)
    for room in spec.batch.rooms:
        holders.setdefault(room.calendar_id, []).append(room.id)
    return holders


def busy_objects(
    read: list[tuple[str, BusyPeriod]],
    moving: set[str],
    holders: dict[str, list[str]],
    zones: dict[str, str],
) -> list[JSONValue]:
    """One ``EVENT`` object per distinct busy period (:func:`cerebri.ics.object_id`): the
    same instance in several calendars (a team stand-up) is one object on the first
    calendar read that names the other calendars' people and rooms in ``resource_ids``,
    so it blocks every one of them; where copies disagree the latest end is kept."""
    chosen: dict[str, tuple[str, BusyPeriod]] = {}
    others: dict[str, set[str]] = {}
    for name, period in read:
        if period.uid in moving or not period.start < period.end:
            continue
        key = object_id(period)
        known = chosen.get(key)
        if known is None:
            chosen[key] = (name, period)
            others[key] = set()
            continue
        if period.end > known[1].end:
            chosen[key] = (known[0], period)
        if name != known[0]:
            others[key].update(holders[name])
    objects: list[JSONValue] = []
    for key, (name, period) in chosen.items():
        (obj,) = context_objects(
            (period,), calendar_id=name, integration_id=INTEGRATION_ID, zone=zones[name]
        )
        wire = obj.model_dump(mode="json")
        wire["resource_ids"] = sorted(others[key] - set(holders[name]))
        objects.append(wire)
    return objects


def request_wire(
    spec: CalendarBatch,
    *,
    objects: list[JSONValue],
    grants: list[JSONValue],
    meetings: list[JSONValue],
    movable: list[str],
) -> dict[str, JSONValue]:
    """The ``OPTIMIZE`` request: ``spec``'s window, grid, duration and repairs, the new
    meetings (``spec.batch.meetings``) as targets, ``movable`` in
    ``scope.movable_object_ids``, mutations allowed for the targets plus the repairs. Its
    id is a digest of the batch file and every object, so the same inputs give the same
    request."""
    targets: list[JSONValue] = [m.object_id for m in spec.batch.meetings]
    repairs = spec.repairs
    mutations = len(targets) + repairs.max_repairs
    body = json.dumps([spec.model_dump(mode="json"), movable, objects], sort_keys=True)
    fingerprint = hashlib.sha256(body.encode()).hexdigest()[:16]
    batch = spec.batch.model_dump(mode="json", exclude_none=True)
    batch["meetings"] = meetings
    start, end = spec.window.start.format(), spec.window.end.format()
    return {
        "schema_version": {"major": 0, "minor": 2},
        "request_id": f"optimize-{fingerprint}",
        "trace_id": f"optimize-{fingerprint}",
        "principal_id": "cli-user",
        "operation": "OPTIMIZE",
        "scope": {
            "time_range": {"start": start, "end": end},
            "calendar_ids": None,
            "object_ids": None,
            "resource_ids": None,
            "integration_ids": None,
            "movable_object_ids": list(movable),
            "max_mutations": mutations,
        },
        "context": {"revision": 0, "captured_at": start, "objects": objects, "facts": []},
        "target_ids": targets,
        "duration": {
            "value": {
                "processing": "RESOLVED",
                "knowledge": {"state": "KNOWN", "data": spec.duration},
            },
            "provenance": "USER_EXPLICIT",
            "confidence": None,
            "evidence": [],
        },
        "constraints": [],
        "preferences": {"preferences": []},
        "policy": {
            "policy_set_id": "optimize-calendars",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {
                    "max_mutations": mutations,
                    "allowed_actions": ["CREATE_EVENT", "MOVE_EVENT"],
                },
                "mode": "Confirmation",
            },
        },
        "planning_capability": {"read": True, "plan": True, "mutations": grants},
        "granularity": spec.granularity,
        "budget": {
            "max_candidates": 1,
            "max_repairs": repairs.max_repairs,
            "max_moved_objects": repairs.max_repairs,
            "max_depth": repairs.max_depth,
        },
        "batch": batch,
    }
