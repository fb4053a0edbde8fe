"""``POST /v1/find-slot``: ranked meeting slots over calendars sent in the request.

The body (:mod:`cerebri.service.find_slot_body`) carries the attendees' iCalendar text; it is
parsed in memory, planned with :meth:`cerebri.calendars.ImportedCalendars.find_slot` (the same
answer as :func:`cerebri.calendars.find_slot` and ``cerebri find-slot``) and dropped: nothing
the client sends is written to disk, a log or a cache (docs/decisions/0029).

The 200 body (schema ``FindSlotAnswer`` in the OpenAPI document)::

    {"outcome": "Solution", "assessment": "ProvenOptimal", "complete": true,
     "tz": "Europe/Berlin", "window": {"start": "…Z", "end": "…Z"},
     "duration": 1800, "granularity": 900, "calendars": ["alice", "bob"],
     "evaluated": 160, "feasible": 42,
     "slots": [{"rank": 1, "start": "…Z", "end": "…Z",
                "local_start": "2026-10-05T10:00:00+02:00", "local_end": "…",
                "free": {"required": ["alice", "bob"], "optional_free": []}}],
     "busy": [{"calendar": "alice", "start": "…Z", "end": "…Z", "summary": "Standup"}],
     "busy_truncated": false, "warnings": [{"code": …, "message": …, "uid": …, "line": …,
     "source": …}]}

``slots`` are the first ``top`` candidates in the planner's order (planner.md 7); ``end`` is
``start`` plus the duration; ``free.required`` lists the calendars with no busy period
overlapping the slot, in body order (every calendar, since each one is required);
``free.optional_free`` is empty until optional attendees exist. ``busy`` is every calendar's
busy time overlapping the window, in body order then by start, at most
:data:`MAX_BUSY_SHOWN` periods (``busy_truncated`` says when more were left out). All
instants are RFC 3339 UTC; ``local_*`` are ISO 8601 with the offset of ``tz``.
"""

from __future__ import annotations

from typing import Any

from cerebri._json import JSONValue
from cerebri.calendars import ImportedCalendars, SlotAnswer
from cerebri.cpir import RankedCandidate
from cerebri.ics import BusyPeriod
from cerebri.service.find_slot_body import MAX_CALENDARS, MAX_TOP, SlotAsk
from cerebri.temporal import Instant, zone

__all__ = [
    "FIND_SLOT_ANSWER_SCHEMA",
    "FIND_SLOT_MAX_OCCURRENCES",
    "MAX_BUSY_SHOWN",
    "answer_wire",
    "plan_slots",
]

FIND_SLOT_MAX_OCCURRENCES = 20_000
"""Most recurrence instances generated per calendar and question over HTTP
(``ics.expansion_limit`` beyond; the command line allows 100 000)."""
MAX_BUSY_SHOWN = 5_000
"""Most busy periods an answer lists for the timeline."""


def plan_slots(ask: SlotAsk) -> tuple[SlotAnswer, tuple[tuple[str, tuple[BusyPeriod, ...]], ...]]:
    """Plan ``ask``; returns the answer and each calendar's busy periods over the window.

    Raises:
        CalendarError: ``ics.expansion_limit`` past :data:`FIND_SLOT_MAX_OCCURRENCES`, or a
            calendar that cannot be expanded.
    """
    query = ask.query
    imported = ImportedCalendars(
        ask.calendars, floating_zone=query.zone, max_occurrences=FIND_SLOT_MAX_OCCURRENCES
    )
    answer = imported.find_slot(query)
    return answer, imported.busy(query.window_start, query.window_end)


def _local(instant: Instant, zone_name: str) -> str:
    moment = instant.to_datetime()
    assert moment is not None  # the window lies within years 1-9999 (SlotQuery checks it)
    return moment.astimezone(zone(zone_name)).isoformat()


def _overlaps(period: BusyPeriod, start: Instant, end: Instant) -> bool:
    """Half-open overlap; a zero-length period blocks the instant it sits on."""
    if period.start == period.end:
        return start <= period.start < end
    return period.start < end and start < period.end


def _slot(
    rank: int,
    candidate: RankedCandidate,
    ask: SlotAsk,
    busy: tuple[tuple[str, tuple[BusyPeriod, ...]], ...],
) -> dict[str, JSONValue]:
    start = candidate.start
    end = start.plus_seconds(ask.query.duration_seconds)
    assert end is not None  # the planner only offers starts whose end it could compute
    free = [name for name, periods in busy if not any(_overlaps(p, start, end) for p in periods)]
    return {
        "rank": rank,
        "start": start.format(),
        "end": end.format(),
        "local_start": _local(start, ask.query.zone),
        "local_end": _local(end, ask.query.zone),
        "free": {"required": list(free), "optional_free": []},
    }


def _busy_wire(
    busy: tuple[tuple[str, tuple[BusyPeriod, ...]], ...],
) -> tuple[list[JSONValue], bool]:
    shown: list[JSONValue] = []
    for name, periods in busy:
        for period in sorted(periods, key=BusyPeriod.sort_key):
            if len(shown) == MAX_BUSY_SHOWN:
                return shown, True
            shown.append(
                {
                    "calendar": name,
                    "start": period.start.format(),
                    "end": period.end.format(),
                    "summary": period.summary,
                }
            )
    return shown, False


def answer_wire(
    ask: SlotAsk,
    answer: SlotAnswer,
    busy: tuple[tuple[str, tuple[BusyPeriod, ...]], ...],
) -> dict[str, JSONValue]:
    """The ``FindSlotAnswer`` body (shape and orderings: the module docstring)."""
    result = answer.result
    query = ask.query
    shown, truncated = _busy_wire(busy)
    return {
        "outcome": result.outcome.value,
        "assessment": result.assessment.value,
        "complete": answer.complete,
        "tz": query.zone,
        "window": {"start": query.window_start.format(), "end": query.window_end.format()},
        "duration": query.duration_seconds,
        "granularity": query.granularity_seconds,
        "calendars": [name for name, _ in ask.calendars],
        "evaluated": result.search_space.evaluated,
        "feasible": len(result.candidates),
        "slots": [
            _slot(rank, candidate, ask, busy)
            for rank, candidate in enumerate(result.candidates[: ask.top], start=1)
        ],
        "busy": shown,
        "busy_truncated": truncated,
        "warnings": answer.warnings_wire(),
    }


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


_INSTANT = {"type": "string", "description": "RFC 3339 instant in UTC (Z)."}
_LOCAL = {"type": "string", "description": "ISO 8601 local date-time with the offset of tz."}
_IDS = {"type": "array", "items": {"type": "string"}}
_NULLABLE_TEXT = {"type": ["string", "null"]}

FIND_SLOT_ANSWER_SCHEMA: dict[str, Any] = _object(
    {
        "outcome": {"type": "string"},
        "assessment": {"type": "string", "enum": ["ProvenOptimal", "Complete", "BestFound"]},
        "complete": {"type": "boolean"},
        "tz": {"type": "string"},
        "window": _object({"start": _INSTANT, "end": _INSTANT}),
        "duration": {"type": "integer", "minimum": 1, "description": "seconds"},
        "granularity": {"type": "integer", "minimum": 1, "description": "seconds"},
        "calendars": {**_IDS, "maxItems": MAX_CALENDARS},
        "evaluated": {"type": "integer", "minimum": 0},
        "feasible": {"type": "integer", "minimum": 0},
        "slots": {
            "type": "array",
            "maxItems": MAX_TOP,
            "items": _object(
                {
                    "rank": {"type": "integer", "minimum": 1},
                    "start": _INSTANT,
                    "end": _INSTANT,
                    "local_start": _LOCAL,
                    "local_end": _LOCAL,
                    "free": _object({"required": _IDS, "optional_free": _IDS}),
                }
            ),
        },
        "busy": {
            "type": "array",
            "maxItems": MAX_BUSY_SHOWN,
            "items": _object(
                {
                    "calendar": {"type": "string"},
                    "start": _INSTANT,
                    "end": _INSTANT,
                    "summary": _NULLABLE_TEXT,
                }
            ),
        },
        "busy_truncated": {"type": "boolean"},
        "warnings": {
            "type": "array",
            "items": _object(
                {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "uid": _NULLABLE_TEXT,
                    "line": {"type": ["integer", "null"]},
                    "source": _NULLABLE_TEXT,
                }
            ),
        },
    }
)
"""JSON Schema of the ``/v1/find-slot`` 200 body (component ``FindSlotAnswer``)."""
