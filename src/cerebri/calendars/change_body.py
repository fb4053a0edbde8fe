"""An event change sent as JSON with the calendars' text inside: the bodies of
``POST /v1/events/reschedule``, ``/v1/events/cancel`` and ``/v1/events/update`` and of the
Node bridge's ``reschedule_event``, ``cancel_event`` and ``update_event`` (docs/decisions/0058).

Shape (``find-slot``'s calendars, decision 0029, and the command line's options)::

    {"uid": "weekly@example.com",
     "calendars": [{"id": "alice", "ics": "BEGIN:VCALENDAR…"},
                   {"id": "bob", "ics": "BEGIN:VCALENDAR…"},
                   {"id": "carol", "ics": "BEGIN:VCALENDAR…", "optional": true}],
     "calendar": "alice",                       // the organizer's calendar (default: first)
     "instance": "2026-10-12T14:00",            // or "this_and_future": …, or "series": true
     "between": "2026-10-12T08:00/2026-10-16T18:00", "tz": "Europe/Berlin",
     "duration": "45m", "granularity": "15m", "working_hours": "09:00-17:00",
     "working_days": "Mon-Fri", "buffer": "10m", "max_candidates": 100000,   // reschedule
     "title": "…", "location": "…", "attendees": ["dan@example.com"],
     "optional_attendees": […], "remove_attendees": […],                    // update
     "hours": ["alice=Mon-Fri 09:00-17:00@America/New_York"],     // reschedule, update
     "skip_invalid_events": false}

Required: ``uid``, ``calendars`` (at least one required), and ``between`` for a reschedule
(for a cancel or an update it only picks the instance a whole-series change is anchored
on). A member another operation takes is unknown here (``input.invalid_option`` at its
pointer), as on the command line. The answer is
:func:`~cerebri.calendars.change_surface.change_answer`.

Errors are :mod:`cerebri.calendars.find_slot_body`'s, with the same limits (4 MiB body, 32
calendars, :data:`~cerebri.calendars.wire.FIND_SLOT_MAX_OCCURRENCES` instances per
calendar): ``json.*``, ``json.not_object``, ``input.too_large``, ``input.invalid_option``
at the member's pointer, a calendar's ``ics.*`` code at ``/calendars/<i>/ics``; then the
use-case's (:func:`~cerebri.calendars.change_surface.located`): ``calendar.not_found`` at
``/uid``, ``calendars.no_calendar`` at ``/calendar``, ``input.invalid_option`` at ``""``
for options that do not fit the event. The calendars' text is parsed in memory only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final

from icalendar import Component
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from cerebri._json import JSONValue
from cerebri.calendars.change_ask import MAX_UID_LENGTH
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_surface import (
    ChangeOptions,
    change_answer,
    change_ask,
    check_hours,
    located,
)
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.find_slot_body import MAX_ADDRESS_LENGTH, CalendarIn, _model
from cerebri.calendars.query import MAX_TITLE_LENGTH
from cerebri.calendars.slot_search import NamedCalendars, SlotSearch
from cerebri.calendars.wire import FIND_SLOT_MAX_OCCURRENCES, MAX_CALENDARS
from cerebri.errors import CerebriError
from cerebri.ics import CalendarError, parse_calendar

__all__ = [
    "BODIES",
    "CancelBody",
    "ChangeQuestion",
    "RescheduleBody",
    "UpdateBody",
    "answer_change",
    "read_change_body",
]

_Duration = StrictStr | Annotated[StrictInt, Field(gt=0)]
_Gap = StrictStr | Annotated[StrictInt, Field(ge=0)]
_Address = Annotated[StrictStr, Field(max_length=MAX_ADDRESS_LENGTH)]
_Addresses = Annotated[list[_Address], Field(max_length=MAX_CALENDARS)]


def _d(text: str) -> Any:
    return Field(description=text)


class _ChangeBody(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    uid: Annotated[
        StrictStr,
        Field(min_length=1, max_length=MAX_UID_LENGTH, description="The event's UID."),
    ]
    calendars: Annotated[
        list[CalendarIn],
        Field(
            min_length=1,
            max_length=MAX_CALENDARS,
            description="Every attendee's calendar; the event is looked up in the organizer's.",
        ),
    ]
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


class RescheduleBody(_ChangeBody):
    """Find a new time for an event (``cerebri reschedule``)."""

    between: Annotated[
        StrictStr, _d("Window START/END to search, e.g. 2026-10-05T08:00/2026-10-09T18:00.")
    ]
    duration: Annotated[_Duration | None, _d("A new length; default: the event's own.")] = None
    granularity: Annotated[_Duration, _d("Distance between candidate starts.")] = "15m"
    working_hours: Annotated[StrictStr | None, _d("Local working hours, e.g. 09:00-17:00.")] = None
    working_days: Annotated[StrictStr | None, _d("Open weekdays, e.g. Mon-Fri or Mon,Wed.")] = None
    buffer: Annotated[
        _Gap | None, _d("Minimum gap to other events, e.g. 10m, or seconds; 0: none.")
    ] = None
    max_candidates: Annotated[
        StrictInt, Field(ge=0, le=100_000, description="Grid positions to evaluate at most.")
    ] = 100_000
    hours: Annotated[
        list[StrictStr] | None,
        Field(
            max_length=MAX_CALENDARS,
            description="Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE] "
            "with a calendar id sent, e.g. alice=Mon-Fri 09:00-17:00@America/New_York "
            "(reschedule --hours).",
        ),
    ] = None


class CancelBody(_ChangeBody):
    """Cancel an event, one instance, this and future ones, or a series (``cancel-event``)."""

    between: Annotated[
        StrictStr | None,
        _d(
            "Window START/END: a whole series that began before it is shown from its first "
            "instance in it."
        ),
    ] = None


class UpdateBody(_ChangeBody):
    """Change an event's title, length, place or attendees (``update-event``)."""

    between: Annotated[
        StrictStr | None,
        _d(
            "Window START/END: a whole series that began before it is checked at its first "
            "instance in it."
        ),
    ] = None
    title: Annotated[
        StrictStr | None,
        Field(min_length=1, max_length=MAX_TITLE_LENGTH, description="The new SUMMARY."),
    ] = None
    duration: Annotated[
        _Duration | None, _d("The new length, checked against every required attendee.")
    ] = None
    location: Annotated[
        StrictStr | None, Field(max_length=MAX_TITLE_LENGTH, description="The new LOCATION.")
    ] = None
    attendees: Annotated[_Addresses, _d("Required attendees to add (e-mail addresses).")] = []
    optional_attendees: Annotated[_Addresses, _d("Optional attendees to add.")] = []
    remove_attendees: Annotated[_Addresses, _d("Attendees to remove.")] = []
    hours: Annotated[
        list[StrictStr] | None,
        Field(
            max_length=MAX_CALENDARS,
            description="Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE] "
            "with a calendar id sent, e.g. alice=Mon-Fri 09:00-17:00@America/New_York "
            "(reschedule --hours).",
        ),
    ] = None


BODIES: Final[dict[ChangeOperation, type[_ChangeBody]]] = {
    ChangeOperation.RESCHEDULE: RescheduleBody,
    ChangeOperation.CANCEL: CancelBody,
    ChangeOperation.UPDATE: UpdateBody,
}
"""The body model of each operation."""


@dataclass(frozen=True, slots=True)
class ChangeQuestion:
    """A checked body: the ask, the calendars by id (required and optional, body order) and
    the organizer's calendar id asked for (or None)."""

    ask: EventChangeAsk
    required: tuple[tuple[str, Component], ...]
    optional: tuple[tuple[str, Component], ...]
    calendar: str | None
    ids: tuple[str, ...]


def _invalid(message: str, path: str) -> CerebriError:
    return CerebriError(message, code="input.invalid_option", path=path)


def _calendars(body: _ChangeBody) -> list[tuple[str, Component, bool]]:
    """Each calendar parsed (``find_slot_body``'s rules: ids unique, one required)."""
    if all(entry.optional for entry in body.calendars):
        raise _invalid("calendars: at least one calendar must be required", "/calendars")
    seen: set[str] = set()
    parsed: list[tuple[str, Component, bool]] = []
    for index, entry in enumerate(body.calendars):
        if entry.id in seen:
            raise _invalid(f"calendar id {entry.id!r} is given twice", f"/calendars/{index}/id")
        seen.add(entry.id)
        try:
            calendar = parse_calendar(
                entry.ics, source=entry.id, skip_invalid_events=body.skip_invalid_events
            )
        except CalendarError as error:
            raise CerebriError(
                error.message, code=error.code, path=f"/calendars/{index}/ics"
            ) from None
        parsed.append((entry.id, calendar, entry.optional))
    return parsed


def read_change_body(operation: ChangeOperation, body: bytes) -> ChangeQuestion:
    """Decode and check the body of ``operation`` (shape and errors: the module doc). The
    options are checked before any calendar is parsed.

    Raises:
        ParseError: ``json.*``.
        InputTooLargeError: ``input.too_large``.
        CerebriError: ``json.not_object``, ``input.invalid_option``, ``input.missing`` or a
            calendar's ``ics.*`` code, each with its JSON pointer.
    """
    parsed = _model(BODIES[operation], body)
    ask = change_ask(operation, ChangeOptions.of(parsed.model_dump()))
    calendars = _calendars(parsed)
    ids = tuple(name for name, _, _ in calendars)
    if parsed.calendar is not None and parsed.calendar not in ids:
        raise CerebriError(
            f"calendar {parsed.calendar!r} is not one of the calendars sent ({', '.join(ids)})",
            code="calendars.no_calendar",
            path="/calendar",
        )
    return ChangeQuestion(
        ask,
        tuple((name, calendar) for name, calendar, optional in calendars if not optional),
        tuple((name, calendar) for name, calendar, optional in calendars if optional),
        parsed.calendar,
        ids,
    )


def _loader(question: ChangeQuestion) -> Any:
    """A :data:`~cerebri.calendars.slot_search.SourceLoader` over the parsed calendars: the
    "paths" of the search are the calendar ids."""
    by_id = dict((*question.required, *question.optional))

    def load(paths: Sequence[Path], urls: Sequence[str], ids: Sequence[str]) -> NamedCalendars:
        return [(str(path), by_id[str(path)]) for path in paths]

    return load


def answer_change(question: ChangeQuestion) -> dict[str, JSONValue]:
    """Plan ``question`` (:func:`~cerebri.calendars.event_change.plan_event_change`) and
    answer :func:`~cerebri.calendars.change_surface.change_answer`.

    Raises:
        CerebriError: the use-case's codes with a pointer
            (:func:`~cerebri.calendars.change_surface.located`); a calendar that cannot be
            expanded keeps its ``ics.*`` code at ``/calendars/<i>/ics``.
    """
    search = SlotSearch(
        ics=[Path(name) for name, _ in question.required],
        optional_ics=[Path(name) for name, _ in question.optional],
        calendar=question.calendar,
        max_occurrences=FIND_SLOT_MAX_OCCURRENCES,
    )
    check_hours(question.ask, search)
    try:
        found = plan_event_change(question.ask, search, _loader(question))
    except CalendarError as error:
        index = question.ids.index(error.source) if error.source in question.ids else None
        path = "" if index is None else f"/calendars/{index}/ics"
        raise CerebriError(error.message, code=error.code, path=path) from None
    except CerebriError as error:
        raise located(error) from None
    return change_answer(found)
