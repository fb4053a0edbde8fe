"""Facade entries of :mod:`cerebri.cpir` that check their Python arguments first.

:func:`parse_model` is :func:`cerebri.cpir.parse.parse_model` with a ``cpir.invalid_argument``
guard on ``model`` (``source`` is judged by the parser: ``json.not_object``,
``json.too_deep``...); internal callers that pass typed values use the unchecked
one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from cerebri.cpir import parse
from cerebri.cpir.arguments import invalid_argument

__all__ = ["parse_model"]

M = TypeVar("M", bound=BaseModel)


def parse_model(model: type[M], source: str | bytes | Mapping[str, Any]) -> M:
    """Parse ``source`` (JSON text, UTF-8 bytes or decoded JSON values) as ``model``.

    Same result and :class:`~cerebri.errors.ParseError` codes as
    :func:`cerebri.cpir.parse.parse_model`; before that, raises
    :class:`~cerebri.errors.InvalidArgumentError` (``cpir.invalid_argument``) unless ``model``
    is a pydantic model class.
    """
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise invalid_argument(
            f"parse_model() needs model as a pydantic model class, got {type(model).__name__}"
        )
    return parse.parse_model(model, source)
