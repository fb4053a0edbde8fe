"""Reading a request body: content type, byte limit, strict JSON (api.md section 4).

The checks run in this order, each before any parsing:

1. ``Content-Type`` must be ``application/json`` or ``application/*+json`` with no charset
   or ``charset=utf-8``; otherwise 415 (code ``http.unsupported_media_type``).
2. The body (``Content-Length`` if given, then the bytes actually streamed, read with a cap)
   must be at most the byte limit; otherwise 413 (code ``input.too_large``).
3. The whole body must arrive within the body timeout (seconds, counted from the first read
   of the body; ``ServiceSettings.body_timeout_seconds``, 10 s by default); otherwise 408
   (code ``http.body_timeout``) and the connection is closed. A client that announces a
   body and never finishes it cannot hold a connection longer than that.
4. A client that hangs up before its body is complete raises :class:`ClientGone` after a
   one-line warning on the ``cerebri.service`` logger (no traceback): nobody is left to
   answer, and one line per hang-up cannot flood the log with stack traces.
5. The strict parser (``cerebri.cpir``): a ``json.*`` syntax-level error is 400, a
   ``cpir.*`` shape/value error (and ``json.not_object``) is 422.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.requests import ClientDisconnect, Request

from cerebri.errors import ParseError
from cerebri.service.problems import ServiceError
from cerebri.service.settings import BODY_TIMEOUT_SECONDS

__all__ = ["ClientGone", "parse_error_status", "read_json_body"]

LOG = logging.getLogger("cerebri.service")


class ClientGone(Exception):  # noqa: N818 - an event, not an error of the service
    """The client closed the connection before its request body was complete."""


_SHAPE_CODES = frozenset({"json.not_object"})


def _check_content_type(request: Request) -> None:
    header = request.headers.get("content-type")
    if header is None:
        raise ServiceError(415, "http.unsupported_media_type", "Content-Type is missing")
    media, *params = (part.strip() for part in header.split(";"))
    media = media.lower()
    kind, _, subtype = media.partition("/")
    json_like = media == "application/json" or (kind == "application" and subtype.endswith("+json"))
    charset_ok = all(
        not p.lower().startswith("charset=") or p[8:].strip('"').lower() == "utf-8" for p in params
    )
    if not json_like or not charset_ok:
        raise ServiceError(
            415,
            "http.unsupported_media_type",
            "Content-Type must be application/json (UTF-8)",
        )


async def read_json_body(
    request: Request, limit: int, *, timeout: float = BODY_TIMEOUT_SECONDS
) -> bytes:
    """The raw body bytes after the content-type and size checks, received within
    ``timeout`` seconds (Starlette's request stream under ``asyncio.timeout``).

    Raises:
        ServiceError: 415 ``http.unsupported_media_type``; 413 ``input.too_large``;
            408 ``http.body_timeout``.
        ClientGone: the client hung up mid-body (logged as one warning line).
    """
    _check_content_type(request)
    too_large = ServiceError(413, "input.too_large", f"request body is larger than {limit} bytes")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise ServiceError(
            408,
            "http.body_timeout",
            f"request body not received within {timeout:g} s ({size} bytes arrived)",
        ) from None
    except ClientDisconnect:
        client = request.client
        LOG.warning(
            "client %s disconnected after %d of %s body bytes: %s %s",
            f"{client.host}:{client.port}" if client else "?",
            size,
            declared if declared is not None else "unannounced",
            request.method,
            request.url.path,
        )
        raise ClientGone from None
    return b"".join(chunks)


def parse_error_status(error: ParseError) -> int:
    """400 for syntax-level ``json.*`` codes, 422 for shape and value errors."""
    if error.code.startswith("json.") and error.code not in _SHAPE_CODES:
        return 400
    return 422
