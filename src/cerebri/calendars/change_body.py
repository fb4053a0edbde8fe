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
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from cerebri._json import JSONValue
from cerebri.calendars.change_ask import MAX_UID_LENGTH
from cerebri.calendars.change_fields import EventSelection, RescheduleFields, UpdateEdits
from cerebri.calendars.change_request import ChangeOperation
from cerebri.calendars.change_surface import (
    ChangeOptions,
    change_answer,
    change_ask,
    check_hours,
    located,
)
from cerebri.calendars.event_change import EventChangeAsk, plan_event_change
from cerebri.calendars.find_slot_body import (
    MAX_ADDRESS_LENGTH,
    CalendarIn,
    _model,
    read_calendars,
)
from cerebri.calendars.slot_search import NamedCalendars, SlotSearch
from cerebri.calendars.wire import FIND_SLOT_MAX_OCCURRENCES, MAX_CALENDARS
from cerebri.errors import CerebriError
from cerebri.ics import CalendarError

__all__ = [
    "BODIES",
    "CancelBody",
    "ChangeQuestion",
    "RescheduleBody",
    "UpdateBody",
    "answer_change",
    "read_change_body",
]

_Gap = StrictStr | Annotated[StrictInt, Field(ge=0)]
_Address = Annotated[StrictStr, Field(max_length=MAX_ADDRESS_LENGTH)]
_Addresses = Annotated[list[_Address], Field(max_length=MAX_CALENDARS)]
_Hours = Annotated[
    list[StrictStr] | None,
    Field(
        max_length=MAX_CALENDARS,
        description="Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE] "
        "with a calendar id sent, e.g. alice=Mon-Fri 09:00-17:00@America/New_York "
        "(reschedule --hours).",
    ),
]


def _d(text: str) -> Any:
    return Field(description=text)


class _EventCalendars(BaseModel):
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


class _ChangeBody(EventSelection, _EventCalendars):
    """The members every operation takes (:class:`EventSelection` after the calendars)."""


class RescheduleBody(RescheduleFields, _ChangeBody):
    """Find a new time for an event (``cerebri reschedule``)."""

    buffer: Annotated[
        _Gap | None, _d("Minimum gap to other events, e.g. 10m, or seconds; 0: none.")
    ] = None
    max_candidates: Annotated[
        StrictInt, Field(ge=0, le=100_000, description="Grid positions to evaluate at most.")
    ] = 100_000
    hours: _Hours = None


class CancelBody(_ChangeBody):
    """Cancel an event, one instance, this and future ones, or a series (``cancel-event``)."""

    between: Annotated[
        StrictStr | None,
        _d(
            "Window START/END: a whole series that began before it is shown from its first "
            "instance in it."
        ),
    ] = None


class _UpdateWindow(_ChangeBody):
    between: Annotated[
        StrictStr | None,
        _d(
            "Window START/END: a whole series that began before it is checked at its first "
            "instance in it."
        ),
    ] = None


class UpdateBody(UpdateEdits, _UpdateWindow):
    """Change an event's title, length, place or attendees (``update-event``)."""

    attendees: Annotated[_Addresses, _d("Required attendees to add (e-mail addresses).")] = []
    optional_attendees: Annotated[_Addresses, _d("Optional attendees to add.")] = []
    remove_attendees: Annotated[_Addresses, _d("Attendees to remove.")] = []
    hours: _Hours = None


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
    calendars = read_calendars(parsed.calendars, skip_invalid_events=parsed.skip_invalid_events)
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
