"""The find-slot routes of the HTTP service (docs/decisions/0029).

* ``POST /v1/find-slot`` → 200 ``FindSlotAnswer`` (:mod:`cerebri.calendars.wire`; the body
  read by :mod:`cerebri.calendars.find_slot_body`, as the Node bridge's ``find_slot``)
  for every planning outcome.
* ``POST /v1/find-slot/event`` → 200 ``text/calendar`` (``Content-Disposition: attachment``):
  the same body plus ``pick`` (1-based rank), ``title``, ``organizer`` and ``attendees``;
  slot ``pick`` of the same answer as an iCalendar ``METHOD:REQUEST``
  (:func:`cerebri.calendars.event_out.slot_event`), ``DTSTAMP`` from the app's clock, the
  organizer and attendees by ``find-slot --ics-out``'s rules
  (:func:`cerebri.calendars.owners.invitation_people`: the required calendars' owners).
  422 ``calendars.no_candidate`` when nothing is free,
  ``calendars.invalid_pick`` when ``pick`` is past the last candidate.

Errors are ``application/problem+json`` (``type``, ``title``, ``status``, ``detail``,
``code``, ``path``): 415 ``http.unsupported_media_type``; 413 ``input.too_large`` past
``ServiceSettings.max_find_slot_bytes`` (4 MiB); 408 ``http.body_timeout``; 400 ``json.*``;
422 ``json.not_object``, ``input.invalid_option`` (a field, ``path`` its JSON pointer) or a
calendar's ``ics.*`` code (``path`` ``/calendars/<i>/ics``). The calendars are parsed and
planned in memory only; no file, log line or cache holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cerebri._json import JSONValue
from cerebri.calendars.event_out import invitation
from cerebri.calendars.find_slot_body import (
    EventBody,
    FindSlotBody,
    read_event_body,
    read_find_slot_body,
)
from cerebri.calendars.wire import FIND_SLOT_ANSWER_SCHEMA, answer_wire, plan_slots
from cerebri.clock import Clock
from cerebri.errors import CerebriError, InputTooLargeError, ParseError
from cerebri.service.body import ClientGone, parse_error_status, read_json_body
from cerebri.service.openapi import json_body, responses
from cerebri.service.problems import ServiceError, json_response, problem_response
from cerebri.service.settings import ServiceSettings

__all__ = ["add_find_slot_routes", "find_slot_schemas"]

_PREFIX = "#/components/schemas/"


def find_slot_schemas() -> dict[str, Any]:
    """Components for ``components.schemas``: ``FindSlotRequest``, ``FindSlotEventRequest``,
    ``FindSlotCalendar`` and ``FindSlotAnswer``."""
    out: dict[str, Any] = {"FindSlotAnswer": FIND_SLOT_ANSWER_SCHEMA}
    for name, model in (("FindSlotRequest", FindSlotBody), ("FindSlotEventRequest", EventBody)):
        schema = model.model_json_schema(ref_template=_PREFIX + "FindSlot{model}")
        for key, value in schema.pop("$defs", {}).items():
            out["FindSlot" + key.removesuffix("In")] = value
        schema["title"] = name
        out[name] = schema
    return _renamed(out)


def _renamed(schemas: dict[str, Any]) -> dict[str, Any]:
    """``FindSlotCalendarIn`` references become ``FindSlotCalendar`` (the component name)."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: v.replace("FindSlotCalendarIn", "FindSlotCalendar")
                if k == "$ref" and isinstance(v, str)
                else walk(v)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    return {name: walk(schema) for name, schema in schemas.items()}


def _problem(error: ServiceError) -> Response:
    headers = {"Connection": "close"} if error.status == 408 else None
    return problem_response(error.status, error.code, error.detail, error.path, headers)


def guarded(
    settings: ServiceSettings, run: Callable[[bytes], Response]
) -> Callable[[Request], Any]:
    """An endpoint reading a bounded JSON body and answering ``run(body)`` off the event loop;
    transport and input failures become problems (module docstring)."""

    async def endpoint(request: Request) -> Response:
        try:
            body = await read_json_body(
                request, settings.max_find_slot_bytes, timeout=settings.body_timeout_seconds
            )
            return await run_in_threadpool(run, body)
        except ClientGone:
            return Response(status_code=400)  # nobody is left to read it
        except ServiceError as error:
            return _problem(error)
        except ParseError as error:  # the body's JSON: json.* syntax 400, else 422
            return problem_response(
                parse_error_status(error), error.code, error.message, error.path
            )
        except InputTooLargeError as error:  # more JSON values than the reader counts
            return problem_response(413, error.code, error.message, None)
        except CerebriError as error:  # input.invalid_option, ics.expansion_limit, …
            return problem_response(422, error.code, error.message, error.path)

    return endpoint


def _find_slot(body: bytes) -> Response:
    ask = read_find_slot_body(body)
    answer, busy = plan_slots(ask)
    wire: JSONValue = answer_wire(ask, answer, busy)
    return json_response(wire)


def _event(clock: Clock) -> Callable[[bytes], Response]:
    def run(body: bytes) -> Response:
        event = read_event_body(body)
        answer, _ = plan_slots(event.ask)
        data = invitation(
            answer,
            event.ask.calendars,
            pick=event.pick,
            title=event.title,
            dtstamp=clock.now(),
            organizer=event.organizer,
            attendees=event.attendees,
        ).data
        pick = event.pick
        return Response(
            data,
            media_type="text/calendar; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="slot-{pick}.ics"'},
        )

    return run


def _documented(success: str, schema: dict[str, Any]) -> dict[int | str, dict[str, Any]]:
    documented = responses(success, body=True, schema=schema)
    documented[413]["description"] = (
        "Body larger than ServiceSettings.max_find_slot_bytes, 4 MiB by default (input.too_large)."
    )
    documented[422]["description"] = (
        "A field of the wrong shape or value (input.invalid_option, path: its JSON pointer) or "
        "a calendar that cannot be read (ics.*, path /calendars/<i>/ics)."
    )
    return documented


def add_find_slot_routes(app: FastAPI, settings: ServiceSettings, clock: Clock) -> None:
    """Add ``POST /v1/find-slot`` and ``POST /v1/find-slot/event`` to ``app``; ``clock``
    gives the events' ``DTSTAMP``."""
    app.add_api_route(
        "/v1/find-slot",
        guarded(settings, _find_slot),
        methods=["POST"],
        name="find_slot",
        summary="Ranked meeting slots over the calendars sent",
        description=(
            "Plans a meeting over the attendees' .ics calendars sent in the body (never "
            "stored): the ranked slots with who is free, each calendar's busy time over the "
            "window, and the reading warnings. Equals `cerebri find-slot` over the same files."
        ),
        openapi_extra=json_body(_PREFIX + "FindSlotRequest"),
        responses=_documented(
            "FindSlotAnswer, for every planning outcome.", {"$ref": _PREFIX + "FindSlotAnswer"}
        ),
        response_class=Response,
    )
    event_responses = _documented("The slot as an iCalendar REQUEST (text/calendar).", {})
    event_responses[200] = {
        "description": "The picked slot as an iCalendar REQUEST with one VEVENT (RFC 5546).",
        "content": {"text/calendar": {"schema": {"type": "string"}}},
    }
    event_responses[422]["description"] += (
        " calendars.no_candidate: no slot is free; calendars.invalid_pick: pick is past the "
        "last ranked slot."
    )
    app.add_api_route(
        "/v1/find-slot/event",
        guarded(settings, _event(clock)),
        methods=["POST"],
        name="find_slot_event",
        summary="One found slot as an .ics invitation",
        description=(
            "The same question as /v1/find-slot plus `pick` (1-based rank) and `title`: the "
            "picked slot as an iCalendar REQUEST to import or send (`cerebri find-slot "
            "--ics-out`). The calendars are not stored."
        ),
        openapi_extra=json_body(_PREFIX + "FindSlotEventRequest"),
        responses=event_responses,
        response_class=Response,
    )
