"""Approvals over HTTP, backed by the execution store (issue #13).

Routes (every one needs a principal's bearer token, :mod:`cerebri.service.principal`;
errors are problems with the statuses of :mod:`cerebri.service.store_errors`):

* ``GET /v1/approvals?status=open``: approvals ordered by (created_at, id), only those in
  ``status`` (default ``open``; ``all`` lists every one).
* ``GET /v1/approvals/{approval_id}``: one approval with what it asks for
  (:func:`cerebri.execution.describe_approval`: ``plan_revision``, ``envelope_digest``,
  ``envelope_expires_at`` and ``proposed``, the step's capability, title, calendar and
  times in UTC and local), and ``signing``: what the caller signs
  to decide it, ``{"payload_type", "approve", "reject"}`` (the two payloads base64-encoded,
  from :func:`cerebri.execution.decision_payload` for the calling principal), or ``null``
  when it is no longer open. The payloads name the caller; whether the caller may decide is
  checked when the decision comes (403 otherwise).
* ``POST /v1/approvals/{approval_id}/decision`` with ``{"decision": "approve"|"reject",
  "reason"?, "keyid", "signature"}``: the caller decides (:func:`cerebri.execution.decide`);
  ``signature`` is the standard base64 Ed25519 signature over
  ``PAE(payload_type, payload)`` made with the caller's registered key ``keyid``. Approval
  readies the waiting step; rejection fails it (the plan replans).
* ``POST /v1/approvals/{approval_id}/withdraw``: the requester takes its own open request
  back; the waiting step is cancelled and its plan abandoned
  (:func:`cerebri.execution.withdraw`).
"""

from __future__ import annotations

import base64
from typing import Annotated, Literal, get_args

from fastapi import FastAPI, Query
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cerebri._json import JSONValue
from cerebri.execution import (
    Executor,
    decide,
    decision_payload,
    describe_approval,
    list_approvals,
    withdraw,
)
from cerebri.execution.store import ApprovalStatus
from cerebri.proposals import APPROVAL_PAYLOAD_TYPE
from cerebri.service.openapi import json_body
from cerebri.service.principal import Caller, store_executor
from cerebri.service.problems import json_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.store_bodies import read_model, read_object
from cerebri.service.store_schemas import documented, ref

__all__ = ["add_approval_routes"]

ApprovalStatusFilter = Literal["open", "approved", "rejected", "expired", "withdrawn", "all"]
if set(get_args(ApprovalStatusFilter)) != {s.value for s in ApprovalStatus} | {
    "all"
}:  # pragma: no cover - caught by any import
    raise RuntimeError("ApprovalStatusFilter is out of step with ApprovalStatus")


class _DecisionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    decision: Literal["approve", "reject"]
    reason: Annotated[str, Field(max_length=1000)] | None = None
    keyid: Annotated[str, Field(min_length=1)]
    signature: Annotated[str, Field(min_length=1)]


def _encoded(payload: bytes) -> str:
    return base64.b64encode(payload).decode("ascii")


def _detail(executor: Executor, principal: str, approval_id: str) -> dict[str, JSONValue]:
    wire = describe_approval(executor, approval_id)
    signing: JSONValue = None
    if wire["status"] == ApprovalStatus.OPEN.value:
        payloads = {
            decision: _encoded(
                decision_payload(executor, approval_id, decision=decision, by=principal)
            )
            for decision in ("approve", "reject")
        }
        signing = {"payload_type": APPROVAL_PAYLOAD_TYPE, **payloads}
    return {**wire, "signing": signing}


def _decide(
    executor: Executor, principal: str, approval_id: str, body: _DecisionBody
) -> dict[str, JSONValue]:
    return decide(
        executor,
        approval_id,
        approve=body.decision == "approve",
        by=principal,
        reason=body.reason,
        keyid=body.keyid,
        signature=body.signature,
    )


def add_approval_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add the approval routes (module docstring) to ``app``."""

    @app.get(
        "/v1/approvals",
        response_class=Response,
        responses=documented(
            {
                200: (
                    "Approvals ordered by (created_at, id).",
                    {"type": "array", "items": ref("Approval")},
                )
            },
        ),
    )
    def get_approvals(
        request: Request,
        principal: Caller,
        status: Annotated[
            ApprovalStatusFilter,
            Query(description="Only approvals in this status (all: every one)."),
        ] = "open",
    ) -> Response:
        """The approvals inbox (any registered principal may read)."""
        wanted = None if status == "all" else status
        listed = list_approvals(store_executor(request), status=wanted)
        return json_response(list[JSONValue](listed))

    @app.get(
        "/v1/approvals/{approval_id}",
        response_class=Response,
        responses=documented(
            {
                200: (
                    "The approval, what it asks for, and what the caller signs to decide it.",
                    "ApprovalDetail",
                )
            },
            missing="No approval with that id (execution.not_found).",
        ),
    )
    async def get_approval(request: Request, principal: Caller, approval_id: str) -> Response:
        """One approval, what it asks for, and its signing payloads for the caller."""
        executor = store_executor(request)
        return json_response(await run_in_threadpool(_detail, executor, principal, approval_id))

    @app.post(
        "/v1/approvals/{approval_id}/decision",
        response_class=Response,
        openapi_extra=json_body("#/components/schemas/DecisionRequest"),
        responses=documented(
            {200: ("The approval after the decision.", "Approval")},
            body=True,
            forbidden="The caller asked for it or authored the proposal "
            "(approval.self_approval), is an agent (approval.agent_cannot_approve), or lacks "
            "the approver role (approval.not_approver).",
            missing="No approval with that id (execution.not_found).",
            conflict="Already decided, withdrawn or expired (approval.not_open), expired now "
            "(approval.expired: it fails closed and is marked expired), or this decision was "
            "already applied (approval.replayed).",
            invalid="A body of another shape (http.invalid_body), or a signature that does "
            "not prove the decision: approval.bad_signature, approval.wrong_key (the key is "
            "another principal's), approval.unknown_key, approval.key_revoked, "
            "approval.signature_required.",
        ),
    )
    async def post_decision(request: Request, principal: Caller, approval_id: str) -> Response:
        """Approve or reject an open request with a signed decision."""
        body = read_model(_DecisionBody, await read_object(request, settings))
        executor = store_executor(request)
        wire = await run_in_threadpool(_decide, executor, principal, approval_id, body)
        return json_response(wire)

    @app.post(
        "/v1/approvals/{approval_id}/withdraw",
        response_class=Response,
        responses=documented(
            {200: ("The approval after withdrawal (status withdrawn).", "Approval")},
            forbidden="Only the principal that asked may withdraw (approval.not_requester).",
            missing="No approval with that id (execution.not_found).",
            conflict="Already decided, withdrawn or expired (approval.not_open).",
        ),
    )
    async def post_withdraw(request: Request, principal: Caller, approval_id: str) -> Response:
        """The requester takes its open request back; its plan is abandoned."""
        executor = store_executor(request)
        return json_response(await run_in_threadpool(withdraw, executor, approval_id, by=principal))
