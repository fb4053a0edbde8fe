"""The ``single_event_suggestion`` integration profile 0.1 (api.md section 5).

A narrow, non-executing facade: the envelope is parsed strictly, admission rules 1-8 are
checked in order (first failing rule wins), and the CPIR request is then passed unchanged
to :func:`cerebri.plan`. Rejections carry only a fixed code, never request content.

Rejection codes: ``request_too_large``, ``invalid_request``,
``unsupported_integration_version``, ``unsupported_cpir_version``,
``unsupported_operation``, ``mutation_authority_forbidden``,
``unsupported_deployment_mode``, ``prospective_event_required``,
``temporal_coverage_required``, ``uncertain_duration_forbidden``.
"""

from __future__ import annotations

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


class EnvelopeError(Exception):
    """An envelope that does not decode; ``code`` is always ``invalid_request``.

    Attributes:
        status: 400 for a syntax-level JSON error, 422 for a shape error.
    """

    def __init__(self, status: int) -> None:
        super().__init__("invalid_request")
        self.status = status
        self.code = "invalid_request"


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
        raise EnvelopeError(422)
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
        raise EnvelopeError(422)
    version = _version(document["integration_version"])
    if not isinstance(document["request"], dict):
        raise EnvelopeError(422)
    try:
        request = parse_request(document["request"])
    except ParseError:
        raise EnvelopeError(422) from None
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


def rejected_envelope(code: str) -> dict[str, JSONValue]:
    """``{"integration_version": …, "status": "rejected", "code": code}``."""
    return {"integration_version": dict(INTEGRATION_VERSION), "status": "rejected", "code": code}
