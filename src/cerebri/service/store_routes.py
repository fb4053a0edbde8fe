"""The store-backed API as a whole: routes, error handlers, schemas (issue #13).

:func:`add_store_api` is what :func:`cerebri.service.create_app` calls when it is given an
executor: the plan and execution routes (:mod:`cerebri.service.plans_api`), the approval
routes (:mod:`cerebri.service.approvals_api`), the outbox route
(:mod:`cerebri.service.outbox_api`), and the handlers that turn their refusals into
problems (statuses: :mod:`cerebri.service.store_errors`).
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.requests import Request
from starlette.responses import Response

from cerebri.errors import CerebriError
from cerebri.execution import Executor
from cerebri.service.approvals_api import add_approval_routes
from cerebri.service.body import ClientGone
from cerebri.service.lab_routes import add_lab_store_routes
from cerebri.service.outbox_api import add_outbox_routes
from cerebri.service.plans_api import add_plan_routes
from cerebri.service.problems import problem_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.store_errors import error_response
from cerebri.service.store_outage import OUTAGE_TYPES, store_outage_handler

__all__ = ["add_store_api"]


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, CerebriError)
    return error_response(exc)


async def _gone(request: Request, exc: Exception) -> Response:
    """The client hung up mid-body: nobody receives what is sent back."""
    return Response(status_code=400)


async def _bad_parameter(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    loc = [str(p) for p in first.get("loc", ())]
    where = ".".join(loc)
    detail = f"{where}: {first.get('msg', 'invalid')}" if where else "invalid parameter"
    # The pointer names where the parameter is (``/query/status``), RFC 6901-escaped.
    path = "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in loc)
    return problem_response(422, "http.invalid_parameter", detail, path)


def add_store_api(app: FastAPI, settings: ServiceSettings, executor: Executor) -> None:
    """Serve ``executor``'s store on ``app``: the routes of
    :mod:`~cerebri.service.plans_api` and :mod:`~cerebri.service.approvals_api` and their
    error handlers (a :class:`CerebriError` becomes a problem with the status of
    :func:`~cerebri.service.store_errors.status_of`; a bad query parameter 422
    ``http.invalid_parameter`` whose ``path`` is ``/query/NAME``; a store that cannot be
    reached 503 ``store.unavailable``, :mod:`~cerebri.service.store_outage`)."""
    app.state.executor = executor
    app.add_exception_handler(CerebriError, _refused)
    for kind in OUTAGE_TYPES:
        app.add_exception_handler(kind, store_outage_handler)
    app.add_exception_handler(ClientGone, _gone)
    app.add_exception_handler(RequestValidationError, _bad_parameter)
    add_plan_routes(app, settings)
    add_approval_routes(app, settings)
    add_outbox_routes(app, settings)
    add_lab_store_routes(app, settings)
