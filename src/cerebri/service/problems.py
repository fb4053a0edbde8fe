"""RFC 9457 problem documents and the compact JSON response the service writes.

Every response body is compact JSON (``cerebri._json.compact``: no whitespace, key order kept,
non-ASCII as raw UTF-8), so a ``/v1/plan`` body is byte-identical to
``compact(cerebri.plan(body).to_wire())``.
"""

from __future__ import annotations

import re
from http import HTTPStatus

from starlette.responses import Response

from cerebri._json import JSONValue, compact

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "ServiceError",
    "clean_detail",
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


class ServiceError(Exception):
    """A transport failure that becomes a problem response.

    Attributes:
        status: HTTP status (400, 401, 404, 413, 415 or 422).
        code: stable machine-readable code, e.g. ``json.syntax`` or ``input.too_large``.
        detail: human-readable explanation (not part of the contract).
        path: RFC 6901 JSON pointer into the body, or ``None``.
    """

    def __init__(self, status: int, code: str, detail: str, path: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.path = path


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
