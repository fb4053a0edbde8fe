"""The JSON document of an event change: ``cerebri reschedule|cancel-event|update-event
--json`` (docs/decisions/0055).

:func:`change_document` is the find-slot document
(:func:`~cerebri.calendars.wire.find_slot_document`: the PlanningResult's members and
``warnings``; ``slots`` and ``below_min_attendance`` when optional attendees were read;
``local_times``, each candidate in each attendee's zone, when ``--hours`` gave zones) and
two more members::

    "event": {"uid": "...", "scope": "INSTANCE", "recurrence_id": "...Z" | null,
              "calendar": "alice", "object_id": "ics-...", "start": "...Z", "end": "...Z",
              "local_start": "2026-10-05T10:00:00+02:00", "local_end": "...",
              "title": "Standup" | null, "location": null, "sequence": 2,
              "recurring": true},
    "change": {...}            // the request's change field (contract C1)

and, for a whole-series or this-and-future reschedule of a series, ``series_check``: how far
every moved instance was checked and the starts left out because a later instance is not
free (:meth:`~cerebri.calendars.series_fit.SeriesCheck.to_wire`, decision 0063)::

    "series_check": {"horizon_seconds": 4838400, "until": "...Z",
                     "rejected": [{"start": "...Z", "instance": {"start": "...Z", "end": "...Z"},
                                   "calendar_id": "bob", "reason": "busy",
                                   "blocker": "dentist@x", "message": "..."}],
                     "request_ranks": [2, 3]}

``event`` is the event (or instance) as it is now, before the change; each candidate of the
result is the range after it. Instants RFC 3339 UTC; ``local_*`` ISO 8601 with the offset
of the query's zone.
"""

from __future__ import annotations

from cerebri._json import JSONValue
from cerebri.calendars.event_change import EventChangeFound
from cerebri.calendars.wire import find_slot_document
from cerebri.temporal import Instant, zone

__all__ = ["change_document", "event_before"]


def _local(instant: Instant, zone_name: str) -> str | None:
    moment = instant.to_datetime()
    return None if moment is None else moment.astimezone(zone(zone_name)).isoformat()


def event_before(found: EventChangeFound) -> dict[str, JSONValue]:
    """The ``event`` member (module doc): the event as it is now."""
    view, target, tz = found.event, found.target, found.query.zone
    recurrence = found.change.get("recurrence_id")
    return {
        "uid": view.uid,
        "scope": found.scope.value,
        "recurrence_id": recurrence if isinstance(recurrence, str) else None,
        "calendar": target.calendar_id,
        "object_id": target.object_id,
        "start": view.start.format(),
        "end": view.end.format(),
        "local_start": _local(view.start, tz),
        "local_end": _local(view.end, tz),
        "title": view.title,
        "location": view.location,
        "sequence": view.sequence,
        "recurring": view.recurring,
    }


def change_document(found: EventChangeFound) -> dict[str, JSONValue]:
    """The ``--json`` document of a change (module doc)."""
    document = find_slot_document(found.answer, ranked=bool(found.optional))
    document["event"] = event_before(found)
    change: JSONValue = found.answer.request["change"]
    document["change"] = change
    if found.series_check is not None:
        document["series_check"] = found.series_check.to_wire()
    return document
