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
from pydantic_core import ErrorDetails

from cerebri.cpir import load_json
from cerebri.cpir.parse import check_depth
from cerebri.errors import ParseError
from cerebri.plans.draft import MAX_DRAFT_STEPS, PlanDraft
from cerebri.plans.report import DraftError, DraftProblem

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
        ParseError: ``json.*`` codes for text that is not strict JSON; ``json.too_deep``
            for a decoded value nested deeper than 128 levels (or containing itself).
        InputTooLargeError: ``input.too_large`` for a decoded value holding more than
            :data:`~cerebri.cpir.parse.MAX_DECODED_VALUES` values once written out.
        DraftError: ``draft.schema`` when the document is not a JSON object.
    """
    if isinstance(source, bytes | str):
        document = _load(source)
    else:
        check_depth(source)
        document = source
    if not isinstance(document, Mapping):
        raise DraftError("a plan draft is a JSON object", code="draft.schema", path="")
    return dict(document)


def parse_draft(source: DraftSource) -> PlanDraft:
    """Parse an operator/template draft strictly into :class:`PlanDraft` (shapes only).

    The rules of plans.md section 3 are *not* checked here: call
    :func:`cerebri.plans.validate_draft` on the result. A non-empty ``ignored`` member is
    refused: only :func:`cerebri.plans.parse_model_draft` fills it.

    Raises:
        ParseError: ``json.*`` codes for text that is not strict JSON.
        DraftError: ``draft.schema``; ``problems`` holds every member that has the wrong
            shape, is missing, or is unknown (each with the key of the step it falls in, when
            that step has a text key), and the error's own path is the first of them. A draft
            of more than :data:`~cerebri.plans.MAX_DRAFT_STEPS` steps is refused at
            ``/steps`` before any step is read; an integer beyond 2^53 - 1 at its pointer;
            a mapping holding values JSON cannot carry (NaN, sets, ...) at ``""``.
    """
    document = decode(source)
    steps = document.get("steps")
    if isinstance(steps, list | tuple) and len(steps) > MAX_DRAFT_STEPS:
        raise DraftError(
            f"not a plan draft: {len(steps)} steps, at most {MAX_DRAFT_STEPS} are allowed",
            code="draft.schema",
            path="/steps",
        )
    where = _too_large_integer(document)
    if where is not None:
        message = (
            f"integer beyond 2^53 - 1 ({MAX_SAFE_INTEGER}): drafts are content-addressed as "
            "RFC 8785 JSON, which cannot hold it exactly"
        )
        raise _error([DraftProblem("draft.schema", _step_at(document, where), where, message)])
    try:
        text = json.dumps(document, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise DraftError(f"not a JSON value: {exc}", code="draft.schema", path="") from None
    ignored = document.get("ignored")
    refused = [_IGNORED_PROBLEM] if isinstance(ignored, list | tuple) and ignored else []
    try:
        draft = PlanDraft.model_validate_json(text)
    except ValidationError as exc:
        problems = [_schema_problem(document, error) for error in exc.errors()]
        raise _error([*problems, *refused]) from None
    if refused:
        raise _error(refused)
    return draft


_IGNORED_PROBLEM: Final = DraftProblem(
    "draft.schema",
    None,
    "/ignored",
    "not a plan draft: ignored is filled only by parse_model_draft (a draft proposed by a "
    "language model is read with parse_model_draft, or `plan-graph validate --model`)",
)


def _error(problems: list[DraftProblem]) -> DraftError:
    """The error of ``problems`` (every one kept; code, path and message are the first's)."""
    first = problems[0]
    return DraftError(first.message, code=first.code, path=first.path, problems=tuple(problems))


def _schema_problem(document: Mapping[str, Any], error: ErrorDetails) -> DraftProblem:
    """One pydantic error as a ``draft.schema`` problem, with the step key it falls in."""
    hint = (
        " (unknown member; a draft proposed by a language model is read with "
        "parse_model_draft, or `plan-graph validate --model`, which drops and lists it)"
        if error["type"] == "extra_forbidden"
        else ""
    )
    path = pointer(list(error["loc"]))
    message = f"not a plan draft: {error['msg']}{hint}"
    return DraftProblem("draft.schema", _step_at(document, path), path, message)


def _step_at(document: Mapping[str, Any], path: str) -> str | None:
    """The key of the step a pointer ``/steps/<i>/...`` falls in, when it has a text key."""
    parts = path.split("/")
    steps = document.get("steps")
    if len(parts) < 3 or parts[1] != "steps" or not parts[2].isdigit():
        return None
    if not isinstance(steps, list | tuple) or int(parts[2]) >= len(steps):
        return None
    step = steps[int(parts[2])]
    key = step.get("key") if isinstance(step, Mapping) else None
    return key if isinstance(key, str) else None
