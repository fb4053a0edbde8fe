"""Bearer-token check for every request when a token is configured."""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Receive, Scope, Send

from cerebri.service.problems import problem_response

__all__ = ["BearerTokenMiddleware"]


class BearerTokenMiddleware:
    """ASGI middleware: without ``Authorization: Bearer <token>`` a request gets a 401
    problem (code ``auth.unauthorized``); tokens are compared with ``hmac.compare_digest``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                given = value
                break
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        response = problem_response(
            401,
            "auth.unauthorized",
            "a valid bearer token is required",
            headers={"WWW-Authenticate": "Bearer"},
        )
        await response(scope, receive, send)
