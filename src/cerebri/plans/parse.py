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
            wrong shape, is missing, or is unknown; with path ``""`` for a mapping holding
            values JSON cannot carry (NaN, sets, other objects).
    """
    document = decode(source)
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
