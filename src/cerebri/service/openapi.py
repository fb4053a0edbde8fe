"""OpenAPI pieces: the CPIR request schemas as components, and response descriptions."""

from __future__ import annotations

from typing import Any

from cerebri.cpir.result_schema import (
    PLANNING_REQUEST_REF,
    PLANNING_RESULT_REF,
    TEMPORAL_REQUEST_REF,
    TEMPORAL_RESULT_REF,
    VALIDATION_REPORT_REF,
)
from cerebri.cpir.result_schema import component_schemas as cpir_components
from cerebri.service.problems import PROBLEM_MEDIA_TYPE

__all__ = [
    "ENVELOPE_REF",
    "PLANNING_REQUEST_REF",
    "RESULT_SCHEMAS",
    "TEMPORAL_REQUEST_REF",
    "component_schemas",
    "json_body",
    "responses",
]

ENVELOPE_REF = "#/components/schemas/SuggestionRequest"

RESULT_SCHEMAS: dict[str, dict[str, Any]] = {
    "validate": {"$ref": VALIDATION_REPORT_REF},
    "plan": {"$ref": PLANNING_RESULT_REF},
    "temporal": {"$ref": TEMPORAL_RESULT_REF},
    "optimize": {"$ref": PLANNING_RESULT_REF},
}
"""The 200 body schema of each core route, by route name."""

PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail", "code", "path"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string"},
        "path": {
            "type": ["string", "null"],
            "description": 'RFC 6901 pointer to the fault; "" is the whole document (not an '
            "object), null when no position applies (syntax, size, media type, route).",
        },
    },
}

_VERSION = {
    "type": "object",
    "additionalProperties": False,
    "required": ["major", "minor"],
    "properties": {
        "major": {"type": "integer", "minimum": 0, "maximum": 65535},
        "minor": {"type": "integer", "minimum": 0, "maximum": 65535},
    },
}


REJECTED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "api.md 5.4 rejected envelope plus the RFC 9457 members (decision 0027); "
    "status stays the string 'rejected', the HTTP status is the response's.",
    "additionalProperties": False,
    "required": ["integration_version", "status", "code", "type", "title", "detail", "path"],
    "properties": {
        "integration_version": _VERSION,
        "status": {"const": "rejected"},
        "code": {"type": "string"},
        "type": {"type": "string"},
        "title": {"type": "string"},
        "detail": {"type": "string"},
        "path": {"type": ["string", "null"]},
    },
}


def component_schemas() -> dict[str, Any]:
    """Schemas to merge into ``components.schemas``: the CPIR request and result schemas
    (:func:`cerebri.cpir.result_schema.component_schemas`) with the service's ``Problem``,
    ``RejectedEnvelope`` and ``SuggestionRequest`` between them."""
    return cpir_components(
        {
            "Problem": PROBLEM_SCHEMA,
            "RejectedEnvelope": REJECTED_SCHEMA,
            "SuggestionRequest": {
                "type": "object",
                "additionalProperties": False,
                "required": ["integration_version", "request"],
                "properties": {
                    "integration_version": _VERSION,
                    "request": {"$ref": PLANNING_REQUEST_REF},
                },
            },
        }
    )


def json_body(ref: str) -> dict[str, Any]:
    """``openapi_extra`` declaring a required JSON request body with schema ``ref``."""
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": ref}}},
        }
    }


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


_OBJECT: dict[str, Any] = {"type": "object"}


def responses(
    success: str, *, body: bool, schema: dict[str, Any] | None = None, envelope: bool = False
) -> dict[int | str, dict[str, Any]]:
    """The documented responses of a route (200 plus the transport failures)."""
    documented: dict[int | str, dict[str, Any]] = {
        200: {
            "description": success,
            "content": {"application/json": {"schema": schema or _OBJECT}},
        },
        401: _problem("Missing or wrong bearer token (only when a token is configured)."),
    }
    if not body:
        return documented
    if envelope:
        rejected = {
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/RejectedEnvelope"}}
            }
        }
        for status, text in (
            (400, "Body is not JSON: rejected envelope, invalid_request."),
            (408, "Body not received within the body timeout: rejected envelope, invalid_request."),
            (413, "Body larger than 262 144 bytes: rejected envelope, request_too_large."),
            (415, "Content-Type is not JSON: rejected envelope, invalid_request."),
            (422, "Shape error (invalid_request) or an admission rejection."),
        ):
            documented[status] = {"description": text, **rejected}
        return documented
    documented[400] = _problem("Not syntactically valid JSON (json.* codes).")
    documented[408] = _problem("Body not received within the body timeout (http.body_timeout).")
    documented[413] = _problem("Body larger than 262 144 bytes (input.too_large).")
    documented[415] = _problem("Content-Type is not application/json.")
    documented[422] = _problem("Valid JSON that is not a valid request (cpir.* codes).")
    return documented
