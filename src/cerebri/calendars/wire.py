"""The JSON documents of a slot search and a free/busy view: one encoder for every shell.

* :func:`find_slot_document`: ``cerebri find-slot --json`` and the MCP ``find_slot`` tool,
  the PlanningResult plus ``warnings`` (and, when ranked beyond the planner,
  :func:`slots_wire`; with attendee hours, ``local_times``);
* :func:`freebusy_wire`: ``cerebri freebusy --json`` and the MCP ``freebusy`` tool;
* :func:`answer_wire` over :func:`plan_slots`: the ``FindSlotAnswer`` body of
  ``POST /v1/find-slot`` and of the Node bridge's ``find_slot`` (the question read by
  :func:`cerebri.calendars.find_slot_body.read_find_slot_body`).

The question's calendars are parsed in memory, planned with
:meth:`cerebri.calendars.ImportedCalendars.find_slot` (the same answer as
:func:`cerebri.calendars.find_slot` and ``cerebri find-slot``) and dropped: nothing the
client sends is written to disk, a log or a cache (docs/decisions/0029).

The ``FindSlotAnswer`` body (the 200 body of ``POST /v1/find-slot``, schema
:data:`FIND_SLOT_ANSWER_SCHEMA`)::

    {"outcome": "Solution", "assessment": "ProvenOptimal", "complete": true,
     "tz": "Europe/Berlin", "window": {"start": "…Z", "end": "…Z"},
     "duration": 1800, "granularity": 900, "calendars": ["alice", "bob", "carol"],
     "optional_calendars": ["carol"], "evaluated": 160, "feasible": 42,
     "slots": [{"rank": 1, "start": "…Z", "end": "…Z",
                "local_start": "2026-10-05T10:00:00+02:00", "local_end": "…",
                "preference_distance_seconds": 0,
                "free": {"required": ["alice", "bob"], "optional_free": ["carol"],
                         "optional_busy": [], "optional_unknown": []}}],
     "below_min_attendance": [{"start": …, "end": …, "local_start": …, "local_end": …,
                               "preference_distance_seconds": …, "free": {…}}],
     "below_min_attendance_total": 3,
     "busy": [{"calendar": "alice", "start": "…Z", "end": "…Z", "summary": "Standup"}],
     "busy_truncated": false, "warnings": [{"code": …, "message": …, "uid": …, "line": …,
     "source": …}]}

``calendars`` is every calendar id in body order, ``optional_calendars`` the optional ones.
``slots`` are the first ``top`` candidates in find-slot's ranked order (the planner's
order, planner.md 7, re-ranked by ``(-optional attendees free, daily-preference distance,
start)``, docs/decisions/0026): the order and starts of ``cerebri find-slot`` on the same
calendars and options. ``end`` is ``start`` plus the duration;
``preference_distance_seconds`` the slot's daily-preference distance (null without a
preference); ``free.required`` lists the required calendars with no busy period overlapping
the slot, in body order; ``free.optional_free`` / ``optional_busy`` / ``optional_unknown``
split the optional attendees (body order) into free, busy (busy time within the buffer, or
time their availability excludes) and unknown (their calendar does not describe part of
the slot: not free). ``below_min_attendance`` lists the first ``top`` feasible slots left
out by ``min_attendance``, by start (``below_min_attendance_total`` counts them all).
``busy`` is every calendar's busy time overlapping the window, in body order then by start,
at most :data:`MAX_BUSY_SHOWN` periods (``busy_truncated`` says when more were left out).
All instants are RFC 3339 UTC; ``local_*`` are ISO 8601 with the offset of ``tz``.

With attendee hours (``hours``, :class:`~cerebri.calendars.AttendeeHours`; the answer's
``zones``), each slot and each ``below_min_attendance`` entry also carries
``"local_times": {"alice": {"start": "2026-10-05T09:00:00-04:00", "end": "…",
"zone": "America/New_York"}, …}``: the slot in every attendee zone known (declared, or
the zone of their published availability), in calendar order; the offsets follow each
zone's DST rules at that instant (docs/decisions/0053). Without attendee hours the key is
absent and the body is what it always was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars.answer import SlotAnswer, SlotDetail
from cerebri.calendars.attendee_hours import local_times
from cerebri.calendars.imported import ImportedCalendars
from cerebri.calendars.query import SlotQuery
from cerebri.calendars.ranking import has_daily_preference
from cerebri.calendars.view import FreeBusyView
from cerebri.errors import CerebriError
from cerebri.ics import BusyPeriod, CalendarError
from cerebri.ics.budget import OPTION_HINT
from cerebri.temporal import Instant, Interval, zone

__all__ = [
    "FIND_SLOT_ANSWER_SCHEMA",
    "FIND_SLOT_MAX_OCCURRENCES",
    "MAX_BUSY_SHOWN",
    "MAX_CALENDARS",
    "MAX_TOP",
    "SlotAsk",
    "answer_wire",
    "find_slot_document",
    "freebusy_wire",
    "plan_slots",
    "ranked_beyond_planner",
    "slots_wire",
]

FIND_SLOT_MAX_OCCURRENCES = 20_000
"""Most recurrence instances generated per calendar and question over HTTP
(``ics.expansion_limit`` beyond; the command line allows 100 000)."""
MAX_BUSY_SHOWN = 5_000
"""Most busy periods an answer lists for the timeline."""
MAX_CALENDARS = 32
"""Most calendars (attendees) in one question."""
MAX_TOP = 100
"""Most slots one answer lists."""


@dataclass(frozen=True, slots=True)
class SlotAsk:
    """A checked body: the query, the required and the optional attendees' parsed calendars
    by id (each in body order), ``top``, and every id in body order."""

    query: SlotQuery
    calendars: tuple[tuple[str, Component], ...]
    top: int
    optional: tuple[tuple[str, Component], ...] = ()
    ids: tuple[str, ...] = ()


Busy = tuple[tuple[str, tuple[BusyPeriod, ...]], ...]


def plan_slots(ask: SlotAsk) -> tuple[SlotAnswer, Busy]:
    """Plan ``ask``; returns the answer and each calendar's busy periods over the window,
    required and optional, in body order.

    Raises:
        CerebriError: ``ics.expansion_limit`` past :data:`FIND_SLOT_MAX_OCCURRENCES`, or
            the ``ics.*`` code of a calendar that cannot be expanded; ``path``
            ``/calendars/<i>/ics`` (over HTTP a 422 problem).
    """
    try:
        return _plan_slots(ask)
    except CalendarError as error:
        raise _calendar_problem(error, ask) from None


def _calendar_problem(error: CalendarError, ask: SlotAsk) -> CerebriError:
    """A calendar that cannot be expanded, at ``/calendars/<i>/ics`` (the calendar's
    ``source`` is its id); the hint names this route's limit, not the command line's option
    the body cannot set."""
    index = ask.ids.index(error.source) if error.source in ask.ids else None
    message = error.message.replace(
        OPTION_HINT,
        f"this route expands at most {FIND_SLOT_MAX_OCCURRENCES} instances per calendar: "
        "shorten the window (between) or send less of the calendar",
    ).replace(" (max_occurrences)", "")
    path = None if index is None else f"/calendars/{index}/ics"
    return CerebriError(message, code=error.code, path=path)


def _plan_slots(ask: SlotAsk) -> tuple[SlotAnswer, Busy]:
    query = ask.query
    imported = ImportedCalendars(
        ask.calendars, floating_zone=query.zone, max_occurrences=FIND_SLOT_MAX_OCCURRENCES
    )
    answer = imported.find_slot(query, optional=ask.optional)
    busy = dict(imported.busy(query.window_start, query.window_end))
    if ask.optional:
        optional = ImportedCalendars(
            ask.optional, floating_zone=query.zone, max_occurrences=FIND_SLOT_MAX_OCCURRENCES
        )
        busy.update(optional.busy(query.window_start, query.window_end))
    order = ask.ids or tuple(busy)
    return answer, tuple((name, busy[name]) for name in order)


def _local(instant: Instant, zone_name: str) -> str:
    moment = instant.to_datetime()
    assert moment is not None  # the window lies within years 1-9999 (SlotQuery checks it)
    return moment.astimezone(zone(zone_name)).isoformat()


def _pair(start: Instant, end: Instant, tz: ZoneInfo) -> dict[str, JSONValue]:
    def local(instant: Instant) -> str | None:
        moment = instant.to_datetime()
        return None if moment is None else moment.astimezone(tz).isoformat()

    return {
        "start": start.format(),
        "end": end.format(),
        "local_start": local(start),
        "local_end": local(end),
    }


def freebusy_wire(view: FreeBusyView, zone_name: str) -> dict[str, JSONValue]:
    """The ``freebusy --json`` document: window, zone, busy (with
    uid/recurrence_id/summary/source/kind), free, unknown, unavailable, ``warnings`` (sorted
    :meth:`~cerebri.ics.CalendarWarning.to_wire` objects) and ``complete`` (``false`` when
    events were left out: the view may miss busy time). Instants RFC 3339 UTC; ``local_*``
    ISO 8601 with the offset of ``zone_name`` (an IANA zone)."""
    tz = ZoneInfo(zone_name)

    def spans(items: tuple[Interval, ...]) -> list[JSONValue]:
        return [_pair(Instant(i.start), Instant(i.end), tz) for i in items]

    return {
        "window": _pair(Instant(view.window.start), Instant(view.window.end), tz),
        "zone": zone_name,
        "busy": [
            {
                **_pair(p.start, p.end, tz),
                "uid": p.uid,
                "recurrence_id": p.recurrence_id,
                "summary": p.summary,
                "source": p.source,
                "kind": p.kind,
            }
            for p in view.busy
        ],
        "free": spans(view.free),
        "unknown": spans(view.unknown),
        "unavailable": spans(view.unavailable),
        "warnings": [dict(warning.to_wire()) for warning in view.warnings],
        "complete": view.complete,
    }


def slots_wire(answer: SlotAnswer) -> dict[str, JSONValue]:
    """The keys ``find-slot --json`` adds when it ranks beyond the planner: ``slots`` (one
    :meth:`~cerebri.calendars.answer.SlotDetail.to_wire` object per candidate, in the
    candidates' order) and ``below_min_attendance`` (feasible slots left out, by start)."""
    return {
        "slots": [detail.to_wire() for detail in answer.slots],
        "below_min_attendance": [detail.to_wire() for detail in answer.below_min_attendance],
    }


def ranked_beyond_planner(query: SlotQuery, *, optional: bool) -> bool:
    """Whether find-slot ranks beyond the planner (docs/decisions/0026): a daily preference,
    a minimum attendance, or ``optional`` attendees. Then its ``--json`` document carries
    :func:`slots_wire` and its table the ranking columns."""
    return has_daily_preference(query) or query.min_attendance is not None or optional


def find_slot_document(answer: SlotAnswer, *, ranked: bool) -> dict[str, JSONValue]:
    """The ``find-slot --json`` document: the PlanningResult's members, ``warnings``
    (:meth:`SlotAnswer.warnings_wire`) and, when ``ranked`` (a daily preference, a minimum
    attendance or optional attendees), the members of :func:`slots_wire`.

    When the answer knows attendee zones (:attr:`SlotAnswer.zones`: the query gave attendee
    hours), ``local_times`` is added: one ``{calendar_id: {"start", "end", "zone"}}`` map
    per candidate, in the candidates' order (``local_times[i]`` is ``candidates[i]``), with
    local RFC 3339 date-times carrying each zone's offset (docs/decisions/0053)."""
    document: dict[str, JSONValue] = {
        **answer.result.to_wire(),
        "warnings": answer.warnings_wire(),
    }
    if ranked:
        document.update(slots_wire(answer))
    if answer.zones:
        document["local_times"] = [
            local_times(p.range.start, p.range.end, answer.zones)
            for p in (c.proposed.placements[0] for c in answer.result.candidates)
        ]
    return document


def _overlaps(period: BusyPeriod, start: Instant, end: Instant) -> bool:
    """Half-open overlap; a zero-length period blocks the instant it sits on."""
    if period.start == period.end:
        return start <= period.start < end
    return period.start < end and start < period.end


def _slot(
    detail: SlotDetail, ask: SlotAsk, busy: Busy, zones: tuple[tuple[str, str], ...]
) -> dict[str, JSONValue]:
    start, end = detail.start, detail.end
    required = {name for name, _ in ask.calendars}
    free = [
        name
        for name, periods in busy
        if name in required and not any(_overlaps(p, start, end) for p in periods)
    ]
    extra: dict[str, JSONValue] = {"local_times": local_times(start, end, zones)} if zones else {}
    return {
        "start": start.format(),
        "end": end.format(),
        "local_start": _local(start, ask.query.zone),
        "local_end": _local(end, ask.query.zone),
        "preference_distance_seconds": detail.preference_distance_seconds,
        "free": {
            "required": list(free),
            "optional_free": list(detail.free),
            "optional_busy": list(detail.busy),
            "optional_unknown": list(detail.unknown),
        },
        **extra,
    }


def _busy_wire(busy: Busy) -> tuple[list[JSONValue], bool]:
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


def answer_wire(ask: SlotAsk, answer: SlotAnswer, busy: Busy) -> dict[str, JSONValue]:
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
        "calendars": [name for name, _ in busy],
        "optional_calendars": [name for name, _ in ask.optional],
        "evaluated": result.search_space.evaluated,
        "feasible": len(result.candidates),
        "slots": [
            {"rank": rank, **_slot(detail, ask, busy, answer.zones)}
            for rank, detail in enumerate(answer.slots[: ask.top], start=1)
        ],
        "below_min_attendance": [
            _slot(detail, ask, busy, answer.zones)
            for detail in answer.below_min_attendance[: ask.top]
        ],
        "below_min_attendance_total": len(answer.below_min_attendance),
        "busy": shown,
        "busy_truncated": truncated,
        "warnings": answer.warnings_wire(),
    }


def _object(properties: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """A closed object: every member of ``properties`` required, of ``optional`` allowed."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": {**properties, **(optional or {})},
    }


_INSTANT = {"type": "string", "description": "RFC 3339 instant in UTC (Z)."}
_LOCAL = {"type": "string", "description": "ISO 8601 local date-time with the offset of tz."}
_IDS = {"type": "array", "items": {"type": "string"}}
_NULLABLE_TEXT = {"type": ["string", "null"]}
_SLOT: dict[str, Any] = {
    "start": _INSTANT,
    "end": _INSTANT,
    "local_start": _LOCAL,
    "local_end": _LOCAL,
    "preference_distance_seconds": {
        "type": ["integer", "null"],
        "minimum": 0,
        "description": "seconds to the nearest day's preferred time; null without one",
    },
    "free": _object(
        {
            "required": {**_IDS, "description": "required calendars free in the slot"},
            "optional_free": {**_IDS, "description": "optional attendees free"},
            "optional_busy": {**_IDS, "description": "optional attendees busy"},
            "optional_unknown": {
                **_IDS,
                "description": "optional attendees whose calendar does not describe the "
                "slot (not free)",
            },
        }
    ),
}

_LOCAL_TIMES: dict[str, Any] = {
    "type": "object",
    "description": "The slot in each attendee's own zone, by calendar id (present only "
    "when the question gives attendee hours; docs/decisions/0053).",
    "additionalProperties": _object(
        {
            "start": {"type": "string", "description": "RFC 3339 local date-time with offset."},
            "end": {"type": "string", "description": "RFC 3339 local date-time with offset."},
            "zone": {"type": "string", "description": "The attendee's IANA zone."},
        }
    ),
}
_SLOT_OPTIONAL: dict[str, Any] = {"local_times": _LOCAL_TIMES}

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
        "optional_calendars": {**_IDS, "maxItems": MAX_CALENDARS},
        "slots": {
            "type": "array",
            "maxItems": MAX_TOP,
            "items": _object({"rank": {"type": "integer", "minimum": 1}, **_SLOT}, _SLOT_OPTIONAL),
        },
        "below_min_attendance": {
            "type": "array",
            "maxItems": MAX_TOP,
            "items": _object(_SLOT, _SLOT_OPTIONAL),
        },
        "below_min_attendance_total": {"type": "integer", "minimum": 0},
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
