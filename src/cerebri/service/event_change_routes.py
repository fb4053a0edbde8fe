"""The event change routes of the HTTP service (docs/decisions/0058).

* ``POST /v1/events/reschedule`` (``RescheduleEventRequest``), ``/v1/events/cancel``
  (``CancelEventRequest``), ``/v1/events/update`` (``UpdateEventRequest``) → 200
  ``EventChangeAnswer`` for every planning outcome: the ``cerebri reschedule|cancel-event|
  update-event --json`` document (the PlanningResult, ``warnings``, ``event`` before,
  ``change``) plus ``request``, the CPIR request to propose
  (:func:`cerebri.calendars.change_surface.change_answer`). The body is read by
  :mod:`cerebri.calendars.change_body`, as the Node bridge reads it.

Errors are ``application/problem+json`` with the find-slot routes' statuses and limits
(:mod:`cerebri.service.find_slot_routes`): 415, 413 ``input.too_large`` past
``ServiceSettings.max_find_slot_bytes`` (4 MiB), 408, 400 ``json.*``, 422 ``json.not_object``,
``input.invalid_option``/``input.missing`` (``path`` the member's JSON pointer), a
calendar's ``ics.*`` (``/calendars/<i>/ics``), ``calendar.not_found`` (``/uid``: no such
event or instance in the organizer's calendar), ``calendars.no_calendar`` (``/calendar``).
Nothing is written anywhere: a change is carried out only through a proposal a second
person approves.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from starlette.responses import Response

from cerebri.calendars.change_body import BODIES, answer_change, read_change_body
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.wire import FIND_SLOT_ANSWER_SCHEMA
from cerebri.service.find_slot_routes import guarded
from cerebri.service.openapi import json_body, responses
from cerebri.service.problems import json_response
from cerebri.service.settings import ServiceSettings

__all__ = ["EVENT_CHANGE_ROUTES", "add_event_change_routes", "event_change_schemas"]

_PREFIX = "#/components/schemas/"

EVENT_CHANGE_ROUTES: tuple[tuple[str, ChangeOperation, str], ...] = (
    ("/v1/events/reschedule", ChangeOperation.RESCHEDULE, "RescheduleEventRequest"),
    ("/v1/events/cancel", ChangeOperation.CANCEL, "CancelEventRequest"),
    ("/v1/events/update", ChangeOperation.UPDATE, "UpdateEventRequest"),
)
"""(path, operation, request body component) of each route."""

_INSTANT = {"type": "string", "description": "RFC 3339 instant in UTC (Z)."}
_LOCAL = {"type": ["string", "null"], "description": "ISO 8601 local date-time, offset of tz."}
_TEXT_OR_NULL = {"type": ["string", "null"]}

EVENT_BEFORE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The event (or instance) as it is now, before the change.",
    "additionalProperties": False,
    "required": [
        "uid",
        "scope",
        "recurrence_id",
        "calendar",
        "object_id",
        "start",
        "end",
        "local_start",
        "local_end",
        "title",
        "location",
        "sequence",
        "recurring",
    ],
    "properties": {
        "uid": {"type": "string"},
        "scope": {"$ref": _PREFIX + "CpirChangeScope"},
        "recurrence_id": _TEXT_OR_NULL,
        "calendar": {"type": "string", "description": "The organizer's calendar id."},
        "object_id": {"type": "string", "description": "The CPIR target's object id."},
        "start": _INSTANT,
        "end": _INSTANT,
        "local_start": _LOCAL,
        "local_end": _LOCAL,
        "title": _TEXT_OR_NULL,
        "location": _TEXT_OR_NULL,
        "sequence": {"type": "integer", "minimum": 0, "description": "SEQUENCE read."},
        "recurring": {"type": "boolean"},
    },
}


_NAMES = {"type": "array", "items": {"type": "string"}}
SLOT_DETAIL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": [
        "start",
        "end",
        "preference_distance_seconds",
        "optional_free",
        "optional_busy",
        "optional_unknown",
    ],
    "properties": {
        "start": _INSTANT,
        "end": _INSTANT,
        "preference_distance_seconds": {"type": ["integer", "null"], "minimum": 0},
        "optional_free": _NAMES,
        "optional_busy": _NAMES,
        "optional_unknown": _NAMES,
    },
}
"""One candidate's optional attendees (:meth:`cerebri.calendars.answer.SlotDetail.to_wire`)."""


SERIES_CHECK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A whole-series or this-and-future reschedule checked at every moved "
    "instance (decision 0063): the horizon, how far busy time was read, the starts left out "
    "and, per start kept, its rank in the request's own ranking (propose --candidate).",
    "additionalProperties": False,
    "required": ["horizon_seconds", "until", "rejected", "request_ranks"],
    "properties": {
        "horizon_seconds": {"type": "integer", "minimum": 0},
        "until": _INSTANT,
        "rejected": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "start",
                    "instance",
                    "calendar_id",
                    "reason",
                    "blocker",
                    "message",
                ],
                "properties": {
                    "start": _INSTANT,
                    "instance": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["start", "end"],
                        "properties": {"start": _INSTANT, "end": _INSTANT},
                    },
                    "calendar_id": {"type": ["string", "null"]},
                    "reason": {"enum": ["busy", "outside_hours", "unavailable", "cannot_write"]},
                    "blocker": {"type": "string"},
                    "message": {"type": "string"},
                },
            },
        },
        "request_ranks": {"type": "array", "items": {"type": "integer", "minimum": 1}},
    },
}
"""``series_check`` (:meth:`cerebri.calendars.series_fit.SeriesCheck.to_wire`)."""


def _answer_schema(planning_result: dict[str, Any]) -> dict[str, Any]:
    """``EventChangeAnswer``: the PlanningResult's members (its own schemas and outcome
    rules) plus ``warnings``, the optional attendees' ``slots`` and
    ``below_min_attendance``, ``event``, ``change`` and ``request``."""
    properties = dict(planning_result["properties"])
    slots = {"type": "array", "items": SLOT_DETAIL_SCHEMA}
    properties.update(
        {
            "warnings": FIND_SLOT_ANSWER_SCHEMA["properties"]["warnings"],
            "slots": {
                **slots,
                "description": "With optional attendees: per candidate (same order), which "
                "optional attendees are free, busy or unknown.",
            },
            "below_min_attendance": slots,
            "local_times": {"type": "array", "items": {"type": "object"}},
            "series_check": SERIES_CHECK_SCHEMA,
            "event": {"$ref": _PREFIX + "EventBefore"},
            "change": {"$ref": _PREFIX + "CpirChange"},
            "request": {"$ref": _PREFIX + "PlanningRequest"},
        }
    )
    return {
        "type": "object",
        "description": "An event change planned: `cerebri reschedule|cancel-event|update-event "
        "--json` plus the CPIR request (propose it to carry the change out).",
        "additionalProperties": False,
        "required": [*planning_result["required"], "warnings", "event", "change", "request"],
        "properties": properties,
        "allOf": planning_result.get("allOf", []),
    }


def event_change_schemas(components: dict[str, Any]) -> dict[str, Any]:
    """Components for ``components.schemas``: the three request bodies,
    ``EventChangeAnswer`` and ``EventBefore``; ``components`` are the CPIR components
    already in the document (the answer reuses ``PlanningResult``'s members)."""
    out: dict[str, Any] = {
        "EventChangeAnswer": _answer_schema(components["PlanningResult"]),
        "EventBefore": EVENT_BEFORE_SCHEMA,
    }
    for _, operation, name in EVENT_CHANGE_ROUTES:
        schema = BODIES[operation].model_json_schema(ref_template=_PREFIX + "{model}")
        schema.pop("$defs", None)  # CalendarIn: the find-slot component FindSlotCalendar
        schema["properties"]["calendars"]["items"] = {"$ref": _PREFIX + "FindSlotCalendar"}
        schema["title"] = name
        out[name] = schema
    return out


def _run(operation: ChangeOperation, body: bytes) -> Response:
    return json_response(answer_change(read_change_body(operation, body)))


def _documented(summary: str) -> dict[int | str, dict[str, Any]]:
    documented = responses(
        f"{summary}: EventChangeAnswer, for every planning outcome.",
        body=True,
        schema={"$ref": _PREFIX + "EventChangeAnswer"},
    )
    documented[413]["description"] = (
        "Body larger than ServiceSettings.max_find_slot_bytes, 4 MiB by default (input.too_large)."
    )
    documented[422]["description"] = (
        "A member of the wrong shape or value (input.invalid_option or input.missing, path: its "
        "JSON pointer), a calendar that cannot be read (ics.*, path /calendars/<i>/ics), no "
        "such event or instance (calendar.not_found, path /uid) or organizer calendar "
        "(calendars.no_calendar, path /calendar)."
    )
    return documented


_TEXT = {
    ChangeOperation.RESCHEDULE: (
        "New times for an event already on the calendars",
        "Finds new times for an event (or one instance, this and future ones, a series) in "
        "the .ics calendars sent (never stored): every required attendee free, the event's "
        "own time left out, least disruption first (same day, then the same time another "
        "day, then nearest). Equals `cerebri reschedule --json` plus the CPIR request.",
    ),
    ChangeOperation.CANCEL: (
        "Cancel an event: the request to propose",
        "Reads the event (or instance) and answers the CANCEL request and its one candidate "
        "(`cerebri cancel-event --json` plus the request). Nothing is cancelled here.",
    ),
    ChangeOperation.UPDATE: (
        "Update an event's title, length, place or attendees",
        "Checks a new length against every required attendee's calendar (a conflict is a "
        "NoSolution naming the event in the way) and answers the UPDATE request "
        "(`cerebri update-event --json` plus the request). Nothing is changed here.",
    ),
}


def add_event_change_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add ``POST /v1/events/reschedule``, ``/v1/events/cancel`` and ``/v1/events/update``
    to ``app`` (module doc)."""
    for path, operation, component in EVENT_CHANGE_ROUTES:
        run: Callable[[bytes], Response] = functools.partial(_run, operation)
        summary, description = _TEXT[operation]
        app.add_api_route(
            path,
            guarded(settings, run),
            methods=["POST"],
            name=f"{operation.value.lower()}_event",
            summary=summary,
            description=description,
            openapi_extra=json_body(_PREFIX + component),
            responses=_documented(summary),
            response_class=Response,
        )
