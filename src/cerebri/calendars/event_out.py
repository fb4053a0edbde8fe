"""One found slot as an iCalendar invitation: ``find-slot --ics-out``.

:func:`slot_event` turns the candidate a user picks from a :class:`PlanningResult` into a
``VCALENDAR`` with ``METHOD:REQUEST`` (RFC 5546 section 3.2.2) holding one ``VEVENT``
(RFC 5545 section 3.6.1), written by the icalendar library:

* ``DTSTART``/``DTEND`` are local times in the target object's zone (the ``--tz`` of
  find-slot) with its ``VTIMEZONE`` made from zoneinfo; a UTC target gets UTC times and no
  ``VTIMEZONE``;
* ``DTSTAMP`` is the instant the caller passes (from the injected clock), never the wall
  clock, so the same inputs give the same bytes;
* ``UID`` is the caller's, else ``cerebri-`` and the 64 hex digits of the candidate's plan
  id (the SHA-256 of the canonical request and placements, planner.md 9.1): the same
  question answered by the same slot gives the same UID, so importing it twice updates one
  event instead of making two (docs/decisions/0028-an-event-out.md);
* ``ORGANIZER`` and one ``ATTENDEE`` per address (``RSVP=TRUE``, ``PARTSTAT=NEEDS-ACTION``)
  when the caller names them; the organizer is not repeated as an attendee, except when
  nobody else is named: then the organizer is the one ``ATTENDEE`` (``ROLE=CHAIR``,
  ``PARTSTAT=ACCEPTED``), so the REQUEST has both properties RFC 5546 section 3.2.2
  requires. With no address at all, neither property is written (decision 0028);
* ``SEQUENCE:0``, ``STATUS:CONFIRMED``, ``TRANSP:OPAQUE``: the slot is busy once imported.

Refusals are :class:`SlotEventError` (also a ``ValueError``): ``calendars.no_candidate``
when the result offers no candidate, ``calendars.invalid_pick`` when ``pick`` is not a
1-based index into the ranked candidates; wrong-typed arguments, an empty title or an
address without ``@`` are ``calendars.invalid_argument``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.utils import parseaddr

from icalendar import Calendar, Component, Event, vCalAddress

from cerebri._guard import arguments
from cerebri.calendars.answer import SlotAnswer
from cerebri.calendars.arguments import invalid_argument
from cerebri.calendars.owners import invitation_people
from cerebri.calendars.vtimezones import add_zones
from cerebri.cpir import PlanningRequest, PlanningResult, parse_request
from cerebri.errors import CerebriError
from cerebri.temporal import Instant, zone

__all__ = [
    "PRODID",
    "Invitation",
    "SlotEventError",
    "address_email",
    "calendar_address",
    "chosen_candidate",
    "invitation",
    "slot_event",
]

PRODID = "-//cerebri//find-slot//EN"
"""The ``PRODID`` of every calendar written here (RFC 5545 section 3.7.3)."""

_UID = re.compile(r"[\x21-\x7e]{1,255}")


class SlotEventError(CerebriError, ValueError):
    """No event can be written for the pick: codes ``calendars.no_candidate`` (the result
    has no candidate) and ``calendars.invalid_pick`` (the pick is not 1..number of
    candidates)."""

    code = "calendars.invalid_pick"


def chosen_candidate(result: PlanningResult, pick: int) -> tuple[Instant, Instant, str]:
    """``(start, end, plan_id)`` of candidate number ``pick`` (1-based, ranked order).

    The range is the placement of the candidate's own object (its ``object_id``).
    Raises :class:`SlotEventError` as described in the module doc.
    """
    count = len(result.candidates)
    if count == 0:
        raise SlotEventError(
            f"there is no candidate to write (outcome {result.outcome.value}); "
            "widen the window or relax the request",
            code="calendars.no_candidate",
        )
    if type(pick) is not int or not 1 <= pick <= count:
        raise SlotEventError(
            f"pick {pick!r} is not a candidate number; choose 1 to {count}",
            code="calendars.invalid_pick",
        )
    candidate = result.candidates[pick - 1]
    for placement in candidate.proposed.placements:
        if placement.object_id == candidate.object_id:
            return placement.range.start, placement.range.end, candidate.proposed.id
    placement = candidate.proposed.placements[0]
    return placement.range.start, placement.range.end, candidate.proposed.id


def calendar_address(text: str, what: str) -> vCalAddress:
    """``alice@example.com``, ``mailto:alice@example.com`` or ``Alice <alice@example.com>``
    as a ``mailto:`` calendar address (RFC 5545 section 3.3.3, with ``CN`` when a name is
    given). ``what`` names the value in the refusal: ``calendars.invalid_argument`` for text
    that is not ``name@domain``."""
    name, email = parseaddr(text.removeprefix("mailto:").removeprefix("MAILTO:"))
    if "@" not in email or any(c.isspace() for c in email) or email.startswith("@"):
        raise invalid_argument(f"{what} {text!r} is not an e-mail address (name@domain)")
    address = vCalAddress(f"mailto:{email}")
    if name:
        address.params["CN"] = name
    return address


def address_email(address: vCalAddress) -> str:
    """The address of a ``mailto:`` calendar address, lower case: how addresses are
    compared (the organizer is not repeated as an attendee, an owner is matched)."""
    return str(address).removeprefix("mailto:").lower()


_address, _email = calendar_address, address_email


def _zone_name(request: PlanningRequest, object_id: str) -> str:
    target = request.object(object_id)
    return "UTC" if target is None else str(target.timezone)


@arguments(
    invalid_argument,
    request=PlanningRequest,
    result=PlanningResult,
    pick=int,
    title=str,
    dtstamp=Instant,
    uid=(str, type(None)),
    attendees=Sequence,
    organizer=(str, type(None)),
    description=(str, type(None)),
)
def slot_event(
    request: PlanningRequest,
    result: PlanningResult,
    *,
    pick: int = 1,
    title: str,
    dtstamp: Instant,
    uid: str | None = None,
    attendees: Sequence[str] = (),
    organizer: str | None = None,
    description: str | None = None,
) -> bytes:
    """The iCalendar bytes (UTF-8, CRLF lines) of candidate ``pick`` of ``result``.

    Args:
        request: the request ``result`` answers (its target's ``timezone`` sets the local
            times).
        result: the planner's answer.
        pick: 1-based index into ``result.candidates`` (ranked order).
        title: the ``SUMMARY`` (not empty).
        dtstamp: the ``DTSTAMP`` (UTC instant, from the caller's clock).
        uid: the ``UID`` (1-255 printable ASCII characters without spaces), else derived
            from the candidate's plan id (module doc).
        attendees: e-mail addresses (``a@b``, ``mailto:a@b`` or ``Name <a@b>``); duplicates
            (case-insensitive) and the organizer are left out, order kept; when none is
            left, the organizer is written as the one attendee (``ROLE=CHAIR``).
        organizer: the ``ORGANIZER`` address, or None.
        description: an optional ``DESCRIPTION``.

    Raises:
        SlotEventError: ``calendars.no_candidate``, ``calendars.invalid_pick``.
        InvalidArgumentError: ``calendars.invalid_argument`` (wrong types, empty title,
            a bad UID or address).
    """
    if isinstance(attendees, str):
        raise invalid_argument("attendees must be a sequence of addresses, not one text")
    if not title.strip():
        raise invalid_argument("the event title must not be empty")
    if uid is not None and _UID.fullmatch(uid) is None:
        raise invalid_argument(f"UID {uid!r} must be 1-255 printable ASCII characters, no spaces")
    start, end, plan_id = chosen_candidate(result, pick)
    candidate = result.candidates[pick - 1]
    tz = zone(_zone_name(request, candidate.object_id))
    local_start, local_end, stamp = start.to_datetime(), end.to_datetime(), dtstamp.to_datetime()
    if local_start is None or local_end is None or stamp is None:
        raise invalid_argument("the slot and DTSTAMP must lie within the years 1-9999")
    calendar = Calendar()
    calendar.add("PRODID", PRODID)
    calendar.add("VERSION", "2.0")
    calendar.add("CALSCALE", "GREGORIAN")
    calendar.add("METHOD", "REQUEST")
    event = Event()
    event.add("UID", uid if uid is not None else f"cerebri-{plan_id.removeprefix('p-')}")
    event.add("DTSTAMP", stamp)
    event.add("DTSTART", local_start.astimezone(tz))
    event.add("DTEND", local_end.astimezone(tz))
    event.add("SUMMARY", title)
    if description is not None:
        event.add("DESCRIPTION", description)
    event.add("SEQUENCE", 0)
    event.add("STATUS", "CONFIRMED")
    event.add("TRANSP", "OPAQUE")
    seen: set[str] = set()
    if organizer is not None:
        boss = _address(organizer, "organizer")
        event.add("ORGANIZER", boss)
        seen.add(_email(boss))
    for text in attendees:
        if not isinstance(text, str):
            raise invalid_argument(f"attendees must be text, got {type(text).__name__}")
        person = _address(text, "attendee")
        if _email(person) in seen:
            continue
        seen.add(_email(person))
        person.params.update(
            {"CUTYPE": "INDIVIDUAL", "ROLE": "REQ-PARTICIPANT", "PARTSTAT": "NEEDS-ACTION"}
        )
        person.params["RSVP"] = "TRUE"
        event.add("ATTENDEE", person)
    if organizer is not None and len(seen) == 1:  # the organizer alone: a REQUEST needs both
        chair = _address(organizer, "organizer")
        chair.params.update({"CUTYPE": "INDIVIDUAL", "ROLE": "CHAIR", "PARTSTAT": "ACCEPTED"})
        event.add("ATTENDEE", chair)
    calendar.add_component(event)
    add_zones(calendar)
    return bytes(calendar.to_ical())


@dataclass(frozen=True, slots=True)
class Invitation:
    """A found slot as an invitation: the iCalendar bytes (:func:`slot_event`) and who it
    names (:func:`~cerebri.calendars.owners.invitation_people`)."""

    data: bytes
    organizer: str | None
    attendees: tuple[str, ...]


def invitation(
    answer: SlotAnswer,
    calendars: Sequence[tuple[str, Component]],
    *,
    pick: int,
    title: str,
    dtstamp: Instant,
    calendar: str | None = None,
    organizer: str | None = None,
    attendees: Sequence[str] = (),
    uid: str | None = None,
) -> Invitation:
    """Candidate ``pick`` of a find-slot ``answer`` over ``calendars`` as an invitation:
    ``find-slot --ics-out`` and ``POST /v1/find-slot/event`` (docs/decisions/0028). The
    organizer and attendees follow :func:`~cerebri.calendars.owners.invitation_people`
    (``calendar``, ``organizer``, ``attendees``); ``DTSTAMP`` is ``dtstamp``.

    Raises:
        SlotEventError: ``calendars.no_candidate``, ``calendars.invalid_pick``.
        InvalidArgumentError: ``calendars.invalid_argument`` (wrong types, empty title,
            a bad UID or address).
    """
    boss, people = invitation_people(
        calendars, calendar=calendar, organizer=organizer, attendees=attendees
    )
    data = slot_event(
        parse_request(answer.request),
        answer.result,
        pick=pick,
        title=title,
        dtstamp=dtstamp,
        uid=uid,
        attendees=people,
        organizer=boss,
    )
    return Invitation(data, boss, tuple(people))
