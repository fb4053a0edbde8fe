"""The ``calendar.freebusy`` result both calendar adapters answer with.

:func:`freebusy_result` reads busy, free and unknown time over ``[start, end)`` from parsed
calendars with :func:`cerebri.calendars.freebusy` (the reading of ``cerebri freebusy``) and
shapes it as the capability's JSON result: ``{"start", "end", "busy": [{"start", "end",
"calendar_id", "object_id", "recurrence_id"}], "free": [{"start", "end"}], "unknown": [...],
"complete"}``, instants as RFC 3339 UTC text.
"""

from __future__ import annotations

from collections.abc import Sequence

from icalendar import Component

from cerebri._json import JSONValue
from cerebri.calendars import freebusy
from cerebri.execution.adapters.base import AdapterError
from cerebri.ics import CalendarError
from cerebri.temporal import Instant, Interval

__all__ = ["freebusy_result"]


def _spans(items: tuple[Interval, ...]) -> list[JSONValue]:
    return [{"start": Instant(i.start).format(), "end": Instant(i.end).format()} for i in items]


def freebusy_result(
    calendars: Sequence[Component], start: Instant, end: Instant
) -> dict[str, JSONValue]:
    """The ``calendar.freebusy`` result over ``[start, end)`` (see the module doc).

    Raises :class:`AdapterError` ``calendar.unreadable`` when a calendar cannot be expanded.
    """
    try:
        view = freebusy(calendars, start, end)
    except (CalendarError, ValueError) as exc:
        raise AdapterError(str(exc), code="calendar.unreadable") from None
    busy: list[JSONValue] = [
        {
            "start": p.start.format(),
            "end": p.end.format(),
            "calendar_id": p.source,
            "object_id": p.uid,
            "recurrence_id": p.recurrence_id,
        }
        for p in view.busy
    ]
    return {
        "start": start.format(),
        "end": end.format(),
        "busy": busy,
        "free": _spans(view.free),
        "unknown": _spans(view.unknown),
        "complete": view.complete,
    }
