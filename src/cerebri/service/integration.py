"""The ``single_event_suggestion`` integration profile 0.1 (api.md section 5).

A narrow, non-executing facade: the envelope is parsed strictly, admission rules 1-8 are
checked in order (first failing rule wins), and the CPIR request is then passed unchanged
to :func:`cerebri.plan`. Rejections carry only fixed texts, never request content: the
envelope of api.md 5.4 (``integration_version``, ``status: "rejected"``, ``code``) plus the
RFC 9457 members ``type``, ``title``, ``detail`` (a fixed sentence per code) and ``path``
(a pointer built from schema field names only; docs/decisions/0027-readable-answers.md).

Rejection codes: ``request_too_large``, ``invalid_request``,
``unsupported_integration_version``, ``unsupported_cpir_version``,
``unsupported_operation``, ``mutation_authority_forbidden``,
``unsupported_deployment_mode``, ``prospective_event_required``,
``temporal_coverage_required``, ``uncertain_duration_forbidden``.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from cerebri import __version__
from cerebri._json import JSONValue
from cerebri.cpir import PlanningRequest, parse_request
from cerebri.cpir.enums import DeploymentMode, Operation
from cerebri.cpir.parse import load_json
from cerebri.errors import ParseError
from cerebri.planner import plan
from cerebri.service.settings import MAX_REQUEST_BYTES

__all__ = [
    "INTEGRATION_VERSION",
    "REJECTION_CODES",
    "EnvelopeError",
    "admission_code",
    "admission_path",
    "manifest",
    "parse_envelope",
    "planned_envelope",
    "rejected_envelope",
]

INTEGRATION_VERSION: dict[str, JSONValue] = {"major": 0, "minor": 1}
PROFILE = "single_event_suggestion"
_ENVELOPE_KEYS = frozenset({"integration_version", "request"})
_MODES = frozenset({DeploymentMode.TEST, DeploymentMode.SHADOW, DeploymentMode.SUGGESTION})

REJECTION_CODES = (
    "request_too_large",
    "invalid_request",
    "unsupported_integration_version",
    "unsupported_cpir_version",
    "unsupported_operation",
    "mutation_authority_forbidden",
    "unsupported_deployment_mode",
    "prospective_event_required",
    "temporal_coverage_required",
    "uncertain_duration_forbidden",
)


DETAILS: dict[str, str] = {
    "request_too_large": "The body is larger than max_request_bytes (262 144 bytes).",
    "invalid_request": 'The body is not an envelope {"integration_version": {...}, '
    '"request": <CPIR 0.2 PlanningRequest>} with no other key; POST the request alone to '
    "/v1/validate to see which field is wrong.",
    "unsupported_integration_version": 'integration_version must be {"major": 0, "minor": 1}.',
    "unsupported_cpir_version": 'request.schema_version must be {"major": 0, "minor": 2}.',
    "unsupported_operation": "request.operation must be FIND_SLOT.",
    "mutation_authority_forbidden": "A suggestion may not mutate: scope.max_mutations and "
    "policy.snapshot.mutation.max_mutations must be 0, and allowed_actions and "
    "planning_capability.mutations empty.",
    "unsupported_deployment_mode": "request.policy.snapshot.mode must be Test, Shadow or "
    "Suggestion.",
    "prospective_event_required": "request.target_ids must name exactly one EVENT object of "
    "the request whose revision is null (a new event).",
    "temporal_coverage_required": "request.context.temporal is required (the busy time and "
    "its coverage).",
    "uncertain_duration_forbidden": "request.policy.snapshot.allow_uncertain_duration must "
    "be false.",
}
"""The fixed ``detail`` of each rejection code (never request content)."""

TRANSPORT_DETAILS: dict[int, str] = {
    400: "The body is not JSON (RFC 8259) encoded as UTF-8.",
    408: "The body did not arrive in time.",
    415: "The media type is not JSON: send the envelope with Content-Type: application/json.",
}
"""The fixed ``detail`` of an ``invalid_request`` refused before the body was decoded, by
HTTP status: the body's shape is not what went wrong."""


class EnvelopeError(Exception):
    """An envelope that does not decode; ``code`` is always ``invalid_request``.

    Attributes:
        status: 400 for a syntax-level JSON error, 422 for a shape error.
        path: ``None`` for a syntax error; ``""`` (the whole body), ``/integration_version``
            or ``/request`` for a shape error (never a key the client chose).
    """

    def __init__(self, status: int, path: str | None = None) -> None:
        super().__init__("invalid_request")
        self.status = status
        self.code = "invalid_request"
        self.path = path


def manifest() -> dict[str, JSONValue]:
    """The ``IntegrationManifest`` of api.md 5.1."""
    return {
        "integration_version": dict(INTEGRATION_VERSION),
        "software_version": __version__,
        "profile": PROFILE,
        "cpir_schema_version": {"major": 0, "minor": 2},
        "operations": ["FIND_SLOT"],
        "deployment_modes": ["Test", "Shadow", "Suggestion"],
        "temporal_coverage_required": True,
        "execution_supported": False,
        "max_request_bytes": MAX_REQUEST_BYTES,
    }


def _version(value: Any) -> tuple[int, int]:
    if (
        not isinstance(value, dict)
        or set(value) != {"major", "minor"}
        or not all(type(value[k]) is int and 0 <= value[k] <= 0xFFFF for k in value)
    ):
        raise EnvelopeError(422, "/integration_version")
    return value["major"], value["minor"]


def parse_envelope(body: bytes) -> tuple[tuple[int, int], PlanningRequest]:
    """Decode ``{"integration_version": {...}, "request": <CPIR>}`` strictly.

    Raises:
        EnvelopeError: 400 when the body is not JSON (or not UTF-8), 422 when it is JSON that
            does not match the envelope or the CPIR schema (any extra top-level key).
    """
    try:
        document = load_json(body)
    except ParseError:
        raise EnvelopeError(400) from None
    if not isinstance(document, dict) or set(document) != _ENVELOPE_KEYS:
        raise EnvelopeError(422, "")
    version = _version(document["integration_version"])
    if not isinstance(document["request"], dict):
        raise EnvelopeError(422, "/request")
    try:
        request = parse_request(document["request"])
    except ParseError:
        raise EnvelopeError(422, "/request") from None
    return version, request


def _prospective_event(request: PlanningRequest) -> bool:
    if len(request.target_ids) != 1:
        return False
    target = next((o for o in request.context.objects if o.id == request.target_ids[0]), None)
    return target is not None and target.revision is None and target.kind.kind == "EVENT"


def admission_code(version: tuple[int, int], request: PlanningRequest) -> str | None:
    """The first failing admission rule's code (api.md 5.3, rules 1-8), or ``None``."""
    snapshot = request.policy.snapshot
    checks: list[tuple[bool, str]] = [
        (version == (0, 1), "unsupported_integration_version"),
        (
            (request.schema_version.major, request.schema_version.minor) == (0, 2),
            "unsupported_cpir_version",
        ),
        (request.operation == Operation.FIND_SLOT, "unsupported_operation"),
        (
            request.scope.max_mutations == 0
            and snapshot.mutation.max_mutations == 0
            and not snapshot.mutation.allowed_actions
            and not request.planning_capability.mutations,
            "mutation_authority_forbidden",
        ),
        (snapshot.mode in _MODES, "unsupported_deployment_mode"),
        (_prospective_event(request), "prospective_event_required"),
        (request.context.temporal is not None, "temporal_coverage_required"),
        (not snapshot.allow_uncertain_duration, "uncertain_duration_forbidden"),
    ]
    return next((code for passed, code in checks if not passed), None)


def admission_path(request: PlanningRequest, code: str) -> str | None:
    """The JSON pointer (into the envelope) of the field that fails admission rule ``code``;
    ``None`` for a code that is not an admission rule."""
    mutation = request.policy.snapshot.mutation
    if code == "mutation_authority_forbidden":
        if request.scope.max_mutations != 0:
            return "/request/scope/max_mutations"
        if mutation.max_mutations != 0:
            return "/request/policy/snapshot/mutation/max_mutations"
        if mutation.allowed_actions:
            return "/request/policy/snapshot/mutation/allowed_actions"
        return "/request/planning_capability/mutations"
    return {
        "unsupported_integration_version": "/integration_version",
        "unsupported_cpir_version": "/request/schema_version",
        "unsupported_operation": "/request/operation",
        "unsupported_deployment_mode": "/request/policy/snapshot/mode",
        "prospective_event_required": "/request/target_ids",
        "temporal_coverage_required": "/request/context",
        "uncertain_duration_forbidden": "/request/policy/snapshot/allow_uncertain_duration",
    }.get(code)


def planned_envelope(request: PlanningRequest) -> dict[str, JSONValue]:
    """Plan ``request`` with :func:`cerebri.plan` and wrap it (api.md 5.4, ``planned``)."""
    return {
        "integration_version": dict(INTEGRATION_VERSION),
        "status": "planned",
        "request_id": request.request_id,
        "trace_id": request.trace_id,
        "context_revision": request.context.revision,
        "result": plan(request).to_wire(),
    }


def rejected_envelope(
    code: str, http_status: int = 422, path: str | None = None
) -> dict[str, JSONValue]:
    """``{"integration_version": …, "status": "rejected", "code": code}`` (api.md 5.4) with
    the RFC 9457 members ``type`` (``about:blank``), ``title`` (the phrase of
    ``http_status``), ``detail`` (:data:`DETAILS`, or :data:`TRANSPORT_DETAILS` for an
    ``invalid_request`` with status 400, 408 or 415) and ``path`` (a JSON pointer, or None when
    no field is at fault). ``status`` stays ``"rejected"`` as api.md requires."""
    return {
        "integration_version": dict(INTEGRATION_VERSION),
        "status": "rejected",
        "code": code,
        "type": "about:blank",
        "title": HTTPStatus(http_status).phrase,
        "detail": TRANSPORT_DETAILS.get(http_status, DETAILS[code])
        if code == "invalid_request"
        else DETAILS[code],
        "path": path,
    }
