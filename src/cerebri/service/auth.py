"""Bearer-token check for every request when a token is required.

A request passes with ``Authorization: Bearer <token>`` when ``<token>`` is the configured
service token (compared with ``hmac.compare_digest``) or, when the app serves an execution
store, a principal's token the store accepts (:func:`cerebri.execution.authenticate`). The
Lab's static files (``GET``/``HEAD`` of ``/lab`` and ``/lab/...``) pass without a token: they
hold no data, and the page asks for the token and sends it with every API call. Anything else
gets a 401 problem (code ``auth.unauthorized``). When the store cannot be reached to check a
principal's token the answer is 503 ``store.unavailable`` (:mod:`cerebri.service.store_outage`).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from cerebri.service.problems import problem_response
from cerebri.service.store_outage import is_store_outage, outage_response

__all__ = ["BearerTokenMiddleware"]

_PREFIX = b"Bearer "


def _is_lab_file(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    return scope.get("method") in ("GET", "HEAD") and (path == "/lab" or path.startswith("/lab/"))


class BearerTokenMiddleware:
    """ASGI middleware: without an accepted bearer token a request gets a 401 problem (code
    ``auth.unauthorized``); see the module docstring.

    ``token`` is the service token (``None``: none configured); ``accepts`` answers whether a
    token names a principal of the store (``None``: no store), and runs in a worker thread.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        accepts: Callable[[str], bool] | None = None,
    ) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.accepts = accepts

    async def _accepted(self, given: bytes) -> bool:
        if self.expected is not None and hmac.compare_digest(given, self.expected):
            return True
        if self.accepts is None or not given.startswith(_PREFIX):
            return False
        try:
            token = given[len(_PREFIX) :].decode("ascii").strip()
        except UnicodeDecodeError:
            return False
        return bool(token) and bool(await run_in_threadpool(self.accepts, token))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _is_lab_file(scope):
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                given = value
                break
        try:
            accepted = await self._accepted(given)
        except Exception as error:  # the store behind ``accepts`` may be down
            if not is_store_outage(error):
                raise
            await outage_response(error)(scope, receive, send)
            return
        if accepted:
            await self.app(scope, receive, send)
            return
        response = problem_response(
            401,
            "auth.unauthorized",
            "a valid bearer token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)
