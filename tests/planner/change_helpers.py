"""A request that changes the existing event ``weekly`` (decision 0049), for the change
operation tests of the planner and of the schemas."""

from __future__ import annotations

from typing import Any

from tests.planner.helpers import event, example

KINDS = ("MOVE_EVENT", "UPDATE_EVENT", "DELETE_EVENT")
# Europe/Berlin leaves summer time on 2026-10-25: 10:00 local is 08:00Z before, 09:00Z after.
HORIZON = ("2026-10-24T06:00:00Z", "2026-10-27T18:00:00Z")
CURRENT = ("2026-10-24T08:00:00Z", "2026-10-24T09:00:00Z")  # 10:00-11:00 CEST
BLOCKERS = {
    "gym": ("2026-10-24T06:00:00Z", "2026-10-24T07:30:00Z"),
    "brunch": ("2026-10-24T09:30:00Z", "2026-10-24T11:00:00Z"),
    "trip": ("2026-10-25T06:00:00Z", "2026-10-25T18:00:00Z"),
    "review": ("2026-10-26T09:00:00Z", "2026-10-26T10:00:00Z"),  # 10:00 CET, same time
}
GRANULARITY = 1800


def grant(object_id: str, kind: str) -> dict[str, Any]:
    return {
        "object_id": object_id,
        "calendar_id": "work",
        "integration_id": "local-ics",
        "kind": kind,
    }


def request_for(operation: str, *, duration: int = 3600, **change: Any) -> dict[str, Any]:
    """A request changing the existing event ``weekly`` (revision 4) among ``BLOCKERS``."""
    document = example()
    document["operation"] = operation
    document["scope"]["time_range"] = {"start": HORIZON[0], "end": HORIZON[1]}
    objects = [event("weekly", *CURRENT)]
    objects[0]["revision"] = 4
    objects += [event(oid, *span) for oid, span in BLOCKERS.items()]
    document["context"]["objects"] = objects
    document["target_ids"] = ["weekly"]
    document["duration"]["value"]["knowledge"]["data"] = duration
    document["constraints"] = []
    document["preferences"]["preferences"] = []
    document["granularity"] = GRANULARITY
    document["budget"]["max_candidates"] = 1024
    document["budget"]["max_moved_objects"] = 1
    document["policy"]["snapshot"]["mutation"]["allowed_actions"] = list(KINDS)
    document["planning_capability"]["mutations"] = [grant("weekly", k) for k in KINDS]
    document["change"] = {
        "uid": "weekly-1@example.com",
        "scope": "SERIES",
        "recurrence_id": None,
        "etag": '"e-17"',
        "sequence": 4,
        "title": None,
        "location": None,
        "organizer": "mailto:ann@example.com",
        "attendees": [
            {
                "address": "mailto:bob@example.com",
                "name": "Bob",
                "required": True,
                "calendar_id": "work",
            }
        ],
        **change,
    }
    return document
