"""A one-step plan creating one event in calendar ``work``, shared by executor tests."""

from __future__ import annotations

from typing import Any, Final

EVENT: Final[dict[str, Any]] = {
    "calendar_id": "work",
    "integration_id": "local",
    "object_id": "e1",
    "start": "2026-12-02T10:00:00Z",
    "end": "2026-12-02T11:00:00Z",
    "idempotency_key": "k1",
}
"""Params of ``calendar.event.create`` for event ``e1`` over [10:00, 11:00) UTC."""

ONE_EVENT_DRAFT: Final[dict[str, Any]] = {
    "objective": "one event",
    "origin": "operator",
    "strategy": "direct_action_verified",
    "steps": [
        {
            "key": "create",
            "kind": "capability",
            "capability": "calendar.event.create",
            "target": "e1",
            "params": EVENT,
        },
    ],
}
"""The draft: its only step needs approval (``calendar.event.create`` requires it)."""
