"""Read a plan draft written by a planner, template or operator (plans.md section 1).

Operator drafts are read strictly: an unknown member is an error, not a silent drop. Drafts
proposed by a language model go through :func:`cerebri.plans.parse_model_draft` instead,
which drops and lists what could carry authority.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from cerebri.cpir import load_json
from cerebri.plans.draft import PlanDraft
from cerebri.plans.report import DraftError

__all__ = ["DraftSource", "parse_draft", "pointer"]

DraftSource = bytes | str | Mapping[str, Any]
"""A draft as UTF-8 JSON bytes, JSON text, or an already decoded JSON object."""


def pointer(parts: tuple[int | str, ...] | list[int | str]) -> str:
    """RFC 6901 JSON pointer of a location (``("steps", 0, "key")`` -> ``/steps/0/key``)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def decode(source: DraftSource) -> dict[str, Any]:
    """The JSON object of ``source``.

    Raises:
        ParseError: ``json.*`` codes for text that is not strict JSON.
        DraftError: ``draft.schema`` when the document is not a JSON object.
    """
    document = load_json(source) if isinstance(source, bytes | str) else source
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
            wrong shape, is missing, or is unknown.
    """
    document = decode(source)
    try:
        return PlanDraft.model_validate_json(json.dumps(document, allow_nan=False))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise DraftError(
            f"not a plan draft: {first['msg']}",
            code="draft.schema",
            path=pointer(list(first["loc"])),
        ) from None
