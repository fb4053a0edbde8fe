"""Who is calling: the FastAPI dependency that maps a bearer token to a principal.

The store-backed routes (:mod:`cerebri.service.plans_api`, :mod:`cerebri.service.approvals_api`)
take the caller from ``Authorization: Bearer <token>``: the token is looked up in the
execution store (:func:`cerebri.execution.authenticate`, which keeps only the token's
SHA-256 digest) and names one principal (``principal:<name>`` or ``agent:<name>``). A request
without a bearer token gets 401 ``auth.unauthorized``; an unknown token 401
``auth.unauthorized``; a revoked one 401 ``auth.token_revoked``; a disabled principal's 401
``auth.principal_disabled``. The token is never logged or echoed.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from cerebri.execution import Executor, authenticate
from cerebri.service.problems import ServiceError

__all__ = ["BEARER", "Caller", "current_principal", "store_executor"]

BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="principalToken",
    description="A principal's token (`cerebri principals token`): the caller of every "
    "/v1/plans, /v1/executions and /v1/approvals route is the principal it names.",
)
"""The security scheme of the store-backed routes (listed in the OpenAPI document)."""


def store_executor(request: Request) -> Executor:
    """The application's executor (``app.state.executor``, set by ``create_app``)."""
    executor: Executor = request.app.state.executor
    return executor


async def current_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)],
) -> str:
    """The canonical principal named by the request's bearer token.

    Raises:
        ServiceError: 401 ``auth.unauthorized`` when there is no ``Bearer`` token.
        AuthError: 401 ``auth.unauthorized`` / ``auth.token_revoked`` /
            ``auth.principal_disabled`` from :func:`cerebri.execution.authenticate`.
    """
    if credentials is None or not credentials.credentials:
        raise ServiceError(401, "auth.unauthorized", "a principal's bearer token is required")
    executor = store_executor(request)
    principal: str = await run_in_threadpool(authenticate, executor, credentials.credentials)
    return principal


Caller = Annotated[str, Depends(current_principal)]
"""A route parameter holding the calling principal (see :func:`current_principal`)."""
