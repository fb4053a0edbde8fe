"""Reading the JSON bodies of the store-backed routes.

A body goes through the same transport checks as every other route
(:func:`cerebri.service.body.read_json_body`: 415, 413, 408), then the strict JSON parser
(:func:`cerebri.cpir.load_json`: 400 for ``json.*`` syntax codes), then the text check
(422 ``input.invalid_text`` for a NUL character anywhere, :mod:`cerebri.service.text_guard`),
then a pydantic model with no extra members and no type coercion: a mismatch is 422
``http.invalid_body`` with ``path`` the RFC 6901 pointer of the first offending member.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from cerebri.cpir import load_json
from cerebri.errors import ParseError
from cerebri.plans.parse import pointer
from cerebri.service.body import read_json_body
from cerebri.service.problems import ServiceError
from cerebri.service.settings import ServiceSettings
from cerebri.service.text_guard import body_text

__all__ = ["has_body", "read_model", "read_object"]

Model = TypeVar("Model", bound=BaseModel)


def has_body(request: Request) -> bool:
    """Whether the request announces a body (a non-zero ``Content-Length`` or chunks)."""
    length = request.headers.get("content-length")
    if length is not None:
        return length.strip() not in ("", "0")
    return "transfer-encoding" in request.headers


async def read_object(request: Request, settings: ServiceSettings) -> dict[str, Any]:
    """The body as a JSON object.

    Raises:
        ServiceError: 415, 413, 408 (:func:`~cerebri.service.body.read_json_body`).
        ClientGone: the client hung up mid-body.
        ParseError: ``json.*`` (400, or 422 for ``json.not_object``).
        ServiceError: 422 ``input.invalid_text``: a string (or member name) anywhere in the
            body holds a NUL character (:func:`~cerebri.service.text_guard.body_text`).
        InputTooLargeError: ``input.too_large``.
    """
    raw = await read_json_body(
        request, settings.max_request_bytes, timeout=settings.body_timeout_seconds
    )
    document = load_json(raw)
    if not isinstance(document, dict):
        raise ParseError("the request body must be a JSON object", code="json.not_object", path="")
    body_text(document)
    return document


def read_model(model: type[Model], document: dict[str, Any], *, at: str = "") -> Model:
    """``document`` read strictly into ``model`` (no extra members, no coercion).

    Raises:
        ServiceError: 422 ``http.invalid_body``, ``path`` the first offending member
            (prefixed with ``at``).
    """
    try:
        return model.model_validate(document, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        parts = [p for p in first["loc"] if isinstance(p, str | int)]
        raise ServiceError(
            422, "http.invalid_body", f"{first['msg']}", at + pointer(parts)
        ) from None
