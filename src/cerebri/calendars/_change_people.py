"""``ORGANIZER`` and ``ATTENDEE`` lines for :mod:`cerebri.calendars.changes` (RFC 5545
sections 3.8.4.1 and 3.8.4.3, parameters of section 3.2; RFC 5546 section 3.2.2), with the
address checks of :mod:`cerebri.calendars.itip`."""

from __future__ import annotations

from collections.abc import Sequence

from icalendar import Component, vCalAddress

from cerebri.calendars._change_model import ChangeError, Participant
from cerebri.calendars.event_out import _address, _email
from cerebri.errors import InvalidArgumentError

__all__ = [
    "attendees_of",
    "check_people",
    "email",
    "organizer_of",
    "recipients",
    "stamp_people",
    "without_organizer",
]


def email(address: str) -> str:
    """The bare lower-case address of ``mailto:a@b``, ``a@b`` or ``Name <a@b>``;
    ``change.bad_address`` when it is not ``name@domain``."""
    return _email(_line(address, "address"))


def _line(text: str, what: str) -> vCalAddress:
    try:
        return _address(text, what)
    except InvalidArgumentError as error:
        raise ChangeError(error.message, code="change.bad_address") from None


def _lines(event: Component, name: str) -> list[vCalAddress]:
    value = event.get(name)
    if value is None:
        return []
    return [item for item in (value if isinstance(value, list) else [value])]


def organizer_of(event: Component) -> str | None:
    """The ``ORGANIZER`` of ``event`` as written, or ``None``."""
    lines = _lines(event, "ORGANIZER")
    return str(lines[0]) if lines else None


def _participant(line: vCalAddress) -> Participant:
    name = line.params.get("CN")
    role = str(line.params.get("ROLE", "REQ-PARTICIPANT")).upper()
    return Participant(str(line), None if name is None else str(name), role != "OPT-PARTICIPANT")


def attendees_of(event: Component) -> tuple[Participant, ...]:
    """The ``ATTENDEE`` lines of ``event`` in the order written (``ROLE`` other than
    ``OPT-PARTICIPANT`` counts as required; RFC 5545 section 3.2.16 makes
    ``REQ-PARTICIPANT`` the default)."""
    return tuple(_participant(line) for line in _lines(event, "ATTENDEE"))


def _partstats(event: Component) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in _lines(event, "ATTENDEE"):
        try:
            key = _email(line)
        except (TypeError, ValueError):  # an unreadable old line keeps nothing
            continue
        status = line.params.get("PARTSTAT")
        if status is not None:
            out[key] = str(status)
    return out


def _attendee_line(person: Participant, partstat: str) -> vCalAddress:
    if not isinstance(person, Participant):
        raise ChangeError("attendees must be Participant values", code="change.invalid")
    line = _line(person.address, "attendee")
    if person.name is not None:
        line.params["CN"] = person.name
    line.params["CUTYPE"] = "INDIVIDUAL"
    line.params["ROLE"] = "REQ-PARTICIPANT" if person.required else "OPT-PARTICIPANT"
    line.params["PARTSTAT"] = partstat
    line.params["RSVP"] = "TRUE"
    return line


def check_people(organizer: str | None, attendees: Sequence[Participant] | None) -> None:
    """Refuse bad addresses (``change.bad_address``) and an attendee named twice
    (``change.duplicate_attendee``) before anything is built."""
    if organizer is not None:
        _line(organizer, "organizer")
    seen: set[str] = set()
    for person in attendees or ():
        if not isinstance(person, Participant):
            raise ChangeError("attendees must be Participant values", code="change.invalid")
        key = _email(_line(person.address, "attendee"))
        if key in seen:
            raise ChangeError(
                f"attendee {key!r} is named more than once", code="change.duplicate_attendee"
            )
        seen.add(key)


def stamp_people(
    event: Component, organizer: str | None, attendees: Sequence[Participant] | None
) -> None:
    """Write ``ORGANIZER`` (when given) and the ``ATTENDEE`` list (when given) on ``event``:
    ``CUTYPE=INDIVIDUAL``, ``ROLE``, ``RSVP=TRUE``, ``CN`` when named, and the ``PARTSTAT``
    the attendee had on ``event`` (``NEEDS-ACTION`` for a new one)."""
    if organizer is not None:
        event.pop("ORGANIZER", None)
        event.add("ORGANIZER", _line(organizer, "organizer"))
    if attendees is None:
        return
    kept = _partstats(event)
    event.pop("ATTENDEE", None)
    for person in attendees:
        key = _email(_line(person.address, "attendee"))
        event.add("ATTENDEE", _attendee_line(person, kept.get(key, "NEEDS-ACTION")))


def without_organizer(
    people: Sequence[Participant], organizer: str | None
) -> tuple[Participant, ...]:
    """``people`` less the ``organizer`` (who sends, and is not told)."""
    boss = None if organizer is None else _safe_key(organizer)
    return tuple(person for person in people if _safe_key(person.address) != boss)


def recipients(event: Component, organizer: str | None = None) -> tuple[Participant, ...]:
    """The attendees of ``event`` to tell about a change, the organizer (``organizer``, else
    the event's ``ORGANIZER``) left out."""
    return without_organizer(
        attendees_of(event), organizer if organizer is not None else organizer_of(event)
    )


def _safe_key(address: str) -> str | None:
    try:
        return email(address)
    except ChangeError:
        return None
