"""Read a plan draft written by a planner, template or operator (plans.md section 1).

Operator drafts are read strictly: an unknown member is an error, not a silent drop. Drafts
proposed by a language model go through :func:`cerebri.plans.parse_model_draft` instead,
which drops and lists what could carry authority.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from pydantic import ValidationError

from cerebri.cpir import load_json
from cerebri.errors import ParseError
from cerebri.plans.draft import PlanDraft
from cerebri.plans.report import DraftError

__all__ = ["MAX_SAFE_INTEGER", "DraftSource", "decode", "parse_draft", "pointer"]

DraftSource = bytes | str | Mapping[str, Any]
"""A draft as UTF-8 JSON bytes, JSON text, or an already decoded JSON object."""


def pointer(parts: tuple[int | str, ...] | list[int | str]) -> str:
    """RFC 6901 JSON pointer of a location (``("steps", 0, "key")`` -> ``/steps/0/key``)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


MAX_SAFE_INTEGER: Final = 2**53 - 1
"""Largest integer magnitude a draft may hold: drafts are content-addressed as RFC 8785 JSON,
which represents integers exactly only up to this (I-JSON, RFC 7493 section 2.2)."""


def _load(source: bytes | str) -> Any:
    try:
        return load_json(source)
    except ParseError as error:
        text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
        stripped = text.strip()
        if error.code != "json.syntax":
            raise
        if not stripped:
            message = "input is empty; a plan draft is a JSON object"
        elif stripped.startswith("```"):
            message = (
                "input is wrapped in a Markdown code fence (as language models often answer); "
                "pass the JSON inside the fence"
            )
        else:
            raise
        raise ParseError(message, code="json.syntax", path=error.path) from None


def _too_large_integer(document: Any) -> str | None:
    """The JSON pointer of the first integer beyond +/-(2^53 - 1), or ``None``."""
    stack: list[tuple[Any, tuple[int | str, ...]]] = [(document, ())]
    while stack:
        node, at = stack.pop()
        if isinstance(node, Mapping):
            stack.extend((v, (*at, k)) for k, v in reversed(list(node.items())))
        elif isinstance(node, list | tuple):
            stack.extend((v, (*at, i)) for i, v in reversed(list(enumerate(node))))
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_SAFE_INTEGER:
            return pointer(at)
    return None


def decode(source: DraftSource) -> dict[str, Any]:
    """The JSON object of ``source``.

    Raises:
        ParseError: ``json.*`` codes for text that is not strict JSON.
        DraftError: ``draft.schema`` when the document is not a JSON object.
    """
    document = _load(source) if isinstance(source, bytes | str) else source
    if not isinstance(document, Mapping):
        raise DraftError("a plan draft is a JSON object", code="draft.schema", path="")
    return dict(document)


def parse_draft(source: DraftSource) -> PlanDraft:
    """Parse an operator/template draft strictly into :class:`PlanDraft` (shapes only).

    The rules of plans.md section 3 are *not* checked here: call
    :func:`cerebri.plans.validate_draft` on the result.

    Raises:
        ParseError: ``json.*`` codes for text that is not strict JSON.
        DraftError: ``draft.schema`` with the JSON pointer of the first member that has the
            wrong shape, is missing, or is unknown, or of an integer beyond 2^53 - 1; with
            path ``""`` for a mapping holding values JSON cannot carry (NaN, sets, ...).
    """
    document = decode(source)
    where = _too_large_integer(document)
    if where is not None:
        raise DraftError(
            f"integer beyond 2^53 - 1 ({MAX_SAFE_INTEGER}): drafts are content-addressed as "
            "RFC 8785 JSON, which cannot hold it exactly",
            code="draft.schema",
            path=where,
        )
    try:
        text = json.dumps(document, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise DraftError(f"not a JSON value: {exc}", code="draft.schema", path="") from None
    try:
        return PlanDraft.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        hint = (
            " (unknown member; a draft proposed by a language model is read with "
            "parse_model_draft, or `plan-graph validate --model`, which drops and lists it)"
            if first["type"] == "extra_forbidden"
            else ""
        )
        raise DraftError(
            f"not a plan draft: {first['msg']}{hint}",
            code="draft.schema",
            path=pointer(list(first["loc"])),
        ) from None
