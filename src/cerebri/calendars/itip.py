"""iTIP messages for an existing event: ``METHOD:REQUEST`` and ``METHOD:CANCEL`` (RFC 5546).

The building block of issue #23 (reschedule, cancel and update with invitations that reach
every attendee); nothing here sends, stores or reads a clock (decision 0048).

:func:`itip_messages` takes one ``VEVENT`` (an icalendar :class:`~icalendar.Event`): a whole
event or series, one instance override (``RECURRENCE-ID``) or a this-and-future override
(``RECURRENCE-ID;RANGE=THISANDFUTURE``), and answers one :class:`ItipMessage` per attendee,
sorted by address. Every message holds the same ``VCALENDAR`` bytes (UTF-8, CRLF lines,
written by the icalendar library), so each attendee receives the one message that names all
of them (RFC 5546 section 2.1.5 leaves the transport to iMIP, RFC 6047):

* ``VCALENDAR``: ``PRODID`` (:data:`PRODID`), ``VERSION:2.0``, ``CALSCALE:GREGORIAN``,
  ``METHOD:REQUEST`` or ``METHOD:CANCEL``, then the ``VTIMEZONE`` of every ``TZID`` the
  event uses (made from zoneinfo by icalendar), then the ``VEVENT``;
* ``VEVENT``: ``UID``, ``DTSTAMP`` (the instant passed, in UTC), ``SEQUENCE`` (the number
  passed), ``RECURRENCE-ID`` (with its ``RANGE``) when the event has one, ``DTSTART``,
  ``DTEND``/``DURATION``, the event's other properties (``SUMMARY``, ``RRULE``, ``EXDATE``,
  ``LOCATION``...), ``STATUS`` (``CANCELLED`` for a CANCEL, else the event's own if it has
  one), ``ORGANIZER`` (``mailto:``), and one ``ATTENDEE`` per attendee sorted by address
  (``CUTYPE=INDIVIDUAL``, ``ROLE=REQ-PARTICIPANT`` or ``OPT-PARTICIPANT``, ``RSVP=TRUE``,
  ``CN`` when a name was given, and the ``PARTSTAT`` the event's own line for that address
  has, ``NEEDS-ACTION`` when it has none: the message says what the organizer's copy says,
  decision 0073). The organizer, when also named as an attendee, keeps a line (RFC 5546
  section 3.2.2: a REQUEST carries the full attendee list) with its ``PARTSTAT``
  (``ACCEPTED`` when the event has none) and no ``RSVP``, and receives no message. Properties are
  written in icalendar's own fixed order. The event's own ``DTSTAMP``, ``SEQUENCE``,
  ``ORGANIZER``, ``ATTENDEE``, ``STATUS`` and any ``METHOD`` are replaced; its
  sub-components (``VALARM``) are left out: alarms are the owner's, not the attendees'.
  The ``VTIMEZONE`` rules cover every instance the ``VEVENT`` describes, an endless series
  with the zone's yearly ``RRULE``\\ s (:mod:`cerebri.calendars.vtimezones`, decision 0065).

That satisfies RFC 5546 section 3.2.2 (REQUEST: ``ATTENDEE``, ``DTSTAMP``, ``DTSTART``,
``ORGANIZER``, ``SEQUENCE``, ``SUMMARY``, ``UID``) and section 3.2.5 (CANCEL: ``ATTENDEE``,
``DTSTAMP``, ``ORGANIZER``, ``SEQUENCE``, ``UID``, ``STATUS:CANCELLED`` when present). The same
arguments give the same bytes whatever the order of ``attendees``.

:func:`stored_object` is the calendar object resource to write to the organizer's calendar
for a REQUEST: the same ``VEVENT`` without ``METHOD`` (RFC 4791 section 4.1 forbids it in a
stored object).

Addresses are ``alice@example.com``, ``mailto:alice@example.com`` or
``Alice <alice@example.com>`` (read as in :mod:`cerebri.calendars.event_out`).

Refusals are :class:`ItipError` (also a ``ValueError``) with codes ``itip.no_attendees``
(nobody but the organizer to invite), ``itip.bad_address`` (an organizer or attendee that
is not ``name@domain``), ``itip.duplicate_attendee`` (one address named twice),
``itip.sequence_backwards`` (``sequence`` below the event's stored ``SEQUENCE``; RFC 5546
section 2.1.4: it never decreases) and ``itip.bad_event`` (no ``UID``, or a REQUEST without
``DTSTART``). Wrong-typed arguments are ``calendars.invalid_argument``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from icalendar import Calendar, Event, vCalAddress

from cerebri._guard import arguments
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.event_out import _address, _email
from cerebri.calendars.vtimezones import add_zones
from cerebri.errors import CerebriError, InvalidArgumentError
from cerebri.temporal import Instant

__all__ = [
    "PRODID",
    "Attendee",
    "ItipError",
    "ItipMessage",
    "ItipMethod",
    "cancel_messages",
    "itip_messages",
    "request_messages",
    "stored_object",
]

PRODID = "-//cerebri//itip//EN"
"""The ``PRODID`` of every message and stored object written here (RFC 5545 section 3.7.3)."""

_HEAD = ("UID", "DTSTAMP", "SEQUENCE", "RECURRENCE-ID", "DTSTART", "DTEND", "DURATION")
_REPLACED = frozenset({*_HEAD, "ORGANIZER", "ATTENDEE", "STATUS", "METHOD"})


class ItipError(CerebriError, ValueError):
    """No iTIP message can be built: codes ``itip.no_attendees``, ``itip.bad_address``,
    ``itip.duplicate_attendee``, ``itip.sequence_backwards`` and ``itip.bad_event`` (see
    :mod:`cerebri.calendars.itip`)."""

    code = "itip.bad_event"


class ItipMethod(StrEnum):
    """The iTIP method of a message (RFC 5546 section 1.4): ``REQUEST`` creates, moves or
    updates an event; ``CANCEL`` cancels it (or one instance) for the attendees named."""

    REQUEST = "REQUEST"
    CANCEL = "CANCEL"


@dataclass(frozen=True, slots=True)
class Attendee:
    """One person to invite: ``address`` (``a@b``, ``mailto:a@b`` or ``Name <a@b>``) and
    whether they are ``required`` (``ROLE=REQ-PARTICIPANT``) or optional
    (``ROLE=OPT-PARTICIPANT``)."""

    address: str
    required: bool = True


@dataclass(frozen=True, slots=True)
class ItipMessage:
    """One iTIP message for one attendee: ``recipient`` is the bare e-mail address
    (lower case, no ``mailto:``), ``method`` the iTIP method, ``data`` the ``VCALENDAR``
    bytes (UTF-8, CRLF lines), the same for every recipient of one change."""

    recipient: str
    method: ItipMethod
    data: bytes


def _person(text: str, what: str) -> vCalAddress:
    try:
        return _address(text, what)
    except InvalidArgumentError as error:
        raise ItipError(error.message, code="itip.bad_address") from None


def _answers(event: Event) -> dict[str, str]:
    """Bare address -> ``PARTSTAT`` of every readable ``ATTENDEE`` line of ``event``."""
    found = event.get("ATTENDEE")
    out: dict[str, str] = {}
    for line in [] if found is None else found if isinstance(found, list) else [found]:
        try:
            key = _email(_address(str(line), "attendee"))
        except InvalidArgumentError:
            continue
        out[key] = str(getattr(line, "params", {}).get("PARTSTAT", "NEEDS-ACTION")).upper()
    return out


def _attendee_lines(
    organizer: vCalAddress, attendees: Sequence[Attendee | str], event: Event
) -> list[vCalAddress]:
    boss = _email(organizer)
    answers = _answers(event)
    people: dict[str, vCalAddress] = {}
    for item in attendees:
        attendee = Attendee(item) if isinstance(item, str) else item
        if not isinstance(attendee, Attendee) or not isinstance(attendee.address, str):
            raise invalid_argument("attendees must be Attendee values or address texts")
        person = _person(attendee.address, "attendee")
        email = _email(person)
        if email in people:
            raise ItipError(
                f"attendee {email!r} is named more than once", code="itip.duplicate_attendee"
            )
        person.params["CUTYPE"] = "INDIVIDUAL"
        person.params["ROLE"] = "REQ-PARTICIPANT" if attendee.required else "OPT-PARTICIPANT"
        if email == boss:  # listed (RFC 5546 3.2.2: the full list), never asked to reply
            person.params["PARTSTAT"] = answers.get(email, "ACCEPTED")
        else:
            person.params["PARTSTAT"] = answers.get(email, "NEEDS-ACTION")
            person.params["RSVP"] = "TRUE"
        people[email] = person
    if not set(people) - {boss}:
        raise ItipError(
            "an iTIP message needs at least one attendee besides the organizer",
            code="itip.no_attendees",
        )
    return [people[email] for email in sorted(people)]


def _stored_sequence(event: Event) -> int:
    value = event.get("SEQUENCE")
    try:
        return 0 if value is None else int(value)
    except (TypeError, ValueError):
        raise ItipError(f"the event's SEQUENCE {value!r} is not a number") from None


def _check(method: ItipMethod | None, event: Event, sequence: int) -> None:
    if event.name != "VEVENT":
        raise invalid_argument(f"event must be a VEVENT, got {event.name}")
    if type(sequence) is not int or sequence < 0:
        raise invalid_argument(f"sequence must be a whole number >= 0, got {sequence!r}")
    if not str(event.get("UID", "")).strip():
        raise ItipError("the event has no UID", code="itip.bad_event")
    if method is not ItipMethod.CANCEL and "DTSTART" not in event:
        raise ItipError("a REQUEST needs the event's DTSTART", code="itip.bad_event")
    stored = _stored_sequence(event)
    if sequence < stored:
        raise ItipError(
            f"SEQUENCE {sequence} is below the event's stored {stored} (RFC 5546 2.1.4)",
            code="itip.sequence_backwards",
        )


def _event(
    method: ItipMethod | None,
    event: Event,
    *,
    organizer: str,
    attendees: Sequence[Attendee | str],
    sequence: int,
    dtstamp: Instant,
) -> tuple[Event, list[str]]:
    """The message's ``VEVENT`` and its recipients' bare addresses, sorted."""
    if isinstance(attendees, str):
        raise invalid_argument("attendees must be a sequence of addresses, not one text")
    _check(method, event, sequence)
    stamp = dtstamp.to_datetime()
    if stamp is None:
        raise invalid_argument("DTSTAMP must lie within the years 1-9999")
    boss = _person(organizer, "organizer")
    people = _attendee_lines(boss, attendees, event)
    out = Event()
    for name in _HEAD:
        if name == "DTSTAMP":
            out.add("DTSTAMP", stamp)
        elif name == "SEQUENCE":
            out.add("SEQUENCE", sequence)
        elif name in event:
            out[name] = copy.deepcopy(event[name])
    for name, value in event.items():
        if name.upper() not in _REPLACED:
            out[name] = copy.deepcopy(value)
    if method is ItipMethod.CANCEL:
        out.add("STATUS", "CANCELLED")
    elif "STATUS" in event:
        out["STATUS"] = copy.deepcopy(event["STATUS"])
    out.add("ORGANIZER", boss)
    for person in people:
        out.add("ATTENDEE", person)
    return out, [_email(person) for person in people if _email(person) != _email(boss)]


def _calendar(method: ItipMethod | None, event: Event) -> bytes:
    calendar = Calendar()
    calendar.add("PRODID", PRODID)
    calendar.add("VERSION", "2.0")
    calendar.add("CALSCALE", "GREGORIAN")
    if method is not None:
        calendar.add("METHOD", method.value)
    calendar.add_component(event)
    add_zones(calendar)
    return bytes(calendar.to_ical())


@arguments(
    invalid_argument,
    method=ItipMethod,
    event=Event,
    organizer=str,
    attendees=Sequence,
    sequence=int,
    dtstamp=Instant,
)
def itip_messages(
    method: ItipMethod,
    event: Event,
    *,
    organizer: str,
    attendees: Sequence[Attendee | str],
    sequence: int,
    dtstamp: Instant,
) -> tuple[ItipMessage, ...]:
    """The iTIP messages of one change to ``event``, one per attendee, sorted by recipient.

    Args:
        method: ``REQUEST`` (create, move, update) or ``CANCEL``.
        event: the ``VEVENT`` as it is after the change (whole event, ``RECURRENCE-ID``
            override, or ``RANGE=THISANDFUTURE`` override); not modified.
        organizer: the ``ORGANIZER`` address; listed among the attendees when named there,
            never a recipient.
        attendees: :class:`Attendee` values or address texts (a text is required).
        sequence: the ``SEQUENCE`` to write; at least the event's own ``SEQUENCE``
            (callers add 1 for a change attendees must see, RFC 5546 section 2.1.4).
        dtstamp: the ``DTSTAMP`` (UTC instant, from the caller's clock).

    Raises:
        ItipError: ``itip.no_attendees``, ``itip.bad_address``, ``itip.duplicate_attendee``,
            ``itip.sequence_backwards``, ``itip.bad_event`` (module doc).
        InvalidArgumentError: ``calendars.invalid_argument`` (wrong types, negative sequence).
    """
    vevent, recipients = _event(
        method,
        event,
        organizer=organizer,
        attendees=attendees,
        sequence=sequence,
        dtstamp=dtstamp,
    )
    data = _calendar(method, vevent)
    return tuple(ItipMessage(recipient, method, data) for recipient in recipients)


def request_messages(
    event: Event,
    *,
    organizer: str,
    attendees: Sequence[Attendee | str],
    sequence: int,
    dtstamp: Instant,
) -> tuple[ItipMessage, ...]:
    """:func:`itip_messages` with ``METHOD:REQUEST`` (RFC 5546 section 3.2.2); same
    arguments and errors."""
    return itip_messages(
        ItipMethod.REQUEST,
        event,
        organizer=organizer,
        attendees=attendees,
        sequence=sequence,
        dtstamp=dtstamp,
    )


def cancel_messages(
    event: Event,
    *,
    organizer: str,
    attendees: Sequence[Attendee | str],
    sequence: int,
    dtstamp: Instant,
) -> tuple[ItipMessage, ...]:
    """:func:`itip_messages` with ``METHOD:CANCEL`` and ``STATUS:CANCELLED`` (RFC 5546
    section 3.2.5); ``attendees`` are all of them when the whole event or instance is
    cancelled, only the removed ones when attendees are dropped. Same errors."""
    return itip_messages(
        ItipMethod.CANCEL,
        event,
        organizer=organizer,
        attendees=attendees,
        sequence=sequence,
        dtstamp=dtstamp,
    )


@arguments(
    invalid_argument,
    event=Event,
    organizer=str,
    attendees=Sequence,
    sequence=int,
    dtstamp=Instant,
)
def stored_object(
    event: Event,
    *,
    organizer: str,
    attendees: Sequence[Attendee | str],
    sequence: int,
    dtstamp: Instant,
) -> bytes:
    """The calendar object resource (``VCALENDAR`` bytes, no ``METHOD``: RFC 4791 section
    4.1) holding the same ``VEVENT`` as the REQUEST :func:`itip_messages` builds from the
    same arguments. Same errors."""
    vevent, _ = _event(
        None,
        event,
        organizer=organizer,
        attendees=attendees,
        sequence=sequence,
        dtstamp=dtstamp,
    )
    return _calendar(None, vevent)
