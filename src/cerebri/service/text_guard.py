"""Unstorable text in a request is 422 ``input.invalid_text`` before any route runs.

A NUL character (U+0000) or a lone surrogate cannot be held by every store back end
(:mod:`cerebri._text`, docs/decisions/0036). The service refuses it where it enters:

* :func:`params_text` is an application-wide dependency: a path parameter or query parameter
  holding one is refused with ``path`` ``/path/<name>`` or ``/query/<name>`` (the form of
  ``http.invalid_parameter``), on every route, before authentication and before the
  parameter's own validation;
* :func:`body_text` is called on every store-backed route's parsed JSON body
  (:func:`cerebri.service.store_bodies.read_object`): any string, member names included, with
  ``path`` the RFC 6901 pointer of the first one.

Both raise :class:`~cerebri.service.problems.ServiceError` (422). Over HTTP a lone surrogate
only arrives as a JSON escape, which the JSON parser already refuses (``json.syntax``, 400);
undecodable percent-escapes in a URL are decoded to U+FFFD by the server.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from cerebri._text import INVALID_TEXT, first_unstorable, text_fault
from cerebri.service.problems import ServiceError

__all__ = ["body_text", "params_text"]

_REASON = "text with NUL characters or lone surrogates cannot be stored"


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


async def params_text(request: Request) -> None:
    """Refuse a path or query parameter holding unstorable text.

    Raises:
        ServiceError: 422 ``input.invalid_text``, ``path`` ``/path/NAME`` or ``/query/NAME``.
    """
    places = [("path", n, v) for n, v in request.path_params.items()]
    places += [("query", n, v) for n, v in request.query_params.multi_items()]
    for place, name, value in places:
        fault = text_fault(name) or (text_fault(value) if isinstance(value, str) else None)
        if fault is not None:
            raise ServiceError(
                422,
                INVALID_TEXT,
                f"{place} parameter {name!r} holds {fault}; {_REASON}",
                f"/{place}/{_escape(name)}",
            )


def body_text(document: Any, *, at: str = "") -> None:
    """Refuse a parsed JSON body holding unstorable text anywhere.

    Raises:
        ServiceError: 422 ``input.invalid_text``, ``path`` the pointer of the first such
            string (prefixed with ``at``).
    """
    found = first_unstorable(document, at)
    if found is not None:
        where, fault = found
        raise ServiceError(422, INVALID_TEXT, f"the body holds {fault}; {_REASON}", where)
