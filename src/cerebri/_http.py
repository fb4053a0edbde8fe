"""HTTP plumbing both network shells use (the HTTP service, ``cerebri serve``, and the MCP
server's streamable HTTP transport, ``cerebri mcp --http``): a listening socket bound before
anything is served (:func:`bind`), RFC 9457 problem documents and compact JSON responses
(:func:`problem_response`, :func:`json_response`), and the bearer-token gate
(:class:`BearerTokenMiddleware`).

Every response body is compact JSON (``cerebri._json.compact``: no whitespace, key order kept,
non-ASCII as raw UTF-8), so a ``/v1/plan`` body is byte-identical to
``compact(cerebri.plan(body).to_wire())``.

The gate: a request passes with ``Authorization: Bearer <token>`` when ``<token>`` is the
configured token (compared with ``hmac.compare_digest``) or one ``accepts`` takes (a
principal's token of an execution store, checked in a worker thread). The Lab's static files
(``GET``/``HEAD`` of ``/lab`` and ``/lab/...``) pass without a token: they hold no data, and
the page asks for the token and sends it with every API call. Anything else gets a 401
problem (code ``auth.unauthorized``). An error raised while ``accepts`` runs is answered by
``on_error`` when it returns a response for it, else raised.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import socket
from collections.abc import Callable
from http import HTTPStatus

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from cerebri._json import JSONValue, compact
from cerebri.errors import CerebriError

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "BearerTokenMiddleware",
    "ServeError",
    "bind",
    "clean_detail",
    "encodable",
    "is_loopback",
    "json_response",
    "problem_response",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"

_PYDANTIC_PREFIX = re.compile(r"(^|: |; )(?:Value error|Assertion failed), ")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with each lone surrogate (U+D800 to U+DFFF, which has no UTF-8 form, RFC 3629
    section 3) written as the six characters of its JSON escape, e.g. ``\\ud800``: a problem
    can then name a member such as ``"\\ud800"`` in its ``path`` and ``detail`` instead of
    failing to encode (decision 0036)."""
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def clean_detail(detail: str) -> str:
    """``detail`` without the ``Value error, `` / ``Assertion failed, `` prefixes pydantic
    puts before a validator's own message (at the start or after ``: `` / ``; ``)."""
    return _PYDANTIC_PREFIX.sub(r"\1", detail)


def json_response(value: JSONValue, status: int = 200) -> Response:
    """``value`` as compact UTF-8 JSON with media type ``application/json``."""
    return Response(compact(value).encode("utf-8"), status, media_type="application/json")


def problem_response(
    status: int,
    code: str,
    detail: str,
    path: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """An ``application/problem+json`` body: ``type``, ``title``, ``status``, ``detail``,
    ``code``, ``path`` (``type`` is ``about:blank``, so ``title`` is the status phrase).
    ``detail`` is passed through :func:`clean_detail`; ``detail`` and ``path`` through
    :func:`encodable`."""
    body: dict[str, JSONValue] = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": encodable(clean_detail(detail)),
        "code": code,
        "path": None if path is None else encodable(path),
    }
    return Response(
        compact(body).encode("utf-8"), status, media_type=PROBLEM_MEDIA_TYPE, headers=headers
    )


class ServeError(CerebriError):
    """The server cannot start. Codes: ``serve.requires_loopback`` (non-loopback host
    without ``--allow-remote`` and a token or principals), ``serve.bind_failed``."""

    code = "serve.bind_failed"


def _address(host: str, port: int) -> tuple[socket.AddressFamily, tuple[str, int]]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise ServeError(f"cannot resolve host {host!r}: {exc}") from None
    family, _, _, _, sockaddr = infos[0]
    return family, (str(sockaddr[0]), int(sockaddr[1]))


def _loopback(ip: str) -> bool:
    return ipaddress.ip_address(ip.split("%", maxsplit=1)[0]).is_loopback


def is_loopback(host: str, port: int) -> bool:
    """Whether ``host`` (resolved as :func:`bind` resolves it) is a loopback address.

    Raises:
        ServeError: ``serve.bind_failed`` when ``host`` cannot be resolved.
    """
    return _loopback(_address(host, port)[1][0])


def bind(
    host: str, port: int, *, allow_remote: bool, token: str | None, principals: bool = False
) -> socket.socket:
    """A listening TCP socket on ``host:port``.

    Raises:
        ServeError: ``serve.requires_loopback`` for a non-loopback address unless
            ``allow_remote`` and a non-empty ``token`` or ``principals`` (the served store
            has registered principals, whose tokens count); ``serve.bind_failed`` otherwise.
    """
    family, (ip, _) = _address(host, port)
    if not _loopback(ip) and not (allow_remote and (token or principals)):
        raise ServeError(
            f"development API requires loopback: {host} is not a loopback address "
            "(use --allow-remote with a token in the --token-env variable, or a --store "
            "with registered principals)",
            code="serve.requires_loopback",
        )
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((ip, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


_PREFIX = b"Bearer "


def _is_lab_file(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    return scope.get("method") in ("GET", "HEAD") and (path == "/lab" or path.startswith("/lab/"))


class BearerTokenMiddleware:
    """ASGI middleware: without an accepted bearer token a request gets a 401 problem (code
    ``auth.unauthorized``); see the module docstring.

    ``token`` is the configured token (``None``: none); ``accepts`` answers whether a token
    names a principal of the store (``None``: no store), and runs in a worker thread;
    ``on_error`` turns an error ``accepts`` raised into a response (``None``: re-raise it).
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        accepts: Callable[[str], bool] | None = None,
        on_error: Callable[[BaseException], Response | None] | None = None,
    ) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.accepts = accepts
        self.on_error = on_error

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
            answer = None if self.on_error is None else self.on_error(error)
            if answer is None:
                raise
            await answer(scope, receive, send)
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
