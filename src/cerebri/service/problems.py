"""RFC 9457 problem documents and the compact JSON response the service writes.

Every response body is compact JSON (``cerebri._json.compact``: no whitespace, key order kept,
non-ASCII as raw UTF-8), so a ``/v1/plan`` body is byte-identical to
``compact(cerebri.plan(body).to_wire())``. The responses are :mod:`cerebri._http`'s (shared
with the MCP server's HTTP transport); :class:`ServiceError` is the service's own.
"""

from __future__ import annotations

from cerebri._http import (
    PROBLEM_MEDIA_TYPE,
    clean_detail,
    encodable,
    json_response,
    problem_response,
)

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "ServiceError",
    "clean_detail",
    "encodable",
    "json_response",
    "problem_response",
]


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
