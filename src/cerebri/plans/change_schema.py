"""JSON Schema of the display-only ``current`` param of the change writers (decision 0056).

``calendar.event.move``, ``calendar.event.update`` and ``calendar.event.cancel`` take an
optional ``current``: the event as it was read when the change was planned (range, title,
location, attendees). The adapters ignore it; it is inside the signed plan, so what the
approver sees as "before" (``cerebri approvals show``) is what the proposer signed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["CURRENT_EVENT_SCHEMA"]

_INSTANT: Final = {
    "type": "string",
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$",
    "description": "RFC 3339 UTC instant",
}
_TEXT: Final = {"type": ["string", "null"], "maxLength": 1024}

CURRENT_EVENT_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "description": "The event as read when the change was planned (display only: shown to "
    "approvers; the adapters ignore it)",
    "properties": {
        "start": {"anyOf": [_INSTANT, {"type": "null"}]},
        "end": {"anyOf": [_INSTANT, {"type": "null"}]},
        "title": _TEXT,
        "location": _TEXT,
        "attendees": {
            "type": ["array", "null"],
            "maxItems": 256,
            "items": {
                "type": "object",
                "properties": {
                    "address": {"type": "string", "minLength": 1, "maxLength": 320},
                    "name": {"type": ["string", "null"], "maxLength": 256},
                    "required": {"type": "boolean"},
                    "calendar_id": {"type": ["string", "null"], "maxLength": 256},
                },
                "required": ["address", "required"],
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}
"""The schema of ``current``: ``start``, ``end`` (UTC or null), ``title``, ``location``,
``attendees`` (C1 shape or null)."""
