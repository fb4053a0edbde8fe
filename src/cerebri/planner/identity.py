"""Content-addressed plan ids (planner.md 9.1).

``id = "p-" + hex(SHA-256(canonical({"request": request, "placements": placements})))``
where canonical form sorts every array by the compact JSON text of its canonical elements
and sorts object keys. Reordering any list in the request keeps the id; any content change
(even ``request_id``) changes it. See docs/decisions/0004-plan-identity.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from cerebri._json import JSONValue, canonical
from cerebri.cpir import Placement, PlanningRequest

__all__ = ["PlanIdentity", "canonicalise"]


def canonicalise(value: JSONValue) -> JSONValue:
    """Recursively sort arrays by their elements' canonical text and objects by key."""
    if isinstance(value, dict):
        return {key: canonicalise(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        items = [canonicalise(item) for item in value]
        return sorted(items, key=canonical)
    return value


class PlanIdentity:
    """Computes plan ids for one request.

    The request is canonicalised once, on the first id asked for: a search whose caller
    reads no id never pays for it.
    """

    __slots__ = ("_request", "_request_text")

    def __init__(self, request: PlanningRequest) -> None:
        self._request = request
        self._request_text: str | None = None

    def plan_id(self, placements: Sequence[Placement]) -> str:
        """``"p-"`` + 64 lowercase hex digits for ``placements`` of this request."""
        if self._request_text is None:
            wire_request = self._request.model_dump(mode="json")
            self._request_text = canonical(canonicalise(wire_request))
        wire = canonical(canonicalise([p.to_wire() for p in placements]))
        # Keys sort as "placements" < "request", so this is canonical(V) without
        # re-encoding the request for every candidate.
        text = '{"placements":' + wire + ',"request":' + self._request_text + "}"
        return "p-" + hashlib.sha256(text.encode("utf-8")).hexdigest()
