"""JSON Schema (draft 2020-12) of a CPIR planning request, for editors and validators."""

from __future__ import annotations

import re
from typing import Any

from cerebri.cpir.request import PlanningRequest

__all__ = ["request_json_schema", "temporal_json_schema"]

_ROLE = re.compile(r":(?:func|class|data|meth|attr):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_SPEC_REF = re.compile(r"\s*\((?:[a-z-]+\.md|cpir-0\.2\.md)[^)]*\)")


def _plain(text: str) -> str:
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    text = _LITERAL.sub(r"\1", text)
    return _SPEC_REF.sub("", text)


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _plain(value) if key == "description" and isinstance(value, str) else _clean(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_clean(item) for item in node]
    return node


def request_json_schema() -> dict[str, Any]:
    """The schema of :class:`PlanningRequest` with plain-text descriptions.

    The schema checks shape and types; rules that span fields (``start < end``, weekday
    uniqueness, known zone names) are enforced by :func:`cerebri.parse_request`.
    """
    schema = _clean(PlanningRequest.model_json_schema(mode="validation"))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def temporal_json_schema() -> dict[str, Any]:
    """The schema of a recurrence/free-busy request (``cerebri temporal``, ``/v1/temporal``).

    Every key is required except a recurrence's ``until`` and ``count``.
    """
    from cerebri.cpir.temporal_request import TemporalRequest  # noqa: PLC0415 - no cycle

    schema = _clean(TemporalRequest.model_json_schema(mode="validation"))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
