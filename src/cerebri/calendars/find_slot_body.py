"""A find-slot question sent as JSON (the body of ``POST /v1/find-slot`` and
``POST /v1/find-slot/event``, and of the Node bridge's ``find_slot``): read, checked, turned
into a :class:`~cerebri.calendars.SlotQuery` and parsed calendars.

Shape (docs/decisions/0029-find-slot-route-and-lab-page.md)::

    {"calendars": [{"id": "alice", "ics": "BEGIN:VCALENDAR…"},
                   {"id": "carol", "ics": "BEGIN:VCALENDAR…", "optional": true}],
     "duration": "30m", "between": "2026-10-05T08:00/2026-10-09T18:00", "tz": "Europe/Berlin",
     "working_hours": "09:00-17:00", "working_days": "Mon-Fri", "granularity": "15m",
     "buffer": "10m", "prefer": "10:30", "top": 10, "skip_invalid_events": false,
     "min_attendance": 0.8,
     "hours": ["alice=Mon-Fri 09:00-17:00@America/New_York", "carol=@Asia/Tokyo"]}

Only ``calendars``, ``duration`` and ``between`` are required. Values are the command line's
(:mod:`cerebri.calendars.options`); a duration may also be an integer of seconds. A calendar
with ``"optional": true`` is an optional attendee (``find-slot --optional-ics``): it never
blocks a slot, and slots where more optional attendees are free rank first; at least one
calendar must be required. At most one daily preference: ``prefer`` (``10:30``),
``prefer_between`` (``10:00-12:00``), ``prefer_earliest: true`` or ``prefer_latest: true``
(docs/decisions/0026); a second one is refused at its own pointer. ``min_attendance`` is a
fraction 0-1 of all attendees, a JSON number or the command line's text (``"0.8"``);
``80`` or ``"80%"`` are refused, as on the command line. ``hours`` gives attendees their
own working hours and zone, each entry ``find-slot --hours``'s ``ID=[DAYS ][HH:MM-HH:MM][@ZONE]``
(:mod:`cerebri.calendars.attendee_hours`, docs/decisions/0053): a required attendee's block,
an optional one's count for attendance, and every slot of the answer then carries
``local_times``; an entry that cannot be read, repeats an id or names no calendar of the
body is ``input.invalid_option`` at ``/hours/<i>``. The event route adds ``pick``
(1-based rank of the slot in the ranked order, default 1), ``title``, and optionally
``organizer`` and ``attendees`` (e-mail addresses; the calendars' owners are attendees
anyway, as with ``find-slot --ics-out``).

Every refusal is a :class:`~cerebri.errors.CerebriError` raised before anything is planned:
the strict JSON reader's :class:`~cerebri.errors.ParseError` (``json.*``) and
:class:`~cerebri.errors.InputTooLargeError` as they are; ``json.not_object`` (path ``""``)
for a body that is not an object; an unknown or missing field or a value of the wrong type or
form is ``input.invalid_option`` with ``path`` the JSON pointer of the field; a calendar that
cannot be read keeps its ``ics.*`` code with ``path`` ``/calendars/<i>/ics``. (Over HTTP a
``json.*`` syntax error is 400, too large 413, the rest 422.) The calendars' text is parsed
in memory only, never written anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Annotated, Any, TypeVar

from icalendar import Component
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic import ValidationError as PydanticValidationError

from cerebri.calendars import SlotQuery
from cerebri.calendars.query import MAX_TITLE_LENGTH
from cerebri.calendars.slot_options import SlotOptions, pointer_name, slot_query
from cerebri.calendars.wire import MAX_CALENDARS, MAX_TOP, SlotAsk
from cerebri.cpir.parse import load_json
from cerebri.errors import CerebriError
from cerebri.ics import CalendarError, parse_calendar

__all__ = [
    "MAX_CALENDARS",
    "MAX_FIND_SLOT_BYTES",
    "MAX_TOP",
    "EventAsk",
    "EventBody",
    "FindSlotBody",
    "SlotAsk",
    "read_calendars",
    "read_event_body",
    "read_find_slot_body",
]

MAX_FIND_SLOT_BYTES = 4 * 1024 * 1024
"""Largest find-slot body, in bytes: it carries whole calendars, which routinely exceed
the planning routes' 256 KiB (docs/decisions/0029); the HTTP route and the Node bridge
refuse one more byte with ``input.too_large``."""
MAX_ADDRESS_LENGTH = 320
"""Longest ``organizer`` or attendee address (an e-mail address is at most 320 characters)."""
DEFAULT_TITLE = "Meeting"
"""The event title when the event route's body has none."""

T = TypeVar("T")
_UNION_MEMBERS = frozenset({"str", "int", "float", "constrained-int"})

_Id = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9._-]{1,128}$")]
_Duration = StrictStr | Annotated[StrictInt, Field(gt=0)]
_Gap = StrictStr | Annotated[StrictInt, Field(ge=0)]


def _d(text: str) -> Any:
    return Field(description=text)


class CalendarIn(BaseModel):
    """One attendee's calendar: a CPIR calendar id and the iCalendar text (RFC 5545)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[_Id, _d("Calendar (attendee) id, 1-128 of A-Z a-z 0-9 . _ -; unique.")]
    ics: Annotated[StrictStr, _d("The iCalendar text; parsed in memory, never stored.")]
    optional: Annotated[
        StrictBool,
        _d(
            "An optional attendee: never blocks a slot; slots where more optional attendees "
            "are free rank first (find-slot --optional-ics)."
        ),
    ] = False


class FindSlotBody(BaseModel):
    """The find-slot question: the calendars, the meeting length and the search window."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    calendars: Annotated[
        list[CalendarIn],
        Field(min_length=1, max_length=MAX_CALENDARS, description="Every attendee's calendar."),
    ]
    duration: Annotated[_Duration, _d("Meeting length: 30m, 1h30m, PT1H30M, or seconds.")]
    between: Annotated[
        StrictStr, _d("Window START/END, e.g. 2026-10-05T08:00/2026-10-09T18:00 (local in tz).")
    ]
    tz: Annotated[StrictStr, _d("IANA zone: local times, working hours, floating times.")] = "UTC"
    working_hours: Annotated[StrictStr | None, _d("Local working hours, e.g. 09:00-17:00.")] = None
    working_days: Annotated[StrictStr | None, _d("Open weekdays, e.g. Mon-Fri or Mon,Wed.")] = None
    granularity: Annotated[_Duration, _d("Distance between candidate starts.")] = "15m"
    buffer: Annotated[
        _Gap | None, _d("Minimum gap to other events, e.g. 10m, or seconds; 0: none.")
    ] = None
    prefer: Annotated[
        StrictStr | None, _d("Preferred local start time on every day, e.g. 10:30.")
    ] = None
    prefer_between: Annotated[
        StrictStr | None,
        _d("Preferred local start range on every day, e.g. 10:00-12:00 (no cost inside)."),
    ] = None
    prefer_earliest: Annotated[StrictBool, _d("Rank early local times of day first.")] = False
    prefer_latest: Annotated[StrictBool, _d("Rank late local times of day first.")] = False
    min_attendance: Annotated[
        StrictFloat | StrictInt | StrictStr | None,
        _d(
            "Offer only slots where at least this fraction (0-1, e.g. 0.8) of all attendees, "
            "required and optional, is free; the rest are listed as below_min_attendance."
        ),
    ] = None
    top: Annotated[
        StrictInt, Field(ge=1, le=MAX_TOP, description="How many ranked slots to list.")
    ] = 10
    skip_invalid_events: Annotated[
        StrictBool, _d("Leave out unreadable events (warned; the answer is then incomplete).")
    ] = False
    hours: Annotated[
        list[StrictStr] | None,
        Field(
            max_length=MAX_CALENDARS,
            description="Attendees' own hours and zones, each ID=[DAYS ][HH:MM-HH:MM][@ZONE], "
            "e.g. alice=Mon-Fri 09:00-17:00@America/New_York (find-slot --hours).",
        ),
    ] = None


class EventBody(FindSlotBody):
    """The find-slot question plus the slot to turn into an event."""

    pick: Annotated[StrictInt, Field(ge=1, le=MAX_TOP, description="1-based rank of the slot.")] = 1
    title: Annotated[
        StrictStr,
        Field(min_length=1, max_length=MAX_TITLE_LENGTH, description="The event's SUMMARY."),
    ] = DEFAULT_TITLE
    organizer: Annotated[
        StrictStr | None,
        Field(
            max_length=MAX_ADDRESS_LENGTH,
            description="The ORGANIZER (a@b, mailto:a@b or 'Name <a@b>'); default: the owner "
            "of the first calendar that names one (find-slot --ics-out's rule).",
        ),
    ] = None
    attendees: Annotated[
        list[Annotated[StrictStr, Field(max_length=MAX_ADDRESS_LENGTH)]],
        Field(
            max_length=MAX_CALENDARS,
            description="Attendees besides the calendars' owners (find-slot --attendee).",
        ),
    ] = []


def _invalid(message: str, path: str | None) -> CerebriError:
    return CerebriError(message, code="input.invalid_option", path=path)


def _pointer(location: tuple[int | str, ...]) -> str:
    parts = (str(part).replace("~", "~0").replace("/", "~1") for part in location)
    return "".join("/" + part for part in parts)


def _model(model: type[T], body: bytes) -> T:
    document = load_json(body)  # ParseError; InputTooLargeError: more values than it counts
    if not isinstance(document, dict):
        raise CerebriError("the body must be a JSON object", code="json.not_object", path="")
    try:
        return model.model_validate(document)  # type: ignore[attr-defined, no-any-return]
    except PydanticValidationError as exc:
        errors = exc.errors(include_url=False)

        def where(error: Any) -> tuple[int | str, ...]:
            # a union's member name (str/int) may trail the location; keep the body's fields
            return tuple(p for p in error["loc"] if p not in _UNION_MEMBERS)

        location = where(errors[0])
        # For a union (``"30m"`` or seconds), the member of the value's own type explains
        # best: -5 is "greater than 0", not "a valid string".
        same = [error for error in errors if where(error) == location]
        fitting = [e for e in same if not str(e["type"]).endswith("_type")]
        message = (
            fitting[0]["msg"]
            if fitting
            else " or ".join(
                dict.fromkeys(str(e["msg"]).removeprefix("Input should be ") for e in same)
            )
        )
        if not fitting:
            message = f"Input should be {message}"
        path = _pointer(location)
        raise _invalid(f"{path or 'body'}: {message}", path) from None


def _query(body: FindSlotBody) -> SlotQuery:
    options = SlotOptions.of(body.model_dump())
    try:
        return slot_query(options, name=pointer_name)
    except CerebriError as error:  # input.invalid_option at its pointer; calendars.* at none
        raise _invalid(error.message, error.path) from None
    except ValueError as exc:  # a window outside years 1-9999
        raise _invalid(str(exc), None) from None


def read_calendars(
    calendars: Sequence[CalendarIn], *, skip_invalid_events: bool
) -> tuple[tuple[str, Component, bool], ...]:
    """Each calendar of a body parsed in memory, in body order: ``(id, calendar, optional)``.

    Raises:
        CerebriError: ``input.invalid_option`` at ``/calendars`` when none is required, at
            ``/calendars/<i>/id`` for an id given twice; a calendar's ``ics.*`` code at
            ``/calendars/<i>/ics``.
    """
    if all(entry.optional for entry in calendars):
        raise _invalid("calendars: at least one calendar must be required", "/calendars")
    seen: set[str] = set()
    parsed: list[tuple[str, Component, bool]] = []
    for index, entry in enumerate(calendars):
        if entry.id in seen:
            raise _invalid(f"calendar id {entry.id!r} is given twice", f"/calendars/{index}/id")
        seen.add(entry.id)
        try:
            calendar = parse_calendar(
                entry.ics, source=entry.id, skip_invalid_events=skip_invalid_events
            )
        except CalendarError as error:
            raise CerebriError(
                error.message, code=error.code, path=f"/calendars/{index}/ics"
            ) from None
        parsed.append((entry.id, calendar, entry.optional))
    return tuple(parsed)


def _check_hours(query: SlotQuery, body: FindSlotBody) -> None:
    """``input.invalid_option`` at ``/hours/<i>`` for hours of an id no calendar has."""
    ids = [entry.id for entry in body.calendars]
    for index, entry in enumerate(query.attendee_hours):
        if entry.calendar_id not in ids:
            raise _invalid(
                f"hours/{index}: no calendar has id {entry.calendar_id!r} "
                f"(calendar ids: {', '.join(ids)})",
                f"/hours/{index}",
            )


def _ask(body: FindSlotBody) -> SlotAsk:
    query = _query(body)  # cheap checks first: no calendar is parsed for a bad option
    _check_hours(query, body)
    parsed = read_calendars(body.calendars, skip_invalid_events=body.skip_invalid_events)
    return SlotAsk(
        query,
        tuple((name, calendar) for name, calendar, optional in parsed if not optional),
        body.top,
        optional=tuple((name, calendar) for name, calendar, optional in parsed if optional),
        ids=tuple(name for name, _, _ in parsed),
    )


def read_find_slot_body(body: bytes) -> SlotAsk:
    """Decode and check a ``/v1/find-slot`` body (errors: the module docstring).

    Raises:
        ParseError: ``json.*`` (the body is not strict JSON).
        InputTooLargeError: ``input.too_large`` (more JSON values than the reader counts).
        CerebriError: ``json.not_object``, ``input.invalid_option`` or the calendar's
            ``ics.*`` code, each with its JSON pointer.
    """
    return _ask(_model(FindSlotBody, body))


@dataclass(frozen=True, slots=True)
class EventAsk:
    """A checked event body: the question, ``pick`` (1-based rank), the ``title``, the
    ``organizer`` given (or None) and the extra ``attendees`` (body order)."""

    ask: SlotAsk
    pick: int
    title: str
    organizer: str | None = None
    attendees: tuple[str, ...] = ()


def read_event_body(body: bytes) -> EventAsk:
    """Decode and check a ``/v1/find-slot/event`` body. Errors as
    :func:`read_find_slot_body`; an address that is not ``a@b`` is ``input.invalid_option``
    at its pointer."""
    parsed = _model(EventBody, body)
    if not parsed.title.strip():
        raise _invalid("title: must not be blank", "/title")
    people = [("/organizer", parsed.organizer)] if parsed.organizer is not None else []
    people += [(f"/attendees/{i}", text) for i, text in enumerate(parsed.attendees)]
    for path, text in people:
        _, email = parseaddr(text.strip().removeprefix("mailto:").removeprefix("MAILTO:"))
        if "@" not in email or email.startswith("@") or any(c.isspace() for c in email):
            raise _invalid(f"{path[1:]}: {text!r} is not an e-mail address (name@domain)", path)
    return EventAsk(
        _ask(parsed),
        parsed.pick,
        parsed.title,
        parsed.organizer,
        tuple(parsed.attendees),
    )
