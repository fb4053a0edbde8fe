"""JSON Schemas (OpenAPI 3.1) of the store-backed routes' bodies: plans, executions,
approvals (:mod:`cerebri.service.plans_api`, :mod:`cerebri.service.approvals_api`).

Request bodies: ``PlanSubmission`` (a plan graph draft, or a signed envelope and its
artifact), ``CancelRequest``, ``DecisionRequest``. Responses: ``Submitted``, ``PlanSummary``,
``Plan``, ``Execution``, ``Approval``, ``ApprovalDetail``; the shapes are the executor's
views (:mod:`cerebri.execution.views`, :mod:`cerebri.execution.approvals`). Instants are
RFC 3339 UTC text; the objects the executor may extend later allow extra keys.
"""

from __future__ import annotations

from typing import Any, Final

from cerebri.execution.store import ApprovalStatus, AttemptOutcome, PredictionStatus
from cerebri.plans import PlanDraft, PlanStatus, StepKind, StepStatus
from cerebri.proposals import APPROVAL_PAYLOAD_TYPE, envelope_json_schema
from cerebri.service.problems import PROBLEM_MEDIA_TYPE

__all__ = ["documented", "ref", "store_schemas"]

Schema = dict[str, Any]

_PREFIX: Final = "#/components/schemas/"


def ref(name: str) -> Schema:
    """``{"$ref": "#/components/schemas/<name>"}``."""
    return {"$ref": _PREFIX + name}


def _nullable(schema: Schema) -> Schema:
    return {"oneOf": [schema, {"type": "null"}]}


def _enum(values: list[str]) -> Schema:
    return {"type": "string", "enum": values}


def _object(properties: dict[str, Schema], *, closed: bool = False) -> Schema:
    """An object with every listed key required; ``closed`` forbids other keys."""
    schema: Schema = {"type": "object", "required": list(properties), "properties": properties}
    if closed:
        schema["additionalProperties"] = False
    return schema


_TEXT: Final[Schema] = {"type": "string"}
_ID: Final[Schema] = {"type": "string", "minLength": 1}
_COUNT: Final[Schema] = {"type": "integer", "minimum": 0}
_INSTANT: Final[Schema] = {
    "type": "string",
    "description": "RFC 3339 instant in UTC with Z.",
    "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$",
}
_DIGEST: Final[Schema] = {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}
_JSON: Final[Schema] = {"description": "Any JSON value, or null."}
_PRINCIPAL: Final[Schema] = {
    "type": "string",
    "description": "principal:<name> (a person) or agent:<name>, canonical (lower case).",
    "pattern": r"^(principal|agent):[^\s:]{1,128}$",
}
_PLAN_STATUS: Final = _enum([s.value for s in PlanStatus])
_STEP_STATUS: Final = _enum([s.value for s in StepStatus])
_APPROVAL_STATUS: Final = _enum([s.value for s in ApprovalStatus])


def _rehome(node: Any, prefix: str) -> Any:
    if isinstance(node, dict):
        return {
            key: _PREFIX + prefix + value.removeprefix("#/$defs/")
            if key == "$ref" and isinstance(value, str)
            else _rehome(value, prefix)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rehome(item, prefix) for item in node]
    return node


def _split(schema: Schema, name: str, prefix: str) -> dict[str, Schema]:
    """``schema`` as components: its ``$defs`` renamed ``<prefix><def>``, itself ``name``."""
    schema = dict(schema)
    schema.pop("$schema", None)
    defs = schema.pop("$defs", {})
    out = {prefix + key: _rehome(value, prefix) for key, value in defs.items()}
    out[name] = _rehome(schema, prefix)
    return out


def _requests() -> dict[str, Schema]:
    return {
        "PlanSubmission": {
            "description": "A plan graph draft (plans.md 1-2), or a signed proposal envelope "
            "(proposals.md) with its artifact; the artifact's bytes are its RFC 8785 "
            "canonical JSON, which the envelope's candidate digest must match.",
            "oneOf": [
                _object({"draft": ref("PlanDraft")}, closed=True),
                _object(
                    {
                        "envelope": ref("ProposalEnvelope"),
                        "artifact": {
                            "type": "object",
                            "description": "The artifact the envelope names (a plan graph "
                            "draft for cerebri.plan-graph.v1).",
                        },
                    },
                    closed=True,
                ),
            ],
        },
        "CancelRequest": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"reason": {**_TEXT, "maxLength": 1000}},
        },
        "OutboxResolveRequest": {
            "type": "object",
            "additionalProperties": False,
            "required": ["key", "recipient", "happened"],
            "description": "What an operator found in the mail server's log about a message "
            "whose send was interrupted (itip.smtp_interrupted).",
            "properties": {
                "key": {**_ID, "maxLength": 1000, "description": "The send's idempotency key."},
                "recipient": {
                    **_ID,
                    "maxLength": 1000,
                    "description": "The recipient, e.g. mailto:bob@example.com.",
                },
                "happened": {
                    "type": "boolean",
                    "description": "true: the server accepted it (its log holds the "
                    "Message-ID), it is never sent again; false: the next send sends it.",
                },
            },
        },
        "DecisionRequest": {
            "type": "object",
            "additionalProperties": False,
            "required": ["decision", "keyid", "signature"],
            "properties": {
                "decision": _enum(["approve", "reject"]),
                "reason": {**_TEXT, "maxLength": 1000},
                "keyid": {**_ID, "description": "The caller's registered Ed25519 key."},
                "signature": {
                    **_ID,
                    "description": "Standard base64 Ed25519 signature over "
                    f"PAE({APPROVAL_PAYLOAD_TYPE!r}, payload), the payload being "
                    "GET /v1/approvals/{id} signing.approve or signing.reject (decoded).",
                },
            },
        },
    }


def _attempt() -> Schema:
    return _object(
        {
            "number": {"type": "integer", "minimum": 1},
            "worker_id": _nullable(_TEXT),
            "origin": _TEXT,
            "idempotency_key": _nullable(_TEXT),
            "started_at": _nullable(_INSTANT),
            "finished_at": _nullable(_INSTANT),
            "outcome": _nullable(_enum([o.value for o in AttemptOutcome])),
            "result": _JSON,
            "error": _JSON,
            "open": {"type": "boolean"},
            "passed_on": {
                "type": "boolean",
                "description": "The worker left the step for another one (no adapter for it "
                "there): not an attempt at the work (decision 0075).",
            },
        }
    )


def _step_properties() -> dict[str, Schema]:
    return {
        "id": _ID,
        "key": _ID,
        "position": _COUNT,
        "kind": _enum([k.value for k in StepKind]),
        "status": _STEP_STATUS,
        "status_reason": _nullable(_TEXT),
        "attempts": _COUNT,
        "pass_ons": {
            **_COUNT,
            "description": "How many of the attempts passed the step on to another worker.",
        },
        "max_attempts": _COUNT,
        "attempt_group": _COUNT,
        "lease_until": _nullable(_INSTANT),
        "next_run_at": _nullable(_INSTANT),
        "result": _JSON,
        "observation": _JSON,
        "error": _JSON,
        "approval_id": _nullable(_ID),
        "prediction_id": _nullable(_ID),
        "spec": {"type": "object", "description": "The draft's step (kind, depends_on, ...)."},
        "attempt_history": {"type": "array", "items": ref("Attempt")},
    }


def _summary_properties() -> dict[str, Schema]:
    return {
        "id": _ID,
        "intention_id": _ID,
        "revision": {"type": "integer", "minimum": 1},
        "status": _PLAN_STATUS,
        "status_reason": _nullable(_TEXT),
        "origin": _TEXT,
        "strategy": _JSON,
        "steps_done": _COUNT,
        "steps_total": _COUNT,
        "created_at": _INSTANT,
        "updated_at": _INSTANT,
    }


def _covered_schema() -> Schema:
    """One write an approval gate covers (decision 0083)."""
    return _object(
        {
            "step_key": _TEXT,
            "kind": _enum(["create", "reschedule", "update", "cancel"]),
            "uid": _nullable(_TEXT),
            "title": _nullable(_TEXT),
            "calendar_id": _nullable(_TEXT),
            "start": _nullable(_TEXT),
            "end": _nullable(_TEXT),
            "from_start": _nullable(_TEXT),
            "from_end": _nullable(_TEXT),
            "attendees": {"type": "array", "items": _TEXT},
            "room_calendar_id": _nullable(_TEXT),
        },
        closed=True,
    )


def _change_schema() -> Schema:
    """``proposed.change`` of an ``ApprovalDetail``
    (:func:`cerebri.execution.approval_detail.change_of_step`)."""
    moment = _nullable(
        _object(
            {
                "start": {**_nullable(_TEXT), "description": "UTC."},
                "end": {**_nullable(_TEXT), "description": "UTC."},
                "local_start": _nullable(_TEXT),
                "local_end": _nullable(_TEXT),
                "title": _nullable(_TEXT),
                "location": _nullable(_TEXT),
            },
            closed=True,
        )
    )
    return _object(
        {
            "kind": _enum(["reschedule", "update", "cancel", "create"]),
            "uid": {**_nullable(_TEXT), "description": "The event's iCalendar UID."},
            "recurrence_id": {
                **_nullable(_TEXT),
                "description": "The instance changed (its original start, UTC); null: the "
                "whole event or series.",
            },
            "scope": _nullable(_enum(["INSTANCE", "THIS_AND_FUTURE", "SERIES"])),
            "organizer": _nullable(_TEXT),
            "before": {**moment, "description": "The event as read when planned."},
            "after": {**moment, "description": "The event once changed (null: a cancel)."},
            "attendees": {
                "type": "array",
                "items": _object(
                    {
                        "address": _TEXT,
                        "name": _nullable(_TEXT),
                        "required": {"type": "boolean"},
                        "status": _enum(["kept", "added", "removed"]),
                    },
                    closed=True,
                ),
            },
            "recipients": _nullable(
                {
                    "type": "array",
                    "description": "One iTIP message per recipient, sent after the change "
                    "reads back.",
                    "items": _object(
                        {
                            "step_key": _TEXT,
                            "address": _nullable(_TEXT),
                            "method": _nullable(_TEXT),
                            "sequence": _JSON,
                        },
                        closed=True,
                    ),
                }
            ),
            "deliveries": _nullable(
                {
                    "type": "array",
                    "description": "One copy per attendee calendar the plan writes "
                    "(calendar.itip.deliver, decision 0057), after the change reads back.",
                    "items": _object(
                        {
                            "step_key": _TEXT,
                            "calendar_id": _nullable(_TEXT),
                            "address": _nullable(_TEXT),
                            "method": _nullable(_TEXT),
                            "sequence": _JSON,
                        },
                        closed=True,
                    ),
                }
            ),
        },
        closed=True,
    )


def _responses() -> dict[str, Schema]:
    approval = {
        "id": _ID,
        "plan_id": _ID,
        "step_id": _nullable(_ID),
        "requester": _PRINCIPAL,
        "author": {
            **_nullable(_PRINCIPAL),
            "description": "The author of the proposal the plan came from, or null.",
        },
        "status": _APPROVAL_STATUS,
        "status_reason": _nullable(_TEXT),
        "decided_by": _nullable(_PRINCIPAL),
        "request": {
            "description": "What is asked: {kind: approval, step: <the step's spec>} (the "
            "step's capability, target and params: calendar_id, start, end, ...)."
        },
        "subject_digest": {
            **_nullable(_DIGEST),
            "description": "sha256 over the canonical JSON of what is approved (approval, "
            "plan, revision, step, request, envelope digest): a signed decision names it.",
        },
        "keyid": {**_nullable(_ID), "description": "The key that signed the decision."},
        "signed": {"type": "boolean", "description": "Whether the decision was signed."},
        "created_at": _INSTANT,
        "expires_at": _INSTANT,
        "decided_at": _nullable(_INSTANT),
        "consumed_at": _nullable(_INSTANT),
    }
    local = {
        **_nullable(_TEXT),
        "description": "RFC 3339 local time with offset in `timezone` (null without one).",
    }
    proposed = _object(
        {
            "step_key": _TEXT,
            "capability": _nullable(_TEXT),
            "does": {**_nullable(_TEXT), "description": "The capability's description."},
            "target": _nullable(_TEXT),
            "object_id": {
                **_nullable(_TEXT),
                "description": "The event the step creates, moves or cancels (its object_id).",
            },
            "title": _nullable(_TEXT),
            "calendar_id": _nullable(_TEXT),
            "start": {**_nullable(_TEXT), "description": "The step's start param (UTC)."},
            "end": {**_nullable(_TEXT), "description": "The step's end param (UTC)."},
            "timezone": {
                **_nullable(_TEXT),
                "description": "IANA zone the times are meant in (the step's timezone param).",
            },
            "local_start": local,
            "local_end": local,
            "change": {
                "description": "For a change of an existing event, or a create that invites "
                "attendees: what changes (null otherwise; decision 0056).",
                "oneOf": [_change_schema(), {"type": "null"}],
            },
            "covers": {
                "description": "For a batch's approval gate: the writes it covers, each "
                "create and move with its times (UTC), title, attendees and room (null "
                "otherwise; decision 0083).",
                "oneOf": [{"type": "array", "items": _covered_schema()}, {"type": "null"}],
            },
        },
        closed=True,
    )
    signing = _object(
        {
            "payload_type": {"const": APPROVAL_PAYLOAD_TYPE},
            "approve": {**_TEXT, "contentEncoding": "base64"},
            "reject": {**_TEXT, "contentEncoding": "base64"},
        },
        closed=True,
    )
    outbox_message = _object(
        {
            "idempotency_key": _TEXT,
            "recipient": {**_TEXT, "description": "The bare address (no mailto:)."},
            "exists": {"type": "boolean"},
            "intact": {
                "type": "boolean",
                "description": "Whether the stored files still match the record's digests.",
            },
            "done": {"type": "boolean", "description": "Whether the message is delivered."},
            "state": {
                **_nullable(_enum(["written", "sending", "sent"])),
                "description": "The record's state (null: no record).",
            },
            "delivery": _nullable(_TEXT),
            "method": _nullable(_TEXT),
            "uid": _nullable(_TEXT),
            "recurrence_id": _nullable(_TEXT),
            "sequence": _nullable({"type": "integer"}),
            "digest": _nullable(_TEXT),
            "message_id": _nullable(_TEXT),
            "sent": {"type": "boolean"},
        }
    )
    outbox_message["description"] = (
        "An outbox message's record as message.itip.get answers it (decision 0052)."
    )
    return {
        "OutboxMessage": outbox_message,
        "Submitted": {
            "type": "object",
            "description": "A plan taken in from an envelope also has author, "
            "envelope_digest and replayed (true: the same envelope came before; this is "
            "the plan stored then).",
            "required": ["plan_id", "intention_id", "revision", "status", "validation"],
            "properties": {
                "plan_id": _ID,
                "intention_id": _ID,
                "revision": {"type": "integer", "minimum": 1},
                "status": _enum([PlanStatus.VALIDATED.value, PlanStatus.DRAFT.value]),
                "validation": {"type": "object"},
                "author": _PRINCIPAL,
                "envelope_digest": _DIGEST,
                "replayed": {"type": "boolean"},
            },
            "dependentRequired": {"envelope_digest": ["author", "replayed"]},
        },
        "PlanSummary": _object(_summary_properties()),
        "Attempt": _attempt(),
        "Step": _object(_step_properties()),
        "Plan": _object(
            {
                **_summary_properties(),
                "objective": _nullable(_TEXT),
                "requester": _nullable(_PRINCIPAL),
                "proposal": _nullable(
                    _object(
                        {
                            "author": _PRINCIPAL,
                            "envelope_digest": _DIGEST,
                            "expires_at": _nullable(_INSTANT),
                            "submitted_by": _nullable(_PRINCIPAL),
                            "keyids": _nullable({"type": "array", "items": _ID}),
                        }
                    )
                ),
                "sandbox": _nullable(_TEXT),
                "max_replans": _COUNT,
                "supersedes": _nullable(_ID),
                "superseded_by": _nullable(_ID),
                "started_at": _nullable(_INSTANT),
                "closed_at": _nullable(_INSTANT),
                "validation": _JSON,
                "revisions": {
                    "type": "array",
                    "items": _object(
                        {
                            "id": _ID,
                            "revision": {"type": "integer", "minimum": 1},
                            "status": _PLAN_STATUS,
                            "supersedes": _nullable(_ID),
                            "superseded_by": _nullable(_ID),
                        }
                    ),
                },
                "steps": {"type": "array", "items": ref("Step")},
                "predictions": {
                    "type": "array",
                    "items": _object(
                        {
                            "id": _ID,
                            "step_id": _nullable(_ID),
                            "status": _enum([p.value for p in PredictionStatus]),
                            "expectation": _JSON,
                            "observation": _JSON,
                            "due_at": _nullable(_INSTANT),
                            "created_at": _INSTANT,
                            "resolved_at": _nullable(_INSTANT),
                        }
                    ),
                },
                "approvals": {"type": "array", "items": ref("Approval")},
            }
        ),
        "Execution": _object(
            {
                "plan_id": _ID,
                "plan_status": _PLAN_STATUS,
                "plan_revision": {"type": "integer", "minimum": 1},
                **_step_properties(),
            }
        ),
        "Approval": _object(approval),
        "ApprovalDetail": _object(
            {
                **approval,
                "plan_revision": {"type": "integer", "minimum": 1},
                "envelope_digest": {
                    **_nullable(_DIGEST),
                    "description": "The envelope the plan was taken in from (null: a draft).",
                },
                "envelope_expires_at": _nullable(_INSTANT),
                "proposed": {
                    "description": "What the waiting step will do (null for a grant).",
                    "oneOf": [proposed, {"type": "null"}],
                },
                "signing": {
                    "description": "What the caller signs to decide (null once it is no "
                    "longer open); whether the caller may decide is checked on decision.",
                    "oneOf": [signing, {"type": "null"}],
                },
            }
        ),
    }


def store_schemas() -> dict[str, Schema]:
    """Schemas to merge into ``components.schemas``: the request and response bodies above,
    the plan draft (``PlanDraft`` and its ``Draft*`` parts) and the proposal envelope
    (``ProposalEnvelope`` and its ``Envelope*`` parts)."""
    return {
        **_split(PlanDraft.model_json_schema(ref_template="#/$defs/{model}"), "PlanDraft", "Draft"),
        **_split(envelope_json_schema(), "ProposalEnvelope", "Envelope"),
        **_requests(),
        **_responses(),
    }


def _problem(description: str) -> Schema:
    return {"description": description, "content": {PROBLEM_MEDIA_TYPE: {"schema": ref("Problem")}}}


def documented(
    successes: dict[int, tuple[str, str | Schema]],
    *,
    body: bool = False,
    forbidden: str | None = None,
    missing: str | None = None,
    conflict: str | None = None,
    invalid: str | None = None,
    unavailable: str | None = None,
) -> dict[int | str, Schema]:
    """The documented responses of a store-backed route: each success ``{status:
    (description, schema name or schema)}``, then its problems: always 401 and 503 (described
    by ``unavailable`` when given), 403/404/409/422 when described, and with a ``body`` the
    transport failures 400/408/413/415."""
    out: dict[int | str, Schema] = {}
    for status, (text, schema) in successes.items():
        shape = ref(schema) if isinstance(schema, str) else schema
        out[status] = {"description": text, "content": {"application/json": {"schema": shape}}}
    out[401] = _problem(
        "No bearer token, or one the store does not know (auth.unauthorized), a revoked "
        "token (auth.token_revoked), a disabled principal (auth.principal_disabled)."
    )
    for status, refusal in ((403, forbidden), (404, missing), (409, conflict)):
        if refusal:
            out[status] = _problem(refusal)
    out[422] = _problem(
        invalid or "A path or query parameter out of range (http.invalid_parameter)."
    )
    if body:
        out[400] = _problem("Not syntactically valid JSON (json.* codes).")
        out[408] = _problem("Body not received within the body timeout (http.body_timeout).")
        out[413] = _problem(
            "Body larger than 262 144 bytes, or holding too many values (input.too_large)."
        )
        out[415] = _problem("Content-Type is not application/json (http.unsupported_media_type).")
    out[503] = _problem(unavailable or "The execution store cannot be reached (store.*).")
    return out
