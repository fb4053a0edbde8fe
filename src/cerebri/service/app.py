"""The FastAPI application (api.md section 2).

Routes and status codes:

* ``GET /health`` → 200.
* ``POST /v1/optimize`` → 200 the PlanningResult of a CPIR ``OPTIMIZE`` (the batch
  optimiser, decision 0077), the same statuses as ``/v1/plan`` but a body limit of 4 MiB
  (:data:`OPTIMIZE_BODY_BYTES`, the optimiser's admission limit) and 422
  ``input.invalid_argument`` for another operation.
* ``POST /v1/validate``, ``POST /v1/plan``, ``POST /v1/temporal`` → 200 with the core
  function's JSON for every parsed request (any validation result, planning outcome or
  temporal ``EnvelopeError``); 415 ``http.unsupported_media_type``; 413 ``input.too_large``;
  400 ``json.*`` syntax errors; 422 ``cpir.*`` and ``json.not_object``; 408
  ``http.body_timeout`` (and a closed connection) when the body does not arrive within
  ``ServiceSettings.body_timeout_seconds``. Errors are ``application/problem+json``. A
  client that hangs up mid-body is one warning line in the log (``cerebri.service``).
* ``GET /v1/integration/manifest`` → 200; ``POST /v1/integration/suggestions`` → 200
  planned, 422 admission rejection, 400/413/415/422 rejected envelope (section 5).
* ``GET /v1/examples`` → 200 list of names; ``GET /v1/examples/{name}`` → 200 or 404.
* ``POST /v1/find-slot`` → 200 ranked slots over the .ics calendars in the body (never
  stored); ``POST /v1/find-slot/event`` → 200 ``text/calendar`` of a picked slot
  (:mod:`cerebri.service.find_slot_routes`, body limit 4 MiB).
* ``POST /v1/events/reschedule``, ``/v1/events/cancel``, ``/v1/events/update`` → 200 an
  event change planned over the .ics calendars in the body, with the CPIR request to
  propose (:mod:`cerebri.service.event_change_routes`, body limit 4 MiB).
* ``GET /docs`` (Swagger UI), ``GET /redoc`` (ReDoc) and ``GET /openapi.json``; the docs
  pages' scripts and styles come from the installed ``fastapi-offline`` package under
  ``/static-offline-docs/``, so they work without a network (:mod:`cerebri.service.docs`).
* ``GET /lab`` → 308 to ``/lab/``; ``/lab/…`` static Lab files (404 when absent).
* Given an executor (``create_app(settings, executor=...)``, ``cerebri serve --store``):
  ``/v1/plans``, ``/v1/plans/{id}``, ``/v1/plans/{id}/cancel``, ``/v1/executions/{id}``,
  ``/v1/approvals``, ``/v1/approvals/{id}``, ``/v1/approvals/{id}/decision`` and
  ``/v1/approvals/{id}/withdraw`` and ``/v1/outbox/resolve``, each behind a principal's
  bearer token (:mod:`cerebri.service.plans_api`, :mod:`cerebri.service.approvals_api`,
  :mod:`cerebri.service.outbox_api`; statuses: :mod:`cerebri.service.store_errors`).
  Without one there is no execution route.
* Anything else → 404 problem (``http.not_found``); a wrong method → 405
  (``http.method_not_allowed``).
* A path or query parameter holding a NUL character or a lone surrogate → 422
  ``input.invalid_text`` on every route (:mod:`cerebri.service.text_guard`); with a store,
  the same for any string in a store route's body, and 503 ``store.unavailable`` with
  ``Retry-After`` while the store cannot be reached (:mod:`cerebri.service.store_outage`).
* With a token configured (or ``require_token``), any request without an accepted bearer
  token → 401 ``auth.unauthorized`` (:mod:`cerebri.service.auth`; the Lab's files need none).

Bodies are compact JSON (``cerebri._json.compact``), byte-identical to the Python API's
``to_wire()`` output serialised the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from cerebri import __version__
from cerebri._files import read_bounded
from cerebri._json import JSONValue
from cerebri.clock import Clock, SystemClock
from cerebri.cpir import Operation, parse_request
from cerebri.cpir.temporal_report import temporal_report
from cerebri.errors import CerebriError, ParseError
from cerebri.optimize import OPTIMIZE_LIMITS, plan, plan_batch, validate
from cerebri.service import integration
from cerebri.service.auth import BearerTokenMiddleware
from cerebri.service.body import ClientGone, parse_error_status, read_json_body
from cerebri.service.docs import add_docs
from cerebri.service.event_change_routes import add_event_change_routes, event_change_schemas
from cerebri.service.find_slot_routes import add_find_slot_routes, find_slot_schemas
from cerebri.service.lab_routes import add_lab_routes
from cerebri.service.openapi import (
    ENVELOPE_REF,
    PLANNING_REQUEST_REF,
    RESULT_SCHEMAS,
    TEMPORAL_REQUEST_REF,
    component_schemas,
    json_body,
    responses,
)
from cerebri.service.problems import ServiceError, json_response, problem_response
from cerebri.service.settings import ServiceSettings
from cerebri.service.text_guard import params_text

if TYPE_CHECKING:
    from cerebri.execution import Executor

__all__ = ["create_app", "health"]

_EXAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_HEALTH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "cpir_schema",
        "release_state",
        "software_version",
        "status",
        "supported_cpir_schemas",
    ],
}


def health() -> dict[str, JSONValue]:
    """The ``/health`` body, keys in alphabetical order (api.md section 3)."""
    return {
        "cpir_schema": "0.2",
        "release_state": "research",
        "software_version": __version__,
        "status": "ok",
        "supported_cpir_schemas": ["0.1", "0.2"],
    }


async def _body(request: Request, settings: ServiceSettings, limit: int | None = None) -> bytes:
    return await read_json_body(
        request,
        settings.max_request_bytes if limit is None else limit,
        timeout=settings.body_timeout_seconds,
    )


OPTIMIZE_BODY_BYTES = OPTIMIZE_LIMITS.max_request_bytes
"""Body limit of ``POST /v1/optimize``: the optimiser's own admission limit (4 MiB), not
``ServiceSettings.max_request_bytes`` (256 KiB), so every request the optimiser admits
reaches it (decision 0077)."""


def optimize_answer(body: bytes) -> JSONValue:
    """The ``POST /v1/optimize`` body: :func:`cerebri.optimize.plan_batch` of the CPIR
    request ``body`` (the PlanningResult ``cerebri plan`` gives for it). Raises
    ``ParseError`` as the parser does and ``CerebriError`` ``input.invalid_argument`` at
    ``/operation`` (422) when the operation is not ``OPTIMIZE``."""
    request = parse_request(body)
    if request.operation is not Operation.OPTIMIZE:
        raise CerebriError(
            f"/v1/optimize answers OPTIMIZE requests only, not {request.operation.value}; "
            "POST it to /v1/plan",
            code="input.invalid_argument",
            path="/operation",
        )
    return plan_batch(request).to_wire()


def _problem(error: ServiceError) -> Response:
    """The problem response of a transport failure; a 408 also closes the connection (the
    rest of the body may still be on its way and must not be read as a next request)."""
    headers = {"Connection": "close"} if error.status == 408 else None
    return problem_response(error.status, error.code, error.detail, error.path, headers)


def _nobody_left() -> Response:
    """What a route returns after the client hung up mid-body: nobody receives it."""
    return Response(status_code=400)


def _core_route(
    settings: ServiceSettings, run: Callable[[bytes], JSONValue], limit: int | None = None
) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        try:
            body = await _body(request, settings, limit)
            # Planning is CPU-bound: run it off the event loop so /health and other
            # connections stay responsive while a request is planned.
            return json_response(await run_in_threadpool(run, body))
        except ClientGone:
            return _nobody_left()
        except ServiceError as error:
            return _problem(error)
        except ParseError as error:
            return problem_response(
                parse_error_status(error), error.code, error.message, error.path
            )
        except CerebriError as error:  # defensive: the core raises ParseError only
            return problem_response(422, error.code, error.message, error.path)

    return endpoint


def _add_core_routes(app: FastAPI, settings: ServiceSettings) -> None:
    table: list[tuple[str, str, Callable[[bytes], JSONValue], str, str]] = [
        (
            "/v1/validate",
            "validate",
            lambda body: validate(body).to_wire(),
            PLANNING_REQUEST_REF,
            "ValidationReport (equals cerebri.validate).",
        ),
        (
            "/v1/plan",
            "plan",
            lambda body: plan(body).to_wire(),
            PLANNING_REQUEST_REF,
            "PlanningResult (equals cerebri.plan), for every planning outcome.",
        ),
        (
            "/v1/temporal",
            "temporal",
            lambda body: temporal_report(body).to_wire(),
            TEMPORAL_REQUEST_REF,
            "TemporalResult (equals cerebri.temporal_report); a typed EnvelopeError is still 200.",
        ),
        (
            "/v1/optimize",
            "optimize",
            optimize_answer,
            PLANNING_REQUEST_REF,
            "PlanningResult of a batch (equals cerebri.plan of an OPTIMIZE request; proven "
            "optimal, best found, proven infeasible or unknown in its batch member). Body "
            "limit 4 MiB, the optimiser's admission limit; any other operation is 422 "
            "input.invalid_argument at /operation.",
        ),
    ]
    for path, name, run, ref, success in table:
        app.add_api_route(
            path,
            _core_route(settings, run, OPTIMIZE_BODY_BYTES if name == "optimize" else None),
            methods=["POST"],
            name=name,
            summary=success.split(" (")[0],
            description=success,
            openapi_extra=json_body(ref),
            responses=responses(success, body=True, schema=RESULT_SCHEMAS[name]),
            response_class=Response,
        )


def _add_integration_routes(app: FastAPI, settings: ServiceSettings) -> None:
    @app.get(
        "/v1/integration/manifest",
        response_class=Response,
        responses=responses("IntegrationManifest (api.md 5.1).", body=False),
    )
    def integration_manifest() -> Response:
        """The integration profile's manifest: 200."""
        return json_response(integration.manifest())

    @app.post(
        "/v1/integration/suggestions",
        response_class=Response,
        openapi_extra=json_body(ENVELOPE_REF),
        responses=responses("Planned envelope (any planning outcome).", body=True, envelope=True),
    )
    async def integration_suggestions(request: Request) -> Response:
        """One suggestion request: 200 planned; 422 admission rejection or shape error;
        400 non-JSON; 413 ``request_too_large``; 415 wrong content type (rejected
        envelopes carry only the code)."""
        try:
            body = await _body(request, settings)
            version, parsed = integration.parse_envelope(body)
        except ClientGone:
            return _nobody_left()
        except ServiceError as error:
            code = "request_too_large" if error.status == 413 else "invalid_request"
            response = json_response(
                integration.rejected_envelope(code, error.status, error.path), error.status
            )
            if error.status == 408:
                response.headers["Connection"] = "close"
            return response
        except integration.EnvelopeError as error:
            return json_response(
                integration.rejected_envelope(error.code, error.status, error.path), error.status
            )
        rejection = integration.admission_code(version, parsed)
        if rejection is not None:
            path = integration.admission_path(parsed, rejection)
            return json_response(integration.rejected_envelope(rejection, 422, path), 422)
        return json_response(await run_in_threadpool(integration.planned_envelope, parsed))


def _add_example_routes(app: FastAPI, settings: ServiceSettings) -> None:
    folder = settings.examples_dir

    def names() -> list[str]:
        if not folder.is_dir():
            return []
        found = (p.stem for p in folder.glob("*.json") if p.is_file())
        return sorted(n for n in found if _EXAMPLE_NAME.fullmatch(n))

    @app.get(
        "/v1/examples",
        response_class=Response,
        responses=responses(
            "Sorted names of the example requests.",
            body=False,
            schema={"type": "array", "items": {"type": "string"}},
        ),
    )
    def list_examples() -> Response:
        """Names of the packaged example requests: 200."""
        return json_response(list(names()))

    @app.get(
        "/v1/examples/{name}",
        response_class=Response,
        responses={
            **responses("The example request JSON, as stored.", body=False),
            404: {"description": "No such example (http.not_found)."},
        },
    )
    def get_example(name: str) -> Response:
        """One example request (``name`` with or without ``.json``): 200 or 404."""
        stem = name.removesuffix(".json")
        if stem not in names():
            return problem_response(404, "http.not_found", f"no example named {name!r}")
        try:  # an example is a request body: it must fit the body limit too
            data = read_bounded(
                folder / f"{stem}.json", limit=settings.max_request_bytes, what="example"
            )
        except CerebriError:
            return problem_response(404, "http.not_found", f"example {name!r} cannot be read")
        return Response(data, media_type="application/json")


def _add_lab(app: FastAPI, settings: ServiceSettings) -> None:
    @app.get("/lab", include_in_schema=False)
    def lab_redirect() -> Response:
        """``/lab`` → 308 Permanent Redirect to ``/lab/``."""
        return RedirectResponse("/lab/", status_code=308)

    if settings.lab_dir.is_dir():
        app.mount("/lab", StaticFiles(directory=settings.lab_dir, html=True), name="lab")
        return

    @app.get("/lab/{path:path}", include_in_schema=False)
    def lab_not_built(path: str) -> Response:
        """No Lab directory: 404 (``http.not_found``) for every ``/lab/…`` path."""
        return problem_response(404, "http.not_found", "the Lab is not installed")


async def _service_error(request: Request, exc: Exception) -> Response:
    """A :class:`ServiceError` raised by a dependency or a store route: its problem (a 401
    also carries ``WWW-Authenticate: Bearer``)."""
    assert isinstance(exc, ServiceError)
    response = _problem(exc)
    if exc.status == 401:
        response.headers["WWW-Authenticate"] = "Bearer"
    return response


async def _http_problem(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = {404: "http.not_found", 405: "http.method_not_allowed"}.get(status, "http.error")
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    headers = exc.headers if isinstance(exc, HTTPException) else None
    return problem_response(status, code, str(detail), None, dict(headers or {}))


_DESCRIPTION = (
    "Deterministic planning over CPIR requests. Domain answers are 200; only transport and "
    "decoding failures are 4xx."
)
_STORE_DESCRIPTION = (
    " With an execution store: plans, executions (one step's run and its attempts) and "
    "approvals, each behind a principal's bearer token; refusals are problems whose code "
    "sets the status (401 auth.*, 403 not allowed, 404 execution.not_found, 409 not in a "
    "state that allows it, 422 bad input or signature, 503 store unreachable)."
)


def create_app(
    settings: ServiceSettings | None = None,
    *,
    executor: Executor | None = None,
    clock: Clock | None = None,
) -> FastAPI:
    """Build the cerebri HTTP application (routes and status codes: module docstring).

    ``clock`` (default :class:`cerebri.clock.SystemClock`) stamps the events written by
    ``/v1/find-slot/event`` (``DTSTAMP``).

    ``executor`` (an :class:`cerebri.execution.Executor` on an initialised store) adds the
    store-backed routes; without it there is no execution route."""
    settings = settings or ServiceSettings()
    app = FastAPI(
        title="cerebri",
        version=__version__,
        description=_DESCRIPTION
        + (_STORE_DESCRIPTION if executor is not None else " No execution endpoint."),
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(params_text)],  # unstorable text in a parameter: 422
    )
    add_docs(app)  # Swagger UI and ReDoc from the installed fastapi-offline package
    app.add_exception_handler(HTTPException, _http_problem)
    app.add_exception_handler(ServiceError, _service_error)

    @app.get(
        "/health",
        response_class=Response,
        responses=responses("Service status.", body=False, schema=_HEALTH_SCHEMA),
    )
    def get_health() -> Response:
        """Service status: 200."""
        return json_response(health())

    _add_core_routes(app, settings)
    _add_integration_routes(app, settings)
    _add_example_routes(app, settings)
    add_find_slot_routes(app, settings, clock or SystemClock())
    add_event_change_routes(app, settings)
    add_lab_routes(app, settings)
    _add_lab(app, settings)
    if executor is not None:
        from cerebri.service.store_routes import add_store_api  # noqa: PLC0415 - optional part

        add_store_api(app, settings, executor)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            components = document.setdefault("components", {})
            components.setdefault("schemas", {}).update(component_schemas())
            components["schemas"].update(find_slot_schemas())
            components["schemas"].update(event_change_schemas(components["schemas"]))
            if executor is not None:
                from cerebri.service.store_schemas import store_schemas  # noqa: PLC0415

                components["schemas"].update(store_schemas())
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    if settings.token or settings.require_token:
        app.add_middleware(
            BearerTokenMiddleware,
            token=settings.token or None,
            accepts=None if executor is None else _principal_tokens(executor),
        )
    return app


def _principal_tokens(executor: Executor) -> Callable[[str], bool]:
    """Whether a token names a principal of ``executor``'s store (for the middleware)."""
    from cerebri.execution import authenticate  # noqa: PLC0415 - optional part

    def accepts(token: str) -> bool:
        try:
            authenticate(executor, token)
        except CerebriError:
            return False
        return True

    return accepts
