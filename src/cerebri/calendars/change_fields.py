"""The members an event change takes on every JSON surface: the HTTP and Node bridge bodies
(:mod:`cerebri.calendars.change_body`) and the MCP tools' arguments
(:mod:`cerebri.mcp.arguments`), as pydantic mixins (docs/decisions/0058).

Each surface adds what differs (where its calendars come from, its ``buffer``, ``hours``
and attendee lists) and its model config (strict: unknown members refused). Members come
in the order of the bases from last to first, then the surface's own: a model
``RescheduleBody(RescheduleFields, _ChangeBody)`` lists ``_ChangeBody``'s members before
``between``, so the JSON Schemas keep one order. Values use the command line's spellings
(:mod:`cerebri.calendars.options`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr

from cerebri.calendars.query import MAX_TITLE_LENGTH

__all__ = ["Duration", "EventSelection", "RescheduleFields", "UpdateEdits"]

Duration = StrictStr | Annotated[StrictInt, Field(gt=0)]
"""A length: ``30m``, ``1h30m``, ``PT1H`` or a positive number of seconds."""


def _d(text: str) -> Any:
    return Field(description=text)


class EventSelection(BaseModel):
    """Which event, in which calendar and zone: the organizer's ``calendar``, one of the
    scopes ``instance``, ``this_and_future`` or ``series`` (decision 0050), ``tz`` and
    ``skip_invalid_events``."""

    calendar: Annotated[
        StrictStr | None,
        _d("The organizer's calendar id, where the event is (default: the first calendar)."),
    ] = None
    instance: Annotated[
        StrictStr | None,
        _d("One instance of a series, by its original start (RFC 3339, or local in tz)."),
    ] = None
    this_and_future: Annotated[
        StrictStr | None, _d("The instance at this original start and every later one.")
    ] = None
    series: Annotated[
        StrictBool, _d("The whole series (the default without instance/this_and_future).")
    ] = False
    tz: Annotated[StrictStr, _d("IANA zone: local times, working hours, floating times.")] = "UTC"
    skip_invalid_events: Annotated[
        StrictBool, _d("Leave out unreadable events (warned; the answer is then incomplete).")
    ] = False


class RescheduleFields(BaseModel):
    """A reschedule's search: the window (required), the new length, the grid and the
    query's own working hours and days."""

    between: Annotated[
        StrictStr, _d("Window START/END to search, e.g. 2026-10-05T08:00/2026-10-09T18:00.")
    ]
    duration: Annotated[Duration | None, _d("A new length; default: the event's own.")] = None
    granularity: Annotated[Duration, _d("Distance between candidate starts.")] = "15m"
    working_hours: Annotated[StrictStr | None, _d("Local working hours, e.g. 09:00-17:00.")] = None
    working_days: Annotated[StrictStr | None, _d("Open weekdays, e.g. Mon-Fri or Mon,Wed.")] = None


class UpdateEdits(BaseModel):
    """An update's new ``title``, ``duration`` and ``location`` (each left as it is when
    absent)."""

    title: Annotated[
        StrictStr | None,
        Field(min_length=1, max_length=MAX_TITLE_LENGTH, description="The new SUMMARY."),
    ] = None
    duration: Annotated[
        Duration | None, _d("The new length, checked against every required attendee.")
    ] = None
    location: Annotated[
        StrictStr | None, Field(max_length=MAX_TITLE_LENGTH, description="The new LOCATION.")
    ] = None
