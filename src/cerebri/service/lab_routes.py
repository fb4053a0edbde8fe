"""Two routes the Lab needs to change events (issue #23; docs/decisions/0059).

* ``POST /v1/find-slot/events``: the find-slot body (:mod:`cerebri.calendars.find_slot_body`)
  → 200 ``{"events": [{"calendar", "uid", "recurrence_id", "start", "end", "summary"}]}``:
  every event instance that makes a calendar busy in the window, in body order then by start
  (at most :data:`MAX_EVENTS`), so that the Lab can name the event a busy bar is.
  ``recurrence_id`` is the instance's original start as an RFC 3339 UTC instant (its
  ``RECURRENCE-ID``, RFC 5545 section 3.8.4.4; a date for an all-day series), null for an
  event that does not recur. Errors: those of ``POST /v1/find-slot``. The calendars are read
  in memory only, as for find-slot.
* ``POST /v1/proposals/prepare`` (with a store; a principal's bearer token): ``{"request":
  <CPIR request>, "candidate"?: 1-based rank (default 1), "expires_in"?: seconds (60..31 536
  000; default: one day, or until the latest slot starts plus one day), "title"?: the event's
  title as read (the change document's ``event.title``: the CPIR request carries none; it
  fills the display-only ``current.title`` of the change's steps, so that the approver sees
  it before and after)}`` → 200
  ``{"envelope", "artifact", "artifact_type", "signing": {"payload_type", "payload"}}``: the
  plan graph carrying the candidate out
  (:func:`cerebri.proposals.proposal_artifact`, planned with find-slot's limits as the change
  commands plan), in an envelope authored by the caller, valid from the app clock's now for
  ``expires_in`` seconds, *unsigned*. The caller signs ``PAE(payload_type, payload)``
  (``payload`` base64: the envelope's RFC 8785 bytes without ``signature``) with its own
  registered Ed25519 key in the browser, adds ``"signature": {"signatures": [{"keyid",
  "sig"}]}`` and submits ``{"envelope", "artifact"}`` to ``POST /v1/plans``; nothing is
  stored here and the private key never reaches the server. Refusals: the planner's and the
  proposal checks' codes (``cpir.*``, ``plan.*``, ``draft.*``, ``proposal.*``: 422, path
  under ``/request`` or at the member), 401 ``auth.*``.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import replace
from typing import Annotated, Any, Final

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cerebri._json import JSONValue
from cerebri.calendars import FIND_SLOT_LIMITS
from cerebri.calendars.find_slot_body import read_find_slot_body
from cerebri.calendars.wire import plan_slots
from cerebri.errors import CerebriError
from cerebri.execution import Executor
from cerebri.proposals import (
    PROPOSAL_PAYLOAD_TYPE,
    ArtifactChoice,
    Classification,
    ExecutorMode,
    Origin,
    ProposalArtifact,
    author_of,
    canonical_json,
    envelope_payload,
    load_json,
    make_proposal,
    proposal_artifact,
    slot_starts,
)
from cerebri.service.find_slot_routes import guarded
from cerebri.service.openapi import responses
from cerebri.service.principal import Caller, store_executor
from cerebri.service.problems import ServiceError, json_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.store_bodies import read_model, read_object
from cerebri.service.store_schemas import documented
from cerebri.temporal import Instant

__all__ = ["MAX_EVENTS", "add_lab_routes", "add_lab_store_routes"]

MAX_EVENTS: Final = 2000
"""Most event instances ``/v1/find-slot/events`` lists (the first by calendar, start)."""

_ORIGIN: Final = Origin("lab", "lab", "lab", Classification.PERSONAL, ExecutorMode.PLAN_EXECUTOR)
"""The envelope's node, room and turn ids, class and executor mode of a Lab proposal."""

_EVENTS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["events"],
    "properties": {
        "events": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["calendar", "uid", "recurrence_id", "start", "end", "summary"],
                "properties": {
                    "calendar": {"type": "string"},
                    "uid": {"type": "string"},
                    "recurrence_id": {"type": ["string", "null"]},
                    "start": {"type": "string"},
                    "end": {"type": "string"},
                    "summary": {"type": ["string", "null"]},
                },
            },
        }
    },
}


def _instant_of(recurrence_id: str | None) -> str | None:
    """``YYYYMMDD`` / ``YYYYMMDDTHHMMSSZ`` (:class:`cerebri.ics.BusyPeriod`) as RFC 3339 UTC."""
    if recurrence_id is None:
        return None
    day = f"{recurrence_id[0:4]}-{recurrence_id[4:6]}-{recurrence_id[6:8]}"
    if len(recurrence_id) == 8:
        return f"{day}T00:00:00Z"
    clock = recurrence_id[9:15]
    return f"{day}T{clock[0:2]}:{clock[2:4]}:{clock[4:6]}Z"


def _events(body: bytes) -> Response:
    ask = read_find_slot_body(body)
    _, busy = plan_slots(ask)
    events: list[JSONValue] = []
    for name, periods in busy:
        for period in sorted(periods, key=lambda p: p.sort_key()):
            if period.kind != "event" or len(events) >= MAX_EVENTS:
                continue
            events.append(
                {
                    "calendar": name,
                    "uid": period.uid,
                    "recurrence_id": _instant_of(period.recurrence_id),
                    "start": period.start.format(),
                    "end": period.end.format(),
                    "summary": period.summary,
                }
            )
    return json_response({"events": events})


def add_lab_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add ``POST /v1/find-slot/events`` (module docstring) to ``app``."""
    documented_events = responses(
        "The event instances busy in the window.", body=True, schema=_EVENTS_SCHEMA
    )
    app.add_api_route(
        "/v1/find-slot/events",
        guarded(settings, _events),
        methods=["POST"],
        name="find_slot_events",
        summary="The events that make the calendars busy",
        description=(
            "The find-slot body: every event instance busy in the window, with its UID and "
            "recurrence id, so that a client can pick one to reschedule, cancel or edit. "
            "The calendars are not stored."
        ),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/FindSlotRequest"}}
                },
            }
        },
        responses=documented_events,
        response_class=Response,
    )


class _PrepareBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    request: dict[str, Any]
    candidate: Annotated[int, Field(ge=1, le=100_000)] = 1
    expires_in: Annotated[int, Field(ge=60, le=31_536_000)] | None = None
    title: Annotated[str, Field(min_length=1, max_length=1024)] | None = None


def _titled(made: ProposalArtifact, title: str | None) -> ProposalArtifact:
    """``made`` with ``title`` as the event's title read (``current.title``) in every change
    step that has none: the CPIR request carries no current title, and the approver is shown
    before and after from that display-only param (decision 0056)."""
    graph = load_json(made.payload)
    if title is None or not isinstance(graph, dict):
        return made
    for step in graph.get("steps", []):
        params = step.get("params") if isinstance(step, dict) else None
        current = params.get("current") if isinstance(params, dict) else None
        if isinstance(current, dict) and current.get("title") is None:
            current["title"] = title
    return replace(made, payload=canonical_json(graph))


def _relocated(error: CerebriError, prefix: str) -> ServiceError:
    path = prefix + (error.path or "")
    return ServiceError(422, error.code, error.message, path)


_DAY_NS: Final = 86_400 * 1_000_000_000


def _validity(expires_in: int | None, now: Instant, starts: Sequence[Instant]) -> int:
    """Nanoseconds the envelope stays valid: ``expires_in`` seconds when given, else one day
    or until the latest slot starts plus one day, whichever is longer (a proposal must not
    expire before its slot starts, decision 0025), at most one year."""
    if expires_in is not None:
        return expires_in * 1_000_000_000
    latest = max((start.ns - now.ns for start in starts), default=0)
    return min(max(_DAY_NS, latest + _DAY_NS), 365 * _DAY_NS)


def _prepare(executor: Executor, principal: str, document: dict[str, Any]) -> dict[str, JSONValue]:
    body = read_model(_PrepareBody, document)
    author = author_of(principal)
    try:
        made = proposal_artifact(
            canonical_json(body.request),
            body.candidate,
            None,
            ArtifactChoice.PLAN_GRAPH,
            FIND_SLOT_LIMITS,
            requester=f"{author.kind.value}:{author.id}",
        )
    except CerebriError as error:
        raise _relocated(error, "/request") from None
    made = _titled(made, body.title)
    now = executor.clock.now()
    expires = Instant(now.ns + _validity(body.expires_in, now, slot_starts(made.payload)))
    try:
        done = make_proposal(
            made,
            signer=None,
            author=author,
            origin=_ORIGIN,
            proposed_at=now,
            expires_at=expires,
        )
    except CerebriError as error:
        where = "/expires_in" if error.code == "proposal.expires_before_slot" else None
        raise ServiceError(422, error.code, error.message, where or error.path) from None
    artifact: JSONValue = load_json(made.payload)
    return {
        "envelope": done.document,
        "artifact": artifact,
        "artifact_type": str(made.artifact_type),
        "signing": {
            "payload_type": PROPOSAL_PAYLOAD_TYPE,
            "payload": base64.b64encode(envelope_payload(done.document)).decode("ascii"),
        },
    }


_PREPARED: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["envelope", "artifact", "artifact_type", "signing"],
    "properties": {
        "envelope": {"description": "The envelope without signature (proposals.md)."},
        "artifact": {"description": "The plan graph the envelope names (its RFC 8785 bytes)."},
        "artifact_type": {"type": "string"},
        "signing": {
            "type": "object",
            "additionalProperties": False,
            "required": ["payload_type", "payload"],
            "properties": {
                "payload_type": {"const": PROPOSAL_PAYLOAD_TYPE},
                "payload": {"type": "string", "contentEncoding": "base64"},
            },
        },
    },
}


def add_lab_store_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add ``POST /v1/proposals/prepare`` (module docstring) to ``app`` (with a store)."""

    @app.post(
        "/v1/proposals/prepare",
        response_class=Response,
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["request"],
                            "properties": {
                                "request": {"type": "object"},
                                "candidate": {"type": "integer", "minimum": 1},
                                "expires_in": {
                                    "type": "integer",
                                    "minimum": 60,
                                    "maximum": 31_536_000,
                                },
                                "title": {"type": "string", "minLength": 1, "maxLength": 1024},
                            },
                        }
                    }
                },
            }
        },
        responses=documented(
            {200: ("The unsigned envelope, its artifact and what to sign.", _PREPARED)},
            body=True,
            invalid="A request that does not plan, a candidate past the last one, or an "
            "envelope that would not verify (cpir.*, plan.*, draft.*, proposal.*), or a body "
            "of another shape (http.invalid_body).",
        ),
    )
    async def post_prepare(request: Request, principal: Caller) -> Response:
        """An unsigned proposal envelope for a CPIR request's candidate, to sign in the
        browser and submit to POST /v1/plans."""
        document = await read_object(request, settings)
        executor = store_executor(request)
        wire = await run_in_threadpool(_prepare, executor, principal, document)
        return json_response(wire)
