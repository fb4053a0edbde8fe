"""From a find-slot request to the CPIR request of a change: RESCHEDULE, CANCEL, UPDATE.

A change request (issue #23, contract C1; docs/decisions/0055) is the find-slot request
(:func:`~cerebri.calendars.query.build_request`: the attendees' busy time, unobserved and
closed time, working hours, the buffer) with three differences:

* the target is the event being changed, an *existing* ``EVENT`` (``revision`` = its
  ``SEQUENCE``, RFC 5545 section 3.8.7.4) with its ``KNOWN`` current range, provenance
  ``INTEGRATION_FACT``, on the organizer's calendar; its id is the one
  :func:`cerebri.ics.object_id` gives that instance, so a replay names the same object;
* the operation is ``RESCHEDULE`` (one ``MOVE_EVENT``), ``CANCEL`` (one ``DELETE_EVENT``) or
  ``UPDATE`` (one ``UPDATE_EVENT``): one mutation, granted and allowed by a ``Confirmation``
  policy (cpir-0.2.md 5.3, 11.1, 11.2), at most one moved object;
* the top-level ``change`` field carries what the plan graph and the iTIP messages need
  (:func:`change_field`): UID, scope, recurrence id, ETag, SEQUENCE, organizer, attendees and
  an update's new title and location.

The busy time given to :func:`as_change_request` must already leave the event itself out
(:mod:`cerebri.calendars.event_change` does): what moves never blocks itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from cerebri._json import JSONValue
from cerebri.calendars.query import TARGET_ID
from cerebri.temporal import Instant

__all__ = [
    "MUTATION_OF",
    "ChangeAttendee",
    "ChangeOperation",
    "ChangeTarget",
    "as_change_request",
    "change_field",
]


class ChangeOperation(StrEnum):
    """The CPIR operation of a change (cpir-0.2.md 5.1, contract C1 of issue #23)."""

    RESCHEDULE = "RESCHEDULE"
    CANCEL = "CANCEL"
    UPDATE = "UPDATE"


MUTATION_OF: Final = {
    ChangeOperation.RESCHEDULE: "MOVE_EVENT",
    ChangeOperation.CANCEL: "DELETE_EVENT",
    ChangeOperation.UPDATE: "UPDATE_EVENT",
}
"""The one mutation kind each change operation is granted (cpir-0.2.md 11)."""


@dataclass(frozen=True, slots=True)
class ChangeTarget:
    """The event being changed, as the request's target object.

    Attributes:
        object_id: its CPIR id (:func:`cerebri.ics.object_id` of the instance).
        calendar_id: the organizer's calendar (where the event is written).
        integration_id: ``ics`` for an .ics file, ``caldav`` for a CalDAV calendar.
        start, end: its current range, UTC instants (``start < end``).
        sequence: its ``SEQUENCE`` (the object's ``revision``).
        timezone: the IANA zone of local times (the query's ``--tz``).
    """

    object_id: str
    calendar_id: str
    integration_id: str
    start: Instant
    end: Instant
    sequence: int
    timezone: str

    def to_wire(self) -> dict[str, JSONValue]:
        """The CPIR ``PlanningObject`` (cpir-0.2.md 7): an existing ``EVENT`` with a
        ``KNOWN`` time of provenance ``INTEGRATION_FACT``."""
        return {
            "id": self.object_id,
            "revision": self.sequence,
            "kind": {"kind": "EVENT"},
            "calendar_id": self.calendar_id,
            "integration_id": self.integration_id,
            "resource_ids": [],
            "time": {
                "value": {
                    "processing": "RESOLVED",
                    "knowledge": {
                        "state": "KNOWN",
                        "data": {"start": self.start.format(), "end": self.end.format()},
                    },
                },
                "provenance": "INTEGRATION_FACT",
                "confidence": None,
                "evidence": [],
            },
            "timezone": self.timezone,
            "semantics": None,
        }


@dataclass(frozen=True, slots=True)
class ChangeAttendee:
    """One attendee in the ``change`` field: ``address`` (``mailto:a@b``), ``name`` (the
    ``CN`` or None), ``required`` (``REQ-PARTICIPANT``, else ``OPT-PARTICIPANT``) and the
    ``calendar_id`` of the calendar read whose owner has that address (None when none)."""

    address: str
    name: str | None
    required: bool
    calendar_id: str | None

    def to_wire(self) -> dict[str, JSONValue]:
        """``{"address", "name", "required", "calendar_id"}``."""
        return {
            "address": self.address,
            "name": self.name,
            "required": self.required,
            "calendar_id": self.calendar_id,
        }


def change_field(
    *,
    uid: str,
    scope: str,
    recurrence_id: Instant | None,
    etag: str | None,
    sequence: int,
    title: str | None = None,
    location: str | None = None,
    organizer: str | None = None,
    attendees: Sequence[ChangeAttendee] | None = None,
    previous_attendees: Sequence[ChangeAttendee] | None = None,
) -> dict[str, JSONValue]:
    """The request's ``change`` field (contract C1): every key of C1 present, instants in
    the CPIR wire form (RFC 3339 UTC), ``attendees`` in the order given or null.
    ``previous_attendees`` (an UPDATE's list as read, docs/decisions/0061) is added only
    when given."""
    field: dict[str, JSONValue] = {
        "uid": uid,
        "scope": scope,
        "recurrence_id": None if recurrence_id is None else recurrence_id.format(),
        "etag": etag,
        "sequence": sequence,
        "title": title,
        "location": location,
        "organizer": organizer,
        "attendees": None if attendees is None else [a.to_wire() for a in attendees],
    }
    if previous_attendees is not None:
        field["previous_attendees"] = [a.to_wire() for a in previous_attendees]
    return field


def _swap_target(value: JSONValue, new: str) -> JSONValue:
    """``value`` with every ``object_id`` equal to the find-slot target renamed ``new``."""
    if isinstance(value, dict):
        return {
            key: new if key == "object_id" and item == TARGET_ID else _swap_target(item, new)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_swap_target(item, new) for item in value]
    return value


def as_change_request(
    find_slot_request: dict[str, JSONValue],
    operation: ChangeOperation,
    target: ChangeTarget,
    change: dict[str, JSONValue],
) -> dict[str, JSONValue]:
    """The change request made from a FIND_SLOT ``find_slot_request`` (module doc).

    The find-slot target (:data:`~cerebri.calendars.query.TARGET_ID`, its first object) is
    replaced by ``target``; constraints on it follow it. ``request_id`` and ``trace_id`` are
    ``change-`` and 16 hex digits of the SHA-256 of the operation, the find-slot request id,
    the target and ``change``: the same question gives the same ids.
    """
    request = _swap_target(find_slot_request, target.object_id)
    assert isinstance(request, dict)
    context = request["context"]
    assert isinstance(context, dict)
    objects = context["objects"]
    assert isinstance(objects, list)
    context["objects"] = [target.to_wire(), *objects[1:]]
    kind = MUTATION_OF[operation]
    seed = json.dumps(
        [operation.value, request["request_id"], target.to_wire(), change], sort_keys=True
    )
    fingerprint = hashlib.sha256(seed.encode()).hexdigest()[:16]
    scope = request["scope"]
    assert isinstance(scope, dict)
    scope["max_mutations"] = 1
    budget = request["budget"]
    assert isinstance(budget, dict)
    budget["max_moved_objects"] = 1
    updates: dict[str, JSONValue] = {
        "request_id": f"change-{fingerprint}",
        "trace_id": f"change-{fingerprint}",
        "operation": operation.value,
        "target_ids": [target.object_id],
        "policy": {
            "policy_set_id": "event-change",
            "policy_version": 1,
            "snapshot": {
                "allow_uncertain_duration": False,
                "confirmation": {"all_mutations": True, "deletion": True},
                "mutation": {"max_mutations": 1, "allowed_actions": [kind]},
                "mode": "Confirmation",
            },
        },
        "planning_capability": {
            "read": True,
            "plan": True,
            "mutations": [
                {
                    "object_id": target.object_id,
                    "calendar_id": target.calendar_id,
                    "integration_id": target.integration_id,
                    "kind": kind,
                }
            ],
        },
        "change": change,
    }
    request.update(updates)
    return request
