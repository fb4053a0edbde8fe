"""Plans and executions over HTTP, backed by the execution store (issue #13).

Routes (every one needs a principal's bearer token, :mod:`cerebri.service.principal`;
errors are problems with the statuses of :mod:`cerebri.service.store_errors`):

* ``POST /v1/plans``: submit ``{"draft": {...}}`` (a plan graph draft,
  :func:`cerebri.execution.submit`) or ``{"envelope": {...}, "artifact": {...}}`` (a signed
  proposal envelope, :func:`cerebri.execution.submit_envelope`; the artifact's bytes are its
  RFC 8785 canonical JSON). The requester is the caller, who needs the ``requester`` role.
  201 with the ``Submitted`` wire form and ``Location: /v1/plans/<id>``; an envelope already
  submitted with the same payload is 200 (``"replayed": true``, nothing new stored). A draft
  that breaks the rules of plans.md section 3 is stored as ``draft`` and never runs (still
  201; read its ``validation``). The store is governed, so only a plan from a signed
  envelope acts: a bare draft's effects stop it with ``proposal.unsigned`` (decision 0023).
* ``GET /v1/plans?status=&open=``: plan summaries (:func:`cerebri.execution.list_plans`).
* ``GET /v1/plans/{plan_id}``: one plan with revisions, steps, attempts, predictions and
  approvals (:func:`cerebri.execution.show_plan`).
* ``POST /v1/plans/{plan_id}/cancel`` (body ``{"reason"?}`` or none): the plan's requester
  or an ``operator`` abandons an open plan (:func:`cerebri.execution.cancel_plan`).
* ``GET /v1/executions/{step_id}``: one *execution*, that is one step's run: its status,
  result, observation and every attempt (:func:`cerebri.execution.show_step`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from fastapi import FastAPI, Query
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cerebri._json import JSONValue
from cerebri.errors import CerebriError, ParseError
from cerebri.execution import (
    Executor,
    cancel_plan,
    list_plans,
    require_role,
    show_plan,
    show_step,
    submit,
    submit_envelope,
)
from cerebri.plans import DraftError, PlanStatus
from cerebri.proposals import ProposalError, canonical_json
from cerebri.service.openapi import json_body
from cerebri.service.principal import Caller, store_executor
from cerebri.service.problems import ServiceError, json_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.store_bodies import has_body, read_model, read_object
from cerebri.service.store_errors import status_of
from cerebri.service.store_schemas import documented, ref

__all__ = ["add_plan_routes"]

PlanStatusName = Literal[
    "draft",
    "validated",
    "waiting",
    "executing",
    "blocked",
    "awaiting_approval",
    "replanning",
    "completed",
    "failed",
    "abandoned",
    "superseded",
]
if set(get_args(PlanStatusName)) != {s.value for s in PlanStatus}:  # pragma: no cover
    raise RuntimeError("PlanStatusName is out of step with cerebri.plans.PlanStatus")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _DraftBody(_Strict):
    draft: dict[str, Any]


class _EnvelopeBody(_Strict):
    envelope: dict[str, Any]
    artifact: dict[str, Any]


class _CancelBody(_Strict):
    reason: str | None = None


def _rebased(error: CerebriError, member: str) -> ServiceError:
    """``error`` with its path (a pointer into ``member``'s value) made a pointer into the
    request body."""
    path = None if error.path is None else f"/{member}{error.path}"
    return ServiceError(status_of(error), error.code, error.message, path)


def _submit(executor: Executor, principal: str, document: dict[str, Any]) -> dict[str, JSONValue]:
    require_role(executor, principal, "requester")
    if "draft" in document:
        body = read_model(_DraftBody, document)
        try:
            return submit(executor, body.draft, requester=principal).to_wire()
        except (DraftError, ParseError) as error:
            raise _rebased(error, "draft") from None
    envelope = read_model(_EnvelopeBody, document)
    try:
        submitted = submit_envelope(
            executor,
            canonical_json(envelope.envelope),
            artifact=canonical_json(envelope.artifact),
            submitted_by=principal,
        )
    except (DraftError, ParseError) as error:  # the artifact is not a draft
        raise _rebased(error, "artifact") from None
    except ProposalError as error:
        raise _rebased(error, "envelope") from None
    return submitted.to_wire()


def _cancel(
    executor: Executor, principal: str, plan_id: str, reason: str | None
) -> dict[str, JSONValue]:
    plan = show_plan(executor, plan_id)
    if plan["requester"] != principal:
        require_role(executor, principal, "operator")
    return cancel_plan(executor, plan_id, by=principal, reason=reason)


def add_plan_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add the plan and execution routes (module docstring) to ``app``."""

    @app.post(
        "/v1/plans",
        status_code=201,
        response_class=Response,
        openapi_extra=json_body("#/components/schemas/PlanSubmission"),
        responses=documented(
            {
                201: ("Stored: the Submitted wire form; Location names the plan.", "Submitted"),
                200: (
                    "An envelope submitted before with the same payload (replayed).",
                    "Submitted",
                ),
            },
            body=True,
            forbidden="The caller lacks the requester role (auth.forbidden).",
            conflict="The envelope's idempotency key was used with another payload "
            "(proposal.replayed).",
            invalid="Not a draft (draft.schema, path under /draft), an envelope that does "
            "not verify (proposal.*: signature, digest, window, executor mode, author), an "
            "unsupported artifact (intake.unsupported_artifact), or a body of another shape "
            "(http.invalid_body).",
        ),
    )
    async def post_plan(request: Request, principal: Caller) -> Response:
        """Submit a plan graph draft or a signed envelope (see the module docstring)."""
        document = await read_object(request, settings)
        executor = store_executor(request)
        wire = await run_in_threadpool(_submit, executor, principal, document)
        status = 200 if wire.get("replayed") is True else 201
        response = json_response(wire, status)
        response.headers["Location"] = f"/v1/plans/{wire['plan_id']}"
        return response

    @app.get(
        "/v1/plans",
        response_class=Response,
        responses=documented(
            {
                200: (
                    "Plan summaries ordered by (created_at, id).",
                    {"type": "array", "items": ref("PlanSummary")},
                )
            },
            invalid="A query parameter out of range (http.invalid_parameter).",
        ),
    )
    def get_plans(
        request: Request,
        principal: Caller,
        status: Annotated[
            PlanStatusName | None, Query(description="Only plans in this status.")
        ] = None,
        open: Annotated[
            bool, Query(description="Only plans that may still make progress.")
        ] = False,
    ) -> Response:
        """Every plan revision's summary (any registered principal may read)."""
        listed = list_plans(store_executor(request), status=status, open_only=open)
        return json_response(list[JSONValue](listed))

    @app.get(
        "/v1/plans/{plan_id}",
        response_class=Response,
        responses=documented(
            {200: ("The plan with revisions, steps, attempts, predictions, approvals.", "Plan")},
            missing="No plan with that id (execution.not_found).",
        ),
    )
    def get_plan(request: Request, principal: Caller, plan_id: str) -> Response:
        """One plan in full."""
        return json_response(show_plan(store_executor(request), plan_id))

    @app.post(
        "/v1/plans/{plan_id}/cancel",
        response_class=Response,
        openapi_extra={
            "requestBody": {
                "required": False,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/CancelRequest"}}
                },
            }
        },
        responses=documented(
            {200: ("The plan's summary after cancelling (status abandoned).", "PlanSummary")},
            body=True,
            forbidden="The caller is neither the plan's requester nor an operator "
            "(auth.forbidden).",
            missing="No plan with that id (execution.not_found).",
            conflict="The plan is already closed, or a draft (execution.invalid_state).",
            invalid='A body other than {"reason"?: string} (http.invalid_body).',
        ),
    )
    async def post_cancel(request: Request, principal: Caller, plan_id: str) -> Response:
        """Abandon an open plan: its open steps are cancelled, its open approvals withdrawn."""
        reason = None
        if has_body(request):
            reason = read_model(_CancelBody, await read_object(request, settings)).reason
        executor = store_executor(request)
        wire = await run_in_threadpool(_cancel, executor, principal, plan_id, reason)
        return json_response(wire)

    @app.get(
        "/v1/executions/{step_id}",
        response_class=Response,
        description="An execution is one step's run, named by the step's id: its status, "
        "result, observation and its attempts in order (finished ones, then the open one). "
        "The plan's run state as a whole is GET /v1/plans/{plan_id}.",
        responses=documented(
            {200: ("The step with its plan id, plan status and attempt history.", "Execution")},
            missing="No step with that id (execution.not_found).",
        ),
    )
    def get_execution(request: Request, principal: Caller, step_id: str) -> Response:
        """One step's run and its attempts."""
        return json_response(show_step(store_executor(request), step_id))
