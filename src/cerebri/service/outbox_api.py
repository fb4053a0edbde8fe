"""The iTIP outbox over HTTP: an operator settles an interrupted send (decision 0075).

``POST /v1/outbox/resolve`` with ``{"key", "recipient", "happened"}`` is
``cerebri outbox resolve KEY RECIPIENT --happened|--did-not-happen`` (decision 0066 section
6) for a caller holding the ``operator`` role: it records what the operator found in the
mail server's log about a message whose outbox record says ``sending``
(:meth:`~cerebri.execution.adapters.ItipDelivery.settle_send`). ``happened`` true records
it ``sent`` (never sent again); false records it ``written`` (the next send sends the stored
bytes). The step itself is then settled as for any step that needs verification
(``cerebri steps resolve``, :func:`cerebri.execution.resolve_step`).

The outbox is the folder of :attr:`ServiceSettings.outbox` (``cerebri serve --outbox DIR``
or ``CEREBRI_OUTBOX``), the folder the workers write to. Without one the route answers 409
``outbox.not_configured``; the service never falls back to the user's default outbox.

Statuses (problems, :mod:`cerebri.service.store_errors`): 401 no principal's token; 403
``auth.forbidden`` (no ``operator`` role); 404 ``itip.not_recorded`` (no record for that key
and recipient); 409 ``itip.not_uncertain`` (the record says ``sent`` or ``written`` and the
answer contradicts it) or ``outbox.not_configured``; 422 ``http.invalid_body`` /
``input.invalid_text``; 503 ``itip.outbox_busy`` (another invocation holds the message's
lock, for up to ten seconds), ``itip.outbox_unwritable``, ``itip.outbox_unreadable`` (the
folder cannot be used), with ``Retry-After``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from cerebri._json import JSONValue
from cerebri.execution import Executor, require_role
from cerebri.service.openapi import json_body
from cerebri.service.principal import Caller, store_executor
from cerebri.service.problems import ServiceError, json_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.store_bodies import read_model, read_object
from cerebri.service.store_schemas import documented

__all__ = ["NOT_CONFIGURED", "add_outbox_routes"]

NOT_CONFIGURED = "outbox.not_configured"
"""The code of a resolve asked of a service that was given no outbox folder (409)."""


class _ResolveBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: Annotated[str, Field(min_length=1, max_length=1000)]
    recipient: Annotated[str, Field(min_length=1, max_length=1000)]
    happened: bool


def _resolve(
    executor: Executor, settings: ServiceSettings, principal: str, body: _ResolveBody
) -> dict[str, JSONValue]:
    from cerebri.execution.adapters.itip_delivery import ItipDelivery  # noqa: PLC0415

    require_role(executor, principal, "operator")
    if settings.outbox is None:
        raise ServiceError(
            409,
            NOT_CONFIGURED,
            "this service has no outbox folder (cerebri serve --outbox DIR or CEREBRI_OUTBOX)",
        )
    delivery = ItipDelivery(executor.clock, outbox=settings.outbox)
    return delivery.settle_send(body.key, body.recipient, accepted=body.happened, by=principal)


def add_outbox_routes(app: FastAPI, settings: ServiceSettings) -> None:
    """Add ``POST /v1/outbox/resolve`` (module docstring) to ``app``."""

    @app.post(
        "/v1/outbox/resolve",
        response_class=Response,
        openapi_extra=json_body("#/components/schemas/OutboxResolveRequest"),
        responses=documented(
            {200: ("The message's record afterwards (message.itip.get).", "OutboxMessage")},
            body=True,
            forbidden="The caller lacks the operator role (auth.forbidden).",
            missing="The outbox holds no message for that key and recipient (itip.not_recorded).",
            conflict="The record is not uncertain and the answer contradicts it "
            "(itip.not_uncertain), or the service has no outbox folder "
            "(outbox.not_configured).",
            invalid="A body of another shape (http.invalid_body) or unstorable text "
            "(input.invalid_text).",
            unavailable="The execution store cannot be reached (store.*), or the outbox "
            "folder cannot be used now: another invocation holds the message's lock "
            "(itip.outbox_busy), it cannot be written (itip.outbox_unwritable) or read "
            "(itip.outbox_unreadable).",
        ),
    )
    async def post_outbox_resolve(request: Request, principal: Caller) -> Response:
        """Record whether an interrupted iTIP send reached the mail server (operator)."""
        body = read_model(_ResolveBody, await read_object(request, settings))
        executor = store_executor(request)
        done = await run_in_threadpool(_resolve, executor, settings, principal, body)
        return json_response(done)
